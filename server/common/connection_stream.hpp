// The httplib::Stream of one accepted connection under BoundedServer: reads
// end at a deadline (so a request that trickles in is cut, however slowly
// its bytes come), the request head is read ahead into a buffer and checked
// by RequestHeadScanner before httplib parses it, and a stop of the server
// ends waiting at once. The client's address is never reported.
#pragma once

#include <httplib.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

#include "common/request_head.hpp"

namespace p2b::common {

class ConnectionStream : public httplib::Stream {
 public:
  using Clock = std::chrono::steady_clock;

  // `stopping` returns true once the server is stopping; a request then
  // has `drain` more to finish arriving.
  ConnectionStream(int fd, std::function<bool()> stopping,
                   std::chrono::milliseconds drain = std::chrono::seconds(1),
                   std::chrono::milliseconds write_timeout = std::chrono::seconds(5));

  enum class Wait { ready, timed_out, closed, stopping };
  // Waits up to `idle` for the first byte of the next request.
  Wait wait_for_request(std::chrono::milliseconds idle);

  // Starts a request: every read from now on fails once `deadline` passes.
  void set_deadline(Clock::time_point deadline) {
    deadline_ = deadline;
    deadline_passed_ = false;
  }
  bool deadline_passed() const { return deadline_passed_; }

  enum class Head { complete, timed_out, closed, too_many_fields, too_large };
  // Reads until the buffer holds a whole head, or a limit is hit.
  Head read_head(std::size_t max_bytes, std::size_t max_fields);

  // Best effort, never blocks: for an answer sent just before closing.
  void send_now(const std::string& bytes);

  // After an answer to a request whose body was left unread: ends the
  // sending side and discards what the client still sends, for at most
  // `limit` or until it closes, so that it reads the answer instead of a
  // reset. Nothing read is kept.
  void linger(std::chrono::milliseconds limit);

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, std::size_t size) override;
  ssize_t write(const char* ptr, std::size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  int socket() const override { return fd_; }

 private:
  std::size_t buffered() const { return buffer_.size() - offset_; }
  // Sets deadline_passed_ once the deadline is reached; never clears it.
  bool past_deadline();
  // Waits for readable data until the deadline; false when there is none.
  bool wait_readable();
  // recv into `ptr`; 0 on EOF, -1 on error or no data by the deadline.
  ssize_t receive(char* ptr, std::size_t size);

  int fd_;
  std::function<bool()> stopping_;
  std::chrono::milliseconds drain_;
  std::chrono::milliseconds write_timeout_;
  Clock::time_point deadline_ = Clock::time_point::max();
  Clock::time_point stop_deadline_ = Clock::time_point::max();
  bool deadline_passed_ = false;
  std::string buffer_;  // read ahead: the head, and whatever followed it
  std::size_t offset_ = 0;
};

}  // namespace p2b::common
