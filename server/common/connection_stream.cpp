#include "common/connection_stream.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <utility>

namespace p2b::common {

namespace {

using std::chrono::milliseconds;

// How often a wait looks at the stop flag.
constexpr milliseconds kStopPoll{100};
constexpr std::size_t kReadChunk = 4096;

int poll_for(int fd, short events, milliseconds wait) {
  pollfd p{fd, events, 0};
  const int n = ::poll(&p, 1, static_cast<int>(wait.count()));
  if (n > 0 && (p.revents & (POLLERR | POLLNVAL)) != 0 && (p.revents & events) == 0) return -1;
  return n;
}

milliseconds until(ConnectionStream::Clock::time_point t) {
  const auto now = ConnectionStream::Clock::now();
  if (t <= now) return milliseconds(0);
  // Round up, so a wait never ends just before its deadline.
  return std::chrono::duration_cast<milliseconds>(t - now) + milliseconds(1);
}

}  // namespace

ConnectionStream::ConnectionStream(int fd, std::function<bool()> stopping, milliseconds drain,
                                   milliseconds write_timeout)
    : fd_(fd), stopping_(std::move(stopping)), drain_(drain), write_timeout_(write_timeout) {}

ConnectionStream::Wait ConnectionStream::wait_for_request(milliseconds idle) {
  if (buffered() > 0) return Wait::ready;
  const Clock::time_point end = Clock::now() + idle;
  for (;;) {
    if (stopping_()) return Wait::stopping;
    const milliseconds left = until(end);
    if (left.count() == 0) return Wait::timed_out;
    const int n = poll_for(fd_, POLLIN, std::min(left, kStopPoll));
    if (n < 0 && errno != EINTR) return Wait::closed;
    if (n > 0) {
      char byte = 0;
      const ssize_t peeked = ::recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
      if (peeked > 0) return Wait::ready;
      if (peeked == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        return Wait::closed;
      }
    }
  }
}

bool ConnectionStream::wait_readable() {
  for (;;) {
    if (stop_deadline_ == Clock::time_point::max() && stopping_()) {
      stop_deadline_ = Clock::now() + drain_;
    }
    const milliseconds left = until(std::min(deadline_, stop_deadline_));
    if (left.count() == 0) {
      deadline_passed_ = deadline_passed_ || Clock::now() >= deadline_;
      return false;
    }
    const int n = poll_for(fd_, POLLIN, std::min(left, kStopPoll));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

bool ConnectionStream::past_deadline() {
  if (!deadline_passed_ && Clock::now() >= deadline_) deadline_passed_ = true;
  return deadline_passed_;
}

ssize_t ConnectionStream::receive(char* ptr, std::size_t size) {
  for (;;) {
    if (past_deadline()) return -1;
    const ssize_t n = ::recv(fd_, ptr, size, MSG_DONTWAIT);
    if (n >= 0) return n;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return -1;
    if (!wait_readable()) return -1;
  }
}

ConnectionStream::Head ConnectionStream::read_head(std::size_t max_bytes, std::size_t max_fields) {
  RequestHeadScanner scanner(max_bytes, max_fields);
  std::size_t scanned = offset_;
  for (;;) {
    switch (scanner.scan(buffer_.data() + scanned, buffer_.size() - scanned)) {
      case RequestHeadScanner::Verdict::complete:
        return Head::complete;
      case RequestHeadScanner::Verdict::too_many_fields:
        return Head::too_many_fields;
      case RequestHeadScanner::Verdict::too_large:
        return Head::too_large;
      case RequestHeadScanner::Verdict::incomplete:
        break;
    }
    scanned = buffer_.size();
    // Drop what httplib has consumed, so the buffer holds one head at most.
    if (offset_ > 0) {
      buffer_.erase(0, offset_);
      scanned -= offset_;
      offset_ = 0;
    }
    const std::size_t old = buffer_.size();
    buffer_.resize(old + kReadChunk);
    const ssize_t n = receive(&buffer_[old], kReadChunk);
    buffer_.resize(old + static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
    if (n == 0) return Head::closed;
    if (n < 0) return deadline_passed_ ? Head::timed_out : Head::closed;
  }
}

void ConnectionStream::send_now(const std::string& bytes) {
  (void)::send(fd_, bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
}

void ConnectionStream::linger(milliseconds limit) {
  ::shutdown(fd_, SHUT_WR);
  const Clock::time_point end = Clock::now() + limit;
  char sink[kReadChunk];
  for (;;) {
    const milliseconds left = until(end);
    if (left.count() == 0 || stopping_()) return;
    const int n = poll_for(fd_, POLLIN, std::min(left, kStopPoll));
    if (n < 0 && errno != EINTR) return;
    if (n <= 0) continue;
    const ssize_t got = ::recv(fd_, sink, sizeof sink, MSG_DONTWAIT);
    if (got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return;
  }
}

bool ConnectionStream::is_readable() const {
  if (buffered() > 0) return true;
  return poll_for(fd_, POLLIN, until(deadline_)) > 0;
}

bool ConnectionStream::is_writable() const {
  return poll_for(fd_, POLLOUT, write_timeout_) > 0;
}

ssize_t ConnectionStream::read(char* ptr, std::size_t size) {
  if (past_deadline()) return -1;
  if (size == 0) return 0;
  if (buffered() > 0) {
    const std::size_t n = std::min(size, buffered());
    std::copy_n(buffer_.data() + offset_, n, ptr);
    offset_ += n;
    if (offset_ == buffer_.size()) {
      buffer_.clear();
      offset_ = 0;
    }
    return static_cast<ssize_t>(n);
  }
  return receive(ptr, size);
}

ssize_t ConnectionStream::write(const char* ptr, std::size_t size) {
  std::size_t sent = 0;
  while (sent < size) {
    const ssize_t n = ::send(fd_, ptr + sent, size - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && is_writable()) continue;
    return -1;
  }
  return static_cast<ssize_t>(size);
}

void ConnectionStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  ip.clear();
  port = 0;
}

void ConnectionStream::get_local_ip_and_port(std::string& ip, int& port) const {
  ip.clear();
  port = 0;
}

}  // namespace p2b::common
