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

const char* layout_name(WeightsLayout l) {
  return l == WeightsLayout::dim_by_actions ? "(d, |A|)" : "(|A|, d)";
}

// Whether a (rows, cols) W fits the expected (|A|, d) read one way or the
// other; 0 in `expected` matches anything.
bool fits(size_t actions, size_t dim, const WeightsShape& expected) {
  return (!expected.n_actions || expected.n_actions == actions) &&
         (!expected.dim || expected.dim == dim);
}

// The layout to read a file in, when neither its entry names nor the caller
// fixed it: the one orientation that fits, or the documented (|A|, d) when
// nothing is known; refused when both fit, since reading a square W the
// wrong way round runs silently on another environment.
WeightsLayout resolve(WeightsLayout asked, bool fits_ad, bool fits_da, bool shape_known,
                      const std::string& name, const std::string& what) {
  if (asked != WeightsLayout::auto_detect) return asked;
  if (!shape_known) return WeightsLayout::actions_by_dim;  // nothing to tell them apart
  if (fits_ad && fits_da) {
    fail(name, what +
                   " fits both (|A|, d) and (d, |A|); say which with --weights-layout "
                   "actions-by-dim or dim-by-actions (Keras's kernel is dim-by-actions)");
  }
  return fits_da && !fits_ad ? WeightsLayout::dim_by_actions : WeightsLayout::actions_by_dim;
}

// W from a (rows, cols) array in `layout`, into our (|A|, d) row-major order.
std::vector<double> oriented(const std::vector<double>& v, size_t rows, size_t cols,
                             WeightsLayout layout) {
  if (layout == WeightsLayout::actions_by_dim) return v;
  std::vector<double> t(v.size());
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) t[c * rows + r] = v[r * cols + c];
  }
  return t;
}

// Single-array convention: (|A|, d + 1), b in the last column; transposed,
// (d + 1, |A|) with b in the last row.
Weights from_combined(const NpyArray& a, const std::string& name, const WeightsShape& expected) {
  if (a.shape.size() != 2 || (a.shape[0] < 2 && a.shape[1] < 2)) {
    fail(name, "shape " + shape_text(a.shape) + " is not (|A|, d + 1) with d >= 1");
  }
  check_finite(a, name);
  const size_t rows = a.shape[0];
  const size_t cols = a.shape[1];
  const bool fits_ad = cols >= 2 && fits(rows, cols - 1, expected);
  const bool fits_da = rows >= 2 && fits(cols, rows - 1, expected);
  const bool known = expected.n_actions || expected.dim;
  const WeightsLayout layout =
      resolve(expected.layout, fits_ad, fits_da, known, name, "shape " + shape_text(a.shape));
  Weights w;
  if (layout == WeightsLayout::actions_by_dim) {
    if (cols < 2) fail(name, "shape " + shape_text(a.shape) + " is not (|A|, d + 1) with d >= 1");
    w.n_actions = rows;
    w.dim = cols - 1;
    for (size_t r = 0; r < rows; ++r) {
      const double* row = a.values.data() + r * cols;
      w.w.insert(w.w.end(), row, row + w.dim);
      w.b.push_back(row[w.dim]);
    }
    w.layout = "(|A|, d + 1), b in the last column";
  } else {
    if (rows < 2) fail(name, "shape " + shape_text(a.shape) + " is not (d + 1, |A|) with d >= 1");
    w.n_actions = cols;
    w.dim = rows - 1;
    const std::vector<double> kernel(a.values.begin(),
                                     a.values.begin() + static_cast<std::ptrdiff_t>(w.dim * cols));
    w.w = oriented(kernel, w.dim, cols, layout);
    w.b.assign(a.values.end() - static_cast<std::ptrdiff_t>(cols), a.values.end());
    w.layout = "(d + 1, |A|), b in the last row, transposed";
  }
  check_expected(w, name, expected);
  return w;
}

// W and b; `named_layout` is the layout the entry names fix (Keras's kernel),
// or auto_detect when they do not. `documented` is true for our own names
// (W, b), which mean (|A|, d) when the shapes cannot tell.
Weights from_pair(const NpyArray& wa, const std::string& w_name, const NpyArray& ba,
                  const std::string& b_name, const WeightsShape& expected,
                  WeightsLayout named_layout = WeightsLayout::auto_detect,
                  bool documented = false) {
  if (wa.shape.size() != 2) fail(w_name, "W has shape " + shape_text(wa.shape) + ", not 2-D");
  const size_t rows = wa.shape[0];
  const size_t cols = wa.shape[1];
  // b as (n,), or a CSV column (n, 1) or row (1, n).
  const bool b_vector =
      ba.shape.size() == 1 || (ba.shape.size() == 2 && (ba.shape[0] == 1 || ba.shape[1] == 1));
  if (!b_vector) fail(b_name, "b has shape " + shape_text(ba.shape) + ", not a vector");
  const size_t n = ba.values.size();
  if (named_layout != WeightsLayout::auto_detect && expected.layout != WeightsLayout::auto_detect &&
      named_layout != expected.layout) {
    fail(w_name, std::string("the entry names say W is ") + layout_name(named_layout) +
                     ", --weights-layout says " + layout_name(expected.layout));
  }
  const WeightsLayout asked =
      named_layout != WeightsLayout::auto_detect ? named_layout : expected.layout;
  const bool fits_ad = rows == n && fits(rows, cols, expected);
  const bool fits_da = cols == n && fits(cols, rows, expected);
  WeightsLayout layout = asked;
  if (asked == WeightsLayout::auto_detect) {
    layout = documented && fits_ad
                 ? WeightsLayout::actions_by_dim
                 : resolve(asked, fits_ad, fits_da, true, w_name,
                           "W " + shape_text(wa.shape) + " with b of " + std::to_string(n));
  }
  const size_t actions = layout == WeightsLayout::actions_by_dim ? rows : cols;
  if (n != actions) {
    fail(b_name, "b has " + std::to_string(n) + " values, W " + shape_text(wa.shape) + " read as " +
                     layout_name(layout) + " has |A| = " + std::to_string(actions));
  }
  check_finite(wa, w_name);
  check_finite(ba, b_name);
  Weights w;
  w.n_actions = actions;
  w.dim = layout == WeightsLayout::actions_by_dim ? cols : rows;
  w.w = oriented(wa.values, rows, cols, layout);
  w.b = ba.values;
  w.layout = std::string("W ") + layout_name(layout) +
             (layout == WeightsLayout::dim_by_actions ? ", transposed" : "") +
             (named_layout != WeightsLayout::auto_detect ? " (Keras names)" : "");
  check_expected(w, w_name, expected);
  return w;
}

// An npz entry's array name: "kernel" for "kernel.npy", "dense/kernel:0.npy".
std::string entry_stem(const std::string& entry) {
  std::string s = entry.substr(entry.rfind('/') == std::string::npos ? 0 : entry.rfind('/') + 1);
  if (s.size() > 4 && s.compare(s.size() - 4, 4, ".npy") == 0) s.resize(s.size() - 4);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ":0") == 0) s.resize(s.size() - 2);
  return s;
}

Weights from_npz(const uint8_t* data, size_t size, const std::string& name,
                 const WeightsShape& expected, const WeightsLimits& limits) {
  std::vector<ZipEntry> entries;
  try {
    entries = read_zip(data, size, name, 64, limits.max_file_bytes);
  } catch (const std::runtime_error& e) {
    throw WeightsError(e.what());
  }
  // Our names (W, b) and Keras's (kernel, bias): slot 0 is W, 1 is b.
  const ZipEntry* ours[2] = {nullptr, nullptr};
  const ZipEntry* keras[2] = {nullptr, nullptr};
  std::string names;
  for (const ZipEntry& e : entries) {
    names += (names.empty() ? "" : ", ") + e.name;
    const std::string stem = entry_stem(e.name);
    const ZipEntry** slot = stem == "W"        ? &ours[0]
                            : stem == "b"      ? &ours[1]
                            : stem == "kernel" ? &keras[0]
                            : stem == "bias"   ? &keras[1]
                                               : nullptr;
    if (slot && *slot) fail(name, "entry " + stem + " appears twice");
    if (slot) *slot = &e;
  }
  const auto array = [&](const ZipEntry& e) {
    if (!starts_with(e.bytes.data(), e.bytes.size(), "\x93NUMPY", 6)) {
      fail(name, "entry " + e.name + " is not a .npy array");
    }
    return parse_array(e.bytes.data(), e.bytes.size(), name + "/" + e.name, limits);
  };
  const bool has_ours = ours[0] && ours[1];
  const bool has_keras = keras[0] && keras[1];
  if (has_ours && has_keras) fail(name, "holds both W/b and kernel/bias: which is meant?");
  if (has_ours) {
    return from_pair(array(*ours[0]), name + "/" + ours[0]->name, array(*ours[1]),
                     name + "/" + ours[1]->name, expected, WeightsLayout::auto_detect, true);
  }
  if (has_keras) {
    return from_pair(array(*keras[0]), name + "/" + keras[0]->name, array(*keras[1]),
                     name + "/" + keras[1]->name, expected, WeightsLayout::dim_by_actions);
  }
  if (entries.size() == 1) return from_combined(array(entries[0]), name, expected);
  fail(name,
       "needs entries W.npy and b.npy, kernel.npy and bias.npy (Keras), or a single "
       "array; holds [" +
           names + "]");
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
