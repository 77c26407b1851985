#include "pfcb/peer_client.hpp"

#include <sodium.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <utility>

#include "pfcb/peer_checkpoint.hpp"
#include "pfcb/read_auth.hpp"
#include "pfcb/relay_requests.hpp"
#include "pfcb/relay_service.hpp"

namespace p2b::pfcb {

namespace {

uint64_t get_u64le(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

bool parse_cursor(const std::string& s, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  uint64_t v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
    const auto d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

}  // namespace

// ---- client ------------------------------------------------------------------

PeerClient::PeerClient(CmabAgent* agent, const PeerConfig& cfg, RelayLink link, common::Logger* log)
    : agent_(agent), cfg_(cfg), members_(cfg.members), link_(std::move(link)), log_(log) {
  VerifyKey own{};
  std::memcpy(own.data(), cfg_.sign_sk.data() + kSignKeyBytes - kVerifyKeyBytes, own.size());
  if (sender_fingerprint(own.data(), own_fp_)) {
    VerifyKey found{};
    uint32_t index = 0;
    if (members_.find(own_fp_, &found, &index) && found == own) own_index_ = index;
  }
  // Without it no read can be signed; the client then is not ok().
  if (!consortium_fingerprint(cfg_.consortium_key.data(), consortium_fp_)) {
    own_index_ = UINT32_MAX;
  }
}

PeerClient::~PeerClient() {
  sodium_memzero(cfg_.sign_sk.data(), cfg_.sign_sk.size());
  sodium_memzero(cfg_.consortium_key.data(), cfg_.consortium_key.size());
  sodium_memzero(cfg_.state_key.data(), cfg_.state_key.size());
}

bool PeerClient::checkpoint() {
  if (cfg_.checkpoint_path.empty() || agent_ == nullptr) return true;
  Checkpoint c;
  c.cursor = cursor_;
  std::size_t n = 0;
  if (agent_->saved_size(&n) != Status::ok) return false;
  c.agent_state.resize(n);
  std::string err;
  bool ok = agent_->save(cfg_.state_key.data(), c.agent_state.data(), n, &n) == Status::ok;
  if (ok) {
    outbox_.for_each([&c](uint32_t release, const std::vector<uint8_t>& bytes) {
      c.postings.push_back(PendingPosting{release, bytes});
    });
    ok = write_checkpoint(cfg_.checkpoint_path, c, cfg_.state_key.data(), &err);
  }
  sodium_memzero(c.agent_state.data(), c.agent_state.size());
  dirty_ = !ok;
  if (ok) {
    ++stats_.checkpoints;
  } else {
    ++stats_.checkpoint_failures;
    if (log_ != nullptr) log_->error("checkpoint_failed", {{"error", err}});
  }
  return ok;
}

bool PeerClient::resume(bool* restored, std::string* err) {
  *restored = false;
  if (cfg_.checkpoint_path.empty() || agent_ == nullptr) return true;
  Checkpoint c;
  bool exists = false;
  if (!read_checkpoint(cfg_.checkpoint_path, cfg_.state_key.data(), &c, &exists, err)) {
    return false;
  }
  if (!exists) return true;
  const Status st =
      agent_->restore(cfg_.state_key.data(), c.agent_state.data(), c.agent_state.size());
  sodium_memzero(c.agent_state.data(), c.agent_state.size());
  if (st != Status::ok) {
    *err = cfg_.checkpoint_path + ": the agent refuses its state (" + status_str(st) + ")";
    return false;
  }
  outbox_.clear();
  for (PendingPosting& p : c.postings) outbox_.push(std::move(p.bytes), p.release);
  cursor_ = c.cursor;
  dirty_ = false;
  *restored = true;
  return true;
}

bool PeerClient::after_observe() {
  if (!ok() || agent_ == nullptr) return false;
  CmabShare share;
  if (agent_->poll_share(&share) != Status::ok) {
    checkpoint();  // the round's counts
    return false;
  }
  std::vector<uint8_t> posting;
  std::string err;
  if (!seal_posting(share, cfg_.sign_sk.data(), cfg_.consortium_key.data(), &posting, &err)) {
    ++stats_.seal_failures;
    if (log_ != nullptr) log_->error("share_unsealable", {{"error", err}});
    return false;
  }
  outbox_.push(std::move(posting), share.release);
  ++stats_.shares_sealed;
  checkpoint();
  return true;
}

std::size_t PeerClient::flush() {
  if (!ok() || (dirty_ && !checkpoint())) return 0;
  const std::size_t left = outbox_.flush(link_, log_);
  // A delivery not yet on disk is sent again after a crash: a 409 then.
  if (left > 0) checkpoint();
  return left;
}

void PeerClient::refuse(const std::string& reason) {
  ++stats_.postings_refused;
  ++stats_.refused_by_reason[reason];
  if (log_ != nullptr) log_->warn("posting_refused", {{"error", reason}});
}

std::size_t PeerClient::fetch(std::size_t max_batches) {
  if (!ok() || agent_ == nullptr) return 0;
  const std::size_t wire = posting_wire_size(cfg_.producers);
  const std::size_t record = kRecordSeqBytes + wire;
  std::size_t applied = 0;
  const uint64_t cursor_before = cursor_;
  for (std::size_t batch = 0; batch < max_batches; ++batch) {
    std::string reply, cursor_text;
    ListQuery q;
    q.after = cursor_;
    q.exclude = true;
    std::memcpy(q.exclude_fp, own_fp_, kFpBytes);
    q.limit = cfg_.fetch_limit;
    // Wall-clock microseconds, kept strictly increasing: the relay refuses
    // a time at or below the last it accepted from this key.
    const auto since = std::chrono::system_clock::now().time_since_epoch();
    const auto now_us =
        static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(since).count());
    last_read_us_ = std::max(now_us, last_read_us_ + 1);
    RelayLink::Headers headers;
    ++stats_.fetches;
    if (!sign_read(q, consortium_fp_, last_read_us_, cfg_.sign_sk.data(), &headers)) {
      ++stats_.fetch_failures;
      break;
    }
    // At most fetch_limit records: the relay never sends more, so more is no answer.
    const int status =
        link_.get(list_path(q), headers, record * cfg_.fetch_limit, &reply, &cursor_text);
    uint64_t next = 0;
    if (status != 200 || wire == 0 || reply.size() % record != 0 ||
        !parse_cursor(cursor_text, &next)) {
      ++stats_.fetch_failures;
      if (status == 403) ++stats_.fetches_forbidden;
      break;  // what earlier batches applied is still checkpointed below
    }
    const auto* bytes = reinterpret_cast<const uint8_t*>(reply.data());
    const std::size_t n = reply.size() / record;
    for (std::size_t i = 0; i < n; ++i) {
      const uint8_t* rec = bytes + i * record;
      const uint64_t seq = get_u64le(rec);
      if (seq <= cursor_) {
        refuse("out_of_order");  // a relay that went back: never apply twice
        continue;
      }
      ++stats_.postings_received;
      CmabShare share;
      uint32_t sender = 0;
      std::string err;
      const PostingStatus st =
          open_posting(rec + kRecordSeqBytes, wire, members_, cfg_.consortium_key.data(),
                       cfg_.producers, &share, &sender, &err);
      if (st != PostingStatus::ok) {
        refuse(posting_status_name(st));
      } else if (sender == own_index_) {
        refuse("own_posting");
      } else {
        CmabApplyResult result;
        const Status applied_st = agent_->apply_share(sender, share, &result);
        if (applied_st == Status::ok) {
          ++stats_.shares_applied;
          ++applied;
          stats_.producers_accepted += result.accepted;
          stats_.producers_rejected += result.rejected;
        } else if (applied_st == Status::replayed) {
          ++stats_.shares_stale;
        } else {
          refuse(std::string("apply_") + status_str(applied_st));
        }
      }
      cursor_ = seq;
    }
    if (next > cursor_) cursor_ = next;
    if (n < cfg_.fetch_limit) break;  // caught up
  }
  if (cursor_ != cursor_before) checkpoint();
  return applied;
}

}  // namespace p2b::pfcb
