#include "vertical/options.hpp"

#include <numeric>
#include <stdexcept>
#include <thread>

#include "cli/tool_cli.hpp"

namespace p2b::vertical {

int parse_options(int argc, char** argv, Options* o) {
  CLI::App app(
      "p2b-sim --protocol vertical: seed 003's O3M vertical federation. Runs central,\n"
      "federated (masked) and partial models on the same draws and reports regret,\n"
      "time and bytes (docs/simulator.md#vertical).",
      "p2b-sim");
  tools::add_common_flags(app);
  std::string protocol;
  app.add_option("--protocol", protocol, "vertical")
      ->required()
      ->check(CLI::IsMember({"vertical"}));
  app.add_option("--env", o->env, "synthetic or multilabel [synthetic]")
      ->check(CLI::IsMember({"synthetic", "multilabel"}));
  app.add_option("--dim", o->dim, "d, synthetic [100]")->check(CLI::Range(2U, 1024U));
  app.add_option("--actions", o->items, "K, items per round, synthetic [10]")
      ->check(CLI::Range(1U, 65536U));
  app.add_option("--rounds", o->rounds, "T, rounds per run [5000]")
      ->check(CLI::Range(uint64_t{1}, uint64_t{100000000}));
  app.add_option("--partition", o->partition, "column blocks d_j, party 0 first [20,20,20,20,20]")
      ->delimiter(',')
      ->check(CLI::Range(1U, 1024U));
  app.add_option("--partial", o->partial,
                 "partial ratios: models on the first ratio*d columns [0.2,0.8]")
      ->delimiter(',')
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--repeats", o->repeats, "runs per policy, seeds seed..seed+repeats-1 [5]")
      ->check(CLI::Range(1U, 1000U));
  app.add_option("--seed", o->seed, "first seed [1]");
  std::vector<std::string> policies;
  app.add_option("--policies", policies, "linucb, lints or both [linucb,lints]")
      ->delimiter(',')
      ->check(CLI::IsMember({"linucb", "lints"}));
  app.add_option("--beta", o->beta, "LinUCB's exploration weight [0.5]")
      ->check(CLI::Range(0.0, 1e6));
  app.add_option("--ts-scale", o->ts_scale, "LinTS's v [0.01]")->check(CLI::Range(0.0, 1e6));
  app.add_option("--noise-sd", o->noise_sd, "reward noise standard deviation, synthetic [0.05]")
      ->check(CLI::Range(0.0, 10.0));
  app.add_option("--tie", o->tie, "tie tolerance of every model [1e-9]")
      ->check(CLI::Range(0.0, 1e-2));
  app.add_option("--data", o->data, "multi-label ARFF (--env multilabel)");
  app.add_option("--labels", o->labels, "where the labels are: auto, first:N, last:N [auto]");
  app.add_option("--parties", o->parties, "multilabel: M parties [4]")->check(CLI::Range(2U, 64U));
  app.add_option("--components", o->components, "multilabel: local components per party [3]")
      ->check(CLI::Range(1U, 64U));
  app.add_flag("--cost", o->cost, "measure time and bytes per decision over a (d, K) grid instead");
  app.add_option("--cost-dims", o->cost_dims, "d values of --cost [25,50,100,200,400]")
      ->delimiter(',')
      ->check(CLI::Range(2U, 1024U));
  app.add_option("--cost-actions", o->cost_items, "K values of --cost [10,100,500,1000]")
      ->delimiter(',')
      ->check(CLI::Range(1U, 65536U));
  app.add_option("--cost-parties", o->cost_parties, "M of --cost [5]")->check(CLI::Range(2U, 64U));
  app.add_option("--cost-rounds", o->cost_rounds, "timed rounds per --cost point [20]")
      ->check(CLI::Range(1U, 100000U));
  app.add_option("--threads", o->threads, "runs at once [2]")->check(CLI::Range(1U, 256U));
  app.add_flag("--plot", o->plot, "draw PNGs with tools/plot_vertical.py");
  app.add_flag("--quiet", o->quiet, "no progress bar");
  app.add_option("--out", o->out_dir, "output directory [out/vertical]");
  const int st = tools::parse_command_line(app, argc, argv);
  if (st >= 0) return st;
  if (!policies.empty()) {
    o->policies.clear();
    for (const std::string& p : policies) {
      o->policies.push_back(p == "lints" ? Policy::lints : Policy::linucb);
    }
  }
  if (o->env == "synthetic" && !o->cost) {
    const uint32_t sum = std::accumulate(o->partition.begin(), o->partition.end(), 0U);
    if (sum != o->dim || o->partition.size() < 2) {
      std::fprintf(stderr,
                   "p2b-sim: --partition must have 2 or more blocks summing to --dim (%u), got %u\n"
                   "(see p2b-sim --protocol vertical --help)\n",
                   o->dim, sum);
      return 2;
    }
  }
  if (o->env == "multilabel" && o->data.empty()) {
    std::fprintf(stderr, "p2b-sim: --env multilabel needs --data FILE.arff\n");
    return 2;
  }
  return -1;
}

}  // namespace p2b::vertical
