// The throwaway PostgreSQL the fault tests stand on: a durable primary that
// keeps every committed row through kill -9, a standby that follows it and
// takes writes once promoted, and the proxy that partitions a client from
// it and heals.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <thread>

#include "common/pg/pg.hpp"
#include "pg_cluster.hpp"
#include "tcp_proxy.hpp"

namespace p2b_services {
namespace {

using p2b::pg::Connection;
using p2b::pg::Error;
using p2b::pg::Params;
using p2b::pg::Transaction;
using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

int64_t count(Connection& conn, const std::string& table) {
  return conn.query("SELECT count(*) FROM " + table).int8(0, 0);
}

// Polls `pred` every 20 ms for at most `limit`.
template <typename Pred>
bool within(Clock::duration limit, Pred pred) {
  const auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(milliseconds(20));
  }
  return pred();
}

TEST(PgCluster, CommittedRowsSurviveKill9OfThePrimary) {
  auto primary = PgCluster::start_primary();
  const pid_t first_pid = primary->postmaster_pid();
  ASSERT_GT(first_pid, 0);
  {
    Connection conn(primary->url());
    conn.exec("CREATE TABLE durable (id int8 PRIMARY KEY)");
    for (int64_t i = 0; i < 200; ++i) {
      Transaction tx(conn);
      conn.query("INSERT INTO durable VALUES ($1)", Params().int8(i));
      tx.commit();  // acknowledged: must survive
    }
  }
  Connection doomed(primary->url(), seconds(2), seconds(2));
  primary->kill9();
  EXPECT_EQ(primary->postmaster_pid(), -1);
  // The client sees the crash as a lost connection: retryable.
  try {
    doomed.exec("SELECT 1");
    FAIL() << "a query succeeded on a killed server";
  } catch (const Error& error) {
    EXPECT_TRUE(error.connection_lost()) << error.what();
    EXPECT_TRUE(error.retryable());
  }
  EXPECT_FALSE(doomed.healthy());
  EXPECT_THROW(Connection(primary->url(), milliseconds(500)), Error);

  primary->start();  // crash recovery on the same data and port
  EXPECT_NE(primary->postmaster_pid(), first_pid);
  Connection conn(primary->url());
  EXPECT_EQ(count(conn, "durable"), 200);

  primary->stop();
  EXPECT_THROW(Connection(primary->url(), milliseconds(500)), Error);
  primary->start();
  Connection again(primary->url());
  EXPECT_EQ(count(again, "durable"), 200);
}

// Gone, or a zombie that init has not reaped yet.
bool process_gone(pid_t pid) {
  if (kill(pid, 0) != 0) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const std::size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] == 'Z';
}

TEST(PgCluster, ATestKilledMidwayLeavesNoServerBehind) {
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t test_process = fork();
  ASSERT_GE(test_process, 0);
  if (test_process == 0) {
    close(pipe_fds[0]);
    try {
      PgCluster::Options options;
      options.fsync = false;
      auto cluster = PgCluster::start_primary(options);
      const std::string line =
          cluster->dir() + " " + std::to_string(cluster->postmaster_pid()) + "\n";
      if (write(pipe_fds[1], line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
        _exit(2);
      }
      for (;;) pause();  // until the SIGKILL: no destructor runs
    } catch (...) {
      _exit(3);
    }
  }
  close(pipe_fds[1]);
  std::string line;
  char c = 0;
  pollfd pfd{pipe_fds[0], POLLIN, 0};
  while (line.find('\n') == std::string::npos && poll(&pfd, 1, 60'000) == 1 &&
         read(pipe_fds[0], &c, 1) == 1) {
    line.push_back(c);
  }
  close(pipe_fds[0]);
  kill(test_process, SIGKILL);
  waitpid(test_process, nullptr, 0);
  std::istringstream fields(line);
  std::string dir;
  pid_t postmaster = -1;
  fields >> dir >> postmaster;
  ASSERT_FALSE(dir.empty()) << "the child did not start a cluster";
  ASSERT_GT(postmaster, 0);
  EXPECT_TRUE(within(seconds(10),
                     [&] { return process_gone(postmaster) && !std::filesystem::exists(dir); }))
      << "the cluster of a killed test is still there: " << dir;
}

TEST(PgCluster, AStandbyFollowsAndTakesWritesOncePromoted) {
  PgCluster::Options options;
  options.fsync = false;
  auto primary = PgCluster::start_primary(options);
  Connection writer(primary->url());
  writer.exec("CREATE TABLE followed (id int8)");
  writer.query("INSERT INTO followed VALUES ($1)", Params().int8(1));

  auto standby = primary->start_standby();
  ASSERT_NE(standby->port(), primary->port());
  // What a service given both hosts connects to: the one taking writes.
  const std::string either = "postgresql://p2b@127.0.0.1:" + std::to_string(primary->port()) +
                             ",127.0.0.1:" + std::to_string(standby->port()) +
                             "/p2b?target_session_attrs=read-write";
  const auto writable_port = [&] {
    Connection conn(either, seconds(5));
    return conn.query("SELECT inet_server_port()").int4(0, 0);
  };
  EXPECT_EQ(writable_port(), primary->port());
  Connection reader(standby->url());
  EXPECT_TRUE(reader.query("SELECT pg_is_in_recovery()").boolean(0, 0));
  writer.query("INSERT INTO followed VALUES ($1)", Params().int8(2));
  EXPECT_TRUE(within(seconds(10), [&] { return count(reader, "followed") == 2; }));
  try {
    reader.query("INSERT INTO followed VALUES ($1)", Params().int8(3));
    FAIL() << "a standby took a write";
  } catch (const Error& error) {
    EXPECT_EQ(error.sqlstate(), "25006");  // read_only_sql_transaction
  }

  primary->kill9();
  const auto start = Clock::now();
  standby->promote();
  const double promote_s = std::chrono::duration<double>(Clock::now() - start).count();
  std::cout << "promotion took " << promote_s << " s\n";
  Connection promoted(standby->url());
  EXPECT_FALSE(promoted.query("SELECT pg_is_in_recovery()").boolean(0, 0));
  promoted.query("INSERT INTO followed VALUES ($1)", Params().int8(3));
  EXPECT_EQ(count(promoted, "followed"), 3);
  EXPECT_EQ(writable_port(), standby->port());
}

TEST(PgCluster, AProxyBlackholeTimesOutAndPassRecovers) {
  PgCluster::Options options;
  options.fsync = false;
  auto primary = PgCluster::start_primary(options);
  TcpProxy proxy(primary->port());
  const std::string via_proxy =
      "postgresql://p2b@127.0.0.1:" + std::to_string(proxy.port()) + "/p2b";
  const auto statement_timeout = milliseconds(500);

  Connection direct(primary->url());
  const auto sessions = [&] {
    return direct
        .query("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'")
        .int8(0, 0);
  };
  std::optional<Connection> proxied(std::in_place, via_proxy, seconds(2), statement_timeout);
  Connection& conn = *proxied;
  EXPECT_EQ(conn.query("SELECT 41::int4 + 1").int4(0, 0), 42);
  EXPECT_EQ(proxy.connections(), 1U);

  // A partition: nothing arrives, nothing is refused. The client gives up
  // at statement_timeout + the client's grace, not later.
  proxy.set_mode(TcpProxy::Mode::blackhole);
  auto start = Clock::now();
  try {
    conn.query("SELECT 1::int4");
    FAIL() << "a query went through a blackhole";
  } catch (const Error& error) {
    EXPECT_TRUE(error.connection_lost()) << error.what();
  }
  auto waited = Clock::now() - start;
  EXPECT_GE(waited, statement_timeout);
  // Bounded, not hung: a wide margin over the limit for a loaded machine.
  EXPECT_LT(waited, statement_timeout + Connection::kClientGrace + seconds(10));
  EXPECT_FALSE(conn.healthy());
  EXPECT_THROW(conn.query("SELECT 1::int4"), Error);  // given up for good

  // The client closing its end is not seen through a partition: the
  // server keeps the session until the partition heals.
  const int64_t open_sessions = sessions();
  proxied.reset();
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(sessions(), open_sessions);

  // A connect into the blackhole ends at its connect timeout.
  start = Clock::now();
  EXPECT_THROW(Connection(via_proxy, milliseconds(700)), Error);
  waited = Clock::now() - start;
  EXPECT_GE(waited, milliseconds(700));
  EXPECT_LT(waited, seconds(10));

  // Healed: a new connection works.
  proxy.set_mode(TcpProxy::Mode::pass);
  // A long statement timeout here, so the reset below is told apart from a
  // timeout by a wide margin, whatever the machine's load.
  Connection healed(via_proxy, seconds(2), seconds(30));
  EXPECT_EQ(healed.query("SELECT 7::int4").int4(0, 0), 7);
  // The partitioned session ended with the partition (an RST); the
  // connect attempt's was never forwarded.
  EXPECT_TRUE(within(seconds(5), [&] { return sessions() == open_sessions; }));

  // A reset ends open connections at once and refuses new ones.
  proxy.set_mode(TcpProxy::Mode::reset);
  start = Clock::now();
  try {
    healed.query("SELECT 1::int4");
    FAIL() << "a query went through a reset";
  } catch (const Error& error) {
    EXPECT_TRUE(error.connection_lost()) << error.what();
  }
  EXPECT_LT(Clock::now() - start, seconds(10)) << "ended by the reset, not the 30 s timeout";
  EXPECT_THROW(Connection(via_proxy, seconds(2)), Error);
  EXPECT_EQ(proxy.connections(), 0U);
  proxy.set_mode(TcpProxy::Mode::pass);
  Connection after(via_proxy, seconds(2), statement_timeout);
  EXPECT_EQ(after.query("SELECT 8::int4").int4(0, 0), 8);
}

}  // namespace
}  // namespace p2b_services
