#include "data/arff.hpp"

#include <cmath>
#include <limits>
#include <unordered_set>

#include "data/text_util.hpp"

namespace p2b::data {

ArffError::ArffError(size_t line, const std::string& what)
    : std::runtime_error(what), line_(line) {}

bool Attribute::is_binary_nominal() const {
  return type == AttributeType::kNominal && nominal_values.size() == 2 &&
         ((nominal_values[0] == "0" && nominal_values[1] == "1") ||
          (nominal_values[0] == "1" && nominal_values[1] == "0"));
}

namespace {

constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

// Per-attribute parsing state kept beside the public Attribute.
struct Column {
  bool numeric_values = true;  // numeric, or nominal with only numbers declared
};

class Parser {
 public:
  Parser(std::string_view text, const ArffLimits& limits, const std::string& source)
      : text_(text), limits_(limits), source_(source) {}

  ArffTable run() {
    std::string_view line;
    bool in_data = false;
    while (next_line(line)) {
      const std::string_view t = trim(line);
      if (t.empty() || t.front() == '%') continue;
      if (in_data) {
        data_row(t);
      } else if (t.front() != '@') {
        fail("expected @relation, @attribute or @data before the data");
      } else if (keyword(t, "@relation")) {
        relation(t);
      } else if (keyword(t, "@attribute")) {
        attribute(t);
      } else if (keyword(t, "@data")) {
        if (trim(t.substr(5)) != "") fail("unexpected text after @data");
        if (table_.attributes.empty()) fail("@data before any @attribute");
        in_data = true;
      } else {
        fail("unknown declaration '" + std::string(t.substr(0, t.find_first_of(" \t"))) + "'");
      }
    }
    if (!in_data) fail_at(0, "no @data section");
    return std::move(table_);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { fail_at(line_no_, what); }
  [[noreturn]] void fail_at(size_t line, const std::string& what) const {
    const std::string where = line ? source_ + ":" + std::to_string(line) + ": " : source_ + ": ";
    throw ArffError(line, where + what);
  }

  bool next_line(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    line = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    ++line_no_;
    if (line.size() > limits_.max_line_bytes) {
      fail("line longer than " + std::to_string(limits_.max_line_bytes) + " bytes");
    }
    if (line.find('\0') != std::string_view::npos) fail("NUL byte in the text");
    return true;
  }

  // `@keyword` followed by a blank or the end of the line.
  static bool keyword(std::string_view t, std::string_view kw) {
    return istarts_with(t, kw) &&
           (t.size() == kw.size() || t[kw.size()] == ' ' || t[kw.size()] == '\t');
  }

  // A name: quoted ('...' or "..." with backslash escapes) or up to a blank.
  // Consumes it and the blanks after it from `s`.
  std::string take_token(std::string_view& s, const char* what) const {
    s = trim(s);
    if (s.empty()) fail(std::string("missing ") + what);
    std::string out;
    if (s.front() == '\'' || s.front() == '"') {
      const char q = s.front();
      size_t i = 1;
      for (; i < s.size() && s[i] != q; ++i) {
        if (s[i] == '\\' && i + 1 < s.size()) ++i;
        out.push_back(s[i]);
      }
      if (i >= s.size()) fail(std::string("unterminated quote in ") + what);
      s.remove_prefix(i + 1);
    } else {
      size_t i = 0;
      while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '{') ++i;
      out = std::string(s.substr(0, i));
      s.remove_prefix(i);
    }
    if (out.empty()) fail(std::string("empty ") + what);
    s = trim(s);
    return out;
  }

  void relation(std::string_view t) {
    if (seen_relation_) fail("second @relation");
    if (!table_.attributes.empty()) fail("@relation after @attribute");
    seen_relation_ = true;
    t.remove_prefix(9);
    table_.relation = take_token(t, "relation name");
    if (!t.empty()) fail("unexpected text after the relation name");
  }

  void attribute(std::string_view t) {
    if (table_.attributes.size() >= limits_.max_attributes) {
      fail("more than " + std::to_string(limits_.max_attributes) + " attributes");
    }
    t.remove_prefix(10);
    Attribute a;
    a.name = take_token(t, "attribute name");
    if (!names_.insert(a.name).second) fail("attribute '" + a.name + "' declared twice");
    Column c;
    if (!t.empty() && t.front() == '{') {
      a.type = AttributeType::kNominal;
      a.nominal_values = nominal_list(t, a.name);
      double unused = 0;
      for (const std::string& v : a.nominal_values) {
        c.numeric_values = c.numeric_values && parse_finite(v, unused);
      }
    } else if (iequals(t, "numeric") || iequals(t, "real") || iequals(t, "integer")) {
      a.type = AttributeType::kNumeric;
    } else if (t.empty()) {
      fail("attribute '" + a.name + "' has no type");
    } else {
      fail("attribute '" + a.name + "': unsupported type '" + std::string(t) +
           "' (numeric, real, integer or {nominal values})");
    }
    table_.attributes.push_back(std::move(a));
    columns_.push_back(c);
  }

  [[noreturn]] void duplicate_value(const std::string& name, const std::string& v) const {
    fail("attribute '" + name + "': nominal value '" + v + "' twice");
  }

  std::vector<std::string> nominal_list(std::string_view t, const std::string& name) const {
    const size_t close = t.rfind('}');
    if (close == std::string_view::npos) fail("attribute '" + name + "': missing '}'");
    if (!trim(t.substr(close + 1)).empty()) fail("attribute '" + name + "': text after '}'");
    std::vector<std::string> values;
    std::unordered_set<std::string> seen;
    for (const std::string& v : split(t.substr(1, close - 1))) {
      if (v.empty()) fail("attribute '" + name + "': empty nominal value");
      if (!seen.insert(v).second) duplicate_value(name, v);
      values.push_back(v);
    }
    return values;
  }

  // Comma-separated fields, each trimmed and unquoted.
  std::vector<std::string> split(std::string_view s) const {
    std::vector<std::string> fields;
    size_t i = 0;
    while (true) {
      while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
      std::string field;
      if (i < s.size() && (s[i] == '\'' || s[i] == '"')) {
        const char q = s[i++];
        while (i < s.size() && s[i] != q) {
          if (s[i] == '\\' && i + 1 < s.size()) ++i;
          field.push_back(s[i++]);
        }
        if (i >= s.size()) fail("unterminated quote");
        ++i;
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
        if (i < s.size() && s[i] != ',') fail("text after a quoted value");
      } else {
        const size_t start = i;
        while (i < s.size() && s[i] != ',') ++i;
        field = std::string(trim(s.substr(start, i - start)));
      }
      fields.push_back(std::move(field));
      if (i >= s.size()) break;
      ++i;  // the comma
    }
    return fields;
  }

  double cell(const std::string& v, size_t col) const {
    if (v == "?") return kMissing;
    const Attribute& a = table_.attributes[col];
    double x = 0;
    if (columns_[col].numeric_values) {
      if (!parse_finite(v, x)) {
        fail("column " + std::to_string(col + 1) + " ('" + a.name + "'): '" + v +
             "' is not a finite number");
      }
      return x;
    }
    for (size_t k = 0; k < a.nominal_values.size(); ++k) {
      if (a.nominal_values[k] == v) return static_cast<double>(k);
    }
    fail("column " + std::to_string(col + 1) + " ('" + a.name + "'): '" + v +
         "' is not one of its declared values");
  }

  void start_row() {
    const size_t cols = table_.cols();
    if (table_.rows >= limits_.max_rows) {
      fail("more than " + std::to_string(limits_.max_rows) + " data rows");
    }
    if ((table_.rows + 1) > limits_.max_cells / cols) {
      fail("more than " + std::to_string(limits_.max_cells) + " cells");
    }
    table_.values.resize(table_.values.size() + cols, 0.0);
    ++table_.rows;
  }

  void data_row(std::string_view t) {
    const size_t cols = table_.cols();
    start_row();
    double* row = table_.values.data() + (table_.rows - 1) * cols;
    if (t.front() == '{') {
      sparse_row(t, row);
      return;
    }
    const std::vector<std::string> fields = split(t);
    if (fields.size() != cols) {
      fail(std::to_string(fields.size()) + " values, the header declares " + std::to_string(cols) +
           " attributes");
    }
    for (size_t c = 0; c < cols; ++c) row[c] = cell(fields[c], c);
  }

  // {index value, ...}: 0-based indices, strictly increasing; absent is 0.
  void sparse_row(std::string_view t, double* row) const {
    if (t.back() != '}') fail("sparse row without a closing '}'");
    const std::string_view body = trim(t.substr(1, t.size() - 2));
    if (body.empty()) return;
    size_t next = 0;
    for (const std::string& entry : split(body)) {
      std::string_view e = entry;
      const size_t blank = e.find_first_of(" \t");
      if (blank == std::string_view::npos)
        fail("sparse entry '" + entry + "' is not 'index value'");
      double idx = 0;
      if (!parse_finite(e.substr(0, blank), idx) || idx < 0 || idx != std::floor(idx) ||
          idx >= static_cast<double>(table_.cols())) {
        fail("sparse index '" + std::string(e.substr(0, blank)) + "' is not in 0.." +
             std::to_string(table_.cols() - 1));
      }
      const size_t col = static_cast<size_t>(idx);
      if (col < next) fail("sparse indices must increase (" + std::to_string(col) + ")");
      next = col + 1;
      std::string v(trim(e.substr(blank)));
      if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"') && v.back() == v.front()) {
        v = v.substr(1, v.size() - 2);
      }
      row[col] = cell(v, col);
    }
  }

  std::string_view text_;
  const ArffLimits& limits_;
  const std::string& source_;
  size_t pos_ = 0;
  size_t line_no_ = 0;
  bool seen_relation_ = false;
  std::unordered_set<std::string> names_;
  std::vector<Column> columns_;
  ArffTable table_;
};

}  // namespace

ArffTable parse_arff(std::string_view text, const ArffLimits& limits, const std::string& source) {
  return Parser(text, limits, source).run();
}

ArffTable load_arff(const std::string& path, const ArffLimits& limits) {
  // A file longer than max_cells values of a few bytes each cannot be valid.
  const size_t per_cell = 64;
  const size_t cap = std::numeric_limits<size_t>::max() / 2;
  const size_t max_bytes =
      limits.max_cells > cap / per_cell ? cap : limits.max_cells * per_cell + limits.max_line_bytes;
  std::string text;
  try {
    text = read_file(path, max_bytes);
  } catch (const std::runtime_error& e) {
    throw ArffError(0, e.what());
  }
  return parse_arff(text, limits, path);
}

}  // namespace p2b::data
