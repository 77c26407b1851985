#include "common/command_line.hpp"

#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "common/exit_codes.hpp"
#include "common/version.hpp"

namespace p2b::common {

namespace {

// CLI11's TOML/INI reader, plus: `batch_size` names `--batch-size`, and a
// name repeated anywhere in the file adds to one list (CLI11 alone keeps
// only the first of non-adjacent repeats).
class ConfigFile : public CLI::ConfigBase {
 public:
  std::vector<CLI::ConfigItem> from_config(std::istream& input) const override {
    std::vector<CLI::ConfigItem> merged;
    std::map<std::string, std::size_t> at;
    for (CLI::ConfigItem& item : CLI::ConfigBase::from_config(input)) {
      for (char& c : item.name) c = c == '_' ? '-' : c;
      const std::string key = item.fullname();
      const auto it = at.find(key);
      if (it == at.end() || item.name == "++" || item.name == "--") {
        at.emplace(key, merged.size());
        merged.push_back(std::move(item));
      } else {
        std::vector<std::string>& inputs = merged[it->second].inputs;
        inputs.insert(inputs.end(), item.inputs.begin(), item.inputs.end());
      }
    }
    return merged;
  }
};

}  // namespace

CommandLine::CommandLine(const std::string& program, const std::string& synopsis,
                         const std::string& description, bool config_file)
    : program_(program), synopsis_(synopsis), app_(description, program) {
  // Later values replace earlier ones, as a config file's later line would.
  app_.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app_.set_version_flag("--version", version_line(program), "print the version and exit");
  if (config_file) {
    app_.set_config("--config", "", "read settings from FILE ('name = value' lines)");
    app_.config_formatter(std::make_shared<ConfigFile>());
    app_.allow_config_extras(CLI::config_extras_mode::error);
  }
}

CLI::Option* CommandLine::add_value(const std::string& names, std::string* raw,
                                    const std::string& help) {
  return app_.add_option(names, *raw, help)->expected(1)->allow_extra_args(false);
}

ParseOutcome CommandLine::parse(int argc, const char* const* argv, std::string* message) {
  try {
    app_.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    *message = synopsis_ + "\n\n" + app_.help();
    return ParseOutcome::help;
  } catch (const CLI::CallForVersion& e) {
    *message = std::string(e.what()) + "\n";
    return ParseOutcome::version;
  } catch (const CLI::ExtrasError&) {
    const std::vector<std::string> extras = app_.remaining();
    *message = "unknown argument '" + (extras.empty() ? std::string("?") : extras.front()) + "'";
    return ParseOutcome::usage_error;
  } catch (const CLI::ConfigError& e) {
    *message = std::string("config file: ") + e.what();
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
      std::fprintf(stderr, "%s: %s\nRun '%s --help' for usage.\n", program.c_str(), message.c_str(),
                   program.c_str());
      return kExitUsage;
  }
  return kExitUsage;
}

}  // namespace p2b::common
