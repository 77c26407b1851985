#include "cli/result_table.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>

namespace p2b::tools {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

std::string quoted_if_needed(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';  // RFC 4180: a quote inside quotes is doubled
    out += c;
  }
  return out + "\"";
}

std::string cell_text(const Cell& cell) {
  if (const auto* i = std::get_if<int64_t>(&cell)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&cell)) {
    if (std::isnan(*d)) return "nan";
    if (std::isinf(*d)) return *d > 0 ? "inf" : "-inf";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g", *d);
    return buf;
  }
  return quoted_if_needed(std::get<std::string>(cell));
}

}  // namespace

void ResultTable::add_row(std::vector<Cell> row) {
  if (row.size() != columns_.size()) {
    throw std::invalid_argument("result row has " + std::to_string(row.size()) + " cells for " +
                                std::to_string(columns_.size()) + " columns");
  }
  rows_.push_back(std::move(row));
}

void write_csv(const ResultTable& table, const std::string& path) {
  const std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "w"));
  if (!file) throw std::runtime_error(path + ": " + std::strerror(errno));
  std::string text;
  for (size_t c = 0; c < table.columns().size(); ++c) {
    text += (c > 0 ? "," : "") + quoted_if_needed(table.columns()[c]);
  }
  text += '\n';
  for (const std::vector<Cell>& row : table.rows()) {
    for (size_t c = 0; c < row.size(); ++c) text += (c > 0 ? "," : "") + cell_text(row[c]);
    text += '\n';
  }
  // A short write (a full disk) must not leave a truncated CSV that reads as
  // a smaller result.
  if (std::fwrite(text.data(), 1, text.size(), file.get()) != text.size() ||
      std::fflush(file.get()) != 0) {
    throw std::runtime_error(path + ": write failed: " + std::strerror(errno));
  }
}

void write_tables(const ResultTables& tables, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error(dir + ": " + ec.message());
  for (const auto& [name, table] : tables) {
    std::string path = dir;
    path.append("/").append(name).append(".csv");
    write_csv(table, path);
  }
}

}  // namespace p2b::tools
