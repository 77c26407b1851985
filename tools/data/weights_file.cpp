#include "data/weights_file.hpp"

#include <cmath>
#include <cstring>

#include "data/npy.hpp"
#include "data/text_util.hpp"
#include "data/zip_reader.hpp"

namespace p2b::data {

namespace {

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throw WeightsError(name + ": " + what);
}

std::string shape_text(const std::vector<size_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    s += (i ? ", " : "") + std::to_string(shape[i]);
  }
  return s + (shape.size() == 1 ? ",)" : ")");
}

bool starts_with(const uint8_t* data, size_t size, const char* magic, size_t n) {
  return size >= n && std::memcmp(data, magic, n) == 0;
}

// Rows of comma-separated finite numbers; '#' comments and blank lines are
// skipped. Shape (rows, columns).
NpyArray parse_csv(const uint8_t* data, size_t size, const std::string& name,
                   const WeightsLimits& limits) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  NpyArray out;
  size_t cols = 0;
  size_t rows = 0;
  size_t pos = 0;
  for (size_t line_no = 1; pos < text.size(); ++line_no) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = trim(text.substr(pos, end - pos));
    pos = end + 1;
    if (line.empty() || line.front() == '#') continue;
    const std::string where = name + ":" + std::to_string(line_no);
    size_t n = 0;
    for (size_t start = 0;; ++n) {
      const size_t comma = std::min(line.find(',', start), line.size());
      double v = 0;
      if (!parse_finite(line.substr(start, comma - start), v)) {
        throw WeightsError(where + ": field " + std::to_string(n + 1) + " ('" +
                           std::string(trim(line.substr(start, comma - start))) +
                           "') is not a finite number");
      }
      if (out.values.size() >= limits.max_values) {
        throw WeightsError(where + ": more than " + std::to_string(limits.max_values) + " values");
      }
      out.values.push_back(v);
      if (comma == line.size()) break;
      start = comma + 1;
    }
    ++n;
    if (rows > 0 && n != cols) {
      throw WeightsError(where + ": " + std::to_string(n) + " values, earlier rows have " +
                         std::to_string(cols));
    }
    cols = n;
    ++rows;
  }
  if (rows == 0) fail(name, "no numbers (empty CSV)");
  out.shape = {rows, cols};
  return out;
}

NpyArray parse_array(const uint8_t* data, size_t size, const std::string& name,
                     const WeightsLimits& limits) {
  if (size > limits.max_file_bytes)
    fail(name, "larger than " + std::to_string(limits.max_file_bytes));
  if (starts_with(data, size, "\x93NUMPY", 6)) {
    try {
      return parse_npy(data, size, name, limits.max_values);
    } catch (const std::runtime_error& e) {
      throw WeightsError(e.what());
    }
  }
  if (starts_with(data, size, "PK", 2))
    fail(name, "a zip (.npz) archive where one array is needed");
  return parse_csv(data, size, name, limits);
}

void check_finite(const NpyArray& a, const std::string& name) {
  for (size_t i = 0; i < a.values.size(); ++i) {
    if (!std::isfinite(a.values[i])) {
      fail(name, "value " + std::to_string(i) + " (C order) is not finite");
    }
  }
}

void check_expected(const Weights& w, const std::string& name, const WeightsShape& expected) {
  if (w.n_actions == 0 || w.dim == 0) {
    fail(name, "empty weights (|A| = " + std::to_string(w.n_actions) +
                   ", d = " + std::to_string(w.dim) + ")");
  }
  if ((expected.n_actions && expected.n_actions != w.n_actions) ||
      (expected.dim && expected.dim != w.dim)) {
    fail(name, "holds |A| = " + std::to_string(w.n_actions) + ", d = " + std::to_string(w.dim) +
                   "; expected |A| = " + std::to_string(expected.n_actions) +
                   ", d = " + std::to_string(expected.dim));
  }
}

// Single-array convention: (|A|, d + 1), b in the last column.
Weights from_combined(const NpyArray& a, const std::string& name, const WeightsShape& expected) {
  if (a.shape.size() != 2 || a.shape[1] < 2) {
    fail(name, "shape " + shape_text(a.shape) + " is not (|A|, d + 1) with d >= 1");
  }
  check_finite(a, name);
  Weights w;
  w.n_actions = a.shape[0];
  w.dim = a.shape[1] - 1;
  for (size_t r = 0; r < w.n_actions; ++r) {
    const double* row = a.values.data() + r * (w.dim + 1);
    w.w.insert(w.w.end(), row, row + w.dim);
    w.b.push_back(row[w.dim]);
  }
  check_expected(w, name, expected);
  return w;
}

Weights from_pair(const NpyArray& wa, const std::string& w_name, const NpyArray& ba,
                  const std::string& b_name, const WeightsShape& expected) {
  if (wa.shape.size() != 2) fail(w_name, "W has shape " + shape_text(wa.shape) + ", not (|A|, d)");
  const size_t n = wa.shape[0];
  // b as (|A|,), or a CSV column (|A|, 1) or row (1, |A|).
  const bool b_ok =
      (ba.shape.size() == 1 && ba.shape[0] == n) ||
      (ba.shape.size() == 2 && ba.values.size() == n && (ba.shape[0] == 1 || ba.shape[1] == 1));
  if (!b_ok) {
    fail(b_name, "b has shape " + shape_text(ba.shape) + ", W has " + std::to_string(n) +
                     " rows: need (" + std::to_string(n) + ",)");
  }
  check_finite(wa, w_name);
  check_finite(ba, b_name);
  Weights w;
  w.n_actions = n;
  w.dim = wa.shape[1];
  w.w = wa.values;
  w.b = ba.values;
  check_expected(w, w_name, expected);
  return w;
}

Weights from_npz(const uint8_t* data, size_t size, const std::string& name,
                 const WeightsShape& expected, const WeightsLimits& limits) {
  std::vector<ZipEntry> entries;
  try {
    entries = read_zip(data, size, name, 64, limits.max_file_bytes);
  } catch (const std::runtime_error& e) {
    throw WeightsError(e.what());
  }
  const ZipEntry* w_entry = nullptr;
  const ZipEntry* b_entry = nullptr;
  std::string names;
  for (const ZipEntry& e : entries) {
    names += (names.empty() ? "" : ", ") + e.name;
    const ZipEntry** slot = e.name == "W.npy" ? &w_entry : e.name == "b.npy" ? &b_entry : nullptr;
    if (slot && *slot) fail(name, "entry " + e.name + " appears twice");
    if (slot) *slot = &e;
  }
  const auto array = [&](const ZipEntry& e) {
    if (!starts_with(e.bytes.data(), e.bytes.size(), "\x93NUMPY", 6)) {
      fail(name, "entry " + e.name + " is not a .npy array");
    }
    return parse_array(e.bytes.data(), e.bytes.size(), name + "/" + e.name, limits);
  };
  if (w_entry && b_entry) {
    return from_pair(array(*w_entry), name + "/W.npy", array(*b_entry), name + "/b.npy", expected);
  }
  if (entries.size() == 1) return from_combined(array(entries[0]), name, expected);
  fail(name, "needs entries W.npy and b.npy, or a single array; holds [" + names + "]");
}

std::string read_or_throw(const std::string& path, const WeightsLimits& limits) {
  try {
    return read_file(path, limits.max_file_bytes);
  } catch (const std::runtime_error& e) {
    throw WeightsError(e.what());
  }
}

const uint8_t* bytes(const std::string& s) {
  return reinterpret_cast<const uint8_t*>(s.data());
}

}  // namespace

Weights parse_weights(const uint8_t* data, size_t size, const std::string& name,
                      const WeightsShape& expected, const WeightsLimits& limits) {
  if (size > limits.max_file_bytes)
    fail(name, "larger than " + std::to_string(limits.max_file_bytes));
  if (starts_with(data, size, "PK", 2)) return from_npz(data, size, name, expected, limits);
  return from_combined(parse_array(data, size, name, limits), name, expected);
}

Weights parse_weights_pair(const uint8_t* w_data, size_t w_size, const std::string& w_name,
                           const uint8_t* b_data, size_t b_size, const std::string& b_name,
                           const WeightsShape& expected, const WeightsLimits& limits) {
  return from_pair(parse_array(w_data, w_size, w_name, limits), w_name,
                   parse_array(b_data, b_size, b_name, limits), b_name, expected);
}

Weights load_weights(const std::string& path, const WeightsShape& expected,
                     const WeightsLimits& limits) {
  const std::string content = read_or_throw(path, limits);
  return parse_weights(bytes(content), content.size(), path, expected, limits);
}

Weights load_weights_pair(const std::string& w_path, const std::string& b_path,
                          const WeightsShape& expected, const WeightsLimits& limits) {
  const std::string w = read_or_throw(w_path, limits);
  const std::string b = read_or_throw(b_path, limits);
  return parse_weights_pair(bytes(w), w.size(), w_path, bytes(b), b.size(), b_path, expected,
                            limits);
}

}  // namespace p2b::data
