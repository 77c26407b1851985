// What fuzz_fclub_upload, fuzz_fclub_download and their seeds
// (make_corpus.cpp) share: the global server is the fixture's current
// analyzer box key and analyzer signing key, the local server the current
// shuffler box key and the shuffler's batch-signing keys (retired and
// current, both pinned), and messages of the deployment have d = 3.
#pragma once

#include <sodium.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "fclub/wire/fclub_wire.hpp"
#include "fclub/wire/fclub_wire_testing.hpp"
#include "fuzz_fixture.hpp"

namespace p2b_fuzz::fclub {

namespace fc = p2b::fclub;

constexpr uint32_t kDim = 3;

inline const p2b::server::BoxKey& global_box() {
  return keys().analyzer[1];
}
inline const p2b::server::BoxKey& local_box() {
  return keys().shuffler[1];
}
inline const uint8_t* local_sign_sk() {
  return keys().shuffler_sign_sk[1];
}
inline const uint8_t* global_sign_sk() {
  return keys().sign_sk;
}

// Both of the local server's verify keys (retired, current) for uploads.
inline const fc::SignerLookup& local_signers() {
  static const fc::SignerLookup l = [] {
    std::vector<fc::VerifyKey> pks(2);
    for (int i = 0; i < 2; ++i) {
      std::memcpy(pks[i].data(), keys().shuffler_verify[i].pk, pks[i].size());
    }
    return fc::pinned_signers(pks);
  }();
  return l;
}
inline const fc::SignerLookup& global_signers() {
  static const fc::SignerLookup l = [] {
    std::vector<fc::VerifyKey> pks(1);
    std::memcpy(pks[0].data(), keys().verify_pk, pks[0].size());
    return fc::pinned_signers(pks);
  }();
  return l;
}

inline fc::OpenExpect expect(uint32_t dim) {
  fc::OpenExpect e;
  require(fc::deployment_fingerprint(global_box().pk, e.deployment_fp), "deployment_fingerprint");
  e.dim = dim;
  return e;
}

inline fc::ClusterStats stats(uint32_t d, double scale) {
  fc::ClusterStats s;
  s.dim = d;
  s.count = 17;
  for (size_t i = 0; i < fc::gram_upper_count(d); ++i) s.gram_upper.push_back(scale * (i + 1));
  for (uint32_t i = 0; i < d; ++i) s.moment.push_back(-scale * (i + 1));
  return s;
}

inline fc::Upload upload(uint32_t d) {
  fc::Upload u;
  std::memcpy(u.deployment_fp, expect(0).deployment_fp, fc::kFpBytes);
  u.server_id = 2;
  u.phase = 1;
  u.seq = 1;
  u.local_cluster = 4;
  u.member_count = 9;
  u.stats = stats(d, 0.5);
  u.epsilon_spent = 0.25;
  u.delta = 1e-7;
  return u;
}

inline fc::Download download(uint32_t d) {
  fc::Download m;
  std::memcpy(m.deployment_fp, expect(0).deployment_fp, fc::kFpBytes);
  m.server_id = 2;
  m.phase = 1;
  m.version = 5;
  m.local_cluster = 4;
  m.global_cluster = 1;
  m.kind = fc::kDownloadDelta;
  m.stats = stats(d, 0.25);
  return m;
}

// "magic" | varint(len(message)) | message | signature by `sign_sk`, then
// u32le length | frame | zeros to the padded size of `wire_dim`: what the
// "signed" modes make of a payload. False when it does not fit.
inline bool frame_and_pad(const uint8_t* magic, const uint8_t* message, size_t n,
                          const uint8_t* sign_sk, size_t padded_size, std::vector<uint8_t>* out) {
  std::vector<uint8_t> frame(magic, magic + fc::kMagicBytes);
  size_t v = n;
  while (v >= 0x80) {
    frame.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  frame.push_back(static_cast<uint8_t>(v));
  frame.insert(frame.end(), message, message + n);
  const size_t signed_len = frame.size();
  frame.resize(signed_len + fc::kSignatureBytes);
  crypto_sign_detached(frame.data() + signed_len, nullptr, frame.data(), signed_len, sign_sk);
  if (padded_size == 0 || fc::kLengthPrefixBytes + frame.size() > padded_size) return false;
  out->assign(padded_size, 0);
  const size_t len = frame.size();
  for (int i = 0; i < 4; ++i) (*out)[i] = static_cast<uint8_t>(len >> (8 * i));
  std::memcpy(out->data() + fc::kLengthPrefixBytes, frame.data(), frame.size());
  return true;
}

// The message part of a padded plaintext (for seeds): after the magic and
// the delimiting varint, up to the signature.
inline std::vector<uint8_t> message_of(const std::vector<uint8_t>& padded) {
  const size_t frame_len = padded[0] | padded[1] << 8 | padded[2] << 16;
  size_t at = fc::kLengthPrefixBytes + fc::kMagicBytes;
  while (padded[at] & 0x80) ++at;
  ++at;
  const size_t end = fc::kLengthPrefixBytes + frame_len - fc::kSignatureBytes;
  return std::vector<uint8_t>(padded.begin() + at, padded.begin() + end);
}

// ---- the harness both targets run -----------------------------------------

struct UploadSide {
  using Msg = fc::Upload;
  static constexpr uint8_t magic[4] = {'P', '2', 'B', 'U'};
  static size_t wire_size(uint32_t d) { return fc::upload_wire_size(d); }
  static const p2b::server::BoxKey& recipient() { return global_box(); }
  static const fc::SignerLookup& signers() { return local_signers(); }
  // The signing key whose verify key has this fingerprint, or null.
  static const uint8_t* signing_key(const uint8_t* fp) {
    for (int i = 0; i < 2; ++i) {
      if (std::memcmp(fp, keys().shuffler_verify[i].fp, fc::kFpBytes) == 0) {
        return keys().shuffler_sign_sk[i];
      }
    }
    return nullptr;
  }
  static const uint8_t* current_sign_sk() { return local_sign_sk(); }
  static fc::OpenStatus open(const uint8_t* w, size_t n, const fc::OpenExpect& e, Msg* out,
                             std::string* err) {
    return fc::open_upload(w, n, recipient().pk, recipient().sk, signers(), e, out, err);
  }
  static fc::OpenStatus check(const uint8_t* p, size_t n, const fc::OpenExpect& e, Msg* out,
                              std::string* err) {
    return fc::check_upload_plaintext(p, n, signers(), e, out, err);
  }
  static bool pad(const Msg& m, const uint8_t* sk, std::vector<uint8_t>* out, std::string* err) {
    return fc::testing::pad_upload_unchecked(m, sk, m.stats.dim, false, out, err);
  }
  static bool seal(const Msg& m, const uint8_t* sk, std::vector<uint8_t>* out, std::string* err) {
    return fc::seal_upload(m, sk, recipient().pk, out, err);
  }
  static void check_fields(const Msg& m) {
    require(m.format == fc::kWireFormat, "accepted another format");
    require(std::isfinite(m.epsilon_spent) && std::isfinite(m.delta) && m.epsilon_spent >= 0 &&
                m.delta >= 0 && m.delta <= 1,
            "accepted a ledger out of range");
  }
  static bool same(const Msg& a, const Msg& b) {
    return a.server_id == b.server_id && a.phase == b.phase && a.seq == b.seq &&
           a.local_cluster == b.local_cluster && a.member_count == b.member_count &&
           std::memcmp(&a.epsilon_spent, &b.epsilon_spent, sizeof(double)) == 0 &&
           std::memcmp(&a.delta, &b.delta, sizeof(double)) == 0;
  }
};

struct DownloadSide {
  using Msg = fc::Download;
  static constexpr uint8_t magic[4] = {'P', '2', 'B', 'D'};
  static size_t wire_size(uint32_t d) { return fc::download_wire_size(d); }
  static const p2b::server::BoxKey& recipient() { return local_box(); }
  static const fc::SignerLookup& signers() { return global_signers(); }
  static const uint8_t* signing_key(const uint8_t* fp) {
    uint8_t mine[fc::kFpBytes];
    require(fc::signer_fingerprint(keys().verify_pk, mine), "signer_fingerprint");
    return std::memcmp(fp, mine, fc::kFpBytes) == 0 ? keys().sign_sk : nullptr;
  }
  static const uint8_t* current_sign_sk() { return global_sign_sk(); }
  static fc::OpenStatus open(const uint8_t* w, size_t n, const fc::OpenExpect& e, Msg* out,
                             std::string* err) {
    return fc::open_download(w, n, recipient().pk, recipient().sk, signers(), e, out, err);
  }
  static fc::OpenStatus check(const uint8_t* p, size_t n, const fc::OpenExpect& e, Msg* out,
                              std::string* err) {
    return fc::check_download_plaintext(p, n, signers(), e, out, err);
  }
  static bool pad(const Msg& m, const uint8_t* sk, std::vector<uint8_t>* out, std::string* err) {
    return fc::testing::pad_download_unchecked(m, sk, m.stats.dim, false, out, err);
  }
  static bool seal(const Msg& m, const uint8_t* sk, std::vector<uint8_t>* out, std::string* err) {
    return fc::seal_download(m, sk, recipient().pk, out, err);
  }
  static void check_fields(const Msg& m) {
    require(m.format == fc::kWireFormat, "accepted another format");
    require(m.kind == fc::kDownloadDelta || m.kind == fc::kDownloadReplace,
            "accepted an unknown kind");
  }
  static bool same(const Msg& a, const Msg& b) {
    return a.server_id == b.server_id && a.phase == b.phase && a.version == b.version &&
           a.local_cluster == b.local_cluster && a.global_cluster == b.global_cluster &&
           a.kind == b.kind;
  }
};

template <class Side>
void check_accepted(const typename Side::Msg& m, const fc::OpenExpect& e, size_t plain_len) {
  const fc::ClusterStats& s = m.stats;
  require(s.dim >= 1 && s.dim <= fc::kMaxDim, "accepted a dim out of range");
  require(e.dim == 0 || s.dim == e.dim, "accepted another dim than expected");
  require(s.gram_upper.size() == fc::gram_upper_count(s.dim) && s.moment.size() == s.dim,
          "accepted counts that do not match the dim");
  for (const double v : s.gram_upper) require(std::isfinite(v), "accepted a non-finite");
  for (const double v : s.moment) require(std::isfinite(v), "accepted a non-finite");
  require(s.count <= fc::kMaxStatsCount, "accepted a count overflow");
  require(std::memcmp(m.deployment_fp, e.deployment_fp, fc::kFpBytes) == 0,
          "accepted another deployment");
  require(plain_len + fc::kSealBytes == Side::wire_size(s.dim), "length is not the dim's");
  Side::check_fields(m);
}

// Whatever was accepted seals again (the sealer's checks are the opener's)
// and opens to the same message.
template <class Side>
void require_round_trip(const typename Side::Msg& m, const fc::OpenExpect& e) {
  const uint8_t* sk = Side::signing_key(m.signer_fp);
  require(sk != nullptr, "accepted a signer that is not pinned");
  std::vector<uint8_t> w;
  std::string err;
  require(Side::seal(m, sk, &w, &err), "sealing an accepted message again");
  typename Side::Msg again;
  require(Side::open(w.data(), w.size(), e, &again, &err) == fc::OpenStatus::ok,
          "an accepted message, sealed again, is refused");
  require(Side::same(m, again) && again.stats.gram_upper == m.stats.gram_upper &&
              again.stats.moment == m.stats.moment && again.stats.count == m.stats.count,
          "an accepted message changes through a round trip");
}

// Mode (first byte % 3): 0 the rest is a sealed message as received, of the
// deployment's d = 3; 1 the rest is a pad byte (d = byte % 64 + 1) and a
// message, framed here with the magic, its varint length and the
// signature of the sender's current key, padded to that d's size, and
// checked as unsealed plaintext (any dim); 2 the rest is an unsealed padded
// plaintext as is (any dim).
template <class Side>
int fuzz_one(const uint8_t* data, size_t size) {
  (void)keys();
  Input in{};
  if (!split_mode(data, size, 3, &in)) return 0;
  typename Side::Msg out;
  std::string err;
  if (in.mode == 0) {
    const fc::OpenExpect e = expect(kDim);
    const fc::OpenStatus st = Side::open(in.data, in.size, e, &out, &err);
    require(fc::open_status_name(st) != nullptr, "status name");
    if (st != fc::OpenStatus::ok) {
      require(err.rfind(fc::open_status_name(st), 0) == 0, "a refusal names its status");
      return 0;
    }
    check_accepted<Side>(out, e, in.size - fc::kSealBytes);
    require_round_trip<Side>(out, e);
    return 0;
  }
  std::vector<uint8_t> padded;
  if (in.mode == 1) {
    if (in.size == 0) return 0;
    const uint32_t d = in.data[0] % fc::kMaxDim + 1;
    if (!frame_and_pad(Side::magic, in.data + 1, in.size - 1, Side::current_sign_sk(),
                       Side::wire_size(d) - fc::kSealBytes, &padded)) {
      return 0;
    }
  } else {
    padded.assign(in.data, in.data + in.size);
  }
  const fc::OpenExpect e = expect(0);
  const fc::OpenStatus st = Side::check(padded.data(), padded.size(), e, &out, &err);
  if (st != fc::OpenStatus::ok) {
    require(err.rfind(fc::open_status_name(st), 0) == 0, "a refusal names its status");
    return 0;
  }
  check_accepted<Side>(out, e, padded.size());
  // What is accepted is canonical: signing it again (Ed25519 is
  // deterministic) gives the plaintext byte for byte.
  std::vector<uint8_t> again;
  require(Side::pad(out, Side::signing_key(out.signer_fp), &again, &err), "padding again");
  require(again == padded, "an accepted plaintext is not what its message encodes to");
  require_round_trip<Side>(out, e);
  return 0;
}

}  // namespace p2b_fuzz::fclub
