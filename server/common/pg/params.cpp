#include "common/pg/params.hpp"

#include <cstring>
#include <limits>

#include "common/pg/byte_order.hpp"
#include "common/pg/error.hpp"

namespace p2b::pg {

namespace {

constexpr auto kMaxValue = static_cast<std::size_t>(std::numeric_limits<int32_t>::max());

std::string be(uint64_t value, std::size_t width) {
  std::string out;
  detail::put_be(out, value, width);
  return out;
}

}  // namespace

Params& Params::add(unsigned type, std::string value, bool is_null) {
  if (value.size() > kMaxValue) throw Error("params: a value over 2 GiB");
  types_.push_back(type);
  values_.push_back(std::move(value));
  nulls_.push_back(is_null);
  return *this;
}

Params& Params::int8(int64_t value) {
  return add(detail::kInt8, be(static_cast<uint64_t>(value), 8));
}

Params& Params::int4(int32_t value) {
  return add(detail::kInt4, be(static_cast<uint32_t>(value), 4));
}

Params& Params::boolean(bool value) {
  return add(detail::kBool, std::string(1, value ? 1 : 0));
}

Params& Params::float8(double value) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return add(detail::kFloat8, be(bits, 8));
}

Params& Params::text(std::string value) {
  return add(detail::kText, std::move(value));
}

Params& Params::bytes(const uint8_t* data, std::size_t size) {
  return add(detail::kBytea, std::string(reinterpret_cast<const char*>(data), size));
}

Params& Params::null() {
  return add(0, std::string(), true);
}

// The binary array format (array_send): ndim, has-nulls flag, element type,
// then per dimension its length and lower bound, then each element as a
// length and its bytes. An empty array has no dimension.
template <typename Element, typename Encode>
Params& Params::array(unsigned array_type, unsigned element_type,
                      const std::vector<Element>& values, Encode encode) {
  if (values.size() > kMaxValue) throw Error("params: an array over 2^31 elements");
  std::string out;
  detail::put_be(out, values.empty() ? 0 : 1, 4);
  detail::put_be(out, 0, 4);
  detail::put_be(out, element_type, 4);
  if (!values.empty()) {
    detail::put_be(out, values.size(), 4);
    detail::put_be(out, 1, 4);
  }
  for (const Element& value : values) {
    const std::string element = encode(value);
    if (element.size() > kMaxValue) throw Error("params: an array element over 2 GiB");
    detail::put_be(out, element.size(), 4);
    out += element;
  }
  return add(array_type, std::move(out));
}

Params& Params::bytea_array(const std::vector<std::pair<const uint8_t*, std::size_t>>& values) {
  return array(detail::kByteaArray, detail::kBytea, values,
               [](const std::pair<const uint8_t*, std::size_t>& value) {
                 return std::string(reinterpret_cast<const char*>(value.first), value.second);
               });
}

Params& Params::int4_array(const std::vector<int32_t>& values) {
  return array(detail::kInt4Array, detail::kInt4, values,
               [](int32_t value) { return be(static_cast<uint32_t>(value), 4); });
}

Params& Params::int8_array(const std::vector<int64_t>& values) {
  return array(detail::kInt8Array, detail::kInt8, values,
               [](int64_t value) { return be(static_cast<uint64_t>(value), 8); });
}

Params& Params::text_array(const std::vector<std::string>& values) {
  return array(detail::kTextArray, detail::kText, values,
               [](const std::string& value) { return value; });
}

std::vector<const char*> Params::values() const {
  std::vector<const char*> out;
  out.reserve(values_.size());
  for (std::size_t i = 0; i < values_.size(); ++i) {
    out.push_back(nulls_[i] ? nullptr : values_[i].data());
  }
  return out;
}

std::vector<int> Params::lengths() const {
  std::vector<int> out;
  out.reserve(values_.size());
  for (const std::string& value : values_) out.push_back(static_cast<int>(value.size()));
  return out;
}

}  // namespace p2b::pg
