// The parameters $1, $2.. of one statement, in PostgreSQL's binary format
// and with their type OIDs, so no value is ever spliced into SQL text.
// The arrays let a group of rows go in one statement:
//   INSERT ... SELECT * FROM unnest($1::bytea[], $2::int4[])
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace p2b::pg {

class Params {
 public:
  Params& int8(int64_t value);
  Params& int4(int32_t value);
  Params& boolean(bool value);
  Params& float8(double value);
  Params& text(std::string value);
  Params& bytes(const uint8_t* data, std::size_t size);
  // A NULL whose type the server infers from the statement.
  Params& null();
  // One-dimensional arrays with no NULL element, lower bound 1.
  Params& bytea_array(const std::vector<std::pair<const uint8_t*, std::size_t>>& values);
  Params& int4_array(const std::vector<int32_t>& values);
  Params& int8_array(const std::vector<int64_t>& values);
  Params& text_array(const std::vector<std::string>& values);

  // What PQsendQueryParams takes; the pointers live as long as this object
  // is unchanged.
  int size() const { return static_cast<int>(values_.size()); }
  std::vector<unsigned> types() const { return types_; }
  std::vector<const char*> values() const;
  std::vector<int> lengths() const;
  std::vector<int> formats() const { return std::vector<int>(values_.size(), 1); }

 private:
  Params& add(unsigned type, std::string value, bool is_null = false);
  template <typename Element, typename Encode>
  Params& array(unsigned array_type, unsigned element_type, const std::vector<Element>& values,
                Encode encode);

  std::vector<unsigned> types_;
  std::vector<std::string> values_;
  std::vector<bool> nulls_;
};

}  // namespace p2b::pg
