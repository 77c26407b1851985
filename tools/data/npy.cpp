// The header is a Python dict literal, e.g.
//   {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
// Only that form is accepted: three known keys, each once, nothing else.
#include "data/npy.hpp"

#include <cstring>
#include <stdexcept>
#include <string_view>

namespace p2b::data {

namespace {

class Header {
 public:
  Header(std::string_view text, const std::string& name) : s_(text), name_(name) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(name_ + ": npy header: " + what);
  }

  void parse(std::string& descr, bool& fortran, std::vector<size_t>& shape) {
    bool have_descr = false;
    bool have_order = false;
    bool have_shape = false;
    expect('{');
    while (!peek('}')) {
      const std::string key = quoted();
      expect(':');
      if (key == "descr" && !have_descr) {
        descr = quoted();
        have_descr = true;
      } else if (key == "fortran_order" && !have_order) {
        fortran = boolean();
        have_order = true;
      } else if (key == "shape" && !have_shape) {
        shape = tuple();
        have_shape = true;
      } else {
        fail("unexpected or repeated key '" + key + "'");
      }
      if (!peek('}')) expect(',');
    }
    expect('}');
    skip_blanks();
    if (i_ != s_.size()) fail("text after the dict");
    if (!have_descr || !have_order || !have_shape) fail("needs descr, fortran_order and shape");
  }

 private:
  void skip_blanks() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t')) ++i_;
  }
  bool peek(char c) {
    skip_blanks();
    return i_ < s_.size() && s_[i_] == c;
  }
  void expect(char c) {
    if (!peek(c)) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  std::string quoted() {
    skip_blanks();
    if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) fail("expected a quoted string");
    const char q = s_[i_++];
    const size_t end = s_.find(q, i_);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string out(s_.substr(i_, end - i_));
    i_ = end + 1;
    return out;
  }
  bool boolean() {
    skip_blanks();
    for (const auto& [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      const size_t n = std::strlen(word);
      if (s_.substr(i_, n) == word) {
        i_ += n;
        return value;
      }
    }
    fail("fortran_order is not True or False");
  }
  std::vector<size_t> tuple() {
    std::vector<size_t> dims;
    expect('(');
    while (!peek(')')) {
      if (dims.size() >= 32) fail("more than 32 dimensions");
      size_t v = 0;
      size_t digits = 0;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
        if (++digits > 15) fail("dimension too large");
        v = v * 10 + static_cast<size_t>(s_[i_++] - '0');
      }
      if (digits == 0) fail("shape entry is not a non-negative integer");
      if (i_ < s_.size() && s_[i_] == 'L') ++i_;  // Python 2 long
      dims.push_back(v);
      if (!peek(')')) expect(',');
    }
    expect(')');
    return dims;
  }

  std::string_view s_;
  const std::string& name_;
  size_t i_ = 0;
};

[[noreturn]] void fail_file(const std::string& name, const std::string& what) {
  throw std::runtime_error(name + ": " + what);
}

uint32_t little_endian(const uint8_t* p, size_t n) {
  uint32_t v = 0;
  for (size_t k = n; k-- > 0;) v = (v << 8) | p[k];
  return v;
}

double element(const uint8_t* p, size_t width, bool big_endian) {
  uint8_t b[8];
  for (size_t k = 0; k < width; ++k) b[k] = big_endian ? p[width - 1 - k] : p[k];
  // Native order is little-endian on every host we build tools for.
  if (width == 4) {
    float f = 0;
    std::memcpy(&f, b, 4);
    return f;
  }
  double d = 0;
  std::memcpy(&d, b, 8);
  return d;
}

}  // namespace

NpyArray parse_npy(const uint8_t* data, size_t size, const std::string& name, size_t max_values) {
  const auto fail = [&name](const std::string& what) { fail_file(name, what); };
  static const uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (size < 10 || std::memcmp(data, kMagic, 6) != 0) fail("not a .npy file (bad magic)");
  const uint8_t major = data[6];
  if (major < 1 || major > 3) fail("unsupported .npy version " + std::to_string(major));
  const size_t len_bytes = major == 1 ? 2 : 4;
  if (size < 8 + len_bytes) fail("truncated header");
  const size_t header_len = little_endian(data + 8, len_bytes);
  const size_t header_start = 8 + len_bytes;
  if (header_len > size - header_start) fail("header runs past the end of the file");

  std::string descr;
  bool fortran = false;
  NpyArray out;
  Header(std::string_view(reinterpret_cast<const char*>(data + header_start), header_len), name)
      .parse(descr, fortran, out.shape);

  if (descr.size() != 3 || descr[1] != 'f' || (descr[2] != '4' && descr[2] != '8') ||
      (descr[0] != '<' && descr[0] != '>')) {
    fail("dtype '" + descr + "' unsupported (need <f4, <f8, >f4 or >f8)");
  }
  const size_t width = descr[2] == '4' ? 4 : 8;
  size_t count = 1;
  for (size_t d : out.shape) {
    if (d != 0 && count > max_values / d)
      fail("more than " + std::to_string(max_values) + " values");
    count *= d;
  }
  const size_t body = size - header_start - header_len;
  if (body != count * width) {
    fail("data is " + std::to_string(body) + " bytes, shape and dtype need " +
         std::to_string(count * width));
  }
  const uint8_t* p = data + header_start + header_len;
  out.values.resize(count);
  // Fortran order: the first index varies fastest; walk the C-order
  // destination index backwards through the shape to find each source.
  const size_t rank = out.shape.size();
  std::vector<size_t> idx(rank, 0);
  for (size_t k = 0; k < count; ++k) {
    size_t dst = k;
    if (fortran && rank > 1) {
      dst = 0;
      size_t stride = 1;
      for (size_t a = rank; a-- > 0;) {
        dst += idx[a] * stride;
        stride *= out.shape[a];
      }
      for (size_t a = 0; a < rank && ++idx[a] == out.shape[a]; ++a) idx[a] = 0;
    }
    out.values[dst] = element(p + k * width, width, descr[0] == '>');
  }
  return out;
}

}  // namespace p2b::data
