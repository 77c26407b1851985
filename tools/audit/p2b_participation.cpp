// P2B's randomized participation (the device core's reporter, through the C
// API) behind the shuffler's crowd threshold (shuffle_and_threshold). Unit:
// one device's report, present or absent, in a crowd of `others` devices
// whose tuples are identical to it (the paper's crowd-blending with
// epsilon-bar = 0). The attacker (the analyzer, or anyone reading the batch)
// counts the released tuples of the victim's crowd.
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include "audit/audit_case.hpp"
#include "audit/participation_delta.hpp"
#include "audit/seeded_randomness.hpp"
#include "p2b.h"
#include "shuffler/shuffle.hpp"

namespace p2b::audit {

namespace {

struct ParticipationSetup {
  double participation = 0.5;
  std::size_t threshold = 10;
  std::size_t others = 10;
};

// The shipped defaults: the device's p and the shuffler's l.
ParticipationSetup shipped_setup() {
  p2b_config cfg;
  if (p2b_config_default(&cfg) != P2B_OK) throw std::runtime_error("p2b_config_default");
  ParticipationSetup s;
  s.participation = cfg.participation;
  s.threshold = shuffler::ThresholdPolicy{}.threshold;
  // The crowd that maximises delta at l (participation_delta.hpp): l others.
  s.others = s.threshold;
  return s;
}

void check(p2b_status st, const char* what) {
  if (st != P2B_OK) throw std::runtime_error(std::string(what) + ": " + p2b_status_str(st));
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// One device: a one-dimensional context, one code, one window per run, so
// each run is one participation coin of each device.
class Device {
 public:
  Device(double participation, uint64_t seed) {
    static const float kCentroid[1] = {1.0F};
    static const uint8_t kAnyKey[P2B_KEY_BYTES] = {9};  // tuples are polled in plaintext
    p2b_config cfg;
    check(p2b_config_default(&cfg), "p2b_config_default");
    cfg.dim = 1;
    cfg.n_actions = 1;
    cfg.window = 1;
    cfg.participation = participation;
    cfg.centroids = kCentroid;
    cfg.n_codes = 1;
    cfg.rng_mode = P2B_RNG_SEEDED;
    cfg.seed = seed;
    cfg.shuffler_public_key = kAnyKey;
    cfg.analyzer_public_key = kAnyKey;
    cfg.analyzer_verify_key = kAnyKey;
    std::size_t bytes = 0;
    check(p2b_agent_footprint(&cfg, &bytes), "p2b_agent_footprint");
    const std::size_t align = P2B_ARENA_ALIGN;
    const std::size_t rounded = (bytes + align - 1) / align * align;
    arena_.reset(std::aligned_alloc(align, rounded));
    if (!arena_) throw std::bad_alloc();
    check(p2b_agent_init(arena_.get(), rounded, &cfg, &agent_), "p2b_agent_init");
  }

  // One window: decide, reward, and the tuple if the coin released one.
  bool window(p2b_tuple* out) {
    const float x[1] = {1.0F};
    uint32_t action = 0;
    uint64_t id = 0;
    check(p2b_agent_decide(agent_, x, 1, &action, &id), "p2b_agent_decide");
    check(p2b_agent_reward(agent_, id, 1.0F), "p2b_agent_reward");
    const p2b_status st = p2b_agent_poll_tuple(agent_, out);
    if (st == P2B_NO_REPORT) return false;
    check(st, "p2b_agent_poll_tuple");
    return true;
  }

  double epsilon_per_report() const {
    p2b_privacy ledger;
    check(p2b_agent_privacy(agent_, &ledger), "p2b_agent_privacy");
    return ledger.epsilon_per_report;
  }

 private:
  std::unique_ptr<void, FreeDeleter> arena_;
  p2b_agent* agent_ = nullptr;
};

std::vector<double> released_counts(const ParticipationSetup& s, int world, std::size_t runs,
                                    uint64_t seed) {
  const std::size_t devices = s.others + (world == 1 ? 1 : 0);
  std::vector<Device> crowd;
  crowd.reserve(devices);
  for (std::size_t j = 0; j < devices; ++j) crowd.emplace_back(s.participation, mix_seed(seed, j));
  SeededRandomness shuffler_rng(mix_seed(seed, devices + 1));
  const shuffler::ThresholdPolicy policy{s.threshold, 0.0};
  std::vector<double> counts;
  counts.reserve(runs);
  std::vector<uint32_t> crowd_ids;
  for (std::size_t r = 0; r < runs; ++r) {
    crowd_ids.clear();
    p2b_tuple tuple;
    for (Device& d : crowd) {
      if (d.window(&tuple)) crowd_ids.push_back(tuple.code);
    }
    counts.push_back(static_cast<double>(
        shuffler::shuffle_and_threshold(crowd_ids, policy, shuffler_rng).size()));
  }
  return counts;
}

AuditCase make_case(const ParticipationSetup& run, const char* variant, Variant kind) {
  const ParticipationSetup shipped = shipped_setup();
  AuditCase c;
  c.mechanism = "p2b_participation";
  c.variant = variant;
  c.kind = kind;
  c.unit = "one device's report (tuple identical to " + std::to_string(run.others) +
           " others'), present or not";
  c.adversary = "analyzer / batch reader (sees the thresholded batch)";
  c.claimed_epsilon = Device(shipped.participation, 1).epsilon_per_report();
  c.claimed_delta =
      participation_delta(shipped.participation, shipped.threshold, c.claimed_epsilon);
  c.claim_source = "device ledger eps(p=" + std::to_string(shipped.participation).substr(0, 4) +
                   "); delta: exact for l=" + std::to_string(shipped.threshold) +
                   " (the paper leaves its constant open)";
  c.sample = [run](int world, std::size_t runs, uint64_t seed) {
    return released_counts(run, world, runs, seed);
  };
  return c;
}

}  // namespace

std::vector<AuditCase> p2b_participation_cases() {
  const ParticipationSetup shipped = shipped_setup();
  ParticipationSetup no_threshold = shipped;
  no_threshold.threshold = 0;  // every crowd released
  no_threshold.others = 0;     // the victim alone in its crowd
  ParticipationSetup always = shipped;
  always.participation = 1.0 - 1e-9;  // the config's open interval allows no exact 1
  return {make_case(shipped, "as shipped", Variant::shipped),
          make_case(no_threshold, "threshold off", Variant::broken),
          make_case(always, "participation p = 1", Variant::broken)};
}

}  // namespace p2b::audit
