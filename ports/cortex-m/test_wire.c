#include "test_wire.h"

#include <pb_decode.h>
#include <pb_encode.h>
#include <sodium.h>
#include <string.h>

#include "p2b.pb.h"

/* Envelope layout (src/envelope.cpp): fingerprint | sealed padded plaintext. */
enum {
  kFp = P2B_FINGERPRINT_BYTES,
  kOuterPlain = 144,
  kInnerPlain = 48,
};

static void fill_seed(uint8_t seed[32], uint8_t tag) {
  for (int i = 0; i < 32; ++i) seed[i] = (uint8_t)(tag + 17 * i);
}

int derive_test_keys(test_keys* keys) {
  uint8_t seed[32];
  fill_seed(seed, 's');
  if (crypto_box_seed_keypair(keys->shuffler_pk, keys->shuffler_sk, seed) != 0) return -1;
  fill_seed(seed, 'a');
  if (crypto_box_seed_keypair(keys->analyzer_pk, keys->analyzer_sk, seed) != 0) return -1;
  fill_seed(seed, 'v');
  return crypto_sign_seed_keypair(keys->verify_pk, keys->sign_sk, seed);
}

int open_envelope(const test_keys* keys, const uint8_t* envelope, p2b_tuple* out) {
  uint8_t fp[kFp];
  crypto_generichash(fp, sizeof fp, keys->shuffler_pk, 32, NULL, 0);
  if (memcmp(envelope, fp, kFp) != 0) return -1;
  uint8_t outer[kOuterPlain];
  if (crypto_box_seal_open(outer, envelope + kFp, P2B_ENVELOPE_BYTES - kFp, keys->shuffler_pk,
                           keys->shuffler_sk) != 0) {
    return -1;
  }
  p2b_v1_Envelope env = p2b_v1_Envelope_init_zero;
  pb_istream_t is = pb_istream_from_buffer(outer, sizeof outer);
  if (!pb_decode_delimited(&is, p2b_v1_Envelope_fields, &env)) return -1;
  if (memcmp(env.shuffler_key_fp, fp, kFp) != 0) return -1;

  crypto_generichash(fp, sizeof fp, keys->analyzer_pk, 32, NULL, 0);
  if (memcmp(env.inner, fp, kFp) != 0) return -1;
  uint8_t inner[kInnerPlain];
  if (crypto_box_seal_open(inner, env.inner + kFp, sizeof env.inner - kFp, keys->analyzer_pk,
                           keys->analyzer_sk) != 0) {
    return -1;
  }
  p2b_v1_Report rep = p2b_v1_Report_init_zero;
  is = pb_istream_from_buffer(inner, sizeof inner);
  if (!pb_decode_delimited(&is, p2b_v1_Report_fields, &rep)) return -1;
  if (rep.code != env.crowd_id || memcmp(rep.analyzer_key_fp, fp, kFp) != 0) return -1;
  out->code = rep.code;
  out->action = rep.action;
  out->reward = rep.reward;
  return 0;
}

static int write_model(pb_ostream_t* os, const test_keys* keys, const model_source* m) {
  p2b_v1_ModelHeader h = p2b_v1_ModelHeader_init_zero;
  h.format = 2;
  h.dim = m->dim;
  h.n_actions = m->n_actions;
  h.ridge_lambda = 1.0;
  memcpy(h.codebook_fp, m->codebook_fp, kFp);
  h.version = m->version;
  h.kind = m->kind;
  h.created_unix = 1795000000u;
  crypto_generichash(h.signer_fp, kFp, keys->verify_pk, 32, NULL, 0);
  if (!pb_encode_delimited(os, p2b_v1_ModelHeader_fields, &h)) return 0;
  const uint32_t d = m->dim;
  for (uint32_t arm = 0; arm < m->n_actions; ++arm) {
    const double* a = m->a + (size_t)arm * d * d;
    for (uint32_t col = 0; col <= d; ++col) {
      p2b_v1_ArmColumn c = p2b_v1_ArmColumn_init_zero;
      c.arm = arm;
      c.column = col;
      if (col < d) { /* on and below the diagonal */
        c.values_count = (pb_size_t)(d - col);
        for (uint32_t i = col; i < d; ++i) c.values[i - col] = a[col * d + i];
      } else {
        c.values_count = (pb_size_t)d;
        memcpy(c.values, m->b + (size_t)arm * d, d * sizeof(double));
      }
      if (!pb_encode_delimited(os, p2b_v1_ArmColumn_fields, &c)) return 0;
    }
  }
  return 1;
}

size_t build_model_bundle(const test_keys* keys, const model_source* m, uint8_t* out, size_t cap) {
  static const uint8_t kMagic[4] = {'P', '2', 'B', 'M'};
  if (cap < sizeof kMagic + crypto_sign_BYTES) return 0;
  memcpy(out, kMagic, sizeof kMagic);
  pb_ostream_t os =
      pb_ostream_from_buffer(out + sizeof kMagic, cap - sizeof kMagic - crypto_sign_BYTES);
  if (!write_model(&os, keys, m)) return 0;
  const size_t signed_len = sizeof kMagic + os.bytes_written;
  crypto_sign_detached(out + signed_len, NULL, out, signed_len, keys->sign_sk);
  return signed_len + crypto_sign_BYTES;
}
