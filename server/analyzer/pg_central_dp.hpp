// Central DP's rows in the analyzer's PostgreSQL database (docs/analyzer.md,
// "Central differential privacy"): the operator's choice (off, or epsilon,
// delta and horizon) that every node is bound to, the secret noise seed,
// and the ledger that charges each noisy publication to the budget once.
//
// The release after publication t is the tree mechanism's (central_dp.hpp)
// with t the model version: the reports a worker applies between two
// publications are one step of the tree, so each report is in one node per
// level, as each batch is on SQLite.
#pragma once

#include <cstdint>

#include "central_dp.hpp"
#include "common/pg/pg.hpp"
#include "dp/tree_noise.hpp"

namespace p2b::analyzer::pg_central_dp {

// Migration 2 of the analyzer's schema: the choice (one row, epsilon 0 for
// off; the seed NULL until the first noisy publication), the ledger (one
// row per noisy publication, its version the key) and the count a
// published model claims, noisy with central DP (what --min-reports gates).
extern const char* const kSchema;

// In a transaction. Records `want` in a database without a choice, or turns
// an "off" database on (the exact models already released stay as they
// were, as on SQLite); common::StoreRefused for any other difference: other
// settings would scale the same node noise differently, and exact sums
// after noisy ones would undo the promise the models carry.
void bind(pg::Connection& conn, const CentralDpConfig& want);

// In a worker's transaction: StoreError unless the choice recorded is still
// `want`, so a worker started before another node changed it applies
// nothing unclipped to a noisy model (or the reverse).
void check(pg::Connection& conn, const CentralDpConfig& want);

// In the publication's transaction (the row locked until it ends): the
// stored seed, or a new one from the CSPRNG, stored, when there is none
// yet. A publication that does not commit takes its new seed with it, so
// no released noise ever comes from a seed the database lost.
dp::NoiseSeed seed_for_publication(pg::Connection& conn);

// In the publication's transaction: charges publication `version` (its
// tree nodes) to the ledger. StoreError when it was charged already or is
// past the horizon.
void charge(pg::Connection& conn, const CentralDpConfig& config, uint64_t version,
            uint64_t now_unix);

// The publications charged (tests, diagnostics).
uint64_t charges(pg::Connection& conn);

}  // namespace p2b::analyzer::pg_central_dp
