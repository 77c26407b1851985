#include "run_lines.hpp"

#include <cstdio>

#include "p2b.h"

namespace p2b::sim {
namespace {

using ull = unsigned long long;

std::string list_text(const std::vector<uint32_t>& v) {
  std::string s;
  for (uint32_t x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

std::string environment_line(const SimOptions& o) {
  const char* map = !o.mapping                      ? "auto (paper: linear, default: softmax)"
                    : *o.mapping == Mapping::linear ? "linear Wx+b"
                                                    : "softmax(Wx+b)";
  const std::string weights =
      o.weights.empty() ? "W, b Glorot-uniform from the seed" : "W, b from " + o.weights;
  return format(
      "environment: rbar = %.3g*map + N(0, %.3g^2), clipped, map %s; contexts %s; %s", o.beta,
      o.noise_sd, map,
      o.contexts == ContextLaw::simplex ? "uniform on the simplex" : "normalised U(0,1)^d",
      weights.c_str());
}

std::string point_privacy(const ResultRow& w) {
  const PointResult& r = w.r;
  std::string s = format("  %-7s |A|=%u d=%u u=%llu t=%u", mode_name(w.mode), w.actions, w.dim,
                         static_cast<ull>(w.spec.early_users), w.spec.interactions);
  if (w.spec.central_epsilon > 0) s += format(" central-eps=%g", w.spec.central_epsilon);
  if (r.codes_released == 0) {
    return s + format(": epsilon %.4f; nothing released (every crowd under l=%u)",
                      r.epsilon_per_user, w.spec.threshold);
  }
  return s + format(": epsilon %.4f; smallest crowd %llu -> delta ~ %.3g", r.epsilon_per_user,
                    static_cast<ull>(r.smallest_released_crowd), r.delta_indicative);
}

}  // namespace

std::string format(const char* fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  return buf;
}

std::vector<std::string> settings_lines(const SimOptions& o) {
  std::vector<std::string> lines{format(
      "p2b-sim %s: env=%s t=%s k=%u q=%u p=%.2f l=%u neg_rate=%.2f alpha=%.2f seed=%llu "
      "threads=%u%s",
      p2b_version_string(), o.env.c_str(), list_text(o.interactions).c_str(), o.codes, o.digits,
      o.participation, o.threshold, o.neg_rate, o.alpha, static_cast<ull>(o.run.seed),
      o.run.threads, o.crypto ? "" : " --no-crypto (reports NOT sealed: plaintext tuples)")};
  if (o.env == "synthetic") lines.push_back(environment_line(o));
  return lines;
}

std::string row_header() {
  return format("%-8s %8s %4s %3s %4s %9s %9s %9s %9s %9s %8s %8s %7s %6s %6s", "mode", "users",
                "|A|", "d", "t", "cold", "warm-np", "warm-p", "oracle", "fixed-arm", "reports",
                "kept", "eps", "c-eps", "secs");
}

std::vector<std::string> row_lines(const ResultRow& w) {
  const PointResult& r = w.r;
  std::vector<std::string> lines{format(
      "%-8s %8llu %4u %3u %4u %9.5f %8.5f%c %8.5f%c %9.5f %9.5f %8llu %8llu %7.4f %6.3g %6.1f",
      mode_name(w.mode), static_cast<ull>(w.spec.early_users), w.actions, w.dim,
      w.spec.interactions, r.cold.mean, r.warm_nonprivate.mean, r.nonprivate_model ? ' ' : '*',
      r.warm_private.mean, r.private_model ? ' ' : '*', r.oracle, r.best_fixed_arm,
      static_cast<ull>(r.reports), static_cast<ull>(r.kept), r.epsilon_per_user,
      w.spec.central_epsilon, w.seconds)};
  if (w.env == "multilabel")
    lines.push_back(format("%-8s majority label %.5f", "", r.majority_arm));
  return lines;
}

std::vector<std::string> privacy_lines(const std::vector<ResultRow>& rows, const SimOptions& o) {
  std::vector<std::string> lines;
  if (rows.empty()) return lines;
  bool starred = false;
  for (const ResultRow& w : rows) starred |= !w.r.nonprivate_model || !w.r.private_model;
  if (starred)
    lines.emplace_back("*: no model reached these devices, so they ran cold (the cold row)");
  if (rows.front().env == "multilabel") {
    lines.emplace_back("majority label: always play the label most often true for the early users");
  }
  lines.push_back(format(
      "privacy per point: epsilon per user (one report at most, p=%.2f); delta ~ exp(-l(1-p)^2) "
      "with l the smallest crowd released (Omega-constant taken as 1):",
      o.participation));
  for (const ResultRow& w : rows) lines.push_back(point_privacy(w));
  for (const ResultRow& w : rows) {
    if (w.spec.central_epsilon <= 0 || w.spec.central_epsilon != o.central_epsilons.back())
      continue;
    lines.push_back(
        format("central DP: epsilon %g, delta %g over %llu releases: sigma %.4g per tree node; the "
               "simulated release sums %u nodes%s",
               w.spec.central_epsilon, w.spec.central_delta,
               static_cast<ull>(w.spec.central_horizon), w.r.central_sigma, w.r.central_nodes,
               w.spec.central_release ? "" : " (the noisiest of the horizon)"));
    break;
  }
  return lines;
}

}  // namespace p2b::sim
