// A loopback TCP proxy in front of a server (PostgreSQL), to put a network
// fault between a client and it at runtime:
//   pass       forwards bytes both ways;
//   blackhole  keeps every connection open, accepts new ones, and silently
//              drops every byte both ways, as a partition looks to both ends
//              (nothing arrives, nothing is refused, and one end's close is
//              not passed to the other: the server keeps the session);
//   reset      closes every connection (RST) and refuses new ones the same way.
// Back to pass, the connections that lost bytes in a blackhole are closed (their
// streams are broken) and new ones are forwarded again. One thread serves
// every connection, up to a bounded number.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>

namespace p2b_services {

class TcpProxy {
 public:
  enum class Mode { pass, blackhole, reset };

  // Listens on 127.0.0.1 on a free port, forwarding to 127.0.0.1:target_port.
  explicit TcpProxy(int target_port, std::size_t max_connections = 128);
  ~TcpProxy();
  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;

  int port() const { return port_; }
  // Takes effect on every connection before it returns (bounded: 2 s).
  void set_mode(Mode mode);
  Mode mode() const { return mode_.load(); }
  // Client connections open now.
  std::size_t connections() const { return connections_.load(); }

 private:
  void serve();

  int target_port_;
  std::size_t max_connections_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  int port_ = 0;
  std::atomic<Mode> mode_{Mode::pass};
  std::atomic<bool> stopping_{false};
  std::atomic<std::size_t> connections_{0};
  std::mutex mu_;
  std::condition_variable applied_cv_;
  unsigned requested_ = 0;  // mode changes asked for, under mu_
  unsigned applied_ = 0;    // mode changes the thread applied, under mu_
  std::thread thread_;
};

}  // namespace p2b_services
