// The proof that nothing acknowledged was lost or applied twice: a ledger of
// every envelope a test offered and which of them got a 202, reconciled with
// what the analyzer's store says it applied.
//
// A report's id is the digest of its inner ciphertext, the key under which
// the analyzer records every inner it has seen (seen_inner) or quarantined.
// The store keeps one count per arm, so a record applied twice shows as an
// arm counting more reports than the distinct ids applied to it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "service_fixture.hpp"

namespace p2b_services {

struct LedgerTally {
  std::size_t offered = 0;
  std::size_t acknowledged = 0;  // got a 202
  std::size_t applied = 0;       // offered and in the store's seen_inner, not quarantined
  std::size_t quarantined = 0;   // offered and in the store's quarantine
  std::size_t lost = 0;          // acknowledged, yet neither applied nor quarantined
  std::size_t duplicated = 0;    // applications beyond one per applied id (per-arm counts)
  std::size_t uncounted = 0;     // applied ids the arm counts do not reflect (refused)
  std::string summary() const;
};

class Ledger {
 public:
  // Records that `e` (carrying `action`) was offered.
  void offer(const Envelope& e, uint32_t action);
  // Records that `e` got a 202; it must have been offered.
  void acknowledge(const Envelope& e);
  // POSTs all[from, from+n) to the shuffler at `port` as one request,
  // offering each and acknowledging them if the answer is 202. Returns the
  // status (-1: no answer). `action_of(i)` gives the action of all[i].
  int post(int port, const std::vector<Envelope>& all, std::size_t from, std::size_t n,
           uint32_t (*action_of)(std::size_t) = action_of_index);
  // Posts all[from, from + n) in requests of `per_request` envelopes;
  // returns how many envelopes got a 202.
  std::size_t post_range(int port, const std::vector<Envelope>& all, std::size_t from,
                         std::size_t n, std::size_t per_request,
                         uint32_t (*action_of)(std::size_t) = action_of_index);
  std::size_t post_all(int port, const std::vector<Envelope>& all, std::size_t per_request,
                       uint32_t (*action_of)(std::size_t) = action_of_index) {
    return post_range(port, all, 0, all.size(), per_request, action_of);
  }

  // Reads the analyzer's store (SQLite, read-only; stop the analyzer first
  // for a settled view) and counts. Throws std::runtime_error if it cannot.
  LedgerTally reconcile(const std::filesystem::path& analyzer_db) const;

 private:
  struct Entry {
    uint32_t action = 0;
    bool acknowledged = false;
  };
  std::map<p2b::server::InnerDigest, Entry> entries_;
};

// Posts all of `all` in requests of `per_request` and expects a 202 for each.
void post_expecting_202(Ledger& ledger, int port, const std::vector<Envelope>& all,
                        std::size_t per_request,
                        uint32_t (*action_of)(std::size_t) = action_of_index);

// `applied` for expect_nothing_lost: every acknowledged report.
constexpr std::size_t kAllAcknowledged = static_cast<std::size_t>(-1);

// Reconciles with the analyzer's store (stop the analyzer first) and expects
// what every fault test must show: lost 0, duplicated 0, uncounted 0, and
// the given numbers applied and quarantined. Prints the tally as a figure.
LedgerTally expect_nothing_lost(const Ledger& ledger, const std::filesystem::path& store,
                                std::size_t applied = kAllAcknowledged,
                                std::size_t quarantined = 0);

}  // namespace p2b_services
