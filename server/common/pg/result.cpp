#include "common/pg/result.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "common/pg/byte_order.hpp"
#include "common/pg/error.hpp"

namespace p2b::pg {

Result::~Result() {
  if (result_ != nullptr) PQclear(result_);
}

Result::Result(Result&& other) noexcept : result_(std::exchange(other.result_, nullptr)) {}

Result& Result::operator=(Result&& other) noexcept {
  if (this != &other) {
    if (result_ != nullptr) PQclear(result_);
    result_ = std::exchange(other.result_, nullptr);
  }
  return *this;
}

int Result::rows() const {
  return result_ != nullptr ? PQntuples(result_) : 0;
}

int Result::columns() const {
  return result_ != nullptr ? PQnfields(result_) : 0;
}

bool Result::is_null(int row, int col) const {
  if (row < 0 || row >= rows() || col < 0 || col >= columns()) {
    throw Error("result: no cell (" + std::to_string(row) + ", " + std::to_string(col) + ")");
  }
  return PQgetisnull(result_, row, col) != 0;
}

const char* Result::cell(int row, int col, std::initializer_list<unsigned> oids, int width,
                         int* length) const {
  if (is_null(row, col)) {
    throw Error("result: cell (" + std::to_string(row) + ", " + std::to_string(col) + ") is NULL");
  }
  const unsigned type = PQftype(result_, col);
  if (std::find(oids.begin(), oids.end(), type) == oids.end()) {
    throw Error("result: column " + std::to_string(col) + " has type oid " + std::to_string(type) +
                ", not the one read (cast it in SQL)");
  }
  if (PQfformat(result_, col) != 1) throw Error("result: column is not in binary format");
  *length = PQgetlength(result_, row, col);
  if (width != 0 && *length != width) {
    throw Error("result: a value of " + std::to_string(*length) + " bytes where " +
                std::to_string(width) + " were expected");
  }
  return PQgetvalue(result_, row, col);
}

int64_t Result::int8(int row, int col) const {
  int length = 0;
  const char* value = cell(row, col, {detail::kInt8}, 8, &length);
  return static_cast<int64_t>(detail::get_be(value, 8));
}

int32_t Result::int4(int row, int col) const {
  int length = 0;
  const char* value = cell(row, col, {detail::kInt4}, 4, &length);
  return static_cast<int32_t>(static_cast<uint32_t>(detail::get_be(value, 4)));
}

bool Result::boolean(int row, int col) const {
  int length = 0;
  const char* value = cell(row, col, {detail::kBool}, 1, &length);
  return value[0] != 0;
}

double Result::float8(int row, int col) const {
  int length = 0;
  const char* value = cell(row, col, {detail::kFloat8}, 8, &length);
  const uint64_t bits = detail::get_be(value, 8);
  double out = 0;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

std::string Result::text(int row, int col) const {
  int length = 0;
  const char* value = cell(
      row, col, {detail::kText, detail::kVarchar, detail::kBpchar, detail::kName, detail::kUnknown},
      0, &length);
  return std::string(value, static_cast<std::size_t>(length));
}

std::vector<uint8_t> Result::bytes(int row, int col) const {
  int length = 0;
  const char* value = cell(row, col, {detail::kBytea}, 0, &length);
  const auto* begin = reinterpret_cast<const uint8_t*>(value);
  return std::vector<uint8_t>(begin, begin + length);
}

uint64_t Result::affected() const {
  if (result_ == nullptr) return 0;
  const char* tuples = PQcmdTuples(result_);
  if (tuples == nullptr || *tuples == '\0') return 0;
  return std::strtoull(tuples, nullptr, 10);
}

std::string Result::command() const {
  if (result_ == nullptr) return "";
  const char* status = PQcmdStatus(result_);
  return status != nullptr ? status : "";
}

}  // namespace p2b::pg
