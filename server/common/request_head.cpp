#include "common/request_head.hpp"

namespace p2b::common {

RequestHeadScanner::Verdict RequestHeadScanner::scan(const char* data, std::size_t n) {
  for (std::size_t i = 0; i < n && verdict_ == Verdict::incomplete; ++i) {
    if (bytes_ == max_bytes_) {
      verdict_ = Verdict::too_large;
      break;
    }
    ++bytes_;
    const char c = data[i];
    if (c != '\n') {
      line_is_cr_ = line_bytes_ == 0 && c == '\r';
      if (++line_bytes_ >= kMaxLineBytes) verdict_ = Verdict::too_large;
      continue;
    }
    if (lines_ > 0 && line_is_cr_) {
      verdict_ = Verdict::complete;
      break;
    }
    ++lines_;
    line_bytes_ = 0;
    line_is_cr_ = false;
    // Every line after the request line may be a field, even one httplib skips.
    if (lines_ - 1 > max_fields_) verdict_ = Verdict::too_many_fields;
  }
  return verdict_;
}

}  // namespace p2b::common
