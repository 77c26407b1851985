#include "proc/run_as.hpp"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <thread>

namespace p2b::proc {

namespace {

constexpr char kTestUser[] = "p2b-pgtest";

bool lookup(const char* name, RunAs* out) {
  passwd entry{};
  passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (getpwnam_r(name, &entry, buffer.data(), buffer.size(), &found) != 0 || found == nullptr) {
    return false;
  }
  *out = RunAs{found->pw_uid, found->pw_gid, true};
  return true;
}

}  // namespace

void close_inherited_descriptors() {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0) return;
#endif
  rlimit limit{};
  long last = 65536;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    last = static_cast<long>(limit.rlim_cur);
  }
  for (long fd = 3; fd < last; ++fd) close(static_cast<int>(fd));
}

RunAs postgres_user() {
  if (geteuid() != 0) return RunAs{geteuid(), getegid(), false};
  RunAs user{};
  // useradd locks /etc/passwd: a concurrent one fails or waits, so the
  // test is whether the user exists afterwards, retried a bounded time.
  for (int attempt = 0; attempt < 50; ++attempt) {
    if (lookup(kTestUser, &user)) return user;
    if (attempt % 10 == 0) {
      run_bounded({"/usr/sbin/useradd", "--system", "--user-group", "--no-create-home",
                   "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", kTestUser},
                  RunAs{0, 0, false}, "/dev/null", std::chrono::seconds(10));
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  throw std::runtime_error(std::string("could not create the user ") + kTestUser +
                           " to run PostgreSQL as (initdb refuses root)");
}

int run_bounded(const std::vector<std::string>& argv, const RunAs& as, const std::string& log_path,
                std::chrono::milliseconds timeout) {
  if (argv.empty()) return -1;
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) return -1;
  const pid_t pid = fork();
  if (pid == 0) {
    // Only async-signal-safe calls from here: the test has threads.
    dup2(log, 1);
    dup2(log, 2);
    close_inherited_descriptors();
    if (as.switch_user &&
        (setgroups(0, nullptr) != 0 || setgid(as.gid) != 0 || setuid(as.uid) != 0)) {
      _exit(126);
    }
    execv(args[0], args.data());
    _exit(127);
  }
  close(log);
  if (pid < 0) return -1;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) return -1;
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace p2b::proc
