#include "fclub_sim/reference_fclub.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "codebook/rng.hpp"
#include "fclub/cluster_stats.hpp"

namespace p2b::fclub_sim {

namespace {

using Mat = Eigen::MatrixXd;
using Vec = Eigen::VectorXd;
using MatP = std::shared_ptr<Mat>;
using VecP = std::shared_ptr<Vec>;
using Slot = std::pair<int, int>;  // (server, local cluster)

constexpr double kAlpha = 1.5;   // Eq. 3 and the FCLUB-DC beta's "alpha"
constexpr double kAlpha2 = 2.0;  // Eq. 4
constexpr double kRatio = 1.01;  // U = D
constexpr double kBetaScaling = 0.005;

double det(const Mat& m) {
  return m.partialPivLu().determinant();
}

double f_radius(uint64_t n) {
  return fclub::confidence_radius(n);
}

Vec ridge_theta(const Mat& s, const Vec& u, double ridge) {
  return (s + ridge * Mat::Identity(s.rows(), s.cols())).partialPivLu().solve(u);
}

// Their beta_CDP (Environment.py), which takes natural logs of the round.
double beta_cdp(uint64_t n, uint32_t dim, uint32_t servers, double eps, double delta) {
  const double t = static_cast<double>(n), d = dim, l = servers;
  const double m = std::log(t + 1e-6) + 1.0;
  const double rou = std::sqrt(32.0) * m * 2.0 * std::log(4.0 / delta) *
                     (4.0 * std::sqrt(d) + 2.0 * std::log(2.0 * t / 1.0)) / eps;
  const double tmp1 =
      std::sqrt(2.0 * std::log(2.0 / 1.0 + 1e-6) + d * std::log(1.0 + t / (d * rou)));
  const double upsi =
      std::sqrt(m * 2.0 * (std::sqrt(d) + 2.0 * std::log(2.0 * t)) / std::sqrt(2.0 * eps));
  return tmp1 + std::sqrt(l * rou) + std::sqrt(l) * upsi;
}

struct User {
  Mat v;
  Vec b;
  uint64_t t = 0;
};

struct LCluster {
  std::vector<uint32_t> users;
  MatP s;
  VecP u;
  uint64_t t = 0;
  Mat s_up, s_down;
  Vec u_up, u_down;
  uint64_t t_up = 0, t_down = 0;
  Vec theta;
  // CDP privatizer: nodes by interval, the serial number of the next draw.
  std::map<std::pair<uint64_t, uint64_t>, std::pair<Mat, Vec>> nodes;
  uint64_t serial = 1;
  Mat h_now, h_former;
  Vec hv_now, hv_former;
};

struct GCluster {
  MatP s;
  VecP u;
  uint64_t t = 0;
  Vec theta;
};

struct Server {
  std::vector<uint32_t> users;  // global ids
  std::vector<std::vector<bool>> linked;
  std::vector<LCluster> clusters;
  std::map<uint32_t, int> cluster_of;
};

using Partition = std::map<int, std::vector<Slot>>;

class ReferenceFclub final : public Learner {
 public:
  explicit ReferenceFclub(const ReferenceSpec& spec)
      : spec_(spec), rng_(spec.seed, 0xf1c1b0010, 0) {
    const uint32_t d = spec.dim;
    uint32_t first = 0;
    for (uint32_t s = 0; s < spec.users_per_server.size(); ++s) {
      Server srv;
      const uint32_t n = spec.users_per_server[s];
      srv.linked.assign(n, std::vector<bool>(n, true));
      LCluster all = fresh_cluster();
      for (uint32_t i = 0; i < n; ++i) {
        srv.users.push_back(first + i);
        srv.cluster_of[first + i] = 0;
        all.users.push_back(first + i);
        server_of_.push_back(s);
        users_.push_back({Mat::Zero(d, d), Vec::Zero(d), 0});
        cluster_inds_.push_back(0);
      }
      srv.clusters.push_back(std::move(all));
      servers_.push_back(std::move(srv));
      first += n;
    }
    // The initial partition: one global cluster holding every server's cluster 0.
    for (uint32_t s = 0; s < servers_.size(); ++s)
      partition_[0].push_back({static_cast<int>(s), 0});
    GCluster g;
    g.s = std::make_shared<Mat>(Mat::Zero(d, d));
    g.u = std::make_shared<Vec>(Vec::Zero(d));
    g.theta = Vec::Zero(d);
    globals_[0] = g;
  }

  void start_phase(uint32_t phase) override {
    const uint64_t t = (uint64_t{1} << phase) - 1;
    const Partition former = partition_;
    if (spec_.homogeneous) {
      // DC_homogenenous_version.detection: no local split, a renewal every
      // phase from the local clusters' running sums, not counted.
      communicate();
      merge(former);
      renew(t, false);
      return;
    }
    for (uint32_t s = 0; s < servers_.size(); ++s) {
      split(servers_[s]);
      rebuild(servers_[s], t);
    }
    communicate();
    merge(former);
    if (former != partition_) renew(t, true);
  }

  uint32_t recommend(uint32_t user, const Eigen::MatrixXd& items) override {
    const LCluster& c = local(user);
    const Mat v = c.s_up + *c.s;
    const Vec b = *c.u + c.u_up;
    const uint64_t n = c.t + c.t_up;
    double beta = 0.0;
    Mat m;
    if (spec_.cdp) {
      if (n == 0) return 0;  // their beta is NaN then, and argmax picks item 0
      m = v + Mat::Identity(spec_.dim, spec_.dim);
      beta = kBetaScaling * beta_cdp(n, spec_.dim, static_cast<uint32_t>(servers_.size()),
                                     spec_.epsilon, spec_.delta);
    } else {
      m = v + 2.0 * Mat::Identity(spec_.dim, spec_.dim);
      beta = reference_beta(kAlpha, spec_.dim, n);
    }
    const Mat minv = m.inverse();
    const Vec theta = minv * b;
    const Vec scores = items * theta + beta * (items * minv).cwiseProduct(items).rowwise().sum();
    Eigen::Index best = 0;
    scores.maxCoeff(&best);
    return static_cast<uint32_t>(best);
  }

  void observe(uint32_t user, const Eigen::VectorXd& x, double y) override {
    ++round_;
    User& u = users_[user];
    u.v += x * x.transpose();
    u.b += y * x;
    ++u.t;
    LCluster& c = local(user);
    c.s_up += x * x.transpose();
    c.u_up += y * x;
    ++c.t_up;
    check_upload(static_cast<int>(server_of_[user]), servers_[server_of_[user]].cluster_of[user]);
    check_download(cluster_inds_[user]);
  }

  Comm comm() const override { return {uploads_, downloads_, events_}; }
  uint32_t clusters() const override { return static_cast<uint32_t>(globals_.size()); }

 private:
  LCluster fresh_cluster() const {
    const uint32_t d = spec_.dim;
    LCluster c;
    c.s = std::make_shared<Mat>(Mat::Zero(d, d));
    c.u = std::make_shared<Vec>(Vec::Zero(d));
    c.s_up = c.s_down = c.h_now = c.h_former = Mat::Zero(d, d);
    c.u_up = c.u_down = c.hv_now = c.hv_former = Vec::Zero(d);
    c.theta = Vec::Zero(d);
    return c;
  }

  LCluster& local(uint32_t user) {
    Server& s = servers_[server_of_[user]];
    return s.clusters[s.cluster_of[user]];
  }

  // Base.CDP_Cluster.privatizer: the nodes of the binary decomposition of
  // the serial number, each (N + N^T) / sqrt2 with N's entries drawn with
  // "standard deviation" 64 m ln(2/delta)^2 / eps^2 (a variance in the
  // paper), and h from column d-1, which overlaps H.
  void privatizer(LCluster& c, uint64_t t) {
    const uint32_t d = spec_.dim;
    const double m = std::floor(std::log(static_cast<double>(t) + 1.0)) + 1.0;
    const double ln = std::log(2.0 / spec_.delta);
    const double sd = 64.0 * m * ln * ln / (spec_.epsilon * spec_.epsilon);
    c.h_now.setZero();
    c.hv_now.setZero();
    uint64_t n = c.serial, top = c.serial;
    for (uint32_t bit = 0; n != 0; ++bit, n >>= 1) {
      if ((n & 1) == 0) continue;
      const std::pair<uint64_t, uint64_t> key{top - (uint64_t{1} << bit) + 1, top};
      top = key.first - 1;
      auto it = c.nodes.find(key);
      if (it == c.nodes.end()) {
        Mat raw(d + 1, d + 1);
        for (Eigen::Index i = 0; i < raw.size(); ++i) raw.data()[i] = sd * normal();
        const Mat sym = (raw + raw.transpose()) / std::sqrt(2.0);
        it = c.nodes
                 .emplace(key,
                          std::make_pair(Mat(sym.topLeftCorner(d, d)), Vec(sym.col(d - 1).head(d))))
                 .first;
      }
      c.h_now += it->second.first;
      c.hv_now += it->second.second;
    }
    ++c.serial;
  }

  double normal() {
    const double u1 = 1.0 - rng_.uniform();
    const double u2 = rng_.uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

  // Local_server.check_update for every user: Eq. 3 with estimates (2I + V)^-1 b.
  void split(Server& srv) {
    const std::size_t n = srv.users.size();
    std::vector<Vec> est(n);
    for (std::size_t i = 0; i < n; ++i) {
      const User& u = users_[srv.users[i]];
      est[i] = ridge_theta(u.v, u.b, 2.0);
    }
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        if (i == j || !srv.linked[i][j]) continue;
        const User& a = users_[srv.users[i]];
        const User& b = users_[srv.users[j]];
        if (a.t == 0 || b.t == 0) continue;
        if ((est[i] - est[j]).norm() > kAlpha * (f_radius(a.t) + f_radius(b.t))) {
          srv.linked[i][j] = srv.linked[j][i] = false;
        }
      }
    }
  }

  // Local_server.update_cluster: clusters rebuilt from their own users only.
  void rebuild(Server& srv, uint64_t t) {
    const std::size_t n = srv.users.size();
    srv.clusters.clear();
    std::vector<bool> seen(n, false);
    for (std::size_t s = 0; s < n; ++s) {
      if (seen[s]) continue;
      std::vector<std::size_t> part{s};
      seen[s] = true;
      for (std::size_t at = 0; at < part.size(); ++at) {
        for (std::size_t v = 0; v < n; ++v) {
          if (!seen[v] && srv.linked[part[at]][v]) {
            seen[v] = true;
            part.push_back(v);
          }
        }
      }
      LCluster c = fresh_cluster();
      for (std::size_t i : part) {
        const User& u = users_[srv.users[i]];
        *c.s += u.v;
        *c.u += u.b;
        c.t += u.t;
        c.users.push_back(srv.users[i]);
        srv.cluster_of[srv.users[i]] = static_cast<int>(srv.clusters.size());
      }
      c.theta = ridge_theta(*c.s, *c.u, 1.0);
      if (spec_.cdp) {
        privatizer(c, t);
        c.h_former = c.h_now;
        c.hv_former = c.hv_now;
      }
      srv.clusters.push_back(std::move(c));
    }
  }

  // Global_server.communicate: deep copies of every local cluster (plus the
  // current noise in CDP; theta is not recomputed).
  void communicate() {
    globals_.clear();
    partition_.clear();
    int g = 0;
    for (std::size_t s = 0; s < servers_.size(); ++s) {
      for (std::size_t i = 0; i < servers_[s].clusters.size(); ++i, ++g) {
        const LCluster& c = servers_[s].clusters[i];
        GCluster gc;
        gc.s = std::make_shared<Mat>(*c.s);
        gc.u = std::make_shared<Vec>(*c.u);
        if (spec_.cdp) {
          *gc.s += c.h_now;
          *gc.u += c.hv_now;
        }
        gc.t = c.t;
        gc.theta = c.theta;
        globals_[g] = gc;
        partition_[g] = {{static_cast<int>(s), static_cast<int>(i)}};
        for (uint32_t user : c.users) cluster_inds_[user] = g;
      }
    }
  }

  bool close(const GCluster& a, const GCluster& b) const {
    if (spec_.homogeneous) return true;
    return (a.theta - b.theta).norm() < kAlpha2 * (f_radius(a.t) + f_radius(b.t));
  }

  // Global_server.merge: only when some pair failed the test and the
  // partition differs from the previous phase's.
  void merge(const Partition& former) {
    std::vector<int> ids;
    for (const auto& kv : globals_) ids.push_back(kv.first);
    const std::size_t n = ids.size();
    std::vector<std::vector<bool>> edge(n, std::vector<bool>(n, true));
    bool removed = false;
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i + 1; j < n; ++j) {
        if (!close(globals_[ids[i]], globals_[ids[j]])) {
          edge[i][j] = edge[j][i] = false;
          removed = true;
        }
      }
    }
    if (!removed || former == partition_) return;
    std::vector<bool> seen(n, false);
    for (std::size_t s = 0; s < n; ++s) {
      if (seen[s]) continue;
      std::vector<std::size_t> part{s};
      seen[s] = true;
      for (std::size_t at = 0; at < part.size(); ++at) {
        for (std::size_t v = 0; v < n; ++v) {
          if (!seen[v] && edge[part[at]][v]) {
            seen[v] = true;
            part.push_back(v);
          }
        }
      }
      std::sort(part.begin(), part.end());
      const int c1 = ids[part[0]];
      GCluster& keep = globals_[c1];
      for (std::size_t k = 1; k < part.size(); ++k) {
        const int other = ids[part[k]];
        *keep.s += *globals_[other].s;
        *keep.u += *globals_[other].u;
        keep.t += globals_[other].t;
        partition_[c1].push_back(partition_[other].front());
        partition_.erase(other);
        for (int& gi : cluster_inds_) {
          if (gi == other) gi = c1;
        }
        globals_.erase(other);
      }
      keep.theta = ridge_theta(*keep.s, *keep.u, 1.0);
    }
  }

  // The renewal after a changed partition: members take the global sums,
  // and share the very arrays (numpy aliasing), buffers cleared.
  void renew(uint64_t t, bool counted) {
    if (counted) ++events_;
    for (auto& [g, gc] : globals_) {
      gc.s = std::make_shared<Mat>(Mat::Zero(spec_.dim, spec_.dim));
      gc.u = std::make_shared<Vec>(Vec::Zero(spec_.dim));
      gc.t = 0;
      for (const Slot& slot : partition_[g]) {
        const LCluster& c = servers_[slot.first].clusters[slot.second];
        *gc.s += *c.s;
        *gc.u += *c.u;
        gc.t += c.t;
      }
      gc.theta = ridge_theta(*gc.s, *gc.u, 1.0);
      for (const Slot& slot : partition_[g]) {
        LCluster& c = servers_[slot.first].clusters[slot.second];
        c.s = gc.s;
        c.u = gc.u;
        c.t = gc.t;
        c.s_up.setZero();
        c.s_down.setZero();
        c.u_up.setZero();
        c.u_down.setZero();
        c.t_up = c.t_down = 0;
        if (spec_.cdp) privatizer(c, t);
      }
    }
  }

  int find_global(int server, int cluster) const {
    for (const auto& [g, slots] : partition_) {
      for (const Slot& s : slots) {
        if (s.first == server && s.second == cluster) return g;
      }
    }
    return -1;
  }

  void check_upload(int server, int cluster) {
    LCluster& c = servers_[server].clusters[cluster];
    const double below = det(*c.s);
    bool fire = false;
    if (spec_.cdp) {
      fire = below != 0.0 && det(*c.s + c.s_up + (c.h_now - c.h_former)) / below >= kRatio;
    } else {
      fire = det(*c.s + c.s_up) / below >= kRatio;  // x/0 is +-inf or NaN, as numpy's
    }
    if (!fire) return;
    ++events_;
    ++uploads_;
    const int g = find_global(server, cluster);
    if (g == -1) return;
    GCluster& gc = globals_[g];
    *gc.s += c.s_up;
    *gc.u += c.u_up;
    gc.t += c.t_up;
    for (const Slot& slot : partition_[g]) {
      if (slot.first == server && slot.second == cluster) continue;
      LCluster& o = servers_[slot.first].clusters[slot.second];
      o.s_down += c.s_up;
      o.u_down += c.u_up;
      o.t_down += c.t_up;
    }
    *c.s += c.s_up;  // the same array as gc.s after a renewal: it lands twice
    *c.u += c.u_up;
    c.t += c.t_up;
    c.s_up.setZero();
    c.u_up.setZero();
    c.t_up = 0;
    if (spec_.cdp) {
      c.h_former = c.h_now;
      c.hv_former = c.hv_now;
      privatizer(c, round_);
    }
  }

  void check_download(int g) {
    const auto it = globals_.find(g);
    if (it == globals_.end()) return;
    for (const Slot& slot : partition_[g]) {
      LCluster& c = servers_[slot.first].clusters[slot.second];
      const double below = det(*c.s);
      if (spec_.cdp && below == 0.0) continue;
      if (!(det(*it->second.s) / below >= kRatio)) continue;
      ++events_;
      ++downloads_;
      *c.s += c.s_down;
      *c.u += c.u_down;
      c.t += c.t_down;
      c.s_down.setZero();
      c.u_down.setZero();
      c.t_down = 0;
    }
  }

  ReferenceSpec spec_;
  codebook::Rng rng_;
  std::vector<User> users_;
  std::vector<uint32_t> server_of_;
  std::vector<int> cluster_inds_;
  std::vector<Server> servers_;
  std::map<int, GCluster> globals_;
  Partition partition_;
  uint64_t round_ = 0, uploads_ = 0, downloads_ = 0, events_ = 0;
};

}  // namespace

std::unique_ptr<Learner> make_reference_fclub(const ReferenceSpec& spec) {
  return std::make_unique<ReferenceFclub>(spec);
}

}  // namespace p2b::fclub_sim
