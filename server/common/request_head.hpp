// Finds the end of an HTTP/1.1 request head in bytes as they arrive, and
// refuses a head over its budget before anything parses it. The end is
// where cpp-httplib's parser stops: the first line after the request line
// that is exactly "\r\n" (a line ending in a bare "\n" is a skipped line,
// not the end).
#pragma once

#include <cstddef>

namespace p2b::common {

class RequestHeadScanner {
 public:
  enum class Verdict { incomplete, complete, too_many_fields, too_large };

  // httplib answers 400 to a longer line; this scanner answers 431 first.
  static constexpr std::size_t kMaxLineBytes = 8192;

  RequestHeadScanner(std::size_t max_bytes, std::size_t max_fields)
      : max_bytes_(max_bytes), max_fields_(max_fields) {}

  // Scans `n` more bytes. On complete, head_bytes() says how many of all
  // the bytes scanned belong to the head; the rest are body or the next
  // request. Once the verdict is not incomplete, it does not change.
  Verdict scan(const char* data, std::size_t n);
  std::size_t head_bytes() const { return bytes_; }

 private:
  std::size_t max_bytes_;
  std::size_t max_fields_;
  std::size_t bytes_ = 0;
  std::size_t lines_ = 0;       // complete lines, the request line first
  std::size_t line_bytes_ = 0;  // of the line being read
  bool line_is_cr_ = false;     // the line so far is exactly "\r"
  Verdict verdict_ = Verdict::incomplete;
};

}  // namespace p2b::common
