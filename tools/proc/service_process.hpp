// A service (p2b-shuffler, p2b-analyzer) run as a child process on loopback:
// started with --listen 127.0.0.1:0, its port read from the first line it
// prints, stopped with SIGTERM (or killed with SIGKILL to test crash safety).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace p2b::proc {

class ServiceProcess {
 public:
  ServiceProcess() = default;
  ~ServiceProcess();
  ServiceProcess(const ServiceProcess&) = delete;
  ServiceProcess& operator=(const ServiceProcess&) = delete;

  // Starts `binary args...` with stderr sent to `log_path`; waits (up to
  // `timeout_s`) for "listening on 127.0.0.1:<port>". Throws on failure.
  void start(const std::string& binary, const std::vector<std::string>& args,
             const std::string& log_path, double timeout_s = 10.0);

  // SIGTERM, then SIGKILL after `grace_s`. Returns the exit status
  // (waitpid's), or -1 if it had to be killed.
  int stop(double grace_s = 10.0);
  // SIGKILL at once: a crash, as far as the service can tell.
  void kill_hard();

  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  void close_stdout();

  pid_t pid_ = -1;
  int port_ = 0;
  int stdout_fd_ = -1;
};

}  // namespace p2b::proc
