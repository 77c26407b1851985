#include "demo_options.hpp"

#include <cstdlib>
#include <stdexcept>

#include "cli/tool_cli.hpp"

namespace p2b::demo {
namespace {

// A whole number in [1, 1e7] (1e4 and 2.5e4 are accepted, as before CLI11),
// cast to the field's type.
template <typename T>
void add_count(CLI::App& app, const char* name, const char* type, T* field, const char* help) {
  app.add_option_function<std::string>(
         name,
         [=](const std::string& v) {
           char* end = nullptr;
           const double x = std::strtod(v.c_str(), &end);
           if (end == v.c_str() || *end != '\0' || !(x >= 1 && x <= 1e7)) {
             throw std::invalid_argument(std::string(name) + " needs a number in [1, 1e7], got " +
                                         v);
           }
           *field = static_cast<T>(x);
         },
         help)
      ->type_name(type);
}

void add_store(CLI::App& app, Options* o) {
  app.add_option_function<std::string>(
         "--store",
         [o](const std::string& v) {
           if (v != "sqlite" && v != "postgresql" && v.rfind("postgresql://", 0) != 0 &&
               v.rfind("postgres://", 0) != 0) {
             throw std::invalid_argument("--store needs sqlite, postgresql or postgresql://URL");
           }
           o->store = v;
         },
         "the services' backend: sqlite (files under --out), postgresql (a throwaway "
         "cluster in the temporary directory) or postgresql://URL (a server whose user may create "
         "the "
         "databases p2b_demo_shuffler and p2b_demo_analyzer, dropped first) [sqlite]")
      ->type_name("STORE");
}

void add_central_epsilon(CLI::App& app, Options* o) {
  app.add_option_function<std::string>(
         "--central-epsilon",
         [o](const std::string& v) {
           char* end = nullptr;
           const double x = std::strtod(v.c_str(), &end);
           if (v != "off" && (end == v.c_str() || *end != '\0' || !(x > 0 && x <= 100))) {
             throw std::invalid_argument("--central-epsilon needs a number in (0, 100] or off");
           }
           o->central_epsilon = v;
         },
         "the analyzers' central DP (docs/analyzer.md): EPS per report over the horizon, or off "
         "(P2B's own guarantee only, as in the paper) [off]")
      ->type_name("EPS|off");
}

}  // namespace

int parse_options(int argc, char** argv, Options* o) {
  CLI::App app(
      "Runs P2B end to end: keys, codebook, p2b-shuffler and p2b-analyzer on loopback,\n"
      "devices through the C API, a signed model, cold vs warm late users.",
      "p2b-demo");
  tools::add_common_flags(app);
  add_count(app, "--users", "N", &o->users, "early (sharing) users [50000]");
  add_count(app, "--threshold", "L", &o->threshold,
            "crowd-blending threshold l, shuffler and analyzer [10]");
  add_count(app, "--codes", "k", &o->codes, "codebook size [1024]");
  add_count(app, "--seed", "S", &o->seed, "[1]");
  app.add_option("--out", o->out, "keys, codebook, service data and results [out/demo]")
      ->type_name("DIR");
  add_store(app, o);
  add_central_epsilon(app, o);
  return tools::parse_command_line(app, argc, argv);
}

}  // namespace p2b::demo
