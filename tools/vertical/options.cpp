#include "vertical/options.hpp"

#include <cstdio>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "cli/deprecated_flag.hpp"
#include "cli/field_check.hpp"
#include "cli/tool_cli.hpp"

namespace p2b::vertical {
namespace {

// The first problem among the bounded scalar fields, or "".
std::string check_scalars(const Options& o) {
  using tools::check_range;
  for (const std::string& e : {
           tools::check_member("--env", o.env, {"synthetic", "multilabel"}),
           check_range<uint32_t>("--seeds", o.run.seeds, 1, 1000000),
           check_range<uint32_t>("--threads", o.run.threads, 1, 1024),
           check_range<uint32_t>("--dim", o.dim, 2, 1024),
           check_range<uint32_t>("--actions", o.actions, 1, 65536),
           check_range<uint64_t>("--rounds", o.rounds, 1, 100000000),
           check_range("--beta", o.beta, 0.0, 1e6),
           check_range("--ts-scale", o.ts_scale, 0.0, 1e6),
           check_range("--noise-sd", o.noise_sd, 0.0, 10.0),
           check_range("--tie", o.tie, 0.0, 1e-2),
           check_range<uint32_t>("--parties", o.parties, 2, 64),
           check_range<uint32_t>("--components", o.components, 1, 64),
           check_range<uint32_t>("--cost-parties", o.cost_parties, 2, 64),
           check_range<uint32_t>("--cost-rounds", o.cost_rounds, 1, 100000),
       }) {
    if (!e.empty()) return e;
  }
  return "";
}

// The first problem among the list fields, or "".
std::string check_lists(const Options& o) {
  for (const std::string& e : {
           tools::check_each<uint32_t>("--partition", o.partition, 1, 1024),
           // empty: the active party's partial model alone
           o.partial.empty() ? "" : tools::check_each("--partial", o.partial, 0.0, 1.0),
           tools::check_each<uint32_t>("--cost-dims", o.cost_dims, 2, 1024),
           tools::check_each<uint32_t>("--cost-actions", o.cost_actions, 1, 65536),
       }) {
    if (!e.empty()) return e;
  }
  if (o.policies.empty()) return "--policies is empty: must name linucb, lints or both";
  for (const std::string& p : o.policies) {
    std::string e = tools::check_member("--policies", p, {"linucb", "lints"});
    if (!e.empty()) return e;
  }
  return "";
}

}  // namespace

std::string validate(const Options& o) {
  if (std::string e = check_scalars(o); !e.empty()) return e;
  if (std::string e = check_lists(o); !e.empty()) return e;
  if (o.env == "synthetic" && !o.cost) {
    const uint32_t sum = std::accumulate(o.partition.begin(), o.partition.end(), 0U);
    if (sum != o.dim || o.partition.size() < 2) {
      return "--partition sums to " + std::to_string(sum) + " in " +
             std::to_string(o.partition.size()) +
             " blocks: must be 2 or more blocks summing to --dim (" + std::to_string(o.dim) + ")";
    }
  }
  if (o.env == "multilabel" && !o.cost && o.data.empty()) {
    return "--data is empty: --env multilabel needs --data FILE.arff";
  }
  return "";
}

namespace {

void add_model_flags(CLI::App& app, Options* o) {
  app.add_option("--env", o->env, "synthetic or multilabel")
      ->type_name("NAME")
      ->check(CLI::IsMember({"synthetic", "multilabel"}))
      ->capture_default_str();
  app.add_option("--dim", o->dim, "d, synthetic")->type_name("N")->capture_default_str();
  app.add_option("--actions", o->actions, "K, items per round, synthetic")
      ->type_name("N")
      ->capture_default_str();
  app.add_option("--rounds", o->rounds, "T, rounds per run")->type_name("N")->capture_default_str();
  app.add_option("--partition", o->partition, "column blocks d_j, party 0 first")
      ->delimiter(',')
      ->type_name("LIST")
      ->capture_default_str();
  app.add_option("--partial", o->partial, "partial ratios: models on the first ratio*d columns")
      ->delimiter(',')
      ->type_name("LIST")
      ->capture_default_str();
  app.add_option("--policies", o->policies, "linucb, lints or both")
      ->delimiter(',')
      ->type_name("LIST")
      ->check(CLI::IsMember({"linucb", "lints"}))
      ->capture_default_str();
  app.add_option("--beta", o->beta, "LinUCB's exploration weight")
      ->type_name("X")
      ->capture_default_str();
  app.add_option("--ts-scale", o->ts_scale, "LinTS's v")->type_name("X")->capture_default_str();
  app.add_option("--noise-sd", o->noise_sd, "reward noise standard deviation, synthetic")
      ->type_name("X")
      ->capture_default_str();
  app.add_option("--tie", o->tie, "tie tolerance of every model")
      ->type_name("X")
      ->capture_default_str();
}

void add_data_and_cost_flags(CLI::App& app, Options* o) {
  app.add_option("--data", o->data, "multi-label ARFF (--env multilabel)")->type_name("FILE");
  app.add_option("--labels", o->labels, "where the labels are: auto, first:N, last:N")
      ->type_name("WHERE")
      ->capture_default_str();
  app.add_option("--parties", o->parties, "multilabel: M parties")
      ->type_name("N")
      ->capture_default_str();
  app.add_option("--components", o->components, "multilabel: local components per party")
      ->type_name("N")
      ->capture_default_str();
  app.add_flag("--cost", o->cost, "measure time and bytes per decision over a (d, K) grid instead");
  app.add_option("--cost-dims", o->cost_dims, "d values of --cost")
      ->delimiter(',')
      ->type_name("LIST")
      ->capture_default_str();
  app.add_option("--cost-actions", o->cost_actions, "K values of --cost")
      ->delimiter(',')
      ->type_name("LIST")
      ->capture_default_str();
  app.add_option("--cost-parties", o->cost_parties, "M of --cost")
      ->type_name("N")
      ->capture_default_str();
  app.add_option("--cost-rounds", o->cost_rounds, "timed rounds per --cost point")
      ->type_name("N")
      ->capture_default_str();
}

// The whole command line, bound to *o (and the --protocol word to
// *protocol): parse_options and long_flags share it.
std::unique_ptr<CLI::App> make_app(Options* o, std::string* protocol) {
  auto app = std::make_unique<CLI::App>(
      "p2b-sim --protocol vertical: seed 003's O3M vertical federation. Runs central,\n"
      "federated (masked) and partial models on the same draws and reports regret,\n"
      "time and bytes (docs/simulator.md#vertical).",
      "p2b-sim");
  tools::add_common_flags(*app);
  tools::add_common_run_flags(*app, o->run);
  tools::add_deprecated_alias(*app, "--repeats", "--seeds", o->run.seeds);
  app->add_option("--protocol", *protocol, "vertical")
      ->type_name("NAME")
      ->required()
      ->check(CLI::IsMember({"vertical"}));
  add_model_flags(*app, o);
  add_data_and_cost_flags(*app, o);
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

}  // namespace p2b::vertical
