// p2b-codebook: trains the encoder's k-means codebook over the q-digit
// simplex grid and writes it in the shared codebook file format.
// Algorithm, determinism and benchmark figures: docs/codebook.md.
#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

#include <unistd.h>

#include "cli/tool_cli.hpp"
#include "codebook/codebook_file.hpp"
#include "codebook/simplex_grid.hpp"
#include "codebook/train.hpp"
#include "codebook/train_summary.hpp"

namespace cb = p2b::codebook;

namespace {

constexpr const char* kDescription =
    "Trains the P2B encoder codebook: k-means over every context normalised to sum 1\n"
    "and kept to Q decimal digits (the simplex grid, C(10^Q + D - 1, D - 1) points).";

constexpr const char* kFooter =
    "Prints inertia, smallest and largest cluster, iterations and time. Exit status:\n"
    "0 done, 1 failed, 2 bad arguments.";

struct Options {
  cb::TrainOptions train;
  std::string out;
  bool force = false, quiet = false;
  bool have_dim = false, have_codes = false, have_population = false, have_threshold = false;
  cb::CrowdParams crowds;
};

int bad(const std::string& msg) {
  std::fprintf(stderr, "p2b-codebook: %s\n(see p2b-codebook --help)\n", msg.c_str());
  return 2;
}

bool parse_u64(const std::string& text, uint64_t lo, uint64_t hi, uint64_t* v) {
  const char* s = text.c_str();
  if (*s == '\0' || *s == '-') return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long long x = std::strtoull(s, &end, 10);
  if (errno != 0 || *end != '\0' || x < lo || x > hi) return false;
  *v = x;
  return true;
}

bool parse_double(const std::string& text, double lo, double hi, double* v) {
  const char* s = text.c_str();
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(s, &end);
  if (*s == '\0' || errno != 0 || *end != '\0' || !std::isfinite(x) || x < lo || x > hi) {
    return false;
  }
  *v = x;
  return true;
}

// An integer option in lo..hi; `store` gets the value.
template <typename Store>
void add_integer(CLI::App& app, const char* name, const char* type, uint64_t lo, uint64_t hi,
                 const char* help, Store store) {
  app.add_option_function<std::string>(
         name,
         [=](const std::string& v) {
           uint64_t u = 0;
           if (!parse_u64(v, lo, hi, &u)) {
             throw std::invalid_argument(std::string(name) + " must be an integer in " +
                                         std::to_string(lo) + ".." + std::to_string(hi) +
                                         ", got '" + v + "'");
           }
           store(u);
         },
         help)
      ->type_name(type);
}

// A real option in [lo, hi] stored in *field.
void add_real(CLI::App& app, const char* name, const char* type, double lo, double hi,
              double* field, bool* given, const char* help) {
  app.add_option_function<std::string>(
         name,
         [=](const std::string& v) {
           if (!parse_double(v, lo, hi, field)) {
             throw std::invalid_argument(std::string(name) + " must be a number in [" +
                                         std::to_string(lo) + ", " + std::to_string(hi) +
                                         "], got '" + v + "'");
           }
           if (given != nullptr) *given = true;
         },
         help)
      ->type_name(type);
}

void add_options(CLI::App& app, Options* o) {
  cb::TrainOptions* t = &o->train;
  add_integer(app, "--dim", "D", 2, 64, "context dimension d (2..64)", [o, t](uint64_t v) {
    t->dim = static_cast<uint32_t>(v);
    o->have_dim = true;
  });
  add_integer(app, "--digits", "Q", 1, 6, "decimal digits q (1..6, default 1)",
              [t](uint64_t v) { t->digits = static_cast<uint32_t>(v); });
  add_integer(app, "--codes", "K", 1, 65536, "codebook size k (1..65536, at most the grid size)",
              [o, t](uint64_t v) {
                t->codes = static_cast<uint32_t>(v);
                o->have_codes = true;
              });
  add_integer(app, "--seed", "S", 0, UINT64_MAX,
              "random seed (default 0); same seed, same file, any --threads",
              [t](uint64_t v) { t->seed = v; });
  add_integer(app, "--threads", "N", 1, 256, "worker threads (default: all cores)",
              [t](uint64_t v) { t->threads = static_cast<unsigned>(v); });
  app.add_option_function<std::string>(
         "--out",
         [o](const std::string& v) {
           if (v.empty()) throw std::invalid_argument("--out must not be empty");
           o->out = v;
         },
         "codebook file to write; refused if it exists unless --force")
      ->type_name("FILE");
  app.add_flag("--mini-batch", t->mini_batch,
               "mini-batch k-means on streamed grid samples (automatic above 2,000,000 grid "
               "points); otherwise Lloyd on the whole grid");
  add_integer(app, "--batch-size", "B", 1, 1'000'000, "mini-batch size (default 4096)",
              [t](uint64_t v) { t->batch_size = v; });
  add_integer(app, "--max-iterations", "I", 1, 1'000'000,
              "Lloyd iterations (default 1000, stops earlier when no point moves) or mini-batch "
              "batches (default 1000)",
              [t](uint64_t v) { t->max_iterations = static_cast<int>(v); });
  add_integer(app, "--max-no-improvement", "N", 0, 1'000'000,
              "mini-batch: stop after N batches in a row without a new low of the smoothed "
              "batch inertia, as scikit-learn (default 10; 0 runs every batch)",
              [t](uint64_t v) { t->max_no_improvement = static_cast<int>(v); });
  app.add_flag_callback(
      "--no-refine", [t] { t->refine = false; }, "skip the Hartigan refinement after Lloyd");
  add_real(app, "--population", "N", 1.0, 1e12, &o->crowds.population, &o->have_population,
           "devices reporting, with --threshold: expected crowd per code");
  add_real(app, "--threshold", "L", 1.0, 1e9, &o->crowds.threshold, &o->have_threshold,
           "shuffler crowd-blending threshold l");
  add_real(app, "--participation", "P", 1e-9, 1.0, &o->crowds.participation, nullptr,
           "report probability p (default 0.5)");
  app.add_flag("--force", o->force, "replace an existing --out");
  app.add_flag("--quiet", o->quiet, "no progress line on stderr");
}

// Returns -1 when parsed, else the exit status (0 after --help or --version,
// 2 bad arguments).
int parse(int argc, char** argv, Options* o) {
  CLI::App app(kDescription, "p2b-codebook");
  app.footer(kFooter);
  p2b::tools::add_common_flags(app);
  add_options(app, o);
  const int rc = p2b::tools::parse_command_line(app, argc, argv);
  if (rc >= 0) return rc;
  if (!o->have_dim || !o->have_codes || o->out.empty()) {
    return bad("--dim, --codes and --out are needed");
  }
  if (o->have_population != o->have_threshold) {
    return bad("--population and --threshold go together");
  }
  if (o->train.threads == 0) o->train.threads = std::max(1U, std::thread::hardware_concurrency());
  return -1;
}

int run(int argc, char** argv) {
  Options o;
  o.train.threads = 0;  // all cores unless --threads
  const int rc = parse(argc, argv, &o);
  if (rc >= 0) return rc;
  const cb::TrainOptions& t = o.train;
  const uint64_t grid = cb::grid_point_count(t.dim, t.digits);
  if (t.codes > grid) {
    return bad("--codes " + std::to_string(t.codes) + " exceeds the " + std::to_string(grid) +
               " grid points");
  }
  if (!o.force && ::access(o.out.c_str(), F_OK) == 0) {
    return bad(o.out + " exists (use --force to replace it)");
  }
  if (grid > cb::kMaxFullGrid && !t.mini_batch) {
    std::fprintf(stderr, "p2b-codebook: %" PRIu64 " grid points: using --mini-batch\n", grid);
  }
  if (!o.quiet) o.train.on_status = cb::print_status_line;
  const cb::TrainResult r = cb::train_codebook(t);
  if (!o.quiet) std::fputc('\n', stderr);

  std::string err;
  if (!cb::write_codebook_file(o.out, r.centroids, t.dim, t.digits, o.force, &err)) {
    std::fprintf(stderr, "p2b-codebook: %s\n", err.c_str());
    return 1;
  }
  cb::print_train_summary(t, r, o.have_population ? &o.crowds : nullptr);
  std::printf("  wrote       %s\n", o.out.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "p2b-codebook: error: %s\n", e.what());
    return 1;
  }
}
