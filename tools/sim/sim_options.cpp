#include "sim_options.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
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

// A field's allowed range, as the CLI parses it and validate() checks it,
// with the text both print.
struct Bound {
  double lo, hi;
  const char* text;
};
constexpr Bound kUsers{10, 1e8, "[10, 10^8]"};
constexpr Bound kActions{2, 1024, "[2, 1024]"};
constexpr Bound kDims{2, 64, "[2, 64]"};
constexpr Bound kInteractions{1, 4096, "[1, 4096]"};
constexpr Bound kCodes{1, 65536, "[1, 65536]"};
constexpr Bound kDigits{1, 3, "[1, 3]"};
constexpr Bound kParticipation{1e-6, 1 - 1e-6, "[1e-6, 1 - 1e-6]"};
constexpr Bound kThreshold{0, 1e9, "[0, 10^9]"};
constexpr Bound kUnit{0, 1, "[0, 1]"};
constexpr Bound kAlpha{0, 1e6, "[0, 10^6]"};
constexpr Bound kEarlyFraction{0.01, 0.99, "[0.01, 0.99]"};
constexpr Bound kCentralEpsilon{0, 100, "[0, 100]"};
constexpr Bound kCentralDelta{1e-30, 0.01, "[1e-30, 0.01]"};
constexpr Bound kReleases{1, 1099511627776.0, "[1, 2^40]"};
constexpr Bound kNoiseSd{0, 10, "[0, 10]"};
constexpr Bound kSeeds{1, 1e6, "[1, 10^6]"};
constexpr Bound kThreads{1, 1024, "[1, 1024]"};

std::string out_of_range(const char* flag, double v, const Bound& b) {
  char value[32];
  std::snprintf(value, sizeof value, "%.10g", v);
  return std::string(flag) + " = " + value + ": must be in " + b.text;
}

bool inside(double v, const Bound& b) {
  return v >= b.lo && v <= b.hi;
}

template <typename T>
std::vector<T> parse_list(const std::string& text, const Bound& b, const char* what) {
  std::vector<T> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const std::size_t dash = item.find('-', 1);
    auto num = [&](const std::string& v) {
      char* end = nullptr;
      const double x = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !inside(x, b) ||
          x != static_cast<double>(static_cast<T>(x))) {
        throw std::invalid_argument(std::string(what) + ": '" + v + "' is not an integer in " +
                                    b.text);
      }
      return static_cast<T>(x);
    };
    if (dash != std::string::npos) {
      const T a = num(item.substr(0, dash)), z = num(item.substr(dash + 1));
      if (z < a) throw std::invalid_argument(std::string(what) + ": empty range " + item);
      for (T v = a; v <= z; ++v) out.push_back(v);
    } else {
      out.push_back(num(item));
    }
  }
  if (out.empty()) throw std::invalid_argument(std::string(what) + ": empty list");
  return out;
}

double parse_number(const std::string& v, const Bound& b, const std::string& what) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !inside(x, b)) {
    throw std::invalid_argument(what + ": '" + v + "' is not a number in " + b.text);
  }
  return x;
}

std::vector<double> parse_real_list(const std::string& text, const Bound& b, const char* what) {
  std::vector<double> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(parse_number(item, b, what));
  if (out.empty()) throw std::invalid_argument(std::string(what) + ": empty list");
  return out;
}

uint64_t parse_count(const std::string& v, const char* what) {
  const double x = parse_number(v, kReleases, what);
  if (x != std::floor(x)) throw std::invalid_argument(std::string(what) + ": not a count");
  return static_cast<uint64_t>(x);
}

// An option whose value is checked and stored by `store`.
template <typename Store>
CLI::Option* value(CLI::App& app, const char* name, const char* type, const char* help,
                   Store store) {
  return app.add_option_function<std::string>(name, store, help)->type_name(type);
}

// A number in `b`, cast to the field's type.
template <typename T>
CLI::Option* number(CLI::App& app, const char* name, const char* type, const Bound& b, T* field,
                    const char* help) {
  return value(app, name, type, help,
               [=](const std::string& v) { *field = static_cast<T>(parse_number(v, b, name)); });
}

void set_group(CLI::App& app, const char* group, std::initializer_list<const char*> names) {
  for (const char* name : names) app.get_option(name)->group(group);
}

void add_grid(CLI::App& app, SimOptions* o) {
  value(app, "--users", "LIST", "early (sharing) users u; population u/early-fraction [10000]",
        [o](const std::string& v) { o->users = parse_list<uint64_t>(v, kUsers, "--users"); });
  value(app, "--actions", "LIST", "|A| [10]",
        [o](const std::string& v) { o->actions = parse_list<uint32_t>(v, kActions, "--actions"); });
  value(app, "--dim", "LIST", "d; a range A-B is allowed [10]",
        [o](const std::string& v) { o->dims = parse_list<uint32_t>(v, kDims, "--dim"); });
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
  });
  set_group(app, "grid", {"--users", "--actions", "--dim", "--mode"});
}

void add_central_dp(CLI::App& app, SimOptions* o) {
  value(app, "--central-epsilon", "LIST",
        "the analyzer's central DP on the private model, one point per value; 0 is off [0]",
        [o](const std::string& v) {
          o->central_epsilons = parse_real_list(v, kCentralEpsilon, "--central-epsilon");
        });
  number(app, "--central-delta", "D", kCentralDelta, &o->central_delta, "central DP delta [1e-6]");
  value(app, "--central-horizon", "T",
        "releases the central-DP budget covers, as the analyzer's flag [1048576]",
        [o](const std::string& v) { o->central_horizon = parse_count(v, "--central-horizon"); });
  value(app, "--central-release", "T",
        "simulate the model released after batch T, whose noise sums popcount(T) tree nodes "
        "[the noisiest of the horizon: 2^20 - 1, 20 nodes]",
        [o](const std::string& v) { o->central_release = parse_count(v, "--central-release"); });
}

void add_protocol(CLI::App& app, SimOptions* o) {
  value(app, "--interactions", "LIST",
        "t: interactions per user, also the reporting window; a list is a grid dimension "
        "(e.g. Fig. 6's accuracy against t) [10]",
        [o](const std::string& v) {
          o->interactions = parse_list<uint32_t>(v, kInteractions, "--interactions");
        });
  number(app, "--codes", "k", kCodes, &o->codes, "codebook size [1024]");
  number(app, "--digits", "q", kDigits, &o->digits, "decimals kept [1]");
  number(app, "--p", "P", kParticipation, &o->participation, "participation probability [0.5]");
  number(app, "--threshold", "l", kThreshold, &o->threshold, "crowd-blending threshold [10]");
  number(app, "--neg-rate", "R", kUnit, &o->neg_rate,
         "chance a report is a zero-reward tuple [0.05]");
  number(app, "--alpha", "A", kAlpha, &o->alpha, "LinUCB exploration [1]");
  number(app, "--early-fraction", "F", kEarlyFraction, &o->early_fraction,
         "share of the population that is early [0.7]");
  app.add_flag_callback(
      "--no-crypto", [o] { o->crypto = false; },
      "skip sealing and opening (plaintext tuples; reported in output)");
  add_central_dp(app, o);
  set_group(app, "protocol",
            {"--interactions", "--codes", "--digits", "--p", "--threshold", "--neg-rate", "--alpha",
             "--early-fraction", "--no-crypto", "--central-epsilon", "--central-delta",
             "--central-horizon", "--central-release"});
}

void add_synthetic(CLI::App& app, SimOptions* o) {
  number(app, "--beta", "B", kUnit, &o->beta, "synthetic reward scale [0.1]");
  number(app, "--noise-sd", "S", kNoiseSd, &o->noise_sd,
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
}

void add_environment(CLI::App& app, SimOptions* o) {
  value(app, "--env", "synthetic|multilabel", "[synthetic]", [o](const std::string& v) {
    if (v != "synthetic" && v != "multilabel") {
      throw std::invalid_argument("--env must be synthetic or multilabel");
    }
    o->env = v;
  });
  add_synthetic(app, o);
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
  set_group(app, "environment",
            {"--env", "--beta", "--noise-sd", "--contexts", "--mapping", "--weights",
             "--weights-layout", "--data", "--labels"});
}

void add_run(CLI::App& app, SimOptions* o) {
  app.add_option("--codebook", o->codebook, "use this codebook (single d) instead of training one")
      ->type_name("FILE");
  tools::add_common_run_flags(app, o->run);
  set_group(app, "run",
            {"--codebook", "--seeds", "--seed", "--threads", "--out", "--plot", "--quiet"});
}

// The first list element outside `b`, as validate()'s message; empty if none.
template <typename T>
std::string check_list(const char* flag, const std::vector<T>& v, const Bound& b) {
  if (v.empty()) return std::string(flag) + ": an empty list; give at least one value";
  for (const T& x : v) {
    if (!inside(static_cast<double>(x), b)) return out_of_range(flag, static_cast<double>(x), b);
  }
  return "";
}

std::string check_lists(const SimOptions& o) {
  for (std::string e :
       {check_list("--users", o.users, kUsers), check_list("--actions", o.actions, kActions),
        check_list("--dim", o.dims, kDims),
        check_list("--interactions", o.interactions, kInteractions),
        check_list("--central-epsilon", o.central_epsilons, kCentralEpsilon)}) {
    if (!e.empty()) return e;
  }
  if (o.modes.empty()) return "--mode: an empty list; give paper, default or both";
  return "";
}

std::string check_numbers(const SimOptions& o) {
  const struct {
    const char* flag;
    double v;
    Bound b;
  } numbers[] = {
      {"--seeds", static_cast<double>(o.run.seeds), kSeeds},
      {"--threads", static_cast<double>(o.run.threads), kThreads},
      {"--codes", static_cast<double>(o.codes), kCodes},
      {"--digits", static_cast<double>(o.digits), kDigits},
      {"--p", o.participation, kParticipation},
      {"--threshold", static_cast<double>(o.threshold), kThreshold},
      {"--neg-rate", o.neg_rate, kUnit},
      {"--alpha", o.alpha, kAlpha},
      {"--early-fraction", o.early_fraction, kEarlyFraction},
      {"--beta", o.beta, kUnit},
      {"--noise-sd", o.noise_sd, kNoiseSd},
      {"--central-delta", o.central_delta, kCentralDelta},
      {"--central-horizon", static_cast<double>(o.central_horizon), kReleases},
  };
  for (const auto& n : numbers) {
    if (!inside(n.v, n.b)) return out_of_range(n.flag, n.v, n.b);
  }
  return "";
}

std::string check_words(const SimOptions& o) {
  if (o.env != "synthetic" && o.env != "multilabel") {
    return "--env = " + o.env + ": must be synthetic or multilabel";
  }
  if (o.weights_layout != "auto" && o.weights_layout != "actions-by-dim" &&
      o.weights_layout != "dim-by-actions") {
    return "--weights-layout = " + o.weights_layout +
           ": must be auto, actions-by-dim or dim-by-actions";
  }
  return "";
}

std::string check_combinations(const SimOptions& o) {
  if (o.env == "multilabel" && o.data.empty()) return "--env multilabel needs --data FILE.arff";
  if (!o.codebook.empty() && o.dims.size() != 1) {
    return "--codebook fits one d; give a single --dim";
  }
  if (o.central_release > o.central_horizon) {
    return "--central-release = " + std::to_string(o.central_release) +
           ": must be in [0, --central-horizon = " + std::to_string(o.central_horizon) + "]";
  }
  if (!o.weights.empty() && (o.dims.size() != 1 || o.actions.size() != 1)) {
    return "--weights fits one (|A|, d); give a single --actions and --dim";
  }
  return "";
}

}  // namespace

Mapping mapping_for(const SimOptions& o, Mode mode) {
  if (o.mapping) return *o.mapping;
  return mode == Mode::paper ? Mapping::linear : Mapping::softmax;
}

std::string validate(const SimOptions& o) {
  for (std::string e : {check_lists(o), check_numbers(o), check_words(o), check_combinations(o)}) {
    if (!e.empty()) return e;
  }
  return "";
}

namespace {

// p2b-sim's parser for the P2B experiment, bound to *o.
std::unique_ptr<CLI::App> make_app(SimOptions* o, std::string* protocol) {
  auto app = std::make_unique<CLI::App>(kDescription, "p2b-sim");
  tools::add_common_flags(*app);
  app->add_option("--protocol", *protocol,
                  "p2b (these experiments), vertical (seed 003's O3M: p2b-sim --protocol "
                  "vertical --help), fclub (seed 001), pfcb (seed 004's P-FCB) or compare [p2b]")
      ->check(CLI::IsMember({"p2b"}))
      ->type_name("NAME");
  add_grid(*app, o);
  add_protocol(*app, o);
  add_environment(*app, o);
  add_run(*app, o);
  return app;
}

}  // namespace

std::vector<std::string> long_flags() {
  SimOptions o;
  std::string protocol;
  return tools::visible_long_flags(*make_app(&o, &protocol));
}

int parse_options(int argc, char** argv, SimOptions* o) {
  o->run.threads = std::max(1U, std::thread::hardware_concurrency());
  o->run.out = "out/sim";
#ifdef P2B_PLOT_SIM
  o->plot_script = P2B_PLOT_SIM;
#endif
  std::string protocol = "p2b";
  const auto app_owner = make_app(o, &protocol);
  CLI::App& app = *app_owner;
  const int rc = tools::parse_command_line(app, argc, argv);
  if (rc >= 0) return rc;
  const std::string error = validate(*o);
  if (!error.empty()) {
    std::fprintf(stderr, "p2b-sim: %s\n(see p2b-sim --help)\n", error.c_str());
    return 2;
  }
  return -1;
}

}  // namespace p2b::sim
