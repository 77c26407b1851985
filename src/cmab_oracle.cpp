// The P-FCB selection oracle, "lp_greedy": the exact optimum of the
// procurement LP through its Lagrangian, and the integer selection rounded
// from it. docs/pfcb-oracle.md gives the argument, the tie rules and the
// rounding bound.
//
// With r_i = rho q_i - c_i and g_i = q_i - alpha, the items taken at a
// multiplier lambda >= 0 are those with r_i + lambda g_i > 0. At lambda = 0
// that is r_i > 0; raising lambda only ever adds slack (an item with g > 0
// enters, one with g < 0 leaves), so walking the breakpoints -r_i/g_i in
// order until the slack reaches zero finds lambda*, and the item whose
// breakpoint it is takes the fractional remainder. Every item then sits on
// the side its reduced cost r_i + lambda* g_i asks for, and the constraint
// is tight whenever lambda* > 0: the optimality conditions of the LP.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>

#include "p2b/cmab.hpp"

namespace p2b {

namespace {

constexpr uint32_t kNoItem = 0xFFFFFFFFU;

// r, g and the breakpoint are recomputed from the inputs instead of being
// kept, so the only memory is the caller's m-entry scratch. The same
// expressions in the same order give the same doubles every time (the core
// is built without contraction), so the sort sees one consistent order.
struct Terms {
  const CmabProblem& p;
  double r(uint32_t i) const { return p.rho * p.quality[i] - p.cost[i]; }
  double g(uint32_t i) const { return p.quality[i] - p.alpha; }
  double breakpoint(uint32_t i) const { return -r(i) / g(i); }
};

// Where the breakpoint walk stopped: the first `flipped` items of the
// sorted scratch changed sides completely, and `frac` (kNoItem when the
// unconstrained choice was already feasible) holds `amount` units.
struct Cut {
  uint32_t flipped = 0;
  uint32_t frac = kNoItem;
  double amount = 0.0;
};

// Non-finite inputs before values out of range, so the status does not
// depend on where the faults sit.
Status check_problem(const CmabProblem& p, bool integral) {
  if (p.quality == nullptr || p.cost == nullptr || p.capacity == nullptr) {
    return Status::null_pointer;
  }
  if (p.m == 0 || p.m > kCmabMaxProducers) return Status::bad_config;
  if (!std::isfinite(p.rho) || !std::isfinite(p.alpha)) return Status::non_finite;
  for (uint32_t i = 0; i < p.m; ++i) {
    if (!std::isfinite(p.quality[i]) || !std::isfinite(p.cost[i]) ||
        !std::isfinite(p.capacity[i])) {
      return Status::non_finite;
    }
  }
  if (!(p.rho > 0.0)) return Status::bad_config;
  for (uint32_t i = 0; i < p.m; ++i) {
    const double k = p.capacity[i];
    if (k < 0.0 || k > static_cast<double>(kCmabMaxCapacity)) return Status::bad_config;
    // Rounding to the feasible side needs whole capacities: ceil of an
    // amount up to a fractional k could pass k.
    if (integral && k != std::floor(k)) return Status::bad_config;
  }
  // Every slack and objective the walk forms is bounded in magnitude by one
  // of these sums, so when both are finite nothing on the way overflows
  // (an infinite r or g shows up here too, as inf or 0 * inf).
  const Terms t{p};
  double reach_r = 0.0;
  double reach_g = 0.0;
  for (uint32_t i = 0; i < p.m; ++i) {
    reach_r += p.capacity[i] * std::fabs(t.r(i));
    reach_g += p.capacity[i] * std::fabs(t.g(i));
  }
  if (!std::isfinite(reach_r) || !std::isfinite(reach_g)) return Status::non_finite;
  return Status::ok;
}

// The running slack adds and later takes back the same products, so an
// exact zero (every item below alpha left, say) can come out as -1e-17, and
// rounding that "deficit" up would buy a whole unit at a loss. A deficit
// within (2m + 1) DBL_EPSILON sum_i k_i |g_i|, twice the rounding bound of
// m products and 2m additions, counts as none.
double slack_tolerance(const CmabProblem& p) {
  const Terms t{p};
  double reach = 0.0;
  for (uint32_t i = 0; i < p.m; ++i) reach += p.capacity[i] * std::fabs(t.g(i));
  return static_cast<double>(2 * p.m + 1) * DBL_EPSILON * reach;
}

Cut solve(const CmabProblem& p, uint32_t* scratch) {
  const Terms t{p};
  Cut cut;
  // r_i = 0 items are left out at lambda = 0: they add nothing, and an
  // entering one (g > 0) is the first breakpoint if slack is needed.
  double slack = 0.0;
  for (uint32_t i = 0; i < p.m; ++i) {
    if (t.r(i) > 0.0) slack += p.capacity[i] * t.g(i);
  }
  if (slack >= 0.0) return cut;
  const double tolerance = slack_tolerance(p);
  if (slack >= -tolerance) return cut;

  // Items that cross over as lambda rises; g = 0 items never do, and a
  // k = 0 item would cross without moving the slack.
  uint32_t events = 0;
  for (uint32_t i = 0; i < p.m; ++i) {
    if (p.capacity[i] <= 0.0) continue;
    const double g = t.g(i);
    const double r = t.r(i);
    if ((g > 0.0 && r <= 0.0) || (g < 0.0 && r > 0.0)) scratch[events++] = i;
  }
  // Breakpoints in increasing order by insertion: stable, so equal ones
  // stay lowest index first and the answer is a function of the problem
  // alone. At m <= 64 it beat std::sort by a quarter (fewer mispredicted
  // branches, one division per comparison; docs/pfcb-oracle.md), and it
  // needs no stack beyond its loop.
  for (uint32_t j = 1; j < events; ++j) {
    const uint32_t item = scratch[j];
    const double key = t.breakpoint(item);
    uint32_t h = j;
    while (h > 0 && t.breakpoint(scratch[h - 1]) > key) {
      scratch[h] = scratch[h - 1];
      --h;
    }
    scratch[h] = item;
  }

  for (uint32_t j = 0; j < events; ++j) {
    const uint32_t i = scratch[j];
    const double k = p.capacity[i];
    const double per_unit = std::fabs(t.g(i));
    const double gain = k * per_unit;
    if (slack + gain >= -tolerance) {
      // Units of i that must change sides to close the deficit (which is
      // above the tolerance, or the walk would have stopped). When the whole
      // item closes it to within the tolerance, the item flips whole rather
      // than leaving a residue of 1e-15 units.
      const double moved = slack + gain <= tolerance ? k : std::min(k, -slack / per_unit);
      cut.flipped = j;
      cut.frac = i;
      cut.amount = t.g(i) > 0.0 ? moved : k - moved;
      return cut;
    }
    slack += gain;
  }
  // Only rounding gets here: with every g > 0 item in and every g < 0 one
  // out the slack is a sum of non-negative terms. That set is the answer.
  cut.flipped = events;
  return cut;
}

// Writes the LP solution through `put(i, units)`: the lambda = 0 choice,
// then the flipped items, then the cut item's share.
template <typename Put>
void emit(const CmabProblem& p, const Cut& cut, const uint32_t* scratch, Put put) {
  const Terms t{p};
  for (uint32_t i = 0; i < p.m; ++i) put(i, t.r(i) > 0.0 ? p.capacity[i] : 0.0);
  for (uint32_t j = 0; j < cut.flipped; ++j) {
    const uint32_t i = scratch[j];
    put(i, t.g(i) > 0.0 ? p.capacity[i] : 0.0);
  }
}

}  // namespace

Status cmab_lp_optimum(const CmabProblem& p, double* units, double* value, uint32_t* scratch) {
  if (units == nullptr || value == nullptr || scratch == nullptr) return Status::null_pointer;
  const Status s = check_problem(p, false);
  if (s != Status::ok) return s;
  const Cut cut = solve(p, scratch);
  emit(p, cut, scratch, [units](uint32_t i, double l) { units[i] = l; });
  if (cut.frac != kNoItem) units[cut.frac] = cut.amount;
  const Terms t{p};
  double total = 0.0;
  for (uint32_t i = 0; i < p.m; ++i) total += units[i] * t.r(i);
  *value = total;
  return Status::ok;
}

Status cmab_select(const CmabProblem& p, uint32_t* units, uint32_t* scratch) {
  if (units == nullptr || scratch == nullptr) return Status::null_pointer;
  const Status s = check_problem(p, true);
  if (s != Status::ok) return s;
  const Cut cut = solve(p, scratch);
  // Capacities are whole and at most kCmabMaxCapacity (checked), so these
  // conversions are exact.
  emit(p, cut, scratch, [units](uint32_t i, double l) { units[i] = static_cast<uint32_t>(l); });
  if (cut.frac != kNoItem) {
    // The side that keeps the constraint: more of an item above alpha, less
    // of one below. Either way the slack only grows, so the selection stays
    // feasible, and it loses less than one unit's |r| against the LP.
    const double g = Terms{p}.g(cut.frac);
    const double rounded = g > 0.0 ? std::ceil(cut.amount) : std::floor(cut.amount);
    units[cut.frac] = static_cast<uint32_t>(rounded);
    // Rounding up an item above alpha that costs more than it earns can
    // leave the whole mix worth less than buying nothing, which is always
    // feasible: then buy nothing. Only a rounded mix can get here (the LP's
    // own optimum is >= 0).
    const Terms t{p};
    double total = 0.0;
    for (uint32_t i = 0; i < p.m; ++i) total += units[i] * t.r(i);
    if (total < 0.0) {
      for (uint32_t i = 0; i < p.m; ++i) units[i] = 0;
    }
  }
  return Status::ok;
}

}  // namespace p2b
