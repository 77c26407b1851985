#include "shuffler/shuffle.hpp"

#include <map>
#include <stdexcept>
#include <unordered_map>
#include <utility>

namespace p2b::shuffler {

std::vector<std::size_t> random_permutation(std::size_t n, Randomness& rng) {
  if (n > UINT32_MAX) throw std::length_error("permutation too large for randombytes_uniform");
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  for (std::size_t i = n; i > 1; --i) {
    const std::size_t j = rng.uniform(static_cast<uint32_t>(i));
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

std::vector<std::size_t> shuffle_and_threshold(const std::vector<uint32_t>& crowd_ids,
                                               const ThresholdPolicy& policy, Randomness& rng) {
  // Ordered, so a seeded source draws the crowds' noise in a fixed order.
  std::map<uint32_t, std::size_t> counts;
  for (uint32_t c : crowd_ids) ++counts[c];
  std::unordered_map<uint32_t, bool> released;
  for (const auto& [crowd, count] : counts) released[crowd] = crowd_survives(count, policy, rng);

  std::vector<std::size_t> kept;
  for (std::size_t i : random_permutation(crowd_ids.size(), rng)) {
    if (released[crowd_ids[i]]) kept.push_back(i);
  }
  return kept;
}

}  // namespace p2b::shuffler
