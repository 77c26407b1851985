// The answers a batch gets before anything is applied, the same from a
// single analyzer (analyzer.hpp) and a PostgreSQL worker (pg_node.hpp): a
// refusal of a batch that does not verify, and the answer to a batch id
// that was applied before.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "analyzer.hpp"
#include "common/json_log.hpp"
#include "metrics.hpp"
#include "model_store.hpp"
#include "wire/batch_ack.hpp"
#include "wire/batch_format.hpp"

namespace p2b::analyzer {

// Verifies an encoded batch against the pinned shuffler keys
// (`settings.shuffler_keys`), then its signed crowd thresholds against
// `settings.threshold` and `settings.threshold_noise`. True with `verified`
// filled; false with `out` the refusal (malformed, unknown signer, bad
// signature, threshold mismatch), counted and logged. Nothing else is read:
// a forged or misconfigured batch can neither change the model nor claim a
// batch id.
bool verify_or_refuse(const uint8_t* data, std::size_t len, const AnalyzerSettings& settings,
                      server::VerifiedBatch* verified, BatchOutcome* out, Metrics& metrics,
                      common::Logger& log);

// The thresholds a batch must carry to be taken by an analyzer with `settings`.
server::BatchThresholds expected_thresholds(const AnalyzerSettings& settings);

// Signs an ack whose id, digest and model version are set.
using AckSigner = std::function<std::vector<uint8_t>(const server::BatchAck&)>;

// For a batch id already applied: a conflict when `verified` has another
// digest (nothing changes), else a duplicate that gets the same ack again
// (the counts `known` stored, signed by `sign`). Counted and logged.
BatchOutcome answer_known_batch(const server::VerifiedBatch& verified, const AppliedBatch& known,
                                const AckSigner& sign, Metrics& metrics, common::Logger& log);

// Appends a `rejected_<reason>` log field for every reason with a count.
void add_rejection_fields(const RejectCounts& by_reason, std::vector<common::LogField>* fields);

}  // namespace p2b::analyzer
