// Label columns: explicit, by name prefix, or detected from the values
// (docs/data.md, "Which columns are labels").
#include "data/multilabel.hpp"

#include <charconv>
#include <cmath>

#include "data/text_util.hpp"

namespace p2b::data {

namespace {

[[noreturn]] void fail(const std::string& what) {
  throw DataError(what);
}

size_t parse_count(std::string_view s, std::string_view spec) {
  size_t n = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || n == 0) {
    fail("label spec '" + std::string(spec) + "': '" + std::string(s) +
         "' is not a positive count");
  }
  return n;
}

bool binary_column(const ArffTable& t, size_t c) {
  for (size_t r = 0; r < t.rows; ++r) {
    const double v = t.at(r, c);
    if (v != 0.0 && v != 1.0) return false;
  }
  return true;
}

// Lengths of the runs of {0,1}-valued columns at either end of the rows.
struct Runs {
  size_t head = 0;
  size_t tail = 0;
};
Runs binary_runs(const ArffTable& t) {
  Runs r;
  while (r.head < t.cols() && binary_column(t, r.head)) ++r.head;
  if (r.head == t.cols()) return {r.head, r.head};
  while (r.tail < t.cols() && binary_column(t, t.cols() - 1 - r.tail)) ++r.tail;
  return r;
}

// The header's {0,1} attributes, when they form one block at an end.
enum class End { kNone, kFirst, kLast };
struct HeaderBlock {
  End end = End::kNone;
  size_t count = 0;
};
HeaderBlock header_block(const ArffTable& t) {
  size_t total = 0;
  size_t head = 0;
  size_t tail = 0;
  for (const Attribute& a : t.attributes) total += a.is_binary_nominal() ? 1 : 0;
  while (head < t.cols() && t.attributes[head].is_binary_nominal()) ++head;
  while (tail < t.cols() && t.attributes[t.cols() - 1 - tail].is_binary_nominal()) ++tail;
  if (total == 0 || total == t.cols()) return {};
  if (head == total) return {End::kFirst, total};
  if (tail == total) return {End::kLast, total};
  return {};
}

const char* end_name(End e) {
  return e == End::kFirst ? "first" : "last";
}

// Header names in data order: rotated when the header declares the label
// block at the other end than the data holds it (yeast).
std::vector<std::string> names_in_data_order(const ArffTable& t, End labels_at, size_t n_labels,
                                             bool* rotated) {
  std::vector<std::string> names;
  for (const Attribute& a : t.attributes) names.push_back(a.name);
  const HeaderBlock h = header_block(t);
  *rotated = h.end != End::kNone && h.end != labels_at && h.count == n_labels;
  if (*rotated) {
    const size_t shift = h.end == End::kFirst ? n_labels : t.cols() - n_labels;
    std::vector<std::string> r(names.begin() + static_cast<std::ptrdiff_t>(shift), names.end());
    r.insert(r.end(), names.begin(), names.begin() + static_cast<std::ptrdiff_t>(shift));
    names.swap(r);
  }
  return names;
}

struct Choice {
  End end = End::kNone;
  size_t count = 0;
  std::string why;
};

Choice detect(const ArffTable& t) {
  const Runs runs = binary_runs(t);
  const HeaderBlock h = header_block(t);
  const std::string runs_text = "(leading {0,1}-valued run " + std::to_string(runs.head) +
                                ", trailing " + std::to_string(runs.tail) + " of " +
                                std::to_string(t.cols()) + " columns)";
  if (runs.head == t.cols()) fail("every column is {0,1}-valued: pass labels=first:N or last:N");
  if (h.end != End::kNone) {
    const size_t n = h.count;
    const size_t same = h.end == End::kFirst ? runs.head : runs.tail;
    const size_t other = h.end == End::kFirst ? runs.tail : runs.head;
    const End other_end = h.end == End::kFirst ? End::kLast : End::kFirst;
    if (same >= n) return {h.end, n, "detected where the header declares them"};
    if (other >= n) {
      return {other_end, n,
              std::string("detected from the values; the header declares its ") +
                  std::to_string(n) + " {0,1} attributes " + end_name(h.end) +
                  " but the data rows hold them " + end_name(other_end)};
    }
    fail("the header declares " + std::to_string(n) +
         " {0,1} attributes but no end of the data rows has that many {0,1}-valued columns " +
         runs_text + ": pass labels=first:N or last:N");
  }
  if (runs.tail > 0 && runs.head == 0) return {End::kLast, runs.tail, "detected from the values"};
  if (runs.head > 0 && runs.tail == 0) return {End::kFirst, runs.head, "detected from the values"};
  fail(std::string(runs.head == 0 ? "no {0,1}-valued label columns " : "ambiguous label columns ") +
       runs_text + ": pass labels=first:N, last:N or prefix:NAME");
}

void copy_row_values(const ArffTable& t, const std::vector<bool>& is_label, LabeledTable& out) {
  for (size_t r = 0; r < t.rows; ++r) {
    for (size_t c = 0; c < t.cols(); ++c) {
      const double v = t.at(r, c);
      const std::string where = "row " + std::to_string(r + 1) + ", column " +
                                std::to_string(c + 1) + " ('" + t.attributes[c].name + "')";
      if (is_label[c]) {
        if (v != 0.0 && v != 1.0) {
          fail(where + ": label value " + (std::isnan(v) ? std::string("?") : std::to_string(v)) +
               " is not 0 or 1 (the header order may not match the data: try labels=auto)");
        }
        out.labels.push_back(v == 1.0 ? 1 : 0);
      } else {
        if (!std::isfinite(v)) fail(where + ": missing feature value");
        out.features.push_back(v);
      }
    }
  }
}

}  // namespace

LabelSpec LabelSpec::parse(std::string_view text) {
  LabelSpec s;
  const std::string_view t = trim(text);
  if (t.empty() || t == "auto") return s;
  const size_t colon = t.find(':');
  const std::string_view kind = t.substr(0, colon);
  const std::string_view arg = colon == std::string_view::npos ? "" : t.substr(colon + 1);
  if (kind == "first" || kind == "last") {
    s.kind = kind == "first" ? Kind::kFirst : Kind::kLast;
    s.count = parse_count(arg, t);
  } else if (kind == "prefix" && !arg.empty()) {
    s.kind = Kind::kPrefix;
    s.prefix = std::string(arg);
  } else {
    fail("label spec '" + std::string(t) + "': expected auto, first:N, last:N or prefix:NAME");
  }
  return s;
}

LabeledTable split_labels(const ArffTable& t, const LabelSpec& spec) {
  if (t.rows == 0) fail("the data set has no rows");
  std::vector<bool> is_label(t.cols(), false);
  std::vector<std::string> names;
  std::string note;
  bool rotated = false;
  if (spec.kind == LabelSpec::Kind::kPrefix) {
    for (size_t c = 0; c < t.cols(); ++c) {
      is_label[c] = t.attributes[c].name.compare(0, spec.prefix.size(), spec.prefix) == 0;
      names.push_back(t.attributes[c].name);
    }
    note = "labels: the columns named '" + spec.prefix + "*' in the header";
  } else {
    Choice ch;
    if (spec.kind == LabelSpec::Kind::kDetect) {
      ch = detect(t);
    } else {
      ch = {spec.kind == LabelSpec::Kind::kFirst ? End::kFirst : End::kLast, spec.count,
            "as given"};
    }
    if (ch.count >= t.cols()) {
      fail(std::to_string(ch.count) + " label columns leave no feature in " +
           std::to_string(t.cols()) + " columns");
    }
    const size_t begin = ch.end == End::kFirst ? 0 : t.cols() - ch.count;
    for (size_t c = begin; c < begin + ch.count; ++c) is_label[c] = true;
    names = names_in_data_order(t, ch.end, ch.count, &rotated);
    note = "labels: " + std::string(end_name(ch.end)) + " " + std::to_string(ch.count) + " of " +
           std::to_string(t.cols()) + " columns, " + ch.why;
  }
  LabeledTable out;
  out.rows = t.rows;
  for (size_t c = 0; c < t.cols(); ++c) {
    (is_label[c] ? out.label_names : out.feature_names).push_back(names[c]);
  }
  if (out.label_names.empty()) fail("no column matches the label spec");
  if (out.feature_names.empty()) fail("no feature column left after the labels");
  if (rotated) {
    note += "; header names rotated to match (labels " + out.label_names.front() + ".." +
            out.label_names.back() + ", features " + out.feature_names.front() + ".." +
            out.feature_names.back() + ")";
  }
  out.features.reserve(t.rows * out.feature_names.size());
  out.labels.reserve(t.rows * out.label_names.size());
  copy_row_values(t, is_label, out);
  out.note = note;
  return out;
}

LabelStats label_stats(const LabeledTable& t) {
  LabelStats s;
  s.rows = t.rows;
  s.n_labels = t.label_names.size();
  size_t total = 0;
  for (size_t r = 0; r < t.rows; ++r) {
    size_t k = 0;
    for (size_t j = 0; j < s.n_labels; ++j) k += t.labels[r * s.n_labels + j];
    total += k;
    s.rows_without_label += k == 0 ? 1 : 0;
  }
  s.cardinality = t.rows ? static_cast<double>(total) / static_cast<double>(t.rows) : 0.0;
  return s;
}

MultiLabelSet make_multilabel_set(const ArffTable& table, const LabelSpec& spec, size_t dim) {
  LabeledTable t = split_labels(table, spec);
  MultiLabelSet s;
  s.contexts = make_contexts(t, dim);
  s.rows = t.rows;
  s.dim = dim;
  s.n_labels = t.label_names.size();
  s.stats = label_stats(t);
  s.labels = std::move(t.labels);
  s.label_names = std::move(t.label_names);
  s.note = std::move(t.note);
  return s;
}

}  // namespace p2b::data
