// A SharedModel in an arena the object owns: host tools may allocate.
#pragma once

#include <cstdint>
#include <vector>

#include "p2b/shared_model.hpp"

namespace p2b::vertical {

class OwnedModel {
 public:
  Status init(const SharedConfig& cfg) {
    std::size_t need = 0;
    const Status st = SharedModel::footprint(cfg, &need);
    if (st != Status::ok) return st;
    arena_.assign(need + kArenaAlign, 0);
    const auto addr = reinterpret_cast<uintptr_t>(arena_.data());
    void* mem = arena_.data() + (kArenaAlign - addr % kArenaAlign) % kArenaAlign;
    return SharedModel::init(mem, need, cfg, &model_);
  }
  SharedModel* operator->() { return model_; }
  SharedModel& operator*() { return *model_; }

 private:
  std::vector<unsigned char> arena_;
  SharedModel* model_ = nullptr;
};

}  // namespace p2b::vertical
