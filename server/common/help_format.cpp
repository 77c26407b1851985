#include "common/help_format.hpp"

#include <map>
#include <memory>
#include <string>

namespace p2b::common {

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool starts_with(const std::string& s, const std::string& head) {
  return s.compare(0, head.size(), head) == 0;
}

// The value name of a flag, from its long name: the flags every service
// shares by name, then the endings the rest follow (the options tables in
// docs/operations.md); a number otherwise.
std::string value_name(const std::string& flag, const std::string& cli11_type) {
  static const std::map<std::string, std::string> by_name = {
      {"listen", "HOST:PORT"},
      {"keys", "DIR"},
      {"store", "FILE|URL"},
      {"log-level", "LEVEL"},
      {"log-file", "FILE"},
      {"access-log", "MODE"},
      {"max-body", "BYTES"},
      {"analyzer", "URL"},
      {"shuffler", "URL"},
      {"global", "URL"},
      {"servers", "URL,..."},
      {"local", "ID=DIR"},
      {"members", "FILE"},
      {"codebook", "FILE"},
      {"features", "FILE"},
      {"data", "FILE"},
      {"out", "FILE"},
      {"out-dir", "DIR"},
      {"model-store", "FILE"},
      {"key-list", "FILE"},
      {"current", "FILE"},
      {"mode", "MODE"},
      {"role", "ROLE"},
      {"policy", "POLICY"},
      {"protocol", "PROTOCOL"},
      {"show", "WHAT"},
      {"id", "ID"},
      {"party", "URL"},
      {"partition", "SPEC"},
      {"partitions", "SPEC"},
      {"batch-partitions", "SPEC"},
      {"created", "TIME"},
      {"not-after", "TIME"},
      {"bundle", "FILE"},
      {"precision", "DIGITS"},
      {"epsilon", "EPSILON"},
      {"delta", "DELTA"},
      {"central-epsilon", "EPSILON"},
      {"central-delta", "DELTA"},
      {"lambda", "X"},
      {"ts-scale", "X"},
      {"tie-rel-tol", "X"},
      {"noisy-threshold", "X"},
      {"users", "N"},
      {"seed", "N"},
      {"threads", "N"},
      {"dim", "N"},
      {"actions", "N"},
      {"producers", "N"},
      {"threshold", "N"},
      {"epoch", "N"},
      {"window", "N"},
      {"min-free-disk", "BYTES"},
      {"list-version", "N"},
      {"party-index", "N"},
      {"publish-reports", "N"},
      {"central-horizon", "N"},
      {"only", "NAME"},
  };
  const auto found = by_name.find(flag);
  if (found != by_name.end()) return found->second;
  if (ends_with(flag, "-seconds") || ends_with(flag, "-timeout") || ends_with(flag, "-ttl") ||
      ends_with(flag, "-grace")) {
    return "SECONDS";
  }
  if (ends_with(flag, "-ms")) return "MS";
  if (ends_with(flag, "-bytes")) return "BYTES";
  if (ends_with(flag, "-key") || ends_with(flag, "-file")) return "FILE";
  if (ends_with(flag, "-keys") || ends_with(flag, "-dir")) return "DIR";
  if (ends_with(flag, "-fp")) return "HEX";
  if (ends_with(flag, "-url")) return "URL";
  if (starts_with(flag, "max-") || starts_with(flag, "min-")) return "N";
  if (cli11_type == "FLOAT") return "X";
  return "N";
}

bool is_cli11_type(const std::string& name) {
  return name == "TEXT" || name == "UINT" || name == "INT" || name == "FLOAT" ||
         name == "BOOLEAN" || name == "CHAR";
}

// CLI11's formatter, less its "Usage: PROGRAM [OPTIONS]" line when the
// description already starts with the program's own usage line (which
// says which flags are required, as CLI11's cannot). That line is printed
// as "Usage: ...", the form help2man turns into the man page's SYNOPSIS.
class OneUsageLine : public CLI::Formatter {
 public:
  std::string make_description(const CLI::App* app) const override {
    std::string text = CLI::Formatter::make_description(app);
    if (starts_with(text, "usage:")) text[0] = 'U';
    return text;
  }
  std::string make_usage(const CLI::App* app, std::string name) const override {
    if (starts_with(app->get_description(), "usage:")) return {};
    return CLI::Formatter::make_usage(app, std::move(name));
  }
};

// A range check's own description with its C++ type dropped: "INT in
// [1 - 10]" -> "in [1 - 10]"; empty for any other description.
std::string range_without_type(const std::string& description) {
  const auto space = description.find(' ');
  if (space == std::string::npos || !is_cli11_type(description.substr(0, space))) return {};
  return description.substr(space + 1);
}

}  // namespace

void name_option_values(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    if (option->get_expected_max() == 0 || option->get_lnames().empty()) continue;  // a flag
    const std::string full = option->get_type_name();
    const auto colon = full.find(':');
    const std::string base = full.substr(0, colon);
    if (!is_cli11_type(base)) continue;  // named by the program itself
    const std::string name = value_name(option->get_lnames().front(), base);
    option->type_name(name);
    // CLI11 writes a range check as "TYPE:INT in [1 - 10]"; "N in [1 - 10]".
    const std::string range =
        colon == std::string::npos ? std::string() : range_without_type(full.substr(colon + 1));
    if (!range.empty()) option->option_text(std::string(name).append(" ").append(range));
  }
  for (CLI::App* sub : app.get_subcommands({})) name_option_values(*sub);
  if (app.get_parent() == nullptr) app.formatter(std::make_shared<OneUsageLine>());
}

}  // namespace p2b::common
