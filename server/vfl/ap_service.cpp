#include "vfl/ap_service.hpp"

#include <httplib.h>
#include <sodium.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/bounded_client.hpp"
#include "common/http_errors.hpp"
#include "vfl/bundle_file.hpp"
#include "vfl/masked_message.hpp"
#include "vfl/masked_request.hpp"

namespace p2b::vfl {

namespace {

// Rounds reserved on disk at a time: one fsync per this many decisions.
constexpr uint64_t kRoundReserve = 1024;
// The largest error body a party's answer may carry ({"error":...}).
constexpr std::size_t kMaxErrorBytes = 4096;

ServiceReply error_reply(int status, const std::string& code, const std::string& detail,
                         const nlohmann::json& parties = nlohmann::json()) {
  nlohmann::json body = {{"error", code}, {"detail", detail}};
  if (!parties.is_null()) body["parties"] = parties;
  ServiceReply r;
  r.status = status;
  r.code = code;
  r.body = body.dump();
  return r;
}

ServiceReply ok_reply(const nlohmann::json& body) {
  ServiceReply r;
  r.body = body.dump();
  return r;
}

int random_fill(void*, uint8_t* out, std::size_t len) {
  randombytes_buf(out, len);
  return 0;
}

// What one passive party gave in one round.
struct PartAnswer {
  bool transport_ok = false;
  int status = 0;
  std::string body;
  std::string error;  // the failure's code; empty when the part was added
  // A 200 answer is opened in its party's thread, as it arrives, so the
  // parties' decryptions overlap instead of queueing after the last reply.
  MessageStatus opened = MessageStatus::bad_length;
  MaskedMessage msg;
};

// Most specific first: the code a refused decision answers with.
constexpr const char* kPrecedence[] = {"wrong_shape",    "stale_mask",   "replayed",
                                       "party_timeout",  "unknown_user", "unknown_item",
                                       "missing_parties"};

int status_for(const std::string& code) {
  if (code == "wrong_shape" || code == "replayed") return 502;
  if (code == "stale_mask") return 409;
  if (code == "party_timeout") return 504;
  if (code == "unknown_user" || code == "unknown_item") return 404;
  return 503;  // missing_parties
}

const char* code_for(MessageStatus s) {
  switch (s) {
    case MessageStatus::replayed:
      return "replayed";
    case MessageStatus::stale_mask:
      return "stale_mask";
    case MessageStatus::wrong_shape:
      return "wrong_shape";
    default:
      return "missing_parties";  // a part that does not open or parse is missing
  }
}

}  // namespace

ApService::~ApService() {
  sodium_memzero(cfg_.box_sk, sizeof cfg_.box_sk);
  if (!block_.q.empty()) sodium_memzero(block_.q.data(), block_.q.size() * sizeof(double));
}

BundleStatus ApService::open_bundle(uint64_t last_epoch, OpenedBundle* out,
                                    std::string* err) const {
  return open_bundle_file(cfg_.bundle_path, BundleKeys{cfg_.box_pk, cfg_.box_sk, cfg_.pmg_sign_pk},
                          0, cfg_.d, last_epoch, out, err);
}

bool ApService::start(const ApConfig& cfg, std::string* err) {
  cfg_ = cfg;
  cfg_.model.dim = cfg_.d;
  if (!cfg_.model.deterministic) cfg_.model.random = RandomSource{random_fill, nullptr};
  bool existed = false;
  if (!read_state(cfg_.state_path, &state_, &existed, err)) return false;
  OpenedBundle opened;
  if (open_bundle(state_.mask_epoch > 0 ? state_.mask_epoch - 1 : 0, &opened, err) !=
      BundleStatus::ok) {
    return false;
  }
  if (opened.block.partition.size() != cfg_.parties.size() + 1) {
    *err = "the mask has " + std::to_string(opened.block.partition.size() - 1) +
           " passive parties, but " + std::to_string(cfg_.parties.size()) + " --party were given";
    return false;
  }
  if (!features_.load(cfg_.features_path, opened.block.d_j, cfg_.max_rows, err)) return false;
  ActiveConfig ac;
  ac.model = cfg_.model;
  ac.own = opened.block;
  ac.allow_partial = cfg_.allow_partial;
  if (ActiveParty::create(ac, &ap_, err) != RoundStatus::ok) return false;
  // Every round_id up to the old ceiling may have been used.
  last_round_ = state_.round_id;
  state_.mask_epoch = opened.block.epoch;
  if (!write_state(cfg_.state_path, state_, err)) return false;
  block_ = std::move(opened.block);
  publish_mask();
  last_accepted_.assign(cfg_.parties.size() + 1, 0);
  // The keys are pinned: each shared key is computed once, not per message.
  party_keys_.assign(cfg_.parties.size(), BoxKey{});
  for (std::size_t j = 0; j < cfg_.parties.size(); ++j) {
    if (!box_key(cfg_.box_sk, cfg_.parties[j].box_pk, &party_keys_[j])) {
      *err = "no shared key with party " + std::to_string(j + 1);
      return false;
    }
  }
  stats_.party_bytes.assign(cfg_.parties.size() + 1, 0);
  stats_.party_messages.assign(cfg_.parties.size() + 1, 0);
  return true;
}

bool ApService::next_round(uint64_t* round, std::string* err) {
  const uint64_t r = last_round_ + 1;
  if (r > state_.round_id) {
    ServiceState next = state_;
    next.round_id = r + kRoundReserve - 1;
    if (!write_state(cfg_.state_path, next, err)) return false;
    state_ = next;
  }
  last_round_ = r;
  *round = r;
  return true;
}

// Nothing thrown inside (allocation, thread creation) leaves the service:
// the request gets 500 internal and the service state stays consistent.
ServiceReply ApService::decide(const std::string& body) {
  std::lock_guard<std::mutex> lock(mu_);
  try {
    return decide_locked(body);
  } catch (const std::exception& e) {
    ++stats_.refused;
    return error_reply(500, "internal", e.what());
  }
}

ServiceReply ApService::reward(const std::string& body) {
  std::lock_guard<std::mutex> lock(mu_);
  try {
    return reward_locked(body);
  } catch (const std::exception& e) {
    return error_reply(500, "internal", e.what());
  }
}

ServiceReply ApService::reload_mask() {
  std::lock_guard<std::mutex> lock(mu_);
  try {
    return reload_locked();
  } catch (const std::exception& e) {
    return error_reply(500, "internal", e.what());
  }
}

ServiceReply ApService::decide_locked(const std::string& body) {
  const auto t0 = std::chrono::steady_clock::now();
  auto refuse = [this](int status, const std::string& code, const std::string& detail,
                       const nlohmann::json& parties = nlohmann::json()) {
    ++stats_.refused;
    return error_reply(status, code, detail, parties);
  };
  const nlohmann::json req = nlohmann::json::parse(body, nullptr, false);
  const uint32_t max_items = cfg_.model.max_items;
  if (!req.is_object() || !req.contains("user_token") || !req["user_token"].is_string() ||
      !req.contains("item_ids") || !req["item_ids"].is_array() || req["item_ids"].empty() ||
      req["item_ids"].size() > max_items || req.size() != 2) {
    return refuse(
        400, "bad_request",
        "expected {\"user_token\":hex32,\"item_ids\":[1.." + std::to_string(max_items) + " u32]}");
  }
  UserToken user{};
  if (!parse_user_token(req["user_token"].get<std::string>(), &user)) {
    return refuse(400, "bad_request", "user_token must be 32 hex digits");
  }
  std::vector<uint32_t> items;
  for (const auto& v : req["item_ids"]) {
    if (!v.is_number_unsigned() || v.get<uint64_t>() > UINT32_MAX) {
      return refuse(400, "bad_request", "item_ids must be u32");
    }
    items.push_back(static_cast<uint32_t>(v.get<uint64_t>()));
  }
  const auto k = static_cast<uint32_t>(items.size());
  std::vector<double> own;
  const LookupStatus ls = features_.lookup(user, items.data(), items.size(), &own);
  if (ls != LookupStatus::ok) {
    const char* code = ls == LookupStatus::unknown_user ? "unknown_user" : "unknown_item";
    return refuse(404, code, "the active party has no features for it");
  }
  if (features_.user_only()) {  // one row, the same for every item
    std::vector<double> rows;
    for (uint32_t i = 0; i < k; ++i) rows.insert(rows.end(), own.begin(), own.end());
    own.swap(rows);
  }
  uint64_t round = 0;
  std::string err;
  if (!next_round(&round, &err)) {
    return refuse(503, "state_unwritable", "cannot persist the round: " + err);
  }
  // Every party is asked at once; one deadline bounds each exchange.
  const std::size_t m = cfg_.parties.size();
  std::vector<PartAnswer> answers(m);
  std::vector<std::thread> threads;
  // Joins whatever was started, also when starting the next one throws.
  struct JoinAll {
    std::vector<std::thread>* t;
    ~JoinAll() {
      for (std::thread& th : *t) {
        if (th.joinable()) th.join();
      }
    }
  } join_all{&threads};
  threads.reserve(m);
  for (std::size_t j = 0; j < m; ++j) {
    MaskedRequest mr;
    mr.party_index = static_cast<uint32_t>(j + 1);
    mr.round_id = round;
    std::copy(user.begin(), user.end(), mr.user_token);
    mr.item_ids = items;
    std::vector<uint8_t> sealed;
    if (!seal_masked_request(mr, cfg_.box_sk, cfg_.parties[j].box_pk, &sealed, &err)) {
      answers[j].error = "missing_parties";
      continue;
    }
    MessageExpect ex;
    ex.party_index = static_cast<uint32_t>(j + 1);
    std::copy(block_.mask_id, block_.mask_id + kMaskIdBytes, ex.current.mask_id);
    ex.current.epoch = block_.epoch;
    ex.d = block_.d;
    ex.k_items = k;
    ex.last_round_id = last_accepted_[j + 1];
    threads.emplace_back([this, j, ex, &answers, sealed = std::move(sealed)]() mutable {
      try {
        httplib::Client cli(cfg_.parties[j].url);
        const auto deadline = std::chrono::milliseconds(cfg_.party_timeout_ms);
        cli.set_connection_timeout(deadline);
        cli.set_read_timeout(deadline);
        cli.set_write_timeout(deadline);
        cli.set_keep_alive(false);
        // A genuine answer is one masked message (K items, or 1 for user
        // features) or a short JSON error: nothing larger is read, and an
        // answer past the cap is a wrong shape, as any mis-sized message is.
        const std::size_t cap = std::max(masked_message_bytes(ex.k_items, ex.d), kMaxErrorBytes);
        common::ClientAnswer res = common::bounded_request(
            cli, "POST", "/v1/masked", std::string(sealed.begin(), sealed.end()),
            "application/octet-stream", cap);
        if (res.too_large) {
          answers[j].error = "wrong_shape";
        } else if (res.status >= 0) {
          PartAnswer& a = answers[j];
          a.transport_ok = true;
          a.status = res.status;
          a.body = std::move(res.body);
          if (a.status == 200) {
            // K' is K for item features, 1 for user features; the length says which.
            if (ex.k_items != 1 && a.body.size() == masked_message_bytes(1, ex.d)) ex.k_items = 1;
            a.opened = open_masked_message(reinterpret_cast<const uint8_t*>(a.body.data()),
                                           a.body.size(), party_keys_[j], ex, &a.msg);
          }
        }
      } catch (...) {
        answers[j].transport_ok = false;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  threads.clear();
  RoundStatus rs = ap_->begin(k, own.data());
  sodium_memzero(own.data(), own.size() * sizeof(double));
  if (rs != RoundStatus::ok) return refuse(500, "internal", round_status_name(rs));
  nlohmann::json failed = nlohmann::json::array();
  uint32_t n_failed = 0;
  for (std::size_t j = 0; j < m; ++j) {
    PartAnswer& a = answers[j];
    const auto party = static_cast<uint32_t>(j + 1);
    if (a.error.empty()) {
      if (!a.transport_ok) {
        a.error = "party_timeout";
      } else if (a.status != 200) {
        const nlohmann::json e = nlohmann::json::parse(a.body, nullptr, false);
        const std::string code = e.is_object() && e.contains("error") && e["error"].is_string()
                                     ? e["error"].get<std::string>()
                                     : "";
        a.error = code == "unknown_user" || code == "unknown_item" ? code : "missing_parties";
      } else {
        const MessageStatus ms = a.opened;
        MaskedMessage& msg = a.msg;
        if (ms != MessageStatus::ok) {
          a.error = code_for(ms);
        } else {
          last_accepted_[party] = msg.header.round_id;
          if (msg.header.round_id != round) {
            // An older round that slipped past the last accepted is still a replay.
            a.error = msg.header.round_id < round ? "replayed" : "missing_parties";
          } else if (std::memcmp(msg.header.user_token, user.data(), kUserTokenBytes) != 0) {
            a.error = "missing_parties";
          } else {
            rs = ap_->add_part(party, msg.header.k_items, msg.values.data());
            if (rs != RoundStatus::ok) {
              a.error = rs == RoundStatus::wrong_shape ? "wrong_shape" : "missing_parties";
            } else {
              stats_.party_bytes[party] += a.body.size();
              ++stats_.party_messages[party];
            }
          }
          sodium_memzero(msg.values.data(), msg.values.size() * sizeof(double));
        }
      }
    }
    if (!a.error.empty()) {
      ++n_failed;
      failed.push_back({{"party", party}, {"error", a.error}});
    }
  }
  if (n_failed > 0 && !cfg_.allow_partial) {
    std::string top = "missing_parties";
    for (const char* code : kPrecedence) {
      bool seen = false;
      for (const PartAnswer& a : answers) seen = seen || a.error == code;
      if (seen) {
        top = code;
        break;
      }
    }
    ap_->begin(k, nullptr);  // drops the round (a null context is refused)
    return refuse(status_for(top), top,
                  std::to_string(n_failed) + " of " + std::to_string(m) +
                      " passive parties gave no usable part; no decision was made",
                  failed);
  }
  Decision dec;
  rs = ap_->decide(&dec);
  if (rs != RoundStatus::ok) {
    return refuse(rs == RoundStatus::missing_parties ? 503 : 500,
                  rs == RoundStatus::missing_parties ? "missing_parties" : "model_error",
                  round_status_name(rs), failed);
  }
  nlohmann::json out = {{"item", items[dec.item]},
                        {"index", dec.item},
                        {"decision_id", dec.id},
                        {"round_id", round},
                        {"partial", dec.parts_missing > 0},
                        {"parts_missing", dec.parts_missing}};
  if (n_failed > 0) out["parties"] = failed;
  ++stats_.decisions;
  if (dec.parts_missing > 0) ++stats_.partial;
  stats_.decide_ns += static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
          .count());
  ServiceReply r = ok_reply(out);
  return r;
}

ServiceReply ApService::reward_locked(const std::string& body) {
  const nlohmann::json req = nlohmann::json::parse(body, nullptr, false);
  if (!req.is_object() || req.size() != 2 || !req.contains("decision_id") ||
      !req["decision_id"].is_number_unsigned() || !req.contains("reward") ||
      !req["reward"].is_number()) {
    return error_reply(400, "bad_request", "expected {\"decision_id\":u64,\"reward\":number}");
  }
  const Status st = ap_->reward(req["decision_id"].get<uint64_t>(), req["reward"].get<double>());
  switch (st) {
    case Status::ok:
      ++stats_.rewards;
      return ok_reply({{"ok", true}});
    case Status::unknown_decision:
      return error_reply(404, "unknown_decision", "no pending decision has this id");
    case Status::expired_decision:
      return error_reply(410, "expired_decision", "the decision left the pending ring");
    case Status::already_rewarded:
      return error_reply(409, "already_rewarded", "this decision has its reward");
    default:
      return error_reply(400, "bad_reward", status_str(st));
  }
}

ServiceReply ApService::reload_locked() {
  OpenedBundle opened;
  std::string err;
  const BundleStatus st = open_bundle(state_.mask_epoch, &opened, &err);
  if (st != BundleStatus::ok) {
    return error_reply(409, bundle_status_name(st), "the mask was not replaced: " + err);
  }
  if (opened.block.partition != block_.partition) {
    return error_reply(409, "bad_partition", "the new mask splits d differently");
  }
  ActiveConfig ac;
  ac.model = cfg_.model;
  ac.own = opened.block;
  ac.allow_partial = cfg_.allow_partial;
  std::unique_ptr<ActiveParty> fresh;
  if (ActiveParty::create(ac, &fresh, &err) != RoundStatus::ok) {
    return error_reply(500, "model_error", err);
  }
  ServiceState next = state_;
  next.mask_epoch = opened.block.epoch;
  if (!write_state(cfg_.state_path, next, &err)) {
    return error_reply(503, "state_unwritable", "cannot persist the epoch: " + err);
  }
  state_ = next;
  ap_ = std::move(fresh);
  sodium_memzero(block_.q.data(), block_.q.size() * sizeof(double));
  block_ = std::move(opened.block);
  publish_mask();
  return ok_reply({{"epoch", block_.epoch},
                   {"mask_id", hex_of(block_.mask_id, kMaskIdBytes)},
                   {"model_reset", true}});
}

ApStats ApService::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void ApService::publish_mask() {
  shown_.publish(block_);
}

uint64_t ApService::epoch() const {
  return shown_.epoch();
}

std::string ApService::mask_id_hex() const {
  return shown_.mask_id_hex();
}

}  // namespace p2b::vfl
