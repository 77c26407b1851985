#include "service_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <thread>

namespace p2b::proc {

namespace {

// Reads one line from `fd` within the deadline; empty on timeout or EOF.
std::string read_line(int fd, std::chrono::steady_clock::time_point deadline) {
  std::string line;
  char c = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (poll(&p, 1, static_cast<int>(std::max<long>(1, left.count()))) <= 0) continue;
    const ssize_t n = read(fd, &c, 1);
    if (n <= 0) break;
    if (c == '\n') return line;
    line.push_back(c);
  }
  return {};
}

int wait_with_timeout(pid_t pid, double seconds, bool* exited) {
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(seconds));
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      *exited = true;
      return status;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  *exited = false;
  return 0;
}

}  // namespace

ServiceProcess::~ServiceProcess() {
  if (running()) stop(2.0);
}

void ServiceProcess::start(const std::string& binary, const std::vector<std::string>& args,
                           const std::string& log_path, double timeout_s) {
  if (running()) throw std::runtime_error("service already running");
  int out[2];
  if (pipe(out) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    const int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (log >= 0) dup2(log, STDERR_FILENO);
    close(out[0]);
    close(out[1]);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(binary.c_str()));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  close(out[1]);
  pid_ = pid;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::milliseconds>(
                                             std::chrono::duration<double>(timeout_s));
  const std::string line = read_line(out[0], deadline);
  // Kept open until stop(): closing it would turn any later stdout write of
  // the service into a SIGPIPE. Services log to stderr, so it stays quiet.
  stdout_fd_ = out[0];
  const std::string prefix = "listening on 127.0.0.1:";
  if (line.rfind(prefix, 0) != 0) {
    kill_hard();
    throw std::runtime_error(binary + " did not start (see " + log_path + ")");
  }
  port_ = std::stoi(line.substr(prefix.size()));
}

int ServiceProcess::stop(double grace_s) {
  if (!running()) return 0;
  kill(pid_, SIGTERM);
  bool exited = false;
  int status = wait_with_timeout(pid_, grace_s, &exited);
  if (!exited) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
    status = -1;
  }
  pid_ = -1;
  close_stdout();
  return status;
}

void ServiceProcess::close_stdout() {
  if (stdout_fd_ >= 0) close(stdout_fd_);
  stdout_fd_ = -1;
}

void ServiceProcess::kill_hard() {
  if (!running()) return;
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  close_stdout();
}

}  // namespace p2b::proc
