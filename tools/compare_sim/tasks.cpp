// The runs of a compare experiment: every protocol at every knob on every
// slot, slowest first, each an independent task.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "compare_sim/knob_solver.hpp"
#include "compare_sim/run_parts.hpp"

namespace p2b::compare_sim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// --spends: each protocol's knob for each target, the same for every slot
// (FCLUB's is solved inside its run: it depends on the run's ledger).
void add_spend_tasks(const Options& o, std::size_t s, bool p2b, bool fclub, bool pfcb,
                     std::vector<Task>* tasks) {
  for (double t : o.spends) {
    if (p2b) {
      const P2bKnob k = solve_p2b(t, o.delta, 1, o.threshold);
      tasks->push_back({s, "p2b", k.participation, 4, t, k.threshold});
    }
    if (fclub) tasks->push_back({s, "fclub", 0.0, 40, t});
    if (pfcb) tasks->push_back({s, "pfcb", solve_pfcb(t, o.interactions, o.delta), 6, t});
  }
  if (!o.nonprivate_variants) return;
  if (p2b) tasks->push_back({s, "p2b", kInf, 4});
  if (fclub) tasks->push_back({s, "fclub", kInf, 20});
  if (fclub) tasks->push_back({s, "fclub-alone", 0.0, 20});
  if (pfcb) tasks->push_back({s, "pfcb", kInf, 6});
}

}  // namespace

std::vector<Task> make_tasks(const Options& o, std::size_t slots) {
  std::vector<Task> tasks;
  auto has = [&](const char* p) {
    return std::find(o.protocols.begin(), o.protocols.end(), p) != o.protocols.end();
  };
  std::vector<double> eps = o.epsilons;
  if (o.nonprivate_variants) eps.push_back(kInf);
  for (std::size_t s = 0; s < slots; ++s) {
    if (has("local")) tasks.push_back({s, "local", 0.0, 1});
    if (has("pooled")) tasks.push_back({s, "pooled", 0.0, 1});
    if (has("o3m")) tasks.push_back({s, "o3m", 0.0, 3});
    if (!o.spends.empty()) {
      add_spend_tasks(o, s, has("p2b"), has("fclub"), has("pfcb"), &tasks);
      continue;
    }
    if (has("p2b")) {
      for (double p : o.participations) tasks.push_back({s, "p2b", p, 4});
    }
    if (has("fclub")) {
      for (double e : eps) tasks.push_back({s, "fclub", e, 20});
    }
    if (has("pfcb")) {
      for (double e : eps) tasks.push_back({s, "pfcb", e, 6});
    }
  }
  std::stable_sort(tasks.begin(), tasks.end(),
                   [](const Task& a, const Task& b) { return a.cost > b.cost; });
  return tasks;
}

Outcome run_task(const Options& o, const Slot& slot, const Task& t) {
  const auto t0 = std::chrono::steady_clock::now();
  Outcome out;
  const std::vector<float>& codes = slot.codebook->centroids;
  if (t.protocol == "local") out = run_local(o, slot.world);
  if (t.protocol == "pooled") out = run_pooled(o, slot.world);
  if (t.protocol == "o3m") out = run_o3m(o, slot.world);
  if (t.protocol == "p2b") {
    if (std::isinf(t.knob)) {
      out = run_p2b_nonprivate(o, slot.world, codes, slot.codebook->k);
    } else {
      const uint32_t l = t.threshold > 0 ? t.threshold : o.threshold;
      out = run_p2b_at(o, slot.world, t.knob, l, codes, slot.codebook->k);
    }
  }
  if (t.protocol == "fclub") {
    out = t.target > 0 ? run_fclub_at_spend(o, slot.world, t.target)
                       : run_fclub(o, slot.world, t.knob);
  }
  if (t.protocol == "fclub-alone") out = run_fclub_alone(o, slot.world);
  if (t.protocol == "pfcb") out = run_pfcb(o, slot.world, t.knob);
  out.target = t.target;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace p2b::compare_sim
