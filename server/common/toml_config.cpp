#include "common/toml_config.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include <toml++/toml.h>

namespace p2b::common {

namespace {

// Where each flag set by the last config file was set, "FILE:LINE:COLUMN".
// Process-wide because the services check their values' ranges after the
// CommandLine that parsed them is gone; a program parses once, at startup.
std::map<std::string, std::string>& config_origins() {
  static std::map<std::string, std::string> origins;
  return origins;
}

std::string position(const std::string& file, const toml::source_position& at) {
  return escape_unprintable(file) + ":" + std::to_string(at.line) + ":" + std::to_string(at.column);
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// " (did you mean 'listen'?)" for a key a typo away from a flag, else "".
std::string did_you_mean(const CLI::App& app, const std::string& name) {
  std::string best;
  std::size_t best_distance = 3;  // more than two edits is another word
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& flag : option->get_lnames()) {
      const std::size_t d = edit_distance(name, flag);
      if (d < best_distance) {
        best_distance = d;
        best = flag;
      }
    }
  }
  return best.empty() ? std::string() : " (did you mean '" + best + "'?)";
}

// The shortest decimal that reads back as `v` (0.1 stays "0.1").
std::string shortest_decimal(double v) {
  char text[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, v);
    if (std::strtod(text, nullptr) == v) break;
  }
  return text;
}

const char* type_of(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a number";
    case toml::node_type::boolean:
      return "true or false";
    default:
      return "a date or time";
  }
}

// One value as CLI11 reads a flag's argument; false for a table, an array
// or a date, which no p2b flag takes.
bool scalar_text(const toml::node& node, std::string* out) {
  if (const auto* s = node.as_string()) {
    *out = s->get();
  } else if (const auto* i = node.as_integer()) {
    *out = std::to_string(i->get());
  } else if (const auto* f = node.as_floating_point()) {
    *out = shortest_decimal(f->get());
  } else if (const auto* b = node.as_boolean()) {
    *out = b->get() ? "true" : "false";
  } else {
    return false;
  }
  return true;
}

const CLI::App* subcommand(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == name) return sub;
  }
  return nullptr;
}

bool takes_a_list(const CLI::Option& option) {
  return option.get_items_expected_max() > 1 ||
         option.get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll;
}

class TomlConfig : public CLI::Config {
 public:
  explicit TomlConfig(const CLI::App* app) : app_(app) {}

  // p2b writes no config files (there is no --write-config).
  std::string to_config(const CLI::App* /*app*/, bool /*default_also*/, bool /*write_description*/,
                        std::string /*prefix*/) const override {
    return {};
  }

  std::vector<CLI::ConfigItem> from_config(std::istream& input) const override {
    file_ = app_->get_config_ptr()->as<std::string>();
    const std::string text(std::istreambuf_iterator<char>(input), {});
    if (input.bad()) throw CLI::ConfigError(unreadable_config(file_));
    toml::table root;
    try {
      root = toml::parse(text, file_);
    } catch (const toml::parse_error& e) {
      throw CLI::ConfigError(position(file_, e.source().begin) +
                             ": not TOML: " + escape_unprintable(e.description()));
    }
    forget_config_values();
    std::vector<CLI::ConfigItem> settings;
    read_table(*app_, root, {}, &settings);
    return settings;
  }

 private:
  [[noreturn]] void refuse(const toml::key& key, const std::string& why) const {
    throw CLI::ConfigError(position(file_, key.source().begin) + ": key '" +
                           escape_unprintable(key.str()) + "': " + why);
  }

  void read_table(const CLI::App& app, const toml::table& table,
                  const std::vector<std::string>& parents,
                  std::vector<CLI::ConfigItem>* out) const {
    for (const auto& [key, node] : table) {
      std::string name(key.str());
      for (char& c : name) c = c == '_' ? '-' : c;
      if (const toml::table* section = node.as_table()) {
        const CLI::App* sub = subcommand(app, name);
        if (sub == nullptr) refuse(key, "unknown section" + did_you_mean(app, name));
        std::vector<std::string> inner = parents;
        inner.push_back(name);
        read_table(*sub, *section, inner, out);
        continue;
      }
      const CLI::Option* option = app.get_option_no_throw("--" + name);
      if (option == nullptr || option == app_->get_config_ptr()) {
        refuse(key, "unknown key" + did_you_mean(app, name));
      }
      // The command line has set it already: the flag wins, as CLI11 would.
      if (option->count() > 0) continue;
      CLI::ConfigItem item;
      item.parents = parents;
      item.name = name;
      read_value(*option, key, node, &item.inputs);
      config_origins()["--" + name] = position(file_, key.source().begin);
      out->push_back(std::move(item));
    }
  }

  void read_value(const CLI::Option& option, const toml::key& key, const toml::node& node,
                  std::vector<std::string>* inputs) const {
    const bool flag = option.get_expected_min() == 0;  // as CLI11 tells a flag
    if (flag) {
      if (!node.is_boolean())
        refuse(key, std::string("expected true or false, got ") + type_of(node));
      inputs->push_back(node.as_boolean()->get() ? "true" : "false");
      return;
    }
    std::string text;
    if (const toml::array* list = node.as_array()) {
      if (!takes_a_list(option)) {
        refuse(key, "expected one value (a string or a number), got an array");
      }
      for (const toml::node& element : *list) {
        if (!scalar_text(element, &text)) {
          refuse(key, std::string("expected an array of strings or numbers, got ") +
                          type_of(element) + " in it");
        }
        inputs->push_back(text);
      }
      return;
    }
    if (!scalar_text(node, &text)) {
      refuse(key, std::string("expected a string or a number, got ") + type_of(node));
    }
    inputs->push_back(text);
  }

  const CLI::App* app_;
  mutable std::string file_;  // the file from_config is reading, for messages
};

}  // namespace

void add_toml_config(CLI::App& app, const std::string& help) {
  app.set_config("--config", "", help)->type_name("FILE");
  app.config_formatter(std::make_shared<TomlConfig>(&app));
  // TomlConfig refuses an unknown key itself, with its line; this is the
  // backstop should CLI11 find one it cannot place.
  app.allow_config_extras(CLI::config_extras_mode::error);
}

std::string locate_config_value(const std::string& message) {
  const auto dashes = message.find("--");
  if (dashes == std::string::npos) return message;
  auto end = dashes + 2;
  while (end < message.size() &&
         (std::isalnum(static_cast<unsigned char>(message[end])) != 0 || message[end] == '-')) {
    ++end;
  }
  const auto at = config_origins().find(message.substr(dashes, end - dashes));
  return at == config_origins().end() ? message : at->second + ": " + message;
}

void forget_config_values() {
  config_origins().clear();
}

std::string escape_unprintable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      out += escaped;
    }
  }
  return out;
}

std::string unreadable_config(const std::string& path) {
  std::ifstream probe(path);
  const int error = probe ? 0 : errno;
  return escape_unprintable(path) + ": cannot read the config file" +
         (error != 0 ? std::string(" (") + std::strerror(error) + ")" : std::string());
}

}  // namespace p2b::common
