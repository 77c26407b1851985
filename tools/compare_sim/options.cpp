#include "compare_sim/options.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/field_check.hpp"
#include "cli/tool_cli.hpp"

namespace p2b::compare_sim {
namespace {

// The first problem among the bounded scalar fields, or "".
std::string check_scalars(const Options& o) {
  using tools::check_range;
  for (const std::string& e : {
           check_range<uint32_t>("--seeds", o.run.seeds, 1, 1000000),
           check_range<uint32_t>("--threads", o.run.threads, 1, 1024),
           check_range<uint32_t>("--users", o.users, 10, 1000000),
           check_range("--early-fraction", o.early_fraction, 0.05, 0.95),
           check_range<uint32_t>("--interactions", o.interactions, 1, 1000),
           check_range<uint32_t>("--dim", o.dim, 2, 64),
           check_range<uint32_t>("--actions", o.actions, 2, 32),
           tools::check_member("--mapping", o.mapping, {"linear", "softmax"}),
           check_range("--beta", o.beta, 1e-6, 1.0),
           check_range("--noise-sd", o.noise_sd, 0.0, 1.0),
           check_range<uint32_t>("--ml-dim", o.ml_dim, 1, 64),
           check_range("--alpha", o.alpha, 0.0, 1e3),
           check_range<uint32_t>("--codes", o.codes, 1, 4096),
           check_range<uint32_t>("--threshold", o.threshold, 1, 100000),
           check_range("--delta", o.delta, 1e-12, 0.5),
           check_range<uint32_t>("--servers", o.servers, 1, 64),
           check_range("--beta-scale", o.beta_scale, 0.0, 1e3),
           check_range("--omega1", o.omega1, 0.0, 1e12),
           check_range("--omega2", o.omega2, 0.0, 1e6),
       }) {
    if (!e.empty()) return e;
  }
  return "";
}

// The first problem among the list fields, or "".
std::string check_lists(const Options& o) {
  for (const std::string& e : {
           tools::check_each("--participations", o.participations, 0.01, 0.99),
           tools::check_each("--epsilons", o.epsilons, 1e-3, 1e6),
           // empty: the knob axes, not equal privacy
           o.spends.empty() ? "" : tools::check_each("--spends", o.spends, 1e-3, 1e3),
       }) {
    if (!e.empty()) return e;
  }
  for (const std::string& env : o.envs) {
    std::string e = tools::check_member("--envs", env, {"synthetic", "multilabel"});
    if (!e.empty()) return e;
  }
  for (const std::string& p : o.protocols) {
    std::string e =
        tools::check_member("--protocols", p, {"local", "p2b", "fclub", "pfcb", "o3m", "pooled"});
    if (!e.empty()) return e;
  }
  if (o.envs.empty()) return "--envs is empty: must name synthetic, multilabel or both";
  if (o.protocols.empty()) return "--protocols is empty: must name one protocol or more";
  return "";
}

// What the fields must satisfy together.
std::string check_combinations(const Options& o) {
  const bool wants_ml = std::find(o.envs.begin(), o.envs.end(), "multilabel") != o.envs.end();
  if (wants_ml && o.data.empty()) {
    return "--data is empty: --envs multilabel needs --data FILE.arff (e.g. yeast.arff), or "
           "pass --envs synthetic";
  }
  if (o.users < 2 * o.servers) {
    return "--users = " + std::to_string(o.users) + ": must be at least twice --servers (" +
           std::to_string(o.servers) + ")";
  }
  if (o.dim * o.actions > 64) {
    return "--dim x --actions = " + std::to_string(o.dim * o.actions) +
           ": must be at most 64 (FCLUB's per-item contexts, x one-hot by arm, fit the P2BU "
           "wire's 64 dimensions)";
  }
  return "";
}

void add_model_flags(CLI::App& app, Options* o) {
  app.add_option("--envs", o->envs, "synthetic and/or multilabel")
      ->delimiter(',')
      ->type_name("LIST")
      ->check(CLI::IsMember({"synthetic", "multilabel"}))
      ->capture_default_str();
  app.add_option("--protocols", o->protocols, "any of local, p2b, fclub, pfcb, o3m, pooled")
      ->delimiter(',')
      ->type_name("LIST")
      ->check(CLI::IsMember({"local", "p2b", "fclub", "pfcb", "o3m", "pooled"}))
      ->capture_default_str();
  app.add_option("--users", o->users, "N, both cohorts")->type_name("N")->capture_default_str();
  app.add_option("--early-fraction", o->early_fraction, "the early cohort's share of N")
      ->type_name("X")
      ->capture_default_str();
  app.add_option("--interactions", o->interactions, "T_u, steps per user")
      ->type_name("N")
      ->capture_default_str();
  app.add_option("--dim", o->dim, "synthetic d")->type_name("N")->capture_default_str();
  app.add_option("--actions", o->actions, "synthetic |A|")->type_name("N")->capture_default_str();
  app.add_option("--mapping", o->mapping, "synthetic map: linear or softmax")
      ->type_name("MAP")
      ->check(CLI::IsMember({"linear", "softmax"}))
      ->capture_default_str();
  app.add_option("--beta", o->beta, "synthetic reward scale")
      ->type_name("X")
      ->capture_default_str();
  app.add_option("--noise-sd", o->noise_sd, "synthetic reward noise sd")
      ->type_name("X")
      ->capture_default_str();
  app.add_option("--data", o->data, "multi-label ARFF (e.g. yeast.arff)")
      ->type_name("FILE")
      ->check(CLI::ExistingFile);
  app.add_option("--labels", o->labels, "where the labels are: auto, first:N, last:N")
      ->type_name("WHERE")
      ->capture_default_str();
  app.add_option("--ml-dim", o->ml_dim, "multi-label d after reduction")
      ->type_name("N")
      ->capture_default_str();
  app.add_option("--alpha", o->alpha, "LinUCB alpha of the device agent")
      ->type_name("X")
      ->capture_default_str();
}

void add_privacy_flags(CLI::App& app, Options* o) {
  app.add_option("--participations", o->participations, "P2B's p, its epsilon axis")
      ->delimiter(',')
      ->type_name("LIST")
      ->capture_default_str();
  app.add_option("--codes", o->codes, "P2B codebook size k")->type_name("N")->capture_default_str();
  app.add_option("--threshold", o->threshold, "P2B crowd threshold l")
      ->type_name("N")
      ->capture_default_str();
  app.add_option("--epsilons", o->epsilons, "FCLUB's and P-FCB-style's epsilon axis")
      ->delimiter(',')
      ->type_name("LIST")
      ->capture_default_str();
  app.add_option("--delta", o->delta, "the one delta every Gaussian mechanism is stated at")
      ->type_name("X")
      ->capture_default_str();
  app.add_option("--spends", o->spends,
                 "equal privacy: epsilon per user over the horizon at --delta; P2B, FCLUB and\n"
                 "P-FCB-style run at the knobs that spend each (replaces their axes) [off]")
      ->delimiter(',')
      ->type_name("LIST");
  app.add_option("--servers", o->servers, "FCLUB local servers")
      ->type_name("N")
      ->capture_default_str();
  app.add_option("--beta-scale", o->beta_scale, "FCLUB beta scale")
      ->type_name("X")
      ->capture_default_str();
  app.add_option("--omega1", o->omega1, "P-FCB-style acceptance radius factor")
      ->type_name("X")
      ->capture_default_str();
  app.add_option("--omega2", o->omega2, "P-FCB-style weight of an accepted report")
      ->type_name("X")
      ->capture_default_str();
  app.add_flag("!--no-nonprivate-variants", o->nonprivate_variants,
               "skip FCLUB-DC and P-FCB-style at epsilon = infinity");
}

// The whole command line, bound to *o (and the --protocol word to
// *protocol): parse_options and long_flags share it.
std::unique_ptr<CLI::App> make_app(Options* o, std::string* protocol) {
  auto app = std::make_unique<CLI::App>(
      "p2b-sim --protocol compare: local-only, P2B, FCLUB-style clustered sharing,\n"
      "P-FCB-style noisy deltas, O3M and pooled (non-private) LinUCB on the same users, the\n"
      "same schedule and the same reward coins, with privacy and communication per user\n"
      "stated side by side (docs/simulator.md#compare).",
      "p2b-sim");
  tools::add_common_flags(*app);
  tools::add_common_run_flags(*app, o->run);
  app->add_option("--protocol", *protocol, "compare")
      ->type_name("NAME")
      ->required()
      ->check(CLI::IsMember({"compare"}));
  add_model_flags(*app, o);
  add_privacy_flags(*app, o);
  return app;
}

}  // namespace

std::string validate(const Options& o) {
  if (std::string e = check_scalars(o); !e.empty()) return e;
  if (std::string e = check_lists(o); !e.empty()) return e;
  return check_combinations(o);
}

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

}  // namespace p2b::compare_sim
