#include "vfl/party_service.hpp"

#include <sodium.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/http_errors.hpp"
#include "vfl/bundle_file.hpp"
#include "vfl/masked_request.hpp"
#include "vfl/party_mask.hpp"
#include "vfl/round_reserve.hpp"

namespace p2b::vfl {

namespace {

ServiceReply error_reply(int status, const std::string& code, const std::string& detail) {
  ServiceReply r;
  r.status = status;
  r.code = code;
  r.body = common::error_body(code, detail);
  return r;
}

void wipe(std::vector<double>* v) {
  if (!v->empty()) sodium_memzero(v->data(), v->size() * sizeof(double));
}

}  // namespace

PartyService::~PartyService() {
  wipe(&block_.q);
  sodium_memzero(cfg_.box_sk, sizeof cfg_.box_sk);
}

BundleStatus PartyService::open_bundle(uint64_t last_epoch, OpenedBundle* out,
                                       std::string* err) const {
  return open_bundle_file(cfg_.bundle_path, BundleKeys{cfg_.box_pk, cfg_.box_sk, cfg_.pmg_sign_pk},
                          cfg_.party_index, cfg_.d, last_epoch, out, err);
}

bool PartyService::start(const PartyConfig& cfg, std::string* err) {
  cfg_ = cfg;
  if (cfg_.party_index == 0) {
    *err = "party index 0 is the active party";
    return false;
  }
  bool existed = false;
  if (!read_state(cfg_.state_path, &state_, &existed, err)) return false;
  // The same epoch as before a restart is fine; an older one is a rollback.
  OpenedBundle opened;
  if (open_bundle(state_.mask_epoch > 0 ? state_.mask_epoch - 1 : 0, &opened, err) !=
      BundleStatus::ok) {
    return false;
  }
  if (!features_.load(cfg_.features_path, opened.block.d_j, cfg_.max_rows, err)) return false;
  // Every round up to the old ceiling may have been answered.
  last_round_ = state_.round_id;
  state_.mask_epoch = opened.block.epoch;
  if (!write_state(cfg_.state_path, state_, err)) return false;
  block_ = std::move(opened.block);
  publish_mask();
  return true;
}

// Nothing thrown inside (allocation) leaves the service: the request gets
// 500 internal, and the round is only recorded once durable.
ServiceReply PartyService::masked(const std::string& body) {
  std::lock_guard<std::mutex> lock(mu_);
  try {
    return masked_locked(body);
  } catch (const std::exception& e) {
    ++stats_.refused;
    return error_reply(500, "internal", e.what());
  }
}

ServiceReply PartyService::reload_mask() {
  std::lock_guard<std::mutex> lock(mu_);
  try {
    return reload_locked();
  } catch (const std::exception& e) {
    return error_reply(500, "internal", e.what());
  }
}

ServiceReply PartyService::masked_locked(const std::string& body) {
  const auto t0 = std::chrono::steady_clock::now();
  auto refuse = [this](int status, const std::string& code, const std::string& detail) {
    ++stats_.refused;
    return error_reply(status, code, detail);
  };
  MaskedRequest req;
  const RequestStatus rs =
      open_masked_request(reinterpret_cast<const uint8_t*>(body.data()), body.size(), cfg_.box_sk,
                          cfg_.ap_box_pk, cfg_.party_index, last_round_, &req);
  switch (rs) {
    case RequestStatus::ok:
      break;
    case RequestStatus::not_openable:
      return refuse(401, "unauthenticated",
                    "the request does not open with the pinned active party's key");
    case RequestStatus::replayed: {
      // Where this party resumes: an active party that lost no state moves
      // on to it after this party's restart (vfl/round_reserve.hpp).
      ServiceReply r = refuse(409, "replayed", "round_id is not above the last one answered");
      nlohmann::json named = nlohmann::json::parse(r.body);
      named["next_round_id"] = last_round_ + 1;
      r.body = named.dump();
      return r;
    }
    case RequestStatus::wrong_party:
      return refuse(400, "wrong_party", "the request is for another party");
    default:
      return refuse(400, "bad_request", std::string("P2BR: ") + request_status_name(rs));
  }
  UserToken user{};
  std::copy(req.user_token, req.user_token + kUserTokenBytes, user.begin());
  std::vector<double> x;
  const LookupStatus ls = features_.lookup(user, req.item_ids.data(), req.item_ids.size(), &x);
  if (ls == LookupStatus::unknown_user) {
    return refuse(404, "unknown_user", "no features for this user token");
  }
  if (ls == LookupStatus::unknown_item) {
    wipe(&x);
    return refuse(404, "unknown_item", "no features for one of the items");
  }
  const uint32_t k_prime = features_.user_only() ? 1 : static_cast<uint32_t>(req.item_ids.size());
  std::vector<double> masked(static_cast<std::size_t>(k_prime) * block_.d);
  const bool masked_ok = mask_block(block_, x.data(), k_prime, masked.data());
  wipe(&x);
  if (!masked_ok) return refuse(500, "internal", "the mask block does not fit the features");
  // The round is under the durable ceiling before any box is sealed under
  // its nonce: one fsync reserves a block of rounds.
  std::string err;
  if (req.round_id > state_.round_id) {
    ServiceState next = state_;
    next.round_id = reserve_ceiling(req.round_id);
    const auto t_persist = std::chrono::steady_clock::now();
    const bool persisted = write_state(cfg_.state_path, next, &err);
    stats_.persist_ns += static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                   std::chrono::steady_clock::now() - t_persist)
                                                   .count());
    if (!persisted) {
      wipe(&masked);
      return refuse(503, "state_unwritable", "cannot persist the round: " + err);
    }
    state_ = next;
  }
  last_round_ = req.round_id;
  MaskedHeader h;
  std::copy(block_.mask_id, block_.mask_id + kMaskIdBytes, h.mask_id);
  h.epoch = block_.epoch;
  h.party_index = cfg_.party_index;
  h.round_id = req.round_id;
  std::copy(req.user_token, req.user_token + kUserTokenBytes, h.user_token);
  h.k_items = k_prime;
  h.d = block_.d;
  std::vector<uint8_t> sealed;
  const bool sealed_ok =
      seal_masked_message(h, masked.data(), cfg_.box_sk, cfg_.ap_box_pk, &sealed, &err);
  wipe(&masked);
  if (!sealed_ok) return refuse(500, "internal", err);
  ServiceReply r;
  r.content_type = "application/octet-stream";
  r.body.assign(sealed.begin(), sealed.end());
  ++stats_.answered;
  stats_.busy_ns += static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
          .count());
  return r;
}

ServiceReply PartyService::reload_locked() {
  OpenedBundle opened;
  std::string err;
  const BundleStatus st = open_bundle(state_.mask_epoch, &opened, &err);
  if (st != BundleStatus::ok) {
    return error_reply(409, bundle_status_name(st), "the mask was not replaced: " + err);
  }
  if (opened.block.partition != block_.partition) {
    wipe(&opened.block.q);
    return error_reply(409, "bad_partition", "the new mask splits d differently");
  }
  ServiceState next = state_;
  next.mask_epoch = opened.block.epoch;
  if (!write_state(cfg_.state_path, next, &err)) {
    wipe(&opened.block.q);
    return error_reply(503, "state_unwritable", "cannot persist the epoch: " + err);
  }
  state_ = next;
  wipe(&block_.q);
  block_ = std::move(opened.block);
  publish_mask();
  ServiceReply r;
  r.body =
      nlohmann::json{{"epoch", block_.epoch}, {"mask_id", hex_of(block_.mask_id, kMaskIdBytes)}}
          .dump();
  return r;
}

PartyStats PartyService::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void PartyService::publish_mask() {
  shown_.publish(block_);
}

uint64_t PartyService::epoch() const {
  return shown_.epoch();
}

std::string PartyService::mask_id_hex() const {
  return shown_.mask_id_hex();
}

}  // namespace p2b::vfl
