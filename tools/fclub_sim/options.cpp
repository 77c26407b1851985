#include "fclub_sim/options.hpp"

#include <cstdio>
#include <cstdlib>

#include "cli/tool_cli.hpp"

namespace p2b::fclub_sim {

namespace {
const std::vector<std::string> kAll{"linucb-ind", "club",  "sclub",    "homo",
                                    "homo-dc",    "fclub", "fclub-dc", "cdp-fclub-dc"};
const std::vector<std::string> kReference{"linucb-ind", "club",     "sclub",
                                          "homo-dc",    "fclub-dc", "cdp-fclub-dc"};
}  // namespace

int parse_options(int argc, char** argv, Options* o) {
  CLI::App app(
      "p2b-sim --protocol fclub: seed 001's federated clustering of bandits (FCLUB).\n"
      "Runs every algorithm on the same users, items and reward coins per seed and\n"
      "reports regret, communication and privacy spent (docs/simulator.md#fclub).",
      "p2b-sim");
  tools::add_common_flags(app);
  std::string protocol;
  app.add_option("--protocol", protocol, "fclub")->required()->check(CLI::IsMember({"fclub"}));
  app.add_option("--mode", o->mode,
                 "default (the paper's maths) or reference (the authors' code) [default]")
      ->check(CLI::IsMember({"default", "reference"}));
  app.add_option("--algorithms", o->algorithms,
                 "any of linucb-ind, club, sclub, homo, homo-dc, fclub, fclub-dc, cdp-fclub-dc\n"
                 "[all the mode has]")
      ->delimiter(',')
      ->check(CLI::IsMember(kAll));
  app.add_option("--seeds", o->seeds, "runs per algorithm, seeds seed..seed+seeds-1 [10]")
      ->check(CLI::Range(1U, 1000U));
  app.add_option("--seed", o->seed, "first seed [1]");
  app.add_option("--rounds", o->rounds, "T [100000]")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 30));
  app.add_option("--every", o->every, "record the regret curve every this many rounds [1000]")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 30));
  app.add_option("--users", o->users, "N [40]")->check(CLI::Range(1U, 100000U));
  app.add_option("--servers", o->servers, "local servers L [5]")->check(CLI::Range(1U, 1000U));
  app.add_option("--clusters", o->clusters, "distinct theta when generated [5]")
      ->check(CLI::Range(1U, 100000U));
  app.add_option("--dims", o->dims, "d values, a grid axis [10]")
      ->delimiter(',')
      ->check(CLI::Range(2U, 64U));
  app.add_option("--items", o->items, "K items per round [10]")->check(CLI::Range(1U, 10000U));
  app.add_option("--thetas", o->thetas,
                 "per-user theta (.npy, users x d), e.g. from MovieLens (docs/fclub.md)")
      ->check(CLI::ExistingFile);
  app.add_option("--layout", o->layout,
                 "users over servers: blocks (the authors': equal runs of users, so that with\n"
                 "generated theta each server holds one true cluster), shuffled (clusters spread\n"
                 "over servers), auto = blocks [auto]")
      ->check(CLI::IsMember({"auto", "blocks", "shuffled"}));
  app.add_option("--epsilons", o->epsilons,
                 "CDP-FCLUB-DC's epsilon, a grid axis; inf: the private path without noise [1]")
      ->delimiter(',')
      ->check(CLI::Validator(
          [](std::string& v) {
            const double e = std::strtod(v.c_str(), nullptr);
            return e >= 1e-3 ? std::string() : "epsilon must be >= 0.001 or inf";
          },
          "EPSILON"));
  app.add_option("--delta", o->delta, "CDP-FCLUB-DC's delta [0.1]")->check(CLI::Range(1e-12, 0.5));
  app.add_option("--beta-scale", o->beta_scale,
                 "default mode: the one beta scale of every algorithm [0.25]")
      ->check(CLI::Range(0.0, 1e3));
  app.add_option("--split-alpha", o->split_alpha,
                 "default mode: alpha of Eq. 3 (users split) [1.5]")
      ->check(CLI::Range(1e-6, 1e6));
  app.add_option("--merge-alpha", o->merge_alpha,
                 "default mode: alpha_2 of Eq. 4 (clusters merge) [2]")
      ->check(CLI::Range(1e-6, 1e6));
  app.add_option("--theta-gap", o->theta_gap,
                 "CDP-FCLUB-DC: the least distance between clusters' theta its noisy merge\n"
                 "test may assume; 0 assumes none [0]")
      ->check(CLI::Range(0.0, 1e3));
  app.add_option("--upload-ratio", o->upload_ratio, "U [1.01]")->check(CLI::Range(1.0, 1e6));
  app.add_option("--download-ratio", o->download_ratio, "D [1.01]")->check(CLI::Range(1.0, 1e6));
  app.add_option("--threads", o->threads, "runs at once [2]")->check(CLI::Range(1U, 256U));
  app.add_flag("--plot", o->plot, "draw PNGs with tools/plot_fclub.py");
  app.add_flag("--quiet", o->quiet, "no progress bar");
  app.add_option("--out", o->out_dir, "output directory [out/fclub]");
  const int st = tools::parse_command_line(app, argc, argv);
  if (st >= 0) return st;
  if (o->algorithms.empty()) o->algorithms = o->mode == "reference" ? kReference : kAll;
  for (const std::string& a : o->algorithms) {
    if (o->mode == "reference" && (a == "homo" || a == "fclub")) {
      std::fprintf(stderr,
                   "p2b-sim: --mode reference has no %s: the authors' synchronous variants take\n"
                   "about an hour a seed and were not run as the peer (docs/fclub.md)\n",
                   a.c_str());
      return 2;
    }
  }
  if (o->users < o->servers) {
    std::fprintf(stderr, "p2b-sim: --users (%u) must be at least --servers (%u)\n", o->users,
                 o->servers);
    return 2;
  }
  if (o->layout == "auto") o->layout = "blocks";
  return -1;
}

}  // namespace p2b::fclub_sim
