// p2b-audit: an empirical privacy audit of every mechanism in the project
// (docs/privacy-audit.md). Exit status: 0 when every shipped mechanism stays
// within its claim (and, with --broken, every broken variant is caught),
// 1 otherwise, 2 on bad usage.
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "audit/audit_report.hpp"
#include "audit/audit_run.hpp"
#include "cli/tool_cli.hpp"

namespace {

// One line per row on stderr, only when a person watches.
void show_progress(std::size_t index, std::size_t rows, const std::string& name) {
  std::fprintf(stderr, "[%zu/%zu] %s\n", index + 1, rows, name.c_str());
}

int run(int argc, char** argv) {
  p2b::audit::AuditSettings settings;
  bool json = false;
  CLI::App app{
      "p2b-audit: run the distinguishing game on each privacy mechanism and compare "
      "the empirical epsilon lower bound with the claimed epsilon",
      "p2b-audit"};
  p2b::tools::add_common_flags(app);
  app.add_option("--trials", settings.trials,
                 "runs per neighbouring input (half choose the test, half score it)")
      ->check(CLI::Range(20, 10000000));
  app.add_option("--seed", settings.seed, "seed of every draw: the same seed, the same table");
  app.add_flag("--broken", settings.broken,
               "also run the deliberately broken variants (sigma / 10, threshold off, p = 1, "
               "a reused mask), which the audit must catch");
  app.add_option("--only", settings.only, "audit only these mechanisms")
      ->check(CLI::IsMember(p2b::audit::mechanism_names()));
  app.add_flag("--json", json, "print the table as JSON");
  const int parsed = p2b::tools::parse_command_line(app, argc, argv);
  if (parsed >= 0) return parsed;
  if (isatty(STDERR_FILENO) != 0) settings.progress = show_progress;
  const std::vector<p2b::audit::AuditRow> rows = p2b::audit::run_audit(settings);
  const std::string out =
      json ? p2b::audit::report_json(rows, settings) : p2b::audit::report_text(rows, settings);
  std::fputs(out.c_str(), stdout);
  for (const auto& r : rows) {
    if (!p2b::audit::verdict_passes(r.verdict)) return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "p2b-audit: %s\n", e.what());
  } catch (...) {
    std::fputs("p2b-audit: unknown error\n", stderr);
  }
  return 1;
}
