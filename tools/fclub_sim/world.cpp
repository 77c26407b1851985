#include "fclub_sim/world.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <numeric>
#include <stdexcept>

#include "codebook/rng.hpp"
#include "data/npy.hpp"

namespace p2b::fclub_sim {

namespace {

constexpr uint64_t kThetaStream = 0xf1c1b0001;
constexpr uint64_t kRoundStream = 0xf1c1b0002;
constexpr uint64_t kLayoutStream = 0xf1c1b0003;

double normal(codebook::Rng& rng) {
  const double u1 = 1.0 - rng.uniform();  // (0, 1]
  const double u2 = rng.uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

Eigen::VectorXd draw_vector(codebook::Rng& rng, uint32_t dim) {
  std::vector<double> g(dim - 1);
  for (double& v : g) v = normal(rng);
  return unit_half_vector(g.data(), dim);
}

}  // namespace

Eigen::VectorXd unit_half_vector(const double* normals, uint32_t dim) {
  Eigen::VectorXd x(dim);
  double norm = 0.0;
  for (uint32_t i = 0; i + 1 < dim; ++i) norm += normals[i] * normals[i];
  norm = std::sqrt(norm);
  const double half = 1.0 / std::sqrt(2.0);
  for (uint32_t i = 0; i + 1 < dim; ++i) x(i) = norm > 0.0 ? normals[i] / norm * half : 0.0;
  x(dim - 1) = half;
  return x;
}

World::World(const WorldSpec& spec) : spec_(spec) {
  if (spec.dim < 2) throw std::runtime_error("dim must be >= 2");
  if (spec.servers == 0 || spec.items == 0)
    throw std::runtime_error("servers and items must be >= 1");
  if (!spec.thetas_file.empty()) {
    std::ifstream in(spec.thetas_file, std::ios::binary);
    if (!in) throw std::runtime_error(spec.thetas_file + ": cannot read");
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
    const data::NpyArray a =
        data::parse_npy(bytes.data(), bytes.size(), spec.thetas_file, 1u << 24);
    if (a.shape.size() != 2 || a.shape[1] != spec.dim) {
      throw std::runtime_error(spec.thetas_file + ": want a users x " + std::to_string(spec.dim) +
                               " array");
    }
    if (a.shape[0] < spec.users) {
      throw std::runtime_error(spec.thetas_file + ": holds " + std::to_string(a.shape[0]) +
                               " users, fewer than --users");
    }
    for (uint32_t u = 0; u < spec.users; ++u) {
      Eigen::VectorXd t(spec.dim);
      for (uint32_t j = 0; j < spec.dim; ++j) {
        t(j) = a.values[static_cast<std::size_t>(u) * spec.dim + j];
        if (!std::isfinite(t(j))) throw std::runtime_error(spec.thetas_file + ": non-finite value");
      }
      theta_.push_back(t);
    }
  } else {
    if (spec.clusters == 0 || spec.clusters > spec.users) {
      throw std::runtime_error("clusters must be in 1..users");
    }
    codebook::Rng rng(spec.seed, kThetaStream, 0);
    std::vector<Eigen::VectorXd> centres;
    for (uint32_t c = 0; c < spec.clusters; ++c) centres.push_back(draw_vector(rng, spec.dim));
    // Users in equal blocks per cluster, as the authors' _get_theta does.
    const uint32_t per = spec.users / spec.clusters;
    for (uint32_t u = 0; u < spec.users; ++u) {
      theta_.push_back(centres[std::min(u / std::max(per, 1u), spec.clusters - 1)]);
    }
  }
  if (spec.shuffle_users) {
    codebook::Rng rng(spec.seed, kLayoutStream, 0);
    for (uint32_t i = spec.users; i > 1; --i) std::swap(theta_[i - 1], theta_[rng.below(i)]);
  }
  std::vector<Eigen::VectorXd> seen;
  for (const Eigen::VectorXd& t : theta_) {
    if (std::none_of(seen.begin(), seen.end(),
                     [&](const Eigen::VectorXd& s) { return (s - t).norm() < 1e-12; })) {
      seen.push_back(t);
    }
  }
  distinct_ = static_cast<uint32_t>(seen.size());
}

std::vector<uint32_t> World::users_per_server() const {
  // The authors' split: equal shares, the last server takes the remainder.
  std::vector<uint32_t> out(spec_.servers, spec_.users / spec_.servers);
  out.back() = spec_.users - (spec_.users / spec_.servers) * (spec_.servers - 1);
  return out;
}

void World::draw(uint64_t t, Round* r) const {
  codebook::Rng rng(spec_.seed, kRoundStream, t);
  r->user = static_cast<uint32_t>(rng.below(spec_.users));
  r->items.resize(spec_.items, spec_.dim);
  for (uint32_t k = 0; k < spec_.items; ++k)
    r->items.row(k) = draw_vector(rng, spec_.dim).transpose();
  r->coin = rng.uniform();
}

double World::best(uint32_t user, const Eigen::MatrixXd& items) const {
  return (items * theta_[user]).maxCoeff();
}

}  // namespace p2b::fclub_sim
