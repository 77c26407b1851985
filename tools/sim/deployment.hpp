// The keys of one simulated deployment, made fresh per run (p2b-keygen makes
// them for real deployments), and the wire steps each side performs with
// them: the device seals, the shuffler opens the outer layer, the analyzer the
// inner one and signs models. All of it is the services' own code.
#pragma once

#include <cstdint>
#include <vector>

#include "p2b.h"
#include "wire/envelope_open.hpp"

namespace p2b::sim {

struct SharedTuple {
  uint32_t code;
  uint32_t action;
  float reward;
};

class Deployment {
 public:
  Deployment();
  ~Deployment();
  Deployment(const Deployment&) = delete;
  Deployment& operator=(const Deployment&) = delete;

  // Points `cfg` at this deployment's public keys.
  void configure(p2b_config* cfg) const;

  // Drains `agent`'s outbox. With crypto, every report travels as a sealed
  // envelope through the shuffler's and the analyzer's openers; without, as
  // the plaintext tuple. Throws if an opener refuses an envelope.
  void collect(p2b_agent* agent, bool crypto, std::vector<SharedTuple>* out) const;

  // What one report costs in crypto, in microseconds of one core: the
  // device's two sealed layers plus the shuffler's and the analyzer's opens,
  // timed over `reports` reports of a throwaway agent on this deployment.
  // It is fixed by libsodium (the envelope has a fixed length), so it sets a
  // floor under any sealed run: reports x cost / cores. Timed in the
  // thread's CPU time, so that other load on the machine does not inflate it.
  double report_crypto_us(int reports) const;

  // The analyzer's signed bundle for `device`'s codebook and shape.
  std::vector<uint8_t> sign_model(const p2b_agent* device, const std::vector<double>& a,
                                  const std::vector<double>& b, uint64_t version) const;

 private:
  server::BoxKey shuffler_{}, analyzer_{};
  uint8_t verify_pk_[32]{};
  uint8_t sign_sk_[64]{};
};

}  // namespace p2b::sim
