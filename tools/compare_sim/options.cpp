#include "compare_sim/options.hpp"

#include <algorithm>
#include <cstdio>

#include "cli/tool_cli.hpp"

namespace p2b::compare_sim {

int parse_options(int argc, char** argv, Options* o) {
  CLI::App app(
      "p2b-sim --protocol compare: local-only, P2B, FCLUB-style clustered sharing,\n"
      "P-FCB-style noisy deltas, O3M and pooled (non-private) LinUCB on the same users, the\n"
      "same schedule and the same reward coins, with privacy and communication per user\n"
      "stated side by side (docs/simulator.md#compare).",
      "p2b-sim");
  tools::add_common_flags(app);
  std::string protocol;
  app.add_option("--protocol", protocol, "compare")->required()->check(CLI::IsMember({"compare"}));
  app.add_option("--envs", o->envs, "synthetic and/or multilabel [both]")
      ->delimiter(',')
      ->check(CLI::IsMember({"synthetic", "multilabel"}));
  app.add_option("--protocols", o->protocols, "any of local, p2b, fclub, pfcb, o3m, pooled [all]")
      ->delimiter(',')
      ->check(CLI::IsMember({"local", "p2b", "fclub", "pfcb", "o3m", "pooled"}));
  app.add_option("--users", o->users, "N, both cohorts [2000]")->check(CLI::Range(10U, 1000000U));
  app.add_option("--early-fraction", o->early_fraction, "the early cohort's share of N [0.7]")
      ->check(CLI::Range(0.05, 0.95));
  app.add_option("--interactions", o->interactions, "T_u, steps per user [10]")
      ->check(CLI::Range(1U, 1000U));
  app.add_option("--seeds", o->seeds, "seeds seed..seed+seeds-1 [5]")->check(CLI::Range(1U, 1000U));
  app.add_option("--seed", o->seed, "first seed [1]");
  app.add_option("--dim", o->dim, "synthetic d [8]")->check(CLI::Range(2U, 64U));
  app.add_option("--actions", o->actions, "synthetic |A| [8]")->check(CLI::Range(2U, 32U));
  app.add_option("--mapping", o->mapping, "synthetic map: linear or softmax [linear]")
      ->check(CLI::IsMember({"linear", "softmax"}));
  app.add_option("--beta", o->beta, "synthetic reward scale [0.1]")->check(CLI::Range(1e-6, 1.0));
  app.add_option("--noise-sd", o->noise_sd, "synthetic reward noise sd [0.001]")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--data", o->data, "multi-label ARFF (e.g. yeast.arff)")->check(CLI::ExistingFile);
  app.add_option("--labels", o->labels, "where the labels are: auto, first:N, last:N [auto]");
  app.add_option("--ml-dim", o->ml_dim, "multi-label d after reduction [4]")
      ->check(CLI::Range(1U, 64U));
  app.add_option("--alpha", o->alpha, "LinUCB alpha of the device agent [1]")
      ->check(CLI::Range(0.0, 1e3));
  app.add_option("--participations", o->participations, "P2B's p, its epsilon axis [0.1..0.9]")
      ->delimiter(',')
      ->check(CLI::Range(0.01, 0.99));
  app.add_option("--codes", o->codes, "P2B codebook size k [16]")->check(CLI::Range(1U, 4096U));
  app.add_option("--threshold", o->threshold, "P2B crowd threshold l [10]")
      ->check(CLI::Range(1U, 100000U));
  app.add_option("--epsilons", o->epsilons, "FCLUB's and P-FCB-style's epsilon axis [0.5..8]")
      ->delimiter(',')
      ->check(CLI::Range(1e-3, 1e6));
  app.add_option("--delta", o->delta, "the one delta every Gaussian mechanism is stated at [1e-5]")
      ->check(CLI::Range(1e-12, 0.5));
  app.add_option("--spends", o->spends,
                 "equal privacy: epsilon per user over the horizon at --delta; P2B, FCLUB and\n"
                 "P-FCB-style run at the knobs that spend each (replaces their axes) [off]")
      ->delimiter(',')
      ->check(CLI::Range(1e-3, 1e3));
  app.add_option("--servers", o->servers, "FCLUB local servers [4]")->check(CLI::Range(1U, 64U));
  app.add_option("--beta-scale", o->beta_scale, "FCLUB beta scale [0.25]")
      ->check(CLI::Range(0.0, 1e3));
  app.add_option("--omega1", o->omega1, "P-FCB-style acceptance radius factor [0.1]")
      ->check(CLI::Range(0.0, 1e12));
  app.add_option("--omega2", o->omega2, "P-FCB-style weight of an accepted report [10]")
      ->check(CLI::Range(0.0, 1e6));
  app.add_flag("!--no-nonprivate-variants", o->nonprivate_variants,
               "skip FCLUB-DC and P-FCB-style at epsilon = infinity");
  app.add_option("--threads", o->threads, "runs at once [2]")->check(CLI::Range(1U, 256U));
  app.add_flag("--plot", o->plot, "draw PNGs with tools/plot_compare.py");
  app.add_flag("--quiet", o->quiet, "no progress bar");
  app.add_option("--out", o->out_dir, "output directory [out/compare]");
  const int st = tools::parse_command_line(app, argc, argv);
  if (st >= 0) return st;
  const bool wants_ml = std::find(o->envs.begin(), o->envs.end(), "multilabel") != o->envs.end();
  if (wants_ml && o->data.empty()) {
    std::fprintf(stderr,
                 "p2b-sim: --envs multilabel needs --data FILE.arff (e.g. yeast.arff), or pass\n"
                 "--envs synthetic\n");
    return 2;
  }
  if (o->users < 2 * o->servers) {
    std::fprintf(stderr, "p2b-sim: --users (%u) must be at least twice --servers (%u)\n", o->users,
                 o->servers);
    return 2;
  }
  if (o->dim * o->actions > 64) {
    std::fprintf(stderr,
                 "p2b-sim: d x |A| = %u: FCLUB's per-item contexts (x one-hot by arm) must fit\n"
                 "the P2BU wire's 64 dimensions\n",
                 o->dim * o->actions);
    return 2;
  }
  return -1;
}

}  // namespace p2b::compare_sim
