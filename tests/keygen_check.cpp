// Test helper for tests/test_keygen.sh. It loads key files through the same
// keyfiles reader the services use, and checks that the pairs really work
// with libsodium. Exit codes: 0 when the check holds, 1 when it does not, and
// 2 for a usage error or a key file that cannot be read.
//
//   keygen_check box PK SK          seal to PK, open with SK
//   keygen_check sign PK SK         sign with SK, verify with PK
//   keygen_check read PATH N        read_key_file with size N
//   keygen_check read-secret PATH N read_secret_key_file; prints any warning
#include <sodium.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/keyfiles.hpp"

namespace {

namespace kf = p2b::keyfiles;

constexpr int kHolds = 0;
constexpr int kFails = 1;
constexpr int kCannotCheck = 2;

// Loads a public and a secret key, reporting any reader message on stderr.
bool load_pair(const char* pk_path, uint8_t* pk, std::size_t pk_n, const char* sk_path, uint8_t* sk,
               std::size_t sk_n) {
  std::string err;
  std::string warning;
  if (!kf::read_key_file(pk_path, pk, pk_n, &err) ||
      !kf::read_secret_key_file(sk_path, sk, sk_n, &err, &warning)) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return false;
  }
  if (!warning.empty()) std::fprintf(stderr, "warning: %s\n", warning.c_str());
  return true;
}

int check_box(const char* pk_path, const char* sk_path) {
  uint8_t pk[crypto_box_PUBLICKEYBYTES];
  uint8_t sk[crypto_box_SECRETKEYBYTES];
  if (!load_pair(pk_path, pk, sizeof pk, sk_path, sk, sizeof sk)) return kCannotCheck;
  uint8_t msg[64];
  randombytes_buf(msg, sizeof msg);
  uint8_t sealed[sizeof msg + crypto_box_SEALBYTES];
  uint8_t opened[sizeof msg];
  const bool ok = crypto_box_seal(sealed, msg, sizeof msg, pk) == 0 &&
                  crypto_box_seal_open(opened, sealed, sizeof sealed, pk, sk) == 0 &&
                  std::memcmp(opened, msg, sizeof msg) == 0;
  sodium_memzero(sk, sizeof sk);
  std::printf("box pair %s\n", ok ? "works" : "does not work");
  return ok ? kHolds : kFails;
}

int check_sign(const char* pk_path, const char* sk_path) {
  uint8_t pk[crypto_sign_PUBLICKEYBYTES];
  uint8_t sk[crypto_sign_SECRETKEYBYTES];
  if (!load_pair(pk_path, pk, sizeof pk, sk_path, sk, sizeof sk)) return kCannotCheck;
  uint8_t msg[64];
  randombytes_buf(msg, sizeof msg);
  uint8_t sig[crypto_sign_BYTES];
  crypto_sign_detached(sig, nullptr, msg, sizeof msg, sk);
  sodium_memzero(sk, sizeof sk);
  bool ok = crypto_sign_verify_detached(sig, msg, sizeof msg, pk) == 0;
  // A verifier that accepts anything would pass the line above too.
  msg[0] ^= 1;
  ok = ok && crypto_sign_verify_detached(sig, msg, sizeof msg, pk) != 0;
  std::printf("sign pair %s\n", ok ? "works" : "does not work");
  return ok ? kHolds : kFails;
}

int check_read(const char* path, const char* size_arg, bool secret) {
  const std::size_t n = std::strtoul(size_arg, nullptr, 10);
  if (n == 0 || n > 1024) return kCannotCheck;
  uint8_t buf[1024];
  std::string err;
  std::string warning;
  const bool ok = secret ? kf::read_secret_key_file(path, buf, n, &err, &warning)
                         : kf::read_key_file(path, buf, n, &err);
  sodium_memzero(buf, sizeof buf);
  if (!ok) {
    std::printf("error: %s\n", err.c_str());
    return kFails;
  }
  if (!warning.empty()) std::printf("warning: %s\n", warning.c_str());
  std::printf("read %zu bytes\n", n);
  return kHolds;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 || sodium_init() < 0) {
    std::fprintf(stderr, "usage: keygen_check box|sign|read|read-secret ARG ARG\n");
    return kCannotCheck;
  }
  const std::string cmd = argv[1];
  if (cmd == "box") return check_box(argv[2], argv[3]);
  if (cmd == "sign") return check_sign(argv[2], argv[3]);
  if (cmd == "read" || cmd == "read-secret") return check_read(argv[2], argv[3], cmd != "read");
  std::fprintf(stderr, "unknown check '%s'\n", cmd.c_str());
  return kCannotCheck;
}
