// The P-FCB share body (proto/p2b_pfcb.proto, Share). Every field is fixed
// width and required, so the encoding of a share with m producers always
// has cmab_share_encoded_size(m) bytes: the length reveals m and nothing else.
#include <cmath>
#include <cstring>

#include "p2b/cmab.hpp"
#include "p2b_pfcb.pb.h"
#include "pb_decode.h"
#include "pb_encode.h"

namespace p2b {

namespace {

constexpr uint32_t kShareFormat = 1;

// Bytes of a packed repeated sfixed32 field of n values: tag, length varint, data.
std::size_t packed_field_size(uint32_t n) {
  const std::size_t data = std::size_t{4} * n;
  return 1 + (data < 128 ? 1 : 2) + data;
}

bool valid_epsilon(double e) {
  return !std::isnan(e) && e >= 0.0;
}

}  // namespace

std::size_t cmab_share_encoded_size(uint32_t producers) {
  if (producers == 0 || producers > kCmabMaxProducers) return 0;
  // format, producers, release: tag + fixed32; round, release_epsilon: tag + fixed64.
  return 3 * 5 + 2 * 9 + 2 * packed_field_size(producers);
}

Status cmab_share_encode(const CmabShare& share, uint8_t* out, std::size_t cap,
                         std::size_t* written) {
  if (out == nullptr || written == nullptr) return Status::null_pointer;
  const std::size_t size = cmab_share_encoded_size(share.producers);
  if (size == 0 || share.release == 0 || share.round == 0 ||
      !valid_epsilon(share.release_epsilon)) {
    return Status::malformed_input;
  }
  if (cap < size) return Status::buffer_too_small;
  p2b_pfcb_v1_Share msg = p2b_pfcb_v1_Share_init_zero;
  msg.format = kShareFormat;
  msg.producers = share.producers;
  msg.release = share.release;
  msg.round = share.round;
  msg.release_epsilon = share.release_epsilon;
  msg.w_noisy_count = static_cast<pb_size_t>(share.producers);
  msg.y_noisy_count = static_cast<pb_size_t>(share.producers);
  std::memcpy(msg.w_noisy, share.w_noisy, share.producers * sizeof(int32_t));
  std::memcpy(msg.y_noisy, share.y_noisy, share.producers * sizeof(int32_t));
  pb_ostream_t os = pb_ostream_from_buffer(out, size);
  if (!pb_encode(&os, p2b_pfcb_v1_Share_fields, &msg) || os.bytes_written != size) {
    return Status::malformed_input;
  }
  *written = size;
  return Status::ok;
}

Status cmab_share_decode(const uint8_t* in, std::size_t len, CmabShare* out) {
  if (in == nullptr || out == nullptr) return Status::null_pointer;
  if (len < cmab_share_encoded_size(1) || len > cmab_share_encoded_size(kCmabMaxProducers)) {
    return Status::malformed_input;
  }
  p2b_pfcb_v1_Share msg = p2b_pfcb_v1_Share_init_zero;
  pb_istream_t is = pb_istream_from_buffer(in, len);
  if (!pb_decode(&is, p2b_pfcb_v1_Share_fields, &msg) || is.bytes_left != 0) {
    return Status::malformed_input;
  }
  // Only the canonical encoding of a share is a share: any other length for
  // the same m (repeated fields, unpacked values, extra fields) is refused.
  if (msg.format != kShareFormat || msg.producers == 0 || msg.producers > kCmabMaxProducers ||
      msg.w_noisy_count != msg.producers || msg.y_noisy_count != msg.producers ||
      msg.release == 0 || msg.round == 0 || !valid_epsilon(msg.release_epsilon) ||
      len != cmab_share_encoded_size(msg.producers)) {
    return Status::malformed_input;
  }
  CmabShare s;
  s.producers = msg.producers;
  s.release = msg.release;
  s.round = msg.round;
  s.release_epsilon = msg.release_epsilon;
  std::memcpy(s.w_noisy, msg.w_noisy, msg.producers * sizeof(int32_t));
  std::memcpy(s.y_noisy, msg.y_noisy, msg.producers * sizeof(int32_t));
  *out = s;
  return Status::ok;
}

}  // namespace p2b
