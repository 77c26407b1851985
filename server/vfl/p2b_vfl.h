/*
 * p2b_vfl.h: INTERNAL. The C interface of the passive party of O3M vertical
 * federation, as the VFL services and their tests use it. It is not
 * installed, not part of p2b's stable C API (c_api/p2b.h and the headers it
 * includes), and may change in any release without notice; its conventions
 * (handles the library allocates, its own status enum) differ from the
 * public API's on purpose, since it is a host-side C++ library. An
 * organisation that embeds its side runs p2b-vfl-party
 * (docs/vertical-services.md) rather than linking this.
 *
 * The party opens the mask bundle the PMG sealed to it (P2BQ), masks its
 * feature block for the items the active party asks about (Q^j x^j), and
 * seals the result as a P2BV message to the active party (docs/vertical.md,
 * docs/formats.md).
 *
 * Host library (libp2b_vfl, C++ inside, libsodium): handles are allocated
 * by p2b_vfl_party_open and released by p2b_vfl_party_free. Thread-safe
 * for concurrent calls on distinct handles; a handle's calls are const.
 */
#ifndef P2B_VFL_H
#define P2B_VFL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Version of this API: bumped on any change of its functions or statuses. */
#define P2B_VFL_API_VERSION 1

#define P2B_VFL_KEY_BYTES 32     /**< X25519 and Ed25519 public, X25519 secret */
#define P2B_VFL_MASK_ID_BYTES 16 /**< the mask's id */
#define P2B_VFL_TOKEN_BYTES 16   /**< the user pseudonym parties align on */

/** Statuses; 0 is success, every failure negative and distinct. */
typedef enum p2b_vfl_status {
  P2B_VFL_OK = 0,
  P2B_VFL_ERR_NULL_POINTER = -1,     /**< a required pointer is NULL */
  P2B_VFL_ERR_BAD_LENGTH = -2,       /**< bundle length does not match its header */
  P2B_VFL_ERR_NOT_OPENABLE = -3,     /**< the seal does not open: other key or any changed bit */
  P2B_VFL_ERR_MALFORMED = -4,        /**< not a P2BQ bundle of a known format */
  P2B_VFL_ERR_UNTRUSTED_SIGNER = -5, /**< signed by another key than the pinned PMG key */
  P2B_VFL_ERR_BAD_SIGNATURE = -6,    /**< the PMG's signature does not verify */
  P2B_VFL_ERR_WRONG_PARTY = -7,      /**< a block for another party index */
  P2B_VFL_ERR_WRONG_DIMENSION = -8,  /**< a d other than the expected one */
  P2B_VFL_ERR_BAD_PARTITION = -9,    /**< blocks not summing to d, or a zero block */
  P2B_VFL_ERR_ROLLBACK = -10,        /**< epoch not above the last one accepted */
  P2B_VFL_ERR_NOT_ORTHONORMAL = -11, /**< the block's columns are not orthonormal */
  P2B_VFL_ERR_SHAPE = -12,           /**< item count 0, or a buffer of the wrong size */
  P2B_VFL_ERR_NON_FINITE = -13,      /**< a feature value is NaN or infinite */
  P2B_VFL_ERR_ROUND = -14,           /**< round id 0 */
  P2B_VFL_ERR_CRYPTO = -15,          /**< libsodium failed (keys, allocation) */
  P2B_VFL_ERR_OUT_OF_MEMORY = -16    /**< the handle could not be allocated */
} p2b_vfl_status;

/** \return A static English description of `s`, never NULL. */
const char* p2b_vfl_status_str(p2b_vfl_status s);

/** A party's mask block with its keys; opaque. */
typedef struct p2b_vfl_party p2b_vfl_party;

/**
 * Opens and checks a sealed P2BQ bundle: the seal (to the party's X25519
 * key), the PMG's Ed25519 signature (pinned key), the party index, d, the
 * partition, the block's orthonormality, and that its epoch is above
 * `last_epoch` (0: none accepted yet). On success `*out` is a new handle.
 * \retval P2B_VFL_OK, or the bundle's status (P2B_VFL_ERR_BAD_LENGTH ..
 *         P2B_VFL_ERR_NOT_ORTHONORMAL), P2B_VFL_ERR_NULL_POINTER,
 *         P2B_VFL_ERR_OUT_OF_MEMORY.
 */
p2b_vfl_status p2b_vfl_party_open(const uint8_t* bundle, size_t len,
                                  const uint8_t party_box_pk[P2B_VFL_KEY_BYTES],
                                  const uint8_t party_box_sk[P2B_VFL_KEY_BYTES],
                                  const uint8_t pmg_sign_pk[P2B_VFL_KEY_BYTES],
                                  uint32_t party_index, uint32_t d, uint64_t last_epoch,
                                  p2b_vfl_party** out);

/** Releases a handle (and wipes its keys); NULL is allowed. */
void p2b_vfl_party_free(p2b_vfl_party* party);

/**
 * The opened block's shape and version: d, this party's d_j, the epoch and
 * the mask id. Any output may be NULL.
 * \retval P2B_VFL_OK, P2B_VFL_ERR_NULL_POINTER (party is NULL)
 */
p2b_vfl_status p2b_vfl_party_info(const p2b_vfl_party* party, uint32_t* d, uint32_t* d_j,
                                  uint64_t* epoch, uint8_t mask_id[P2B_VFL_MASK_ID_BYTES]);

/**
 * Masks `k_items` feature rows: out (k_items x d, row-major) gets
 * Q^j x_i^j for each row x_i^j of `x_j` (k_items x d_j, row-major). A pure
 * function of the block and the features.
 * \retval P2B_VFL_OK, P2B_VFL_ERR_NULL_POINTER, P2B_VFL_ERR_SHAPE
 *         (k_items 0 or out_len != k_items * d), P2B_VFL_ERR_NON_FINITE
 */
p2b_vfl_status p2b_vfl_party_mask(const p2b_vfl_party* party, const double* x_j, uint32_t k_items,
                                  double* out, size_t out_len);

/** \return The sealed message's length for k_items and d: 100 + 8 k_items d. */
size_t p2b_vfl_message_bytes(uint32_t k_items, uint32_t d);

/**
 * Masks `k_items` feature rows and seals them as the P2BV message of round
 * `round_id` for user `user_token`, to the active party's X25519 key. The
 * nonce is derived from (party, round): never seal two messages with one
 * round id (persist the last one across restarts).
 * \retval P2B_VFL_OK, P2B_VFL_ERR_NULL_POINTER, P2B_VFL_ERR_SHAPE (k_items
 *         0 or `cap` below p2b_vfl_message_bytes), P2B_VFL_ERR_NON_FINITE,
 *         P2B_VFL_ERR_ROUND, P2B_VFL_ERR_CRYPTO
 */
p2b_vfl_status p2b_vfl_party_seal(const p2b_vfl_party* party,
                                  const uint8_t ap_box_pk[P2B_VFL_KEY_BYTES], uint64_t round_id,
                                  const uint8_t user_token[P2B_VFL_TOKEN_BYTES], const double* x_j,
                                  uint32_t k_items, uint8_t* out, size_t cap, size_t* written);

#ifdef __cplusplus
}
#endif

#endif /* P2B_VFL_H */
