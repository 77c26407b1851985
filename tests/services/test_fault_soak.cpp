// Group commit seen from outside: many clients posting one envelope each at
// the same time share spool transactions, yet every 202 is durable and
// every report reaches the analyzer exactly once, also when the same
// envelope arrives in two concurrent requests and when the shuffler is
// killed in the middle. Every wait is bounded.
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "ledger.hpp"
#include "service_fixture.hpp"

namespace {

using namespace p2b_services;

constexpr std::size_t kClients = 16;

// Posts all[i] alone for every i with i % kClients == c, from kClients
// threads at once; when `replay` is set, each client also posts its
// neighbour's envelope right after its own. Stops early once `stop` is set.
// Returns the status of each index's last answer (-1: none).
// `acked`, when given, counts the 202s as they come (a killer waits on it).
std::vector<int> post_concurrently(int port, const std::vector<Envelope>& all, bool replay,
                                   const std::atomic<bool>& stop,
                                   std::atomic<std::size_t>* acked = nullptr) {
  std::vector<int> status(all.size(), -1);
  std::vector<std::thread> clients;
  clients.reserve(kClients);
  std::vector<std::vector<std::pair<std::size_t, int>>> answers(kClients);
  for (std::size_t c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      httplib::Client cli("127.0.0.1", port);
      cli.set_connection_timeout(2, 0);
      cli.set_read_timeout(10, 0);
      for (std::size_t i = c; i < all.size() && !stop; i += kClients) {
        std::vector<std::size_t> send = {i};
        if (replay && i + 1 < all.size()) send.push_back(i + 1);
        for (std::size_t k : send) {
          const auto res = cli.Post("/v1/reports", body_of(all, k, 1), "application/octet-stream");
          answers[c].emplace_back(k, res ? res->status : -1);
          if (acked != nullptr && res && res->status == 202) ++*acked;
        }
      }
    });
  }
  for (auto& t : clients) t.join();
  for (const auto& a : answers) {
    for (const auto& [i, s] : a) {
      if (status[i] != 202) status[i] = s;  // one 202 is an acknowledgement
    }
  }
  return status;
}

void record(Ledger& ledger, const std::vector<Envelope>& all, const std::vector<int>& status) {
  for (std::size_t i = 0; i < all.size(); ++i) {
    ledger.offer(all[i], action_of_index(i));
    if (status[i] == 202) ledger.acknowledge(all[i]);
  }
}

void expect_all_applied_once(Deployment& d, const Ledger& ledger, std::size_t n) {
  ASSERT_TRUE(eventually(60, [&] {
    return metric(d.analyzer().port(), "p2b_analyzer_records_applied_total") >=
           static_cast<double>(n);
  }));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // nothing more may arrive
  EXPECT_EQ(metric(d.analyzer().port(), "p2b_analyzer_records_applied_total"),
            static_cast<double>(n));
  EXPECT_EQ(d.shuffler().stop(), 0);
  EXPECT_EQ(d.analyzer().stop(), 0);
  const LedgerTally t = ledger.reconcile(d.store_path());
  EXPECT_EQ(t.acknowledged, n) << t.summary();
  EXPECT_EQ(t.lost, 0U) << t.summary();
  EXPECT_EQ(t.duplicated, 0U) << t.summary();
  EXPECT_EQ(t.applied, n) << t.summary();
  std::printf("[ figure ] ledger: %s\n", t.summary().c_str());
}

TEST(FaultSoak, ConcurrentSingleEnvelopeRequestsAndReplaysArriveExactlyOnce) {
  Deployment d("fault-soak-concurrent");
  d.start_analyzer();
  d.start_shuffler(1, d.analyzer().url());
  const std::vector<Envelope> all = envelopes(1600);
  const std::atomic<bool> never{false};
  const std::vector<int> status = post_concurrently(d.shuffler().port(), all, true, never);
  for (std::size_t i = 0; i < all.size(); ++i) ASSERT_EQ(status[i], 202) << i;

  const double received = metric(d.shuffler().port(), "p2b_shuffler_received_total");
  const double commits = metric(d.shuffler().port(), "p2b_shuffler_insert_commits_total");
  EXPECT_EQ(received, static_cast<double>(all.size())) << "each replay was stored once";
  EXPECT_EQ(metric(d.shuffler().port(), "p2b_shuffler_duplicates_total"),
            static_cast<double>(all.size() - 1));
  EXPECT_GE(commits, 1.0);
  EXPECT_LE(commits, received);
  std::printf("[ figure ] %.0f envelopes in %.0f spool transactions from %zu clients\n", received,
              commits, kClients);
  Ledger ledger;
  record(ledger, all, status);
  expect_all_applied_once(d, ledger, all.size());
}

TEST(FaultSoak, ShufflerKilledDuringGroupCommitsLosesAndDuplicatesNothing) {
  Deployment d("fault-soak-kill");
  d.start_analyzer();
  d.start_shuffler(1, d.analyzer().url());
  const std::vector<Envelope> all = envelopes(4800);
  std::atomic<bool> stop{false};
  std::atomic<std::size_t> acked{0};
  // The kill comes once a quarter of the envelopes were acknowledged: it
  // waits on that count, never on the clock.
  std::thread killer([&] {
    for (int i = 0; i < 60000 && acked < all.size() / 4; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    d.shuffler().kill_hard();
    stop = true;
  });
  std::vector<int> status = post_concurrently(d.shuffler().port(), all, false, stop, &acked);
  killer.join();
  const auto acked_before = static_cast<std::size_t>(std::count(status.begin(), status.end(), 202));
  ASSERT_GT(acked_before, 0U);
  ASSERT_LT(acked_before, all.size()) << "the kill came too late to test anything";

  // Restart on the same spool; devices re-send whatever got no 202, again
  // concurrently.
  d.start_shuffler(1, d.analyzer().url());
  std::vector<Envelope> rest;
  std::vector<std::size_t> rest_index;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (status[i] == 202) continue;
    rest.push_back(all[i]);
    rest_index.push_back(i);
  }
  const std::atomic<bool> never{false};
  const std::vector<int> again = post_concurrently(d.shuffler().port(), rest, false, never);
  for (std::size_t k = 0; k < rest.size(); ++k) {
    ASSERT_EQ(again[k], 202) << rest_index[k];
    status[rest_index[k]] = 202;
  }
  std::printf("[ figure ] %zu of %zu single-envelope requests acknowledged before kill -9\n",
              acked_before, all.size());
  Ledger ledger;
  record(ledger, all, status);
  expect_all_applied_once(d, ledger, all.size());
}

}  // namespace
