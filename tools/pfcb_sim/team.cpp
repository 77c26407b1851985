#include "pfcb_sim/team.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

namespace p2b::pfcb_sim {

namespace {

void check(Status st, const char* what) {
  if (st != Status::ok) throw std::runtime_error(std::string(what) + ": " + status_str(st));
}

// Arenas with the alignment the agent asks of its caller.
struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

class AgentTeam final : public Team {
 public:
  AgentTeam(const World& world, const TeamSpec& spec) : world_(world), traffic_(world.n()) {
    const uint32_t n = world.n();
    agents_.resize(n);
    arenas_.reserve(n);
    for (uint32_t j = 0; j < n; ++j) {
      const CmabConfig cfg = agent_config(world, spec, j);
      std::size_t bytes = 0;
      check(CmabAgent::footprint(cfg, &bytes), "CmabAgent::footprint");
      // aligned_alloc wants a size that is a multiple of the alignment.
      const std::size_t align = kArenaAlign < sizeof(void*) ? sizeof(void*) : kArenaAlign;
      const std::size_t rounded = (bytes + align - 1) / align * align;
      arenas_.emplace_back(std::aligned_alloc(align, rounded));
      if (!arenas_.back()) throw std::bad_alloc();
      check(CmabAgent::init(arenas_.back().get(), rounded, cfg, &agents_[j]), "CmabAgent::init");
    }
  }

  void decide(uint32_t j, uint32_t* units) override {
    check(agents_[j]->decide(units, world_.m()), "CmabAgent::decide");
  }
  void observe(uint32_t j, const uint32_t* good) override {
    check(agents_[j]->observe(good, world_.m()), "CmabAgent::observe");
  }
  void end_round() override {
    const uint32_t n = world_.n();
    for (uint32_t j = 0; j < n; ++j) {
      CmabShare share;
      const Status st = agents_[j]->poll_share(&share);
      if (st == Status::no_report || st == Status::budget_exhausted) continue;
      check(st, "CmabAgent::poll_share");
      ++traffic_[j].postings_sent;
      for (uint32_t v = 0; v < n; ++v) {
        if (v == j) continue;
        ++traffic_[v].postings_received;
        CmabApplyResult r;
        if (agents_[v]->apply_share(j, share, &r) == Status::ok) {
          traffic_[v].accepted += r.accepted;
          traffic_[v].rejected += r.rejected;
        } else {
          ++traffic_[v].refused;
        }
      }
    }
  }
  const std::vector<Traffic>& traffic() const override { return traffic_; }
  CmabPrivacy privacy(uint32_t j) const override {
    CmabPrivacy p;
    check(agents_[j]->privacy(&p), "CmabAgent::privacy");
    return p;
  }

 private:
  const World& world_;
  std::vector<std::unique_ptr<void, FreeDeleter>> arenas_;
  std::vector<CmabAgent*> agents_;
  std::vector<Traffic> traffic_;
};

class FcbTeam final : public Team {
 public:
  FcbTeam(const World& world, const TeamSpec& spec)
      : world_(world),
        spec_(spec),
        traffic_(world.n()),
        w_(world.m(), 0.0),
        y_(world.m(), 0.0),
        dw_(world.m(), 0.0),
        dy_(world.m(), 0.0),
        ucb_(world.m(), 0.0),
        cap_(world.m(), 0.0),
        scratch_(world.m()),
        units_(std::size_t{world.n()} * world.m(), 0) {}

  void decide(uint32_t j, uint32_t* units) override {
    const uint32_t m = world_.m();
    uint32_t* mine = &units_[std::size_t{j} * m];
    if (t_ <= spec_.explore_rounds) {
      for (uint32_t i = 0; i < m; ++i) mine[i] = 1;
    } else {
      if (ucb_round_ != t_) refresh_ucb();
      for (uint32_t i = 0; i < m; ++i) cap_[i] = world_.capacity(j)[i];
      CmabProblem p;
      p.m = m;
      p.quality = ucb_.data();
      p.cost = world_.cost(j);
      p.capacity = cap_.data();
      p.rho = world_.spec().rho;
      p.alpha = world_.spec().alpha + spec_.quality_margin;
      check(cmab_select(p, mine, scratch_.data()), "cmab_select");
    }
    for (uint32_t i = 0; i < m; ++i) units[i] = mine[i];
  }
  void observe(uint32_t j, const uint32_t* good) override {
    const uint32_t m = world_.m();
    const uint32_t* mine = &units_[std::size_t{j} * m];
    for (uint32_t i = 0; i < m; ++i) {
      dw_[i] += mine[i];
      dy_[i] += good[i];
    }
  }
  void end_round() override {
    for (uint32_t i = 0; i < world_.m(); ++i) {
      w_[i] += dw_[i];
      y_[i] += dy_[i];
      dw_[i] = dy_[i] = 0.0;
    }
    ++t_;
  }
  const std::vector<Traffic>& traffic() const override { return traffic_; }
  CmabPrivacy privacy(uint32_t) const override { return {}; }

 private:
  // The agent's UCB on the pooled counts, written as CmabAgent::decide
  // writes it so that the doubles agree to the bit (the exactness test):
  // q+ = clamp(Y/W, 0, 1) + c sqrt(3 ln t / (2 max(W, 1))).
  void refresh_ucb() {
    const double log_t = std::log(static_cast<double>(t_));
    for (uint32_t i = 0; i < world_.m(); ++i) {
      const double w = w_[i] > 0.0 ? w_[i] : 0.0;
      double q = w > 0.0 ? y_[i] / w : 0.0;
      q = q < 0.0 ? 0.0 : (q > 1.0 ? 1.0 : q);
      ucb_[i] = q + spec_.ucb_scale * std::sqrt(3.0 * log_t / (2.0 * (w > 1.0 ? w : 1.0)));
    }
    ucb_round_ = t_;
  }

  const World& world_;
  TeamSpec spec_;
  std::vector<Traffic> traffic_;
  uint64_t t_ = 1;  // the round being played, 1-based
  uint64_t ucb_round_ = 0;
  std::vector<double> w_, y_, dw_, dy_, ucb_, cap_;
  std::vector<uint32_t> scratch_;
  std::vector<uint32_t> units_;  // this round's decisions, n x m
};

}  // namespace

CmabConfig agent_config(const World& world, const TeamSpec& spec, uint32_t j) {
  CmabConfig c;
  c.producers = world.m();
  c.cost = world.cost(j);
  c.capacity = world.capacity(j);
  c.rho = world.spec().rho;
  c.alpha = world.spec().alpha;
  c.quality_margin = spec.quality_margin;
  c.explore_rounds = spec.explore_rounds;
  c.ucb_scale = spec.ucb_scale;
  c.horizon = spec.horizon;
  c.schedule = spec.schedule;
  c.window_start = spec.window_start;
  c.window_stop = spec.window_stop;
  c.log_base = spec.log_base;
  c.epsilon = spec.epsilon;
  c.delta = spec.delta;
  c.delta_target = spec.delta;
  c.public_max_capacity = spec.public_max_capacity;
  c.omega1 = spec.omega1;
  c.omega2 = spec.omega2;
  c.agents = world.n();
  c.max_peers = world.n();
  c.deterministic = true;
  c.seed = spec.seed * 0x9e3779b97f4a7c15ULL + j;
  return c;
}

std::unique_ptr<Team> make_agent_team(const World& world, const TeamSpec& spec) {
  return std::make_unique<AgentTeam>(world, spec);
}

std::unique_ptr<Team> make_fcb_team(const World& world, const TeamSpec& spec) {
  return std::make_unique<FcbTeam>(world, spec);
}

}  // namespace p2b::pfcb_sim
