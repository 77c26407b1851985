#include "proc/pg_cluster.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "common/pg/pg.hpp"
#include "proc/run_as.hpp"

namespace p2b::proc {

namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::seconds;

// The newest /usr/lib/postgresql/<version>/bin, or $P2B_PG_BIN.
std::string bin_dir() {
  if (const char* dir = std::getenv("P2B_PG_BIN"); dir != nullptr && *dir != '\0') return dir;
  int newest = -1;
  std::string found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (!fs::exists(entry.path() / "bin" / "initdb")) continue;
    const int version = std::atoi(name.c_str());
    if (version > newest) {
      newest = version;
      found = (entry.path() / "bin").string();
    }
  }
  if (found.empty()) {
    throw std::runtime_error("no PostgreSQL server in /usr/lib/postgresql (scripts/setup.sh)");
  }
  return found;
}

std::string bin(const std::string& program) {
  return bin_dir() + "/" + program;
}

// A port nobody listens on at the moment of asking.
int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("socket failed");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  close(fd);
  if (!ok) throw std::runtime_error("no free port");
  return ntohs(address.sin_port);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string tail(const std::string& text, std::size_t lines) {
  std::size_t at = text.size();
  for (std::size_t n = 0; n <= lines; ++n) {
    if (at == 0) return text;  // an empty log, or fewer lines than asked
    at = text.rfind('\n', at - 1);
    if (at == std::string::npos) return text;
  }
  return text.substr(at + 1);
}

// A pid whose process is gone (or a zombie nobody reaps: the postmaster is
// reparented when pg_ctl exits).
bool gone(pid_t pid) {
  if (kill(pid, 0) != 0) return true;
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z';
}

bool (*g_print_log_if)() = nullptr;

std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = read_file(entry.path().string() + "/stat");
    const std::size_t paren = stat.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream fields(stat.substr(paren + 2));
    char state = 0;
    pid_t ppid = 0;
    fields >> state >> ppid;
    if (ppid == parent) out.push_back(static_cast<pid_t>(std::atoi(name.c_str())));
  }
  return out;
}

}  // namespace

void PgCluster::print_log_on_exit_if(bool (*predicate)()) {
  g_print_log_if = predicate;
}

PgCluster::PgCluster(Options options) : options_(std::move(options)) {
  make_dir();
}

void PgCluster::make_dir() {
  const fs::path parent =
      options_.parent_dir.empty() ? fs::temp_directory_path() : fs::path(options_.parent_dir);
  std::string pattern = (parent / "p2b-pg-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
  const RunAs user = postgres_user();
  if (user.switch_user && chown(dir_.c_str(), user.uid, user.gid) != 0) {
    throw std::runtime_error("chown " + dir_ + " failed");
  }
  port_ = free_port();
  start_guard();
}

// A guard process per cluster: when the test process ends without the
// destructor (a crash, the SIGKILL of a ctest timeout), the guard's end of
// the pipe sees EOF, and it kills the server and removes the directory, so
// no test leaves a PostgreSQL running. In its own session, so a signal to
// the test's process group spares it.
void PgCluster::start_guard() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  static const char kScript[] =
      "read _; pid=$(head -n 1 \"$1/data/postmaster.pid\" 2>/dev/null); "
      "[ -n \"$pid\" ] && kill -9 \"$pid\" && sleep 1; rm -rf \"$1\"";
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[0], 0);
    close_inherited_descriptors();
    setsid();
    execl("/bin/sh", "sh", "-c", kScript, "p2b-pg-guard", dir_.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[0]);
  if (pid < 0) {
    close(fds[1]);
    throw std::runtime_error("fork failed");
  }
  guard_pid_ = pid;
  guard_fd_ = fds[1];
}

void PgCluster::end_guard() {
  if (guard_pid_ <= 0) return;
  close(guard_fd_);
  const auto deadline = std::chrono::steady_clock::now() + seconds(5);
  while (waitpid(guard_pid_, nullptr, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(guard_pid_, SIGKILL);
      waitpid(guard_pid_, nullptr, 0);
      break;
    }
    std::this_thread::sleep_for(milliseconds(5));
  }
  guard_pid_ = -1;
}

std::unique_ptr<PgCluster> PgCluster::start_primary(Options options) {
  std::unique_ptr<PgCluster> cluster(new PgCluster(std::move(options)));
  // --no-sync: the tests crash processes, never the kernel, so the page
  // cache outlives every crash; the server's own commits follow `fsync`.
  const std::vector<std::string> initdb = {
      bin("initdb"), "-D",        cluster->data_dir(),  "-U",
      "p2b",         "--no-sync", "--auth-local=trust", "--auth-host=trust",
      "-E",          "UTF8",      "--locale=C"};
  if (cluster->run(initdb, 60) != 0) cluster->fail("initdb failed");
  cluster->write_settings();
  // The free port may be taken between asking and binding: another port then.
  for (int attempt = 1;; ++attempt) {
    try {
      cluster->pg_ctl_start();
      break;
    } catch (const std::runtime_error&) {
      if (attempt == 3 || cluster->log().find("already in use") == std::string::npos) throw;
      cluster->port_ = free_port();
      cluster->write_settings();
    }
  }
  p2b::pg::Connection admin(cluster->url("postgres"));
  admin.exec("CREATE DATABASE p2b");
  return cluster;
}

std::unique_ptr<PgCluster> PgCluster::start_standby() {
  std::unique_ptr<PgCluster> standby(new PgCluster(options_));
  const std::vector<std::string> basebackup = {bin("pg_basebackup"),
                                               "-D",
                                               standby->data_dir(),
                                               "-h",
                                               "127.0.0.1",
                                               "-p",
                                               std::to_string(port_),
                                               "-U",
                                               "p2b",
                                               "-R",
                                               "-X",
                                               "stream",
                                               "-c",
                                               "fast",
                                               "--no-sync"};
  if (standby->run(basebackup, 120) != 0) standby->fail("pg_basebackup failed");
  standby->write_settings();  // later lines win over the primary's copied ones
  standby->pg_ctl_start();
  return standby;
}

void PgCluster::write_settings() {
  std::ofstream conf(data_dir() + "/postgresql.conf", std::ios::app);
  conf << "\n# p2b test cluster\n"
       << "listen_addresses = '127.0.0.1'\n"
       << "port = " << port_ << "\n"
       << "unix_socket_directories = '" << dir_ << "'\n"
       << "max_connections = " << options_.max_connections << "\n"
       << "fsync = " << (options_.fsync ? "on" : "off") << "\n"
       << "synchronous_commit = " << (options_.fsync ? "on" : "off") << "\n"
       << "full_page_writes = " << (options_.fsync ? "on" : "off") << "\n"
       << "log_min_messages = warning\n";
  for (const std::string& line : options_.settings) conf << line << "\n";
  if (!conf) fail("could not write postgresql.conf");
}

int PgCluster::run(const std::vector<std::string>& argv, int timeout_s) const {
  return run_bounded(argv, postgres_user(), dir_ + "/commands.log", seconds(timeout_s));
}

void PgCluster::pg_ctl_start() {
  if (run({bin("pg_ctl"), "start", "-D", data_dir(), "-l", dir_ + "/server.log", "-w", "-t", "60"},
          70) != 0) {
    fail("pg_ctl start failed");
  }
  running_ = true;
}

std::string PgCluster::url() const {
  return url("p2b");
}

std::string PgCluster::url(const std::string& database) const {
  return "postgresql://p2b@127.0.0.1:" + std::to_string(port_) + "/" + database;
}

pid_t PgCluster::postmaster_pid() const {
  if (!running_) return -1;
  const pid_t pid = std::atoi(read_file(data_dir() + "/postmaster.pid").c_str());
  return pid > 0 ? pid : -1;
}

void PgCluster::promote() {
  if (run({bin("pg_ctl"), "promote", "-D", data_dir(), "-w", "-t", "60"}, 70) != 0) {
    fail("pg_ctl promote failed");
  }
  const auto deadline = std::chrono::steady_clock::now() + seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    try {
      p2b::pg::Connection conn(url(), seconds(2), seconds(5));
      if (!conn.query("SELECT pg_is_in_recovery()").boolean(0, 0)) return;
    } catch (const p2b::pg::Error&) {
      // still starting up as a primary
    }
    std::this_thread::sleep_for(milliseconds(20));
  }
  fail("the promoted standby did not accept writes within 30 s");
}

void PgCluster::kill9() {
  const pid_t postmaster = postmaster_pid();
  if (postmaster <= 0) fail("kill9: no postmaster.pid");
  // The children first listed, then all killed: once the postmaster is
  // gone they would be reparented and no longer findable by their parent.
  std::vector<pid_t> victims = children_of(postmaster);
  kill(postmaster, SIGSTOP);  // no new child between the listing and the kill
  const std::vector<pid_t> late = children_of(postmaster);
  for (const pid_t pid : late) {
    if (std::find(victims.begin(), victims.end(), pid) == victims.end()) victims.push_back(pid);
  }
  victims.push_back(postmaster);
  for (const pid_t pid : victims) kill(pid, SIGKILL);
  running_ = false;
  const auto deadline = std::chrono::steady_clock::now() + seconds(10);
  while (!std::all_of(victims.begin(), victims.end(), gone)) {
    if (std::chrono::steady_clock::now() >= deadline) fail("kill9: processes outlived SIGKILL");
    std::this_thread::sleep_for(milliseconds(5));
  }
  // Until init reaps it, a killed postmaster is a zombie, and the next start
  // would take its pid in the lock files for a live server; it is dead, so
  // the locks are stale, as they are once init has reaped it.
  const std::string socket = dir_ + "/.s.PGSQL." + std::to_string(port_);
  for (const std::string& stale : {data_dir() + "/postmaster.pid", socket + ".lock", socket}) {
    std::error_code ec;
    fs::remove(stale, ec);
  }
}

void PgCluster::stop() {
  if (!running_) return;
  const int status =
      run({bin("pg_ctl"), "stop", "-D", data_dir(), "-m", "fast", "-w", "-t", "60"}, 70);
  if (status != 0) {
    kill9();
    fail("pg_ctl stop failed; killed");
  }
  running_ = false;
}

void PgCluster::start() {
  if (!running_) pg_ctl_start();
}

std::string PgCluster::log() const {
  return read_file(dir_ + "/server.log");
}

void PgCluster::fail(const std::string& what) const {
  throw std::runtime_error(what + " (cluster " + dir_ + ")\n--- commands.log:\n" +
                           tail(read_file(dir_ + "/commands.log"), 30) + "--- server.log:\n" +
                           tail(log(), 60));
}

PgCluster::~PgCluster() {
  if (g_print_log_if != nullptr && g_print_log_if()) {
    std::cerr << "--- server.log of the PostgreSQL cluster on port " << port_ << ":\n"
              << tail(log(), 80) << "---\n";
  }
  try {
    stop();
  } catch (const std::exception& error) {
    std::cerr << error.what() << "\n";
  }
  std::error_code ec;
  fs::remove_all(dir_, ec);
  end_guard();
}

}  // namespace p2b::proc
