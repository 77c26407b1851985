#include "vfl/ap_service.hpp"

#include <sodium.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "common/http_errors.hpp"
#include "common/store_open.hpp"
#include "vfl/bundle_file.hpp"
#include "vfl/masked_message.hpp"
#include "vfl/masked_request.hpp"
#include "vfl/round_reserve.hpp"

namespace p2b::vfl {

namespace {

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

// The model's statistics in a saved state: after the fixed header (164
// bytes less the 32 of the MAC), L's lower triangle and b, both f64
// (docs/formats.md, "Saved shared-model state"). The scores are a function
// of these alone; the pending ring and the generator that follow are not
// the service's (its decisions are in its store).
std::string learned_digest(const std::vector<uint8_t>& saved, uint32_t d) {
  constexpr std::size_t kHeader = 132;
  const std::size_t len = 8 * (static_cast<std::size_t>(d) * (d + 1) / 2 + d);
  if (saved.size() < kHeader + len) return "";
  uint8_t h[32];
  crypto_generichash(h, sizeof h, saved.data() + kHeader, len, nullptr, 0);
  return hex_of(h, sizeof h);
}

}  // namespace

ApService::~ApService() {
  sodium_memzero(cfg_.box_sk, sizeof cfg_.box_sk);
  sodium_memzero(state_key_, sizeof state_key_);
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
  // The store keeps the pending decisions, the model learns their contexts
  // (ActiveParty::learn): its own ring of one slot is never read, and a
  // saved state stays 4 d (d + 1) + 16 d + 180 bytes whatever --pending is.
  window_ = cfg_.model.pending_capacity;
  cfg_.model.pending_capacity = 1;
  model_state_key(cfg_.box_sk, state_key_);
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
  if (!open_model(opened.block, err)) return false;
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
  party_clients_ = std::make_unique<PartyClients>(cfg_.parties, cfg_.party_timeout_ms);
  stats_.party_bytes.assign(cfg_.parties.size() + 1, 0);
  stats_.party_messages.assign(cfg_.parties.size() + 1, 0);
  return true;
}

bool ApService::next_round(uint64_t* round, std::string* err) {
  const uint64_t r = last_round_ + 1;
  if (r > state_.round_id) {
    ServiceState next = state_;
    next.round_id = reserve_ceiling(r);
    if (!write_state(cfg_.state_path, next, err)) return false;
    state_ = next;
  }
  last_round_ = r;
  *round = r;
  return true;
}

// One round's exchange. A passive party that restarted refuses every round
// up to its reserved ceiling and says where it resumes: the round moves on
// there and is asked once more, so a party's restart costs one retry, not
// a block of refused decisions. `err` is set only when no round could be
// reserved.
std::vector<PartAnswer> ApService::ask_round(const UserToken& user,
                                             const std::vector<uint32_t>& items, uint64_t* round,
                                             std::string* err) {
  const PartyChannels ch{&cfg_.parties, party_clients_.get(), &party_keys_, cfg_.box_sk};
  RoundAsk ask;
  ask.user = user;
  ask.items = items;
  ask.block = &block_;
  ask.last_accepted = &last_accepted_;
  ask.timeout_ms = cfg_.party_timeout_ms;
  if (!next_round(&ask.round_id, err)) return {};
  std::vector<PartAnswer> answers = ask_parties(ch, ask);
  uint64_t resume = 0;
  for (const PartAnswer& a : answers) resume = std::max(resume, a.next_round_id);
  if (resume != 0 && plausible_floor(resume, last_round_, state_.round_id)) {
    wipe_answers(&answers);
    last_round_ = resume - 1;
    if (!next_round(&ask.round_id, err)) return {};
    answers = ask_parties(ch, ask);
  }
  *round = ask.round_id;
  return answers;
}

bool ApService::save_checkpoint(const MaskBlock& block, uint64_t seq, ApCheckpoint* cp,
                                std::string* err) const {
  cp->epoch = block.epoch;
  cp->mask_id.assign(block.mask_id, block.mask_id + kMaskIdBytes);
  cp->seq = seq;
  const Status st = ap_->save_model(state_key_, &cp->state);
  if (st != Status::ok) *err = std::string("the model does not save: ") + status_str(st);
  return st == Status::ok;
}

// A fresh model (ap_, just created) under `block`, committed with the
// counters `n` before anything is decided on it.
bool ApService::reset_model(const MaskBlock& block, const ApCounters& n, std::string* err) {
  ApCheckpoint cp;
  if (!save_checkpoint(block, n.applied, &cp, err)) return false;
  try {
    store_->reset(cp, n);
  } catch (const std::exception& e) {
    *err = std::string("the model store: ") + e.what();
    return false;
  }
  counters_ = n;
  checkpoint_seq_ = n.applied;
  checkpoint_every_ = store_checkpoint_every(cp.state.size(), block.d);
  return true;
}

// The model the store holds for `block`'s mask: its checkpoint, then the
// rewards applied since, in their order. A store of another mask (the
// active party rotated, or crashed between writing the new epoch to the
// state file and resetting the store) starts a fresh model, which a
// rotation does anyway: the old one learned in another basis.
bool ApService::open_model(const MaskBlock& block, std::string* err) {
  try {
    store_ = std::make_unique<ApStore>(cfg_.model_store_path);
    ApCheckpoint cp;
    ApCounters n;
    const bool have = store_->load(&cp, &n);
    const bool same_mask =
        have && cp.epoch == block.epoch &&
        cp.mask_id == std::vector<uint8_t>(block.mask_id, block.mask_id + kMaskIdBytes);
    if (have && cp.epoch > block.epoch) {
      store_refused_ = true;
      *err = cfg_.model_store_path + ": its model is of mask epoch " + std::to_string(cp.epoch) +
             ", newer than the bundle's " + std::to_string(block.epoch);
      return false;
    }
    if (!same_mask) {
      ApCounters fresh;
      // Ids only grow: above every id of the store's old mask or, for a new
      // store, above every id an older p2b-vfl-ap (its model in memory,
      // one id per round) could have issued under the state file's rounds.
      fresh.next_id = have ? n.next_id : state_.round_id + 1;
      fresh.first_live_id = fresh.next_id;
      fresh.applied = have ? n.applied : 0;
      return reset_model(block, fresh, err);
    }
    const Status st = ap_->restore_model(state_key_, cp.state);
    if (st != Status::ok) {
      store_refused_ = true;
      *err = cfg_.model_store_path + ": the stored model does not restore (" + status_str(st) +
             "): it was saved under another key or other model settings (--policy, --alpha, "
             "--lambda, --ts-scale, --tie-rel-tol, --precision, --max-items)";
      return false;
    }
    for (const ApReplay& r : store_->replay(cp.seq, block.d)) {
      if (ap_->learn(r.context.data(), r.reward) != Status::ok) {
        store_refused_ = true;
        *err = cfg_.model_store_path + ": the reward of decision " + std::to_string(r.id) +
               " does not apply";
        return false;
      }
    }
    counters_ = n;
    checkpoint_seq_ = cp.seq;
    checkpoint_every_ = store_checkpoint_every(cp.state.size(), block.d);
    return true;
  } catch (const common::StoreRefused& e) {
    store_refused_ = true;
    *err = e.what();
  } catch (const common::SqliteError& e) {
    // Damage found while reading is for an operator; anything else (a
    // missing directory, the file held by another process) may pass.
    store_refused_ = store_ != nullptr && store_->health().failed();
    *err = std::string("the model store: ") + e.what();
  }
  return false;
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
  } catch (const common::SqliteError& e) {
    // A read of the store failed (a write's failure is answered inside).
    return error_reply(503, "store_unwritable", std::string("the model store: ") + e.what());
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
  const auto t_ask = std::chrono::steady_clock::now();
  std::vector<PartAnswer> answers = ask_round(user, items, &round, &err);
  const auto exchange_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::steady_clock::now() - t_ask);
  if (!err.empty()) {
    sodium_memzero(own.data(), own.size() * sizeof(double));
    return refuse(503, "state_unwritable", "cannot persist the round: " + err);
  }
  const std::size_t m = cfg_.parties.size();
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
  // The id and the chosen context are durable before the answer: a reward
  // for this id finds its decision after any restart, and no restart
  // issues the id again. Deciding changed no statistic of the model (only
  // its own ring and generator), so a refusal here leaves nothing to undo.
  const uint64_t id = counters_.next_id;
  const double* chosen =
      ap_->rotated_contexts().data() + static_cast<std::size_t>(dec.item) * cfg_.d;
  const auto t_store = std::chrono::steady_clock::now();
  try {
    store_->record_decision(id, chosen, cfg_.d, window_, checkpoint_seq_);
  } catch (const common::SqliteError& e) {
    return refuse(503, "store_unwritable", std::string("the decision was not kept: ") + e.what(),
                  failed);
  }
  counters_.next_id = id + 1;
  nlohmann::json out = {{"item", items[dec.item]},
                        {"index", dec.item},
                        {"decision_id", id},
                        {"round_id", round},
                        {"partial", dec.parts_missing > 0},
                        {"parts_missing", dec.parts_missing}};
  if (n_failed > 0) out["parties"] = failed;
  ++stats_.decisions;
  if (dec.parts_missing > 0) ++stats_.partial;
  stats_.exchange_ns += static_cast<uint64_t>(exchange_ns.count());
  stats_.store_ns += static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                               std::chrono::steady_clock::now() - t_store)
                                               .count());
  stats_.decide_ns += static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
          .count());
  ServiceReply r = ok_reply(out);
  return r;
}

// A reward is answered 200 only once it is committed with its decision
// marked rewarded, and learned only after that commit: a crash before the
// commit leaves it unapplied (the caller sends it again), one after it
// leaves it applied once (the caller's retry gets already_rewarded), and a
// failed commit changes nothing, in the store or in memory.
ServiceReply ApService::reward_locked(const std::string& body) {
  const nlohmann::json req = nlohmann::json::parse(body, nullptr, false);
  if (!req.is_object() || req.size() != 2 || !req.contains("decision_id") ||
      !req["decision_id"].is_number_unsigned() || !req.contains("reward") ||
      !req["reward"].is_number()) {
    return error_reply(400, "bad_request", "expected {\"decision_id\":u64,\"reward\":number}");
  }
  const auto id = req["decision_id"].get<uint64_t>();
  const auto r = req["reward"].get<double>();
  // The model's own bound (SharedModel::learn), checked before the commit.
  if (!std::isfinite(r) || std::fabs(r) > kMaxRawEntry) {
    return error_reply(400, "bad_reward", status_str(Status::reward_out_of_range));
  }
  if (id == 0 || id >= counters_.next_id) {
    return error_reply(404, "unknown_decision", "no decision has this id");
  }
  if (id < counters_.first_live_id) {
    return error_reply(410, "expired_decision", "the decision was made under an older mask");
  }
  std::vector<double> context;
  const PendingState ps = store_->find(id, cfg_.d, &context);
  if (ps == PendingState::absent) {
    return error_reply(410, "expired_decision", "the decision left the pending window");
  }
  if (ps == PendingState::rewarded) {
    return error_reply(409, "already_rewarded", "this decision has its reward");
  }
  const uint64_t seq = counters_.applied + 1;
  // The checkpoint, when one is due, is the model before this reward: it
  // includes rewards 1..seq-1, and this one is replayed after it.
  ApCheckpoint cp;
  const bool due = seq - 1 - checkpoint_seq_ >= checkpoint_every_;
  std::string err;
  if (due && !save_checkpoint(block_, seq - 1, &cp, &err)) {
    return error_reply(500, "model_error", err);
  }
  try {
    if (!store_->apply_reward(id, r, seq, due ? &cp : nullptr)) {
      return error_reply(409, "already_rewarded", "this decision has its reward");
    }
  } catch (const common::SqliteError& e) {
    return error_reply(503, "store_unwritable",
                       std::string("the reward was not kept: ") + e.what());
  }
  counters_.applied = seq;
  if (due) checkpoint_seq_ = seq - 1;
  const Status st = ap_->learn(context.data(), r);
  if (st != Status::ok) {
    // The context came from decide and the reward passed the same bound:
    // unreachable, and the stored reward is replayed at the next start.
    return error_reply(500, "model_error", status_str(st));
  }
  ++stats_.rewards;
  return ok_reply({{"ok", true}});
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
  // The epoch is on disk first: a crash before the store's reset leaves a
  // store of the older mask, which the next start replaces with a fresh
  // model just as this does. Ids go on: a reward for an older mask's
  // decision is expired, never applied to a new one.
  std::swap(ap_, fresh);
  ApCounters n;
  n.next_id = counters_.next_id;
  n.first_live_id = counters_.next_id;
  n.applied = counters_.applied;
  if (!reset_model(opened.block, n, &err)) {
    std::swap(ap_, fresh);
    return error_reply(503, "store_unwritable", "the mask was not replaced: " + err);
  }
  state_ = next;
  sodium_memzero(block_.q.data(), block_.q.size() * sizeof(double));
  block_ = std::move(opened.block);
  publish_mask();
  return ok_reply({{"epoch", block_.epoch},
                   {"mask_id", hex_of(block_.mask_id, kMaskIdBytes)},
                   {"model_reset", true}});
}

ApStats ApService::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  ApStats s = stats_;
  s.rewards_applied = counters_.applied;
  s.next_decision_id = counters_.next_id;
  s.checkpoint_seq = checkpoint_seq_;
  if (ap_ != nullptr) {
    s.model_updates = ap_->model().updates();
    std::vector<uint8_t> saved;
    if (ap_->save_model(state_key_, &saved) == Status::ok) {
      s.model_digest = learned_digest(saved, cfg_.d);
    }
  }
  return s;
}

common::CheckResult ApService::store_check() const {
  // The store's own health is atomic: no wait for a decision in flight.
  if (store_ == nullptr) return common::check_failed("no store");
  return store_->health().check();
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
