#include "vfl/in_process.hpp"

#include <chrono>

#include "vfl/masked_message.hpp"
#include "vfl/party_mask.hpp"

namespace p2b::vfl {

RoundStatus InProcessFederation::create(const Mask& mask, const Partition& partition,
                                        const SharedConfig& model,
                                        std::unique_ptr<InProcessFederation>* out,
                                        std::string* err) {
  std::unique_ptr<InProcessFederation> f(new InProcessFederation());
  f->partition_ = partition;
  f->blocks_.resize(partition.size());
  for (uint32_t j = 0; j < partition.size(); ++j) {
    if (!block(mask, partition, j, &f->blocks_[j])) {
      *err = "the partition does not fit the mask";
      return RoundStatus::wrong_shape;
    }
  }
  ActiveConfig cfg;
  cfg.model = model;
  cfg.own = f->blocks_[0];
  const RoundStatus st = ActiveParty::create(cfg, &f->active_, err);
  if (st != RoundStatus::ok) return st;
  *out = std::move(f);
  return RoundStatus::ok;
}

RoundStatus InProcessFederation::load(const double* items, uint32_t k) {
  const uint32_t d = active_->dim();
  masked_.resize(static_cast<std::size_t>(k) * d);
  uint32_t offset = 0;
  bytes_last_round_ = 0;
  party_seconds_ = 0.0;
  for (uint32_t j = 0; j < partition_.size(); ++j) {
    const uint32_t dj = partition_[j];
    block_x_.resize(static_cast<std::size_t>(k) * dj);
    for (uint32_t i = 0; i < k; ++i) {
      for (uint32_t c = 0; c < dj; ++c) {
        block_x_[static_cast<std::size_t>(i) * dj + c] =
            items[static_cast<std::size_t>(i) * d + offset + c];
      }
    }
    offset += dj;
    RoundStatus st = RoundStatus::ok;
    if (j == 0) {
      st = active_->begin(k, block_x_.data());
    } else {
      const auto t0 = std::chrono::steady_clock::now();
      if (!mask_block(blocks_[j], block_x_.data(), k, masked_.data())) {
        return RoundStatus::wrong_shape;
      }
      party_seconds_ +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      bytes_last_round_ += masked_message_bytes(k, d);
      st = active_->add_part(j, k, masked_.data());
    }
    if (st != RoundStatus::ok) return st;
  }
  return RoundStatus::ok;
}

}  // namespace p2b::vfl
