#include "random.hpp"

#include <cmath>
#include <cstring>

namespace p2b {

namespace {

uint64_t rotl(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

uint64_t splitmix64(uint64_t* x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

constexpr double kLn2 = 0.693147180559945309417232121458176568;

}  // namespace

double portable_log(double x) {
  // x = m * 2^e with m in [sqrt(1/2), sqrt(2)); ln m = 2 atanh(s), s = (m-1)/(m+1).
  int e = 0;
  double m = std::frexp(x, &e);  // exact; m in [0.5, 1)
  if (m < 0.70710678118654752440) {
    m *= 2.0;
    e -= 1;
  }
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;  // <= 0.0295, so 12 odd terms reach double precision
  double sum = 0.0;
  for (int k = 23; k >= 1; k -= 2) sum = sum * s2 + 1.0 / k;
  return 2.0 * s * sum + e * kLn2;
}

double epsilon_per_report(double p) {
  return portable_log(p * (2.0 - p) / (1.0 - p) + (1.0 - p));
}

void Rng::init_seeded(uint64_t seed) {
  uint64_t x = seed;
  for (auto& w : s_) w = splitmix64(&x);
  deterministic_ = true;
  has_spare_ = false;
  source_ = RandomSource{};
}

void Rng::init_source(RandomSource source) {
  std::memset(s_, 0, sizeof s_);
  deterministic_ = false;
  has_spare_ = false;
  source_ = source;
}

Status Rng::next_u64(uint64_t* out) {
  if (!deterministic_) {
    uint8_t b[8];
    if (source_.fill == nullptr || source_.fill(source_.ctx, b, sizeof b) != 0) {
      return Status::random_failure;
    }
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | b[i];
    *out = v;
    return Status::ok;
  }
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  *out = result;
  return Status::ok;
}

Status Rng::uniform(double* out) {
  uint64_t v = 0;
  const Status st = next_u64(&v);
  if (st != Status::ok) return st;
  *out = static_cast<double>(v >> 11) * 0x1.0p-53;
  return Status::ok;
}

Status Rng::gaussian(double* out) {
  if (has_spare_) {
    has_spare_ = false;
    *out = spare_;
    return Status::ok;
  }
  // Marsaglia's polar method: needs only log and sqrt, and sqrt is exact in IEEE.
  for (;;) {
    double u = 0.0;
    double v = 0.0;
    Status st = uniform(&u);
    if (st == Status::ok) st = uniform(&v);
    if (st != Status::ok) return st;
    u = 2.0 * u - 1.0;
    v = 2.0 * v - 1.0;
    const double s = u * u + v * v;
    if (s >= 1.0 || s == 0.0) continue;
    const double f = std::sqrt(-2.0 * portable_log(s) / s);
    spare_ = v * f;
    has_spare_ = true;
    *out = u * f;
    return Status::ok;
  }
}

Rng::State Rng::state() const {
  State st{};
  std::memcpy(st.s, s_, sizeof s_);
  std::memcpy(&st.spare_bits, &spare_, sizeof spare_);
  st.has_spare = has_spare_ ? 1U : 0U;
  st.deterministic = deterministic_ ? 1U : 0U;
  return st;
}

bool Rng::restorable(const State& st) {
  if (st.has_spare > 1 || st.deterministic > 1) return false;
  if (st.has_spare == 1) {
    double spare = 0.0;
    std::memcpy(&spare, &st.spare_bits, sizeof spare);
    if (!std::isfinite(spare)) return false;
  }
  return st.deterministic == 0 || (st.s[0] | st.s[1] | st.s[2] | st.s[3]) != 0;
}

void Rng::set_state(const State& st) {
  std::memcpy(s_, st.s, sizeof s_);
  std::memcpy(&spare_, &st.spare_bits, sizeof spare_);
  has_spare_ = st.has_spare != 0;
  deterministic_ = st.deterministic != 0;
}

}  // namespace p2b
