#include "sim_options.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "cli/tool_cli.hpp"

namespace p2b::sim {
namespace {

constexpr const char* kDescription =
    "Runs the P2B paper's experiments on the p2b library: cold, warm non-private and\n"
    "warm private late users (docs/simulator.md). Lists are comma-separated; every\n"
    "combination of the grid options is one point.";

template <typename T>
std::vector<T> parse_list(const std::string& text, double lo, double hi, const char* what) {
  std::vector<T> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const std::size_t dash = item.find('-', 1);
    auto num = [&](const std::string& v) {
      char* end = nullptr;
      const double x = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !(x >= lo && x <= hi) ||
          x != static_cast<double>(static_cast<T>(x))) {
        throw std::invalid_argument(std::string(what) + ": '" + v + "' is not an integer in range");
      }
      return static_cast<T>(x);
    };
    if (dash != std::string::npos) {
      const T a = num(item.substr(0, dash)), b = num(item.substr(dash + 1));
      if (b < a) throw std::invalid_argument(std::string(what) + ": empty range " + item);
      for (T v = a; v <= b; ++v) out.push_back(v);
    } else {
      out.push_back(num(item));
    }
  }
  if (out.empty()) throw std::invalid_argument(std::string(what) + ": empty list");
  return out;
}

double parse_number(const std::string& v, double lo, double hi, const std::string& what) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !(x >= lo && x <= hi)) {
    throw std::invalid_argument(what + ": '" + v + "' is not a number in [" + std::to_string(lo) +
                                ", " + std::to_string(hi) + "]");
  }
  return x;
}

std::vector<double> parse_real_list(const std::string& text, double lo, double hi,
                                    const char* what) {
  std::vector<double> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(parse_number(item, lo, hi, what));
  if (out.empty()) throw std::invalid_argument(std::string(what) + ": empty list");
  return out;
}

// An option whose value is checked and stored by `store`; `help` ends with
// the default in brackets.
template <typename Store>
CLI::Option* value(CLI::App& app, const char* name, const char* type, const char* help,
                   Store store) {
  return app.add_option_function<std::string>(name, store, help)->type_name(type);
}

// A number in [lo, hi], cast to the field's type.
template <typename T>
CLI::Option* number(CLI::App& app, const char* name, const char* type, double lo, double hi,
                    T* field, const char* help) {
  return value(app, name, type, help, [=](const std::string& v) {
    *field = static_cast<T>(parse_number(v, lo, hi, name));
  });
}

void add_grid(CLI::App& app, SimOptions* o) {
  const char* g = "grid";
  value(app, "--users", "LIST", "early (sharing) users u; population u/early-fraction [10000]",
        [o](const std::string& v) { o->users = parse_list<uint64_t>(v, 10, 1e8, "--users"); })
      ->group(g);
  value(app, "--actions", "LIST", "|A| [10]", [o](const std::string& v) {
    o->actions = parse_list<uint32_t>(v, 2, 1024, "--actions");
  })->group(g);
  value(app, "--dim", "LIST", "d; a range A-B is allowed [10]", [o](const std::string& v) {
    o->dims = parse_list<uint32_t>(v, 2, 64, "--dim");
  })->group(g);
  value(app, "--mode", "LIST", "paper, default or both [both]", [o](const std::string& v) {
    if (v == "paper") {
      o->modes = {Mode::paper};
    } else if (v == "default") {
      o->modes = {Mode::standard};
    } else if (v == "both") {
      o->modes = {Mode::paper, Mode::standard};
    } else {
      throw std::invalid_argument("--mode must be paper, default or both");
    }
  })->group(g);
}

void add_protocol(CLI::App& app, SimOptions* o) {
  value(app, "--interactions", "LIST",
        "t: interactions per user, also the reporting window; a list is a grid dimension "
        "(e.g. Fig. 6's accuracy against t) [10]",
        [o](const std::string& v) {
          o->interactions = parse_list<uint32_t>(v, 1, 4096, "--interactions");
        });
  number(app, "--codes", "k", 1, 65536, &o->codes, "codebook size [1024]");
  number(app, "--digits", "q", 1, 3, &o->digits, "decimals kept [1]");
  number(app, "--p", "P", 1e-6, 1 - 1e-6, &o->participation, "participation probability [0.5]");
  number(app, "--threshold", "l", 0, 1e9, &o->threshold, "crowd-blending threshold [10]");
  number(app, "--neg-rate", "R", 0, 1, &o->neg_rate,
         "chance a report is a zero-reward tuple [0.05]");
  number(app, "--alpha", "A", 0, 1e6, &o->alpha, "LinUCB exploration [1]");
  number(app, "--early-fraction", "F", 0.01, 0.99, &o->early_fraction,
         "share of the population that is early [0.7]");
  app.add_flag_callback(
      "--no-crypto", [o] { o->crypto = false; },
      "skip sealing and opening (plaintext tuples; reported in output)");
  value(app, "--central-epsilon", "LIST",
        "the analyzer's central DP on the private model, one point per value; 0 is off [0]",
        [o](const std::string& v) {
          o->central_epsilons = parse_real_list(v, 0, 100, "--central-epsilon");
        });
  number(app, "--central-delta", "D", 1e-30, 0.01, &o->central_delta, "central DP delta [1e-6]");
  value(app, "--central-horizon", "T",
        "releases the central-DP budget covers, as the analyzer's flag [1048576]",
        [o](const std::string& v) {
          const double x = parse_number(v, 1, 1099511627776.0, "--central-horizon");
          if (x != std::floor(x)) throw std::invalid_argument("--central-horizon: not a count");
          o->central_horizon = static_cast<uint64_t>(x);
        });
  value(app, "--central-release", "T",
        "simulate the model released after batch T, whose noise sums popcount(T) tree nodes "
        "[the noisiest of the horizon: 2^20 - 1, 20 nodes]",
        [o](const std::string& v) {
          const double x = parse_number(v, 1, 1099511627776.0, "--central-release");
          if (x != std::floor(x)) throw std::invalid_argument("--central-release: not a count");
          o->central_release = static_cast<uint64_t>(x);
        });
  for (const char* name :
       {"--interactions", "--codes", "--digits", "--p", "--threshold", "--neg-rate", "--alpha",
        "--early-fraction", "--no-crypto", "--central-epsilon", "--central-delta",
        "--central-horizon", "--central-release"}) {
    app.get_option(name)->group("protocol");
  }
}

void add_environment(CLI::App& app, SimOptions* o) {
  value(app, "--env", "synthetic|multilabel", "[synthetic]", [o](const std::string& v) {
    if (v != "synthetic" && v != "multilabel") {
      throw std::invalid_argument("--env must be synthetic or multilabel");
    }
    o->env = v;
  });
  number(app, "--beta", "B", 0, 1, &o->beta, "synthetic reward scale [0.1]");
  number(app, "--noise-sd", "S", 0, 10, &o->noise_sd,
         "sd of the reward noise z [0.001: the reference code's beta * 0.01; 0.1 is the "
         "'variance 0.01' reading]");
  value(app, "--contexts", "simplex|uniform", "flat Dirichlet, or U(0,1)^d normalised [simplex]",
        [o](const std::string& v) {
          if (v == "simplex") {
            o->contexts = ContextLaw::simplex;
          } else if (v == "uniform") {
            o->contexts = ContextLaw::normalised_uniform;
          } else {
            throw std::invalid_argument("--contexts must be simplex or uniform");
          }
        });
  value(app, "--mapping", "auto|linear|softmax",
        "rbar = beta*(Wx+b) (the reference code's Keras Dense layer) or beta*softmax(Wx+b) (the "
        "paper's Eq. 4); auto: linear in paper mode, softmax in default mode [auto]",
        [o](const std::string& v) {
          if (v == "auto") {
            o->mapping.reset();
          } else if (v == "linear") {
            o->mapping = Mapping::linear;
          } else if (v == "softmax") {
            o->mapping = Mapping::softmax;
          } else {
            throw std::invalid_argument("--mapping must be auto, linear or softmax");
          }
        });
  app.add_option("--weights-layout", o->weights_layout,
                 "how W sits in a --weights file whose entry names do not say it (Keras's "
                 "kernel/bias names do): actions-by-dim (|A|, d), dim-by-actions (d, |A|), or "
                 "auto: from the shapes, refusing a file both fit [auto]")
      ->check(CLI::IsMember({"auto", "actions-by-dim", "dim-by-actions"}))
      ->type_name("LAYOUT");
  app.add_option("--weights", o->weights, "W and b from .npy, .npz or .csv (docs/data.md)")
      ->type_name("FILE");
  app.add_option("--data", o->data, "multi-label data set (--env multilabel)")
      ->type_name("FILE.arff");
  app.add_option("--labels", o->labels, "auto, first:N, last:N or prefix:NAME [auto]")
      ->type_name("SPEC");
  for (const char* name : {"--env", "--beta", "--noise-sd", "--contexts", "--mapping", "--weights",
                           "--weights-layout", "--data", "--labels"}) {
    app.get_option(name)->group("environment");
  }
}

void add_run(CLI::App& app, SimOptions* o) {
  app.add_option("--codebook", o->codebook, "use this codebook (single d) instead of training one")
      ->type_name("FILE");
  number(app, "--seed", "S", 0, 9e15, &o->seed, "[1]");
  number(app, "--threads", "N", 1, 256, &o->threads, "[all cores]");
  app.add_option("--out", o->out_dir, "[out/sim]")->type_name("DIR");
  app.add_flag("--plot", o->plot, "draw PNGs with /usr/bin/python3 (tools/plot_sim.py)");
  app.add_flag("--quiet", o->quiet, "no progress bar");
  for (const char* name : {"--codebook", "--seed", "--threads", "--out", "--plot", "--quiet"}) {
    app.get_option(name)->group("run");
  }
}

void check_combinations(const SimOptions& o) {
  if (o.env == "multilabel" && o.data.empty()) {
    throw std::invalid_argument("--env multilabel needs --data FILE.arff");
  }
  if (!o.codebook.empty() && o.dims.size() != 1) {
    throw std::invalid_argument("--codebook fits one d; give a single --dim");
  }
  if (o.central_release > o.central_horizon) {
    throw std::invalid_argument("--central-release is past --central-horizon");
  }
  if (!o.weights.empty() && (o.dims.size() != 1 || o.actions.size() != 1)) {
    throw std::invalid_argument("--weights fits one (|A|, d); give a single --actions and --dim");
  }
}

}  // namespace

Mapping mapping_for(const SimOptions& o, Mode mode) {
  if (o.mapping) return *o.mapping;
  return mode == Mode::paper ? Mapping::linear : Mapping::softmax;
}

int parse_sim_options(int argc, char** argv, SimOptions* o) {
  o->threads = std::max(1U, std::thread::hardware_concurrency());
#ifdef P2B_PLOT_SIM
  o->plot_script = P2B_PLOT_SIM;
#endif
  CLI::App app(kDescription, "p2b-sim");
  tools::add_common_flags(app);
  std::string protocol = "p2b";
  app.add_option("--protocol", protocol,
                 "p2b (these experiments), vertical (seed 003's O3M: p2b-sim --protocol "
                 "vertical --help), fclub (seed 001) or pfcb (seed 004's P-FCB) [p2b]")
      ->check(CLI::IsMember({"p2b"}));
  add_grid(app, o);
  add_protocol(app, o);
  add_environment(app, o);
  add_run(app, o);
  const int rc = tools::parse_command_line(app, argc, argv);
  if (rc >= 0) return rc;
  try {
    check_combinations(*o);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "p2b-sim: %s\n(see p2b-sim --help)\n", e.what());
    return 2;
  }
  return -1;
}

}  // namespace p2b::sim
