#include "sim_options.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace p2b::sim {
namespace {

void usage(FILE* f) {
  std::fprintf(
      f,
      "usage: p2b-sim [options]\n"
      "Runs the P2B paper's experiments on the p2b library: cold, warm non-private and\n"
      "warm private late users (docs/simulator.md).\n\n"
      "grid (comma-separated lists; every combination is one point):\n"
      "  --users LIST          early (sharing) users u; population u/early-fraction [10000]\n"
      "  --actions LIST        |A| [10]\n"
      "  --dim LIST            d; a range A-B is allowed [10]\n"
      "  --mode LIST           paper, default or both [both]\n"
      "protocol:\n"
      "  --interactions t      per user, also the reporting window [10]\n"
      "  --codes k             codebook size [1024]    --digits q    decimals kept [1]\n"
      "  --p P                 participation probability [0.5]\n"
      "  --threshold l         crowd-blending threshold [10]\n"
      "  --neg-rate R          chance a report is a zero-reward tuple [0.05]\n"
      "  --alpha A             LinUCB exploration [1]\n"
      "  --early-fraction F    share of the population that is early [0.7]\n"
      "  --no-crypto           skip sealing and opening (plaintext tuples; reported in output)\n"
      "environment:\n"
      "  --env synthetic|multilabel [synthetic]\n"
      "  --beta B              synthetic reward scale [0.1]\n"
      "  --noise-sd S          sd of the reward noise z [0.001: the reference code's\n"
      "                        beta * 0.01; 0.1 is the 'variance 0.01' reading]\n"
      "  --contexts simplex|uniform   flat Dirichlet, or U(0,1)^d normalised [simplex]\n"
      "  --weights FILE        W and b from .npy, .npz or .csv (docs/data.md)\n"
      "  --data FILE.arff      multi-label data set (--env multilabel)\n"
      "  --labels SPEC         auto, first:N, last:N or prefix:NAME [auto]\n"
      "run:\n"
      "  --codebook FILE       use this codebook (single d) instead of training one\n"
      "  --seed S [1]    --threads N [all cores]    --out DIR [out/sim]\n"
      "  --plot                draw PNGs with /usr/bin/python3 (tools/plot_sim.py)\n"
      "  --quiet               no progress bar\n");
}

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

}  // namespace

int parse_sim_options(int argc, char** argv, SimOptions* o) {
  o->threads = std::max(1U, std::thread::hardware_concurrency());
#ifdef P2B_CODEBOOK_BIN
  o->codebook_bin = P2B_CODEBOOK_BIN;
#endif
#ifdef P2B_PLOT_SIM
  o->plot_script = P2B_PLOT_SIM;
#endif
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--help" || a == "-h") {
        usage(stdout);
        return 0;
      }
      if (a == "--no-crypto") {
        o->crypto = false;
        continue;
      }
      if (a == "--plot") {
        o->plot = true;
        continue;
      }
      if (a == "--quiet") {
        o->quiet = true;
        continue;
      }
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      const std::string v = argv[++i];
      if (a == "--users") {
        o->users = parse_list<uint64_t>(v, 10, 1e8, "--users");
      } else if (a == "--actions") {
        o->actions = parse_list<uint32_t>(v, 2, 1024, "--actions");
      } else if (a == "--dim") {
        o->dims = parse_list<uint32_t>(v, 2, 64, "--dim");
      } else if (a == "--mode") {
        if (v == "paper") {
          o->modes = {Mode::paper};
        } else if (v == "default") {
          o->modes = {Mode::standard};
        } else if (v == "both") {
          o->modes = {Mode::paper, Mode::standard};
        } else {
          throw std::invalid_argument("--mode must be paper, default or both");
        }
      } else if (a == "--interactions") {
        o->interactions = static_cast<uint32_t>(parse_number(v, 1, 4096, a));
      } else if (a == "--codes") {
        o->codes = static_cast<uint32_t>(parse_number(v, 1, 65536, a));
      } else if (a == "--digits") {
        o->digits = static_cast<uint32_t>(parse_number(v, 1, 3, a));
      } else if (a == "--p") {
        o->participation = parse_number(v, 1e-6, 1 - 1e-6, a);
      } else if (a == "--threshold") {
        o->threshold = static_cast<uint32_t>(parse_number(v, 0, 1e9, a));
      } else if (a == "--neg-rate") {
        o->neg_rate = parse_number(v, 0, 1, a);
      } else if (a == "--alpha") {
        o->alpha = parse_number(v, 0, 1e6, a);
      } else if (a == "--early-fraction") {
        o->early_fraction = parse_number(v, 0.01, 0.99, a);
      } else if (a == "--env") {
        if (v != "synthetic" && v != "multilabel") {
          throw std::invalid_argument("--env must be synthetic or multilabel");
        }
        o->env = v;
      } else if (a == "--beta") {
        o->beta = parse_number(v, 0, 1, a);
      } else if (a == "--noise-sd") {
        o->noise_sd = parse_number(v, 0, 10, a);
      } else if (a == "--contexts") {
        if (v == "simplex") {
          o->contexts = ContextLaw::simplex;
        } else if (v == "uniform") {
          o->contexts = ContextLaw::normalised_uniform;
        } else {
          throw std::invalid_argument("--contexts must be simplex or uniform");
        }
      } else if (a == "--weights") {
        o->weights = v;
      } else if (a == "--data") {
        o->data = v;
      } else if (a == "--labels") {
        o->labels = v;
      } else if (a == "--codebook") {
        o->codebook = v;
      } else if (a == "--seed") {
        o->seed = static_cast<uint64_t>(parse_number(v, 0, 9e15, a));
      } else if (a == "--threads") {
        o->threads = static_cast<unsigned>(parse_number(v, 1, 256, a));
      } else if (a == "--out") {
        o->out_dir = v;
      } else {
        throw std::invalid_argument("unknown option " + a);
      }
    }
    if (o->env == "multilabel" && o->data.empty()) {
      throw std::invalid_argument("--env multilabel needs --data FILE.arff");
    }
    if (!o->codebook.empty() && o->dims.size() != 1) {
      throw std::invalid_argument("--codebook fits one d; give a single --dim");
    }
    if (!o->weights.empty() && (o->dims.size() != 1 || o->actions.size() != 1)) {
      throw std::invalid_argument("--weights fits one (|A|, d); give a single --actions and --dim");
    }
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "p2b-sim: %s\n(see p2b-sim --help)\n", e.what());
    return 2;
  }
  return -1;
}

}  // namespace p2b::sim
