#include "tcp_proxy.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace p2b_services {

namespace {

constexpr std::size_t kBufferCap = 256 * 1024;  // per direction, per connection
constexpr int kConnectTimeoutMs = 1000;

sockaddr_in loopback(int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  return address;
}

// Closes with an RST rather than a FIN, as a reset connection looks.
void close_reset(int fd) {
  if (fd < 0) return;
  const linger abort_on_close{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close);
  close(fd);
}

// A connection to 127.0.0.1:port within kConnectTimeoutMs, or -1.
int connect_to(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  const sockaddr_in address = loopback(port);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0) return fd;
  if (errno == EINPROGRESS) {
    pollfd pfd{fd, POLLOUT, 0};
    int error = 0;
    socklen_t length = sizeof error;
    if (poll(&pfd, 1, kConnectTimeoutMs) == 1 &&
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error == 0) {
      return fd;
    }
  }
  close(fd);
  return -1;
}

struct Link {
  int client = -1;  // -1: closed by the client during a blackhole
  int server = -1;  // -1: accepted during a blackhole, or closed by the server in one
  std::string to_server, to_client;
  bool lost_bytes = false;  // its stream is broken: closed when back to pass
  bool closed = false;
};

void close_link(Link& link, bool reset) {
  if (reset) {
    close_reset(link.client);
    close_reset(link.server);
  } else {
    if (link.client >= 0) close(link.client);
    if (link.server >= 0) close(link.server);
  }
  link.closed = true;
}

// Reads what `fd` has into `into`, or drops it; false on EOF or an error.
bool pump_in(int fd, std::string* into, bool forward, bool* lost) {
  char buffer[65536];
  const ssize_t n = read(fd, buffer, sizeof buffer);
  if (n == 0) return false;
  if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
  if (forward) {
    into->append(buffer, static_cast<std::size_t>(n));
  } else {
    *lost = true;
  }
  return true;
}

bool pump_out(int fd, std::string* from) {
  if (from->empty()) return true;
  const ssize_t n = send(fd, from->data(), from->size(), MSG_NOSIGNAL);
  if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
  from->erase(0, static_cast<std::size_t>(n));
  return true;
}

}  // namespace

TcpProxy::TcpProxy(int target_port, std::size_t max_connections)
    : target_port_(target_port), max_connections_(max_connections) {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_in address = loopback(0);
  socklen_t length = sizeof address;
  if (listen_fd_ < 0 || bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      listen(listen_fd_, 128) != 0 ||
      getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0 ||
      pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) {
    if (listen_fd_ >= 0) close(listen_fd_);
    throw std::runtime_error("tcp proxy: cannot listen on loopback");
  }
  port_ = ntohs(address.sin_port);
  thread_ = std::thread([this] { serve(); });
}

TcpProxy::~TcpProxy() {
  stopping_ = true;
  (void)!write(wake_[1], "x", 1);
  thread_.join();
  close(listen_fd_);
  close(wake_[0]);
  close(wake_[1]);
}

void TcpProxy::set_mode(Mode mode) {
  std::unique_lock<std::mutex> lock(mu_);
  mode_ = mode;
  const unsigned target = ++requested_;
  (void)!write(wake_[1], "x", 1);
  applied_cv_.wait_for(lock, std::chrono::seconds(2), [&] { return applied_ >= target; });
}

void TcpProxy::serve() {
  std::vector<Link> links;
  std::vector<pollfd> fds;
  while (!stopping_) {
    const Mode mode = mode_.load();
    fds.assign({{wake_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}});
    for (const Link& link : links) {
      const bool room_up = mode != Mode::pass || link.to_server.size() < kBufferCap;
      const bool room_down = mode != Mode::pass || link.to_client.size() < kBufferCap;
      fds.push_back(
          {link.client,
           static_cast<short>((room_up ? POLLIN : 0) | (link.to_client.empty() ? 0 : POLLOUT)), 0});
      fds.push_back(
          {link.server,
           static_cast<short>((room_down ? POLLIN : 0) | (link.to_server.empty() ? 0 : POLLOUT)),
           0});
    }
    if (poll(fds.data(), fds.size(), 200) < 0 && errno != EINTR) break;

    if ((fds[0].revents & POLLIN) != 0) {
      char drain[64];
      while (read(wake_[0], drain, sizeof drain) > 0) {
      }
      unsigned target = 0;
      {
        std::lock_guard<std::mutex> lock(mu_);
        target = requested_;
      }
      const Mode now = mode_.load();
      for (Link& link : links) {
        if (now == Mode::reset) close_link(link, true);
        if (now == Mode::blackhole) {
          if (!link.to_server.empty() || !link.to_client.empty()) link.lost_bytes = true;
          link.to_server.clear();
          link.to_client.clear();
        }
        if (now == Mode::pass && (link.lost_bytes || link.server < 0)) close_link(link, true);
      }
      std::lock_guard<std::mutex> lock(mu_);
      applied_ = target;
      applied_cv_.notify_all();
    }

    const Mode now = mode_.load();
    for (std::size_t i = 0; i < links.size(); ++i) {
      Link& link = links[i];
      if (link.closed) continue;
      const short client_events = fds[2 + 2 * i].revents;
      const short server_events = fds[3 + 2 * i].revents;
      const bool forward = now == Mode::pass && link.client >= 0 && link.server >= 0;
      bool client_ok = true;
      bool server_ok = true;
      if ((client_events & (POLLIN | POLLHUP | POLLERR)) != 0) {
        client_ok = pump_in(link.client, &link.to_server, forward, &link.lost_bytes);
      }
      if ((server_events & (POLLIN | POLLHUP | POLLERR)) != 0) {
        server_ok = pump_in(link.server, &link.to_client, forward, &link.lost_bytes);
      }
      if (client_ok && (client_events & POLLOUT) != 0) {
        client_ok = pump_out(link.client, &link.to_client);
      }
      if (server_ok && (server_events & POLLOUT) != 0) {
        server_ok = pump_out(link.server, &link.to_server);
      }
      if (client_ok && server_ok) continue;
      if (now == Mode::blackhole) {
        // A partition hides one end's close from the other: the server
        // keeps a partitioned client's session (and its locks) open.
        if (!client_ok) close(std::exchange(link.client, -1));
        if (!server_ok) close(std::exchange(link.server, -1));
        link.lost_bytes = true;
        link.closed = link.client < 0 && link.server < 0;
        continue;
      }
      // One side ended: hand the other what is pending, then end it too.
      if (link.client >= 0) pump_out(link.client, &link.to_client);
      if (link.server >= 0) pump_out(link.server, &link.to_server);
      close_link(link, false);
    }

    if ((fds[1].revents & POLLIN) != 0) {
      for (;;) {
        const int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (client < 0) break;
        if (now == Mode::reset || links.size() >= max_connections_) {
          close_reset(client);
          continue;
        }
        Link link;
        link.client = client;
        if (now == Mode::pass) {
          link.server = connect_to(target_port_);
          if (link.server < 0) {
            close_reset(client);
            continue;
          }
        }
        links.push_back(std::move(link));
      }
    }

    std::vector<Link> open;
    open.reserve(links.size());
    for (Link& link : links) {
      if (!link.closed) open.push_back(std::move(link));
    }
    links.swap(open);
    std::size_t clients = 0;
    for (const Link& link : links) clients += link.client >= 0 ? 1 : 0;
    connections_ = clients;
  }
  for (Link& link : links) close_link(link, true);
  connections_ = 0;
}

}  // namespace p2b_services
