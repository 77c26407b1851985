#include "vfl/active_party.hpp"

#include <cmath>

#include "vfl/party_mask.hpp"

namespace p2b::vfl {

const char* round_status_name(RoundStatus s) {
  switch (s) {
    case RoundStatus::ok:
      return "ok";
    case RoundStatus::no_round:
      return "no round in progress";
    case RoundStatus::wrong_shape:
      return "item count or width does not match the round or the mask";
    case RoundStatus::unknown_party:
      return "not a passive party of this mask";
    case RoundStatus::duplicate_part:
      return "this party's part for the round arrived already";
    case RoundStatus::missing_parties:
      return "a passive party's part is missing and partial contexts are not allowed";
    case RoundStatus::model_error:
      return "the shared model refused the input";
  }
  return "unknown round status";
}

RoundStatus ActiveParty::create(const ActiveConfig& cfg, std::unique_ptr<ActiveParty>* out,
                                std::string* err) {
  if (cfg.own.party_index != 0 || cfg.own.d != cfg.model.dim ||
      check_partition(cfg.own.partition, cfg.own.d) != PartitionCheck::ok ||
      cfg.own.q.size() != static_cast<std::size_t>(cfg.own.d) * cfg.own.d_j) {
    *err = "the active party's block must be party 0's, of the model's d";
    return RoundStatus::wrong_shape;
  }
  std::unique_ptr<ActiveParty> ap(new ActiveParty());
  std::size_t need = 0;
  Status st = SharedModel::footprint(cfg.model, &need);
  if (st == Status::ok) {
    ap->arena_.assign(need + kArenaAlign, 0);
    const auto addr = reinterpret_cast<uintptr_t>(ap->arena_.data());
    void* mem = ap->arena_.data() + (kArenaAlign - addr % kArenaAlign) % kArenaAlign;
    st = SharedModel::init(mem, need, cfg.model, &ap->model_);
  }
  if (st != Status::ok) {
    *err = std::string("shared model: ") + status_str(st);
    ap->last_model_status_ = st;
    return RoundStatus::model_error;
  }
  ap->own_ = cfg.own;
  ap->allow_partial_ = cfg.allow_partial;
  *out = std::move(ap);
  return RoundStatus::ok;
}

RoundStatus ActiveParty::begin(uint32_t k_items, const double* own_x) {
  in_round_ = false;
  if (k_items == 0 || own_x == nullptr) return RoundStatus::wrong_shape;
  rotated_.assign(static_cast<std::size_t>(k_items) * own_.d, 0.0);
  if (!mask_block(own_, own_x, k_items, rotated_.data())) return RoundStatus::wrong_shape;
  arrived_.assign(own_.partition.size(), false);
  arrived_[0] = true;
  k_items_ = k_items;
  in_round_ = true;
  return RoundStatus::ok;
}

RoundStatus ActiveParty::add_part(uint32_t party_index, uint32_t k_prime, const double* masked) {
  if (!in_round_) return RoundStatus::no_round;
  if (party_index == 0 || party_index >= arrived_.size()) return RoundStatus::unknown_party;
  if (arrived_[party_index]) return RoundStatus::duplicate_part;
  if ((k_prime != k_items_ && k_prime != 1) || masked == nullptr) return RoundStatus::wrong_shape;
  const uint32_t d = own_.d;
  for (std::size_t i = 0; i < static_cast<std::size_t>(k_prime) * d; ++i) {
    if (!std::isfinite(masked[i])) return RoundStatus::wrong_shape;
  }
  for (uint32_t item = 0; item < k_items_; ++item) {
    const double* part = masked + static_cast<std::size_t>(k_prime == 1 ? 0 : item) * d;
    double* row = rotated_.data() + static_cast<std::size_t>(item) * d;
    for (uint32_t i = 0; i < d; ++i) row[i] += part[i];
  }
  arrived_[party_index] = true;
  return RoundStatus::ok;
}

RoundStatus ActiveParty::decide(Decision* out) {
  if (!in_round_) return RoundStatus::no_round;
  uint32_t missing = 0;
  for (const bool a : arrived_) missing += a ? 0U : 1U;
  if (missing > 0 && !allow_partial_) return RoundStatus::missing_parties;
  Decision dec;
  last_model_status_ = model_->decide(rotated_.data(), k_items_, own_.d, &dec.item, &dec.id);
  if (last_model_status_ != Status::ok) return RoundStatus::model_error;
  dec.parts_missing = missing;
  in_round_ = false;
  *out = dec;
  return RoundStatus::ok;
}

RoundStatus ActiveParty::teach(uint32_t item, double r) {
  if (!in_round_) return RoundStatus::no_round;
  if (item >= k_items_) return RoundStatus::wrong_shape;
  for (const bool a : arrived_) {
    if (!a && !allow_partial_) return RoundStatus::missing_parties;
  }
  last_model_status_ =
      model_->learn(rotated_.data() + static_cast<std::size_t>(item) * own_.d, own_.d, r);
  if (last_model_status_ != Status::ok) return RoundStatus::model_error;
  in_round_ = false;
  return RoundStatus::ok;
}

Status ActiveParty::reward(uint64_t id, double r) {
  last_model_status_ = model_->reward(id, r);
  return last_model_status_;
}

Status ActiveParty::learn(const double* x, double r) {
  last_model_status_ = model_->learn(x, own_.d, r);
  return last_model_status_;
}

Status ActiveParty::save_model(const uint8_t* key, std::vector<uint8_t>* out) const {
  std::size_t n = 0;
  Status st = model_->saved_size(&n);
  if (st != Status::ok) return st;
  out->assign(n, 0);
  std::size_t written = 0;
  st = model_->save(key, out->data(), out->size(), &written);
  if (st == Status::ok) out->resize(written);
  return st;
}

Status ActiveParty::restore_model(const uint8_t* key, const std::vector<uint8_t>& in) {
  // Restore leaves the model as it was when it refuses the bytes.
  last_model_status_ = model_->restore(key, in.data(), in.size());
  return last_model_status_;
}

}  // namespace p2b::vfl
