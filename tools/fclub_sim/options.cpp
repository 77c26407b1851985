#include "fclub_sim/options.hpp"

#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>

#include "cli/field_check.hpp"
#include "cli/tool_cli.hpp"

namespace p2b::fclub_sim {

namespace {

const std::vector<std::string> kReference{"linucb-ind", "club",     "sclub",
                                          "homo-dc",    "fclub-dc", "cdp-fclub-dc"};
constexpr uint64_t kMaxRounds = uint64_t{1} << 30;
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string check_scalars(const Options& o) {
  using tools::check_range;
  return tools::first_problem({
      check_range<uint32_t>("--seeds", o.run.seeds, 1, 1000000),
      check_range<uint32_t>("--threads", o.run.threads, 1, 1024),
      tools::check_member("--mode", o.mode, {"default", "reference"}),
      check_range<uint64_t>("--rounds", o.rounds, 1, kMaxRounds),
      check_range<uint64_t>("--every", o.every, 1, kMaxRounds),
      check_range<uint32_t>("--users", o.users, 1, 100000),
      check_range<uint32_t>("--servers", o.servers, 1, 1000),
      check_range<uint32_t>("--clusters", o.clusters, 1, 100000),
      check_range<uint32_t>("--items", o.items, 1, 10000),
      tools::check_member("--layout", o.layout, {"auto", "blocks", "shuffled"}),
      check_range("--delta", o.delta, 1e-12, 0.5),
      check_range("--beta-scale", o.beta_scale, 0.0, 1e3),
      check_range("--split-alpha", o.split_alpha, 1e-6, 1e6),
      check_range("--merge-alpha", o.merge_alpha, 1e-6, 1e6),
      check_range("--theta-gap", o.theta_gap, 0.0, 1e3),
      check_range("--upload-ratio", o.upload_ratio, 1.0, 1e6),
      check_range("--download-ratio", o.download_ratio, 1.0, 1e6),
  });
}

std::string check_algorithms(const Options& o) {
  for (const std::string& a : o.algorithms) {
    if (std::string why = tools::check_member("--algorithms", a, all_algorithms()); !why.empty())
      return why;
    if (o.mode == "reference" && (a == "homo" || a == "fclub")) {
      return "--algorithms = " + a +
             ": --mode reference has no such algorithm (the authors' synchronous variants take "
             "about an hour a seed and were not run as the peer, docs/fclub.md)";
    }
  }
  return {};
}

}  // namespace

const std::vector<std::string>& all_algorithms() {
  static const std::vector<std::string> all{"linucb-ind", "club",  "sclub",    "homo",
                                            "homo-dc",    "fclub", "fclub-dc", "cdp-fclub-dc"};
  return all;
}

std::vector<std::string> algorithms_to_run(const Options& o) {
  if (!o.algorithms.empty()) return o.algorithms;
  return o.mode == "reference" ? kReference : all_algorithms();
}

std::string validate(const Options& o) {
  std::string why = tools::first_problem({
      check_scalars(o),
      check_algorithms(o),
      tools::check_each<uint32_t>("--dims", o.dims, 2, 64),
      tools::check_each("--epsilons", o.epsilons, 1e-3, kInf),
  });
  if (!why.empty()) return why;
  if (o.users < o.servers) {
    return "--users = " + std::to_string(o.users) + ": must be at least --servers (" +
           std::to_string(o.servers) + ")";
  }
  if (!o.thetas.empty() && !std::filesystem::is_regular_file(o.thetas))
    return "--thetas = " + o.thetas + ": must be an existing .npy file";
  return {};
}

namespace {

void add_model_flags(CLI::App& app, Options* o) {
  app.add_option("--mode", o->mode, "default (the paper's maths) or reference (the authors' code)")
      ->type_name("MODE")
      ->check(CLI::IsMember({"default", "reference"}))
      ->capture_default_str();
  app.add_option("--algorithms", o->algorithms,
                 "any of linucb-ind, club, sclub, homo, homo-dc, fclub, fclub-dc, cdp-fclub-dc\n"
                 "[all the mode has]")
      ->type_name("LIST")
      ->delimiter(',')
      ->check(CLI::IsMember(all_algorithms()));
  app.add_option("--epsilons", o->epsilons,
                 "CDP-FCLUB-DC's epsilon, a grid axis; inf: the private path without noise [1]")
      ->type_name("EPS,...")
      ->delimiter(',')
      ->check(CLI::Range(1e-3, kInf));
  app.add_option("--delta", o->delta, "CDP-FCLUB-DC's delta")
      ->type_name("X")
      ->check(CLI::Range(1e-12, 0.5))
      ->capture_default_str();
  app.add_option("--beta-scale", o->beta_scale,
                 "default mode: the one beta scale of every algorithm")
      ->type_name("X")
      ->check(CLI::Range(0.0, 1e3))
      ->capture_default_str();
  app.add_option("--split-alpha", o->split_alpha, "default mode: alpha of Eq. 3 (users split)")
      ->type_name("X")
      ->check(CLI::Range(1e-6, 1e6))
      ->capture_default_str();
  app.add_option("--merge-alpha", o->merge_alpha, "default mode: alpha_2 of Eq. 4 (clusters merge)")
      ->type_name("X")
      ->check(CLI::Range(1e-6, 1e6))
      ->capture_default_str();
  app.add_option("--theta-gap", o->theta_gap,
                 "CDP-FCLUB-DC: the least distance between clusters' theta its noisy merge\n"
                 "test may assume; 0 assumes none")
      ->type_name("X")
      ->check(CLI::Range(0.0, 1e3))
      ->capture_default_str();
  app.add_option("--upload-ratio", o->upload_ratio, "U")
      ->type_name("X")
      ->check(CLI::Range(1.0, 1e6))
      ->capture_default_str();
  app.add_option("--download-ratio", o->download_ratio, "D")
      ->type_name("X")
      ->check(CLI::Range(1.0, 1e6))
      ->capture_default_str();
}

void add_world_flags(CLI::App& app, Options* o) {
  app.add_option("--rounds", o->rounds, "T")
      ->type_name("N")
      ->check(CLI::Range(uint64_t{1}, kMaxRounds))
      ->capture_default_str();
  app.add_option("--every", o->every, "record the regret curve every this many rounds")
      ->type_name("N")
      ->check(CLI::Range(uint64_t{1}, kMaxRounds))
      ->capture_default_str();
  app.add_option("--users", o->users, "N")
      ->type_name("N")
      ->check(CLI::Range(1U, 100000U))
      ->capture_default_str();
  app.add_option("--servers", o->servers, "local servers L")
      ->type_name("N")
      ->check(CLI::Range(1U, 1000U))
      ->capture_default_str();
  app.add_option("--clusters", o->clusters, "distinct theta when generated")
      ->type_name("N")
      ->check(CLI::Range(1U, 100000U))
      ->capture_default_str();
  app.add_option("--dims", o->dims, "d values, a grid axis [10]")
      ->type_name("N,...")
      ->delimiter(',')
      ->check(CLI::Range(2U, 64U));
  app.add_option("--items", o->items, "K items per round")
      ->type_name("N")
      ->check(CLI::Range(1U, 10000U))
      ->capture_default_str();
  app.add_option("--thetas", o->thetas,
                 "per-user theta (.npy, users x d), e.g. from MovieLens (docs/fclub.md)")
      ->type_name("FILE")
      ->check(CLI::ExistingFile);
  app.add_option("--layout", o->layout,
                 "users over servers: blocks (the authors': equal runs of users, so that with\n"
                 "generated theta each server holds one true cluster), shuffled (clusters spread\n"
                 "over servers), auto = blocks")
      ->type_name("LAYOUT")
      ->check(CLI::IsMember({"auto", "blocks", "shuffled"}))
      ->capture_default_str();
}

// The command line's parser, bound to *o (and the --protocol value to
// *protocol): parse_options and long_flags share it.
std::unique_ptr<CLI::App> make_app(Options* o, std::string* protocol) {
  auto app = std::make_unique<CLI::App>(
      "p2b-sim --protocol fclub: seed 001's federated clustering of bandits (FCLUB).\n"
      "Runs every algorithm on the same users, items and reward coins per seed and\n"
      "reports regret, communication and privacy spent (docs/simulator.md#fclub).",
      "p2b-sim");
  tools::add_common_flags(*app);
  app->add_option("--protocol", *protocol, "fclub")
      ->type_name("NAME")
      ->required()
      ->check(CLI::IsMember({"fclub"}));
  tools::add_common_run_flags(*app, o->run);
  add_model_flags(*app, o);
  add_world_flags(*app, o);
  return app;
}

}  // namespace

std::vector<std::string> long_flags() {
  Options o;
  std::string protocol;
  return tools::visible_long_flags(*make_app(&o, &protocol));
}

int parse_options(int argc, char** argv, Options* o) {
  std::string protocol;
  const auto app = make_app(o, &protocol);
  return tools::parse_command_line(*app, argc, argv);
}

}  // namespace p2b::fclub_sim
