#include "common/command_line.hpp"

#include <cstdio>
#include <utility>
#include <vector>

#include "common/exit_codes.hpp"
#include "common/help_format.hpp"
#include "common/toml_config.hpp"
#include "common/version.hpp"

namespace p2b::common {

CommandLine::CommandLine(const std::string& program, const std::string& synopsis,
                         const std::string& description, bool config_file)
    // The synopsis heads the description, so --help prints it as its one
    // usage line (help_format.hpp drops CLI11's own).
    : program_(program), app_(synopsis + "\n\n" + description, program) {
  // Later values replace earlier ones, as a config file's later line would.
  app_.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app_.set_version_flag("--version", version_line(program), "print the version and exit");
  if (config_file) {
    add_toml_config(app_, "read settings from FILE (TOML: long-name = value)");
  }
}

CLI::Option* CommandLine::add_value(const std::string& names, std::string* raw,
                                    const std::string& help) {
  return app_.add_option(names, *raw, help)->expected(1)->allow_extra_args(false);
}

ParseOutcome CommandLine::parse(int argc, const char* const* argv, std::string* message) {
  forget_config_values();
  name_option_values(app_);
  try {
    app_.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    *message = app_.help();
    return ParseOutcome::help;
  } catch (const CLI::CallForVersion& e) {
    *message = std::string(e.what()) + "\n";
    return ParseOutcome::version;
  } catch (const CLI::ExtrasError&) {
    const std::vector<std::string> extras = app_.remaining();
    *message = "unknown argument '" + (extras.empty() ? std::string("?") : extras.front()) + "'";
    return ParseOutcome::usage_error;
  } catch (const CLI::ConfigError& e) {
    *message = e.what();  // names the file, line and key already
    return ParseOutcome::usage_error;
  } catch (const CLI::FileError&) {
    *message = unreadable_config(app_.get_config_ptr()->as<std::string>());
    return ParseOutcome::usage_error;
  } catch (const CLI::ParseError& e) {
    *message = e.what();
    return ParseOutcome::usage_error;
  }
  return ParseOutcome::ok;
}

ParseOutcome usage_error(std::string* message, std::string why) {
  *message = std::move(why);
  return ParseOutcome::usage_error;
}

bool given(const CLI::Option* option) {
  return option->count() > 0;
}

int report_parse_outcome(const std::string& program, ParseOutcome outcome,
                         const std::string& message) {
  switch (outcome) {
    case ParseOutcome::ok:
      return -1;
    case ParseOutcome::help:
    case ParseOutcome::version:
      std::fputs(message.c_str(), stdout);
      return kExitClean;
    case ParseOutcome::usage_error:
      std::fprintf(stderr, "%s: %s\nRun '%s --help' for usage.\n", program.c_str(),
                   escape_unprintable(locate_config_value(message)).c_str(), program.c_str());
      return kExitUsage;
  }
  return kExitUsage;
}

}  // namespace p2b::common
