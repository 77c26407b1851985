#include "pfcb_sim/world.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "p2b/cmab.hpp"

namespace p2b::pfcb_sim {

namespace {

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Streams of the instance draws, apart from the realisations' (which key a
// run index below 2^32) by a tag in the run's place.
constexpr uint64_t kQualityTag = 1ULL << 40;
constexpr uint64_t kCostTag = 2ULL << 40;
constexpr uint64_t kCapacityTag = 3ULL << 40;

double draw(const InstanceSpec& s, uint64_t tag, uint64_t index, uint64_t part) {
  return keyed_uniform(s.seed, s.instance, tag, index, part, 0x5eed);
}

// U[0, 1], or N(0.4, 0.2) clipped to [0, 1] (the figures' distribution; the
// paper's text says N(alpha, 0) and leaves clipping unsaid).
double level(const InstanceSpec& s, uint64_t tag, uint64_t index) {
  if (s.dist == Dist::uniform) return draw(s, tag, index, 0);
  // Box-Muller; 1 - u keeps the log's argument in (0, 1].
  const double u1 = 1.0 - draw(s, tag, index, 0);
  const double u2 = draw(s, tag, index, 1);
  const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  return std::clamp(0.4 + 0.2 * z, 0.0, 1.0);
}

}  // namespace

const char* dist_name(Dist d) {
  return d == Dist::uniform ? "uniform" : "normal";
}

uint64_t keyed_prefix(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  uint64_t h = mix(a);
  h = mix(h ^ b);
  h = mix(h ^ c);
  return mix(h ^ d);
}

double keyed_finish(uint64_t prefix, uint64_t e, uint64_t f) {
  const uint64_t h = mix(mix(prefix ^ e) ^ f);
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

double keyed_uniform(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f) {
  return keyed_finish(keyed_prefix(a, b, c, d), e, f);
}

namespace {
std::size_t cdf_offset(uint32_t l) {
  return std::size_t{l} * (l + 1) / 2;
}
}  // namespace

uint32_t binomial_inverse(double u, uint32_t l, double q) {
  if (l == 0 || q <= 0.0) return 0;
  if (q >= 1.0) return l;
  // The pmf by its ratio recurrence from P(0) = (1-q)^l; l <= 2^20 here but
  // the simulator's capacities are at most a few hundred, so no underflow.
  double pmf = std::pow(1.0 - q, static_cast<double>(l));
  double cdf = pmf;
  const double odds = q / (1.0 - q);
  uint32_t x = 0;
  while (u >= cdf && x < l) {
    pmf *= odds * static_cast<double>(l - x) / static_cast<double>(x + 1);
    ++x;
    cdf += pmf;
  }
  return x;
}

namespace {

// One row of the cdf table: P(Binomial(l, q) <= x) for x = 0..l, by
// binomial_inverse's own recurrence so the two agree to the bit.
void fill_cdf_row(double* row, uint32_t l, double q) {
  if (l == 0 || q <= 0.0) {
    std::fill(row, row + l + 1, 1.0);
    return;
  }
  if (q >= 1.0) {
    std::fill(row, row + l, 0.0);
    row[l] = 1.0;
    return;
  }
  double pmf = std::pow(1.0 - q, static_cast<double>(l));
  double cdf = pmf;
  const double odds = q / (1.0 - q);
  row[0] = cdf;
  for (uint32_t x = 0; x < l; ++x) {
    pmf *= odds * static_cast<double>(l - x) / static_cast<double>(x + 1);
    cdf += pmf;
    row[x + 1] = cdf;
  }
  // binomial_inverse stops at l whatever the rounding of the sum.
  row[l] = std::numeric_limits<double>::infinity();
}

}  // namespace

World::World(const InstanceSpec& spec) : spec_(spec) {
  if (spec.producers == 0 || spec.producers > kCmabMaxProducers) {
    throw std::invalid_argument("producers must be 1.." + std::to_string(kCmabMaxProducers));
  }
  if (spec.agents == 0) throw std::invalid_argument("agents must be at least 1");
  if (spec.max_capacity == 0 || spec.max_capacity > 1000) {
    throw std::invalid_argument("max capacity must be 1..1000");
  }
  draw_instance();
  build_cdfs();
  solve_optima();
}

void World::draw_instance() {
  const uint32_t m = spec_.producers, n = spec_.agents;
  quality_.resize(m);
  for (uint32_t i = 0; i < m; ++i) quality_[i] = level(spec_, kQualityTag, i);
  cost_.resize(std::size_t{n} * m);
  capacity_.resize(std::size_t{n} * m);
  for (uint32_t j = 0; j < n; ++j) {
    const uint32_t src = spec_.homogeneous ? 0 : j;
    for (uint32_t i = 0; i < m; ++i) {
      const uint64_t idx = uint64_t{src} * m + i;
      cost_[std::size_t{j} * m + i] = level(spec_, kCostTag, idx);
      const double u = draw(spec_, kCapacityTag, idx, 0);
      capacity_[std::size_t{j} * m + i] =
          1 + std::min(spec_.max_capacity - 1, static_cast<uint32_t>(u * spec_.max_capacity));
    }
  }
}

void World::build_cdfs() {
  cdf_.resize(spec_.producers);
  for (uint32_t i = 0; i < spec_.producers; ++i) {
    std::vector<double>& c = cdf_[i];
    c.resize(cdf_offset(spec_.max_capacity + 1));
    for (uint32_t l = 0; l <= spec_.max_capacity; ++l)
      fill_cdf_row(&c[cdf_offset(l)], l, quality_[i]);
  }
}

void World::solve_optima() {
  const uint32_t m = spec_.producers, n = spec_.agents;
  optimum_.assign(n, std::vector<uint32_t>(m));
  optimum_reward_.resize(n);
  charge_.resize(n);
  std::vector<double> cap(m);
  std::vector<uint32_t> scratch(m);
  for (uint32_t j = 0; j < n; ++j) {
    for (uint32_t i = 0; i < m; ++i) cap[i] = capacity(j)[i];
    CmabProblem p;
    p.m = m;
    p.quality = quality_.data();
    p.cost = cost(j);
    p.capacity = cap.data();
    p.rho = spec_.rho;
    p.alpha = spec_.alpha;
    if (cmab_select(p, optimum_[j].data(), scratch.data()) != Status::ok) {
      throw std::invalid_argument("cmab_select refused the true instance");
    }
    optimum_reward_[j] = reward(j, optimum_[j].data());
    if (spec_.violation == ViolationCost::optimum) {
      charge_[j] = optimum_reward_[j];
    } else {
      // max_s r(s*) - r(s) over every s in the box, feasible or not: the
      // worst selection buys all of each loss-making producer.
      double worst = 0.0;
      for (uint32_t i = 0; i < m; ++i) {
        worst += capacity(j)[i] * std::min(0.0, spec_.rho * quality_[i] - cost(j)[i]);
      }
      charge_[j] = optimum_reward_[j] - worst;
    }
  }
}

double World::reward(uint32_t j, const uint32_t* units) const {
  double r = 0.0;
  for (uint32_t i = 0; i < m(); ++i) r += units[i] * (spec_.rho * quality_[i] - cost(j)[i]);
  return r;
}

bool World::meets_constraint(const uint32_t* units) const {
  // sum l_i (q_i - alpha) >= 0, the oracle's own form; the empty set meets
  // it. A relative tolerance keeps s* (feasible by construction) from
  // failing on the last bit.
  double slack = 0.0, total = 0.0;
  for (uint32_t i = 0; i < m(); ++i) {
    slack += units[i] * (quality_[i] - spec_.alpha);
    total += units[i];
  }
  return slack >= -1e-9 * std::max(1.0, total);
}

Score World::score(uint32_t j, const uint32_t* units) const {
  Score s;
  s.met = meets_constraint(units);
  s.regret = s.met ? optimum_reward_[j] - reward(j, units) : charge_[j];
  return s;
}

uint32_t World::good(uint32_t run, uint32_t j, uint32_t i, uint64_t t, uint32_t units) const {
  if (units == 0) return 0;
  const double u = keyed_uniform(spec_.seed, spec_.instance, run, j, i, t);
  return binomial_inverse(u, units, quality_[i]);
}

uint64_t World::stream(uint32_t run, uint32_t j) const {
  return keyed_prefix(spec_.seed, spec_.instance, run, j);
}

uint32_t World::good_in(uint64_t stream, uint32_t i, uint64_t t, uint32_t units) const {
  if (units == 0) return 0;
  const double u = keyed_finish(stream, i, t);
  if (units > spec_.max_capacity) return binomial_inverse(u, units, quality_[i]);
  if (quality_[i] <= 0.0) return 0;
  if (quality_[i] >= 1.0) return units;
  // The least x with u < P(X <= x), as binomial_inverse's loop finds it.
  const double* row = &cdf_[i][cdf_offset(units)];
  return static_cast<uint32_t>(std::upper_bound(row, row + units + 1, u) - row);
}

}  // namespace p2b::pfcb_sim
