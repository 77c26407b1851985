/* Runs the usage example of p2b.h (extracted into header_example.c at build
 * time) with real keys and a real codebook, and checks what it uploads: every
 * envelope is exactly P2B_ENVELOPE_BYTES long and opens with the shuffler's
 * secret key, so the example really seals reports for the deployment. */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2b.h"

int personalise(const float* codebook, uint32_t k, const uint8_t shuffler_pk[P2B_KEY_BYTES],
                const uint8_t analyzer_pk[P2B_KEY_BYTES],
                const uint8_t analyzer_sign_pk[P2B_KEY_BYTES],
                void (*upload)(const uint8_t* envelope, size_t len));

enum { kCodes = 64, kDim = 10 };

static uint8_t shuffler_pk[crypto_box_PUBLICKEYBYTES];
static uint8_t shuffler_sk[crypto_box_SECRETKEYBYTES];
static unsigned uploaded = 0;
static unsigned bad = 0;

/* An envelope is the shuffler key's fingerprint, then a sealed box to that
   key (docs/formats.md). */
static void upload(const uint8_t* envelope, size_t len) {
  uint8_t fingerprint[P2B_FINGERPRINT_BYTES];
  uint8_t opened[P2B_ENVELOPE_BYTES];
  ++uploaded;
  if (len != P2B_ENVELOPE_BYTES || p2b_key_fingerprint(shuffler_pk, fingerprint) != P2B_OK ||
      memcmp(envelope, fingerprint, sizeof fingerprint) != 0 ||
      crypto_box_seal_open(opened, envelope + sizeof fingerprint, len - sizeof fingerprint,
                           shuffler_pk, shuffler_sk) != 0) {
    ++bad;
  }
}

int main(void) {
  if (sodium_init() < 0) return 1;
  uint8_t analyzer_pk[crypto_box_PUBLICKEYBYTES], analyzer_sk[crypto_box_SECRETKEYBYTES];
  uint8_t sign_pk[crypto_sign_PUBLICKEYBYTES], sign_sk[crypto_sign_SECRETKEYBYTES];
  crypto_box_keypair(shuffler_pk, shuffler_sk);
  crypto_box_keypair(analyzer_pk, analyzer_sk);
  crypto_sign_keypair(sign_pk, sign_sk);

  /* Centroids on the simplex: each code puts most of its mass on one entry. */
  static float codebook[kCodes * kDim];
  for (unsigned c = 0; c < kCodes; ++c) {
    for (unsigned i = 0; i < kDim; ++i) codebook[c * kDim + i] = 0.5f / (kDim - 1);
    codebook[c * kDim + c % kDim] = 0.5f + (float)(c / kDim) * 0.01f;
  }

  const int rc = personalise(codebook, kCodes, shuffler_pk, analyzer_pk, sign_pk, upload);
  printf("header example: returned %d, uploaded %u envelope(s), %u bad\n", rc, uploaded, bad);
  /* 10 windows at p = 0.5 into an outbox of 4: 0..4 envelopes, each sealed. */
  return rc == 0 && bad == 0 && uploaded <= 4 ? 0 : 1;
}
