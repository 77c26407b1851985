// The non-private baseline's request body (POST /v1/raw), for experiments
// that compare the private warm start against one built from raw contexts:
//
//   "P2BR" | u32le dim | u32le count | count * (dim f32le context, u32le action, f32le reward)
//
// The whole request is refused on the first bad record, so a baseline is
// never built from a silently filtered subset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace p2b::analyzer {

constexpr std::size_t kRawHeaderBytes = 12;
// Bounds the work one request can ask for.
constexpr uint32_t kMaxRawRecords = 1u << 20;

struct RawBatch {
  uint32_t dim = 0;
  // count x dim contexts, normalised to sum 1 (all-zero -> uniform), as the
  // device normalises before it learns.
  std::vector<double> contexts;
  std::vector<uint32_t> actions;
  std::vector<double> rewards;
  std::size_t size() const { return actions.size(); }
};

// Checks framing, dim == `dim`, every context finite and non-negative, every
// action < `n_actions` and every reward finite in [0, 1]. False with a reason.
bool decode_raw(const uint8_t* data, std::size_t len, uint32_t dim, uint32_t n_actions,
                RawBatch* out, std::string* err);

// The encoder, for clients and tests.
std::vector<uint8_t> encode_raw(uint32_t dim, const std::vector<float>& contexts,
                                const std::vector<uint32_t>& actions,
                                const std::vector<float>& rewards);

}  // namespace p2b::analyzer
