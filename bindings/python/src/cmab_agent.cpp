// p2b.CmabAgent: the C API's P-FCB agent (federated combinatorial bandits
// under a quality constraint, with Gaussian-noised shares), in an arena this
// object owns. Per-producer arrays are numpy arrays of length m.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arena.hpp"
#include "arrays.hpp"
#include "bindings.hpp"
#include "config_fields.hpp"
#include "p2b.h"
#include "saved_state.hpp"
#include "status_error.hpp"

namespace py = pybind11;

namespace p2b::python {
namespace {

uint32_t schedule_code(const std::string& s) {
  if (s == "paper") return P2B_CMAB_SCHEDULE_PAPER;
  if (s == "aligned") return P2B_CMAB_SCHEDULE_ALIGNED;
  if (s == "every_round") return P2B_CMAB_SCHEDULE_EVERY_ROUND;
  bad_field("schedule", "'" + s + "'", "must be 'paper', 'aligned' or 'every_round'");
}

std::vector<uint32_t> counts(const py::handle& a, const char* what) {
  if (!py::isinstance<py::array>(a) || py::reinterpret_borrow<py::array>(a).ndim() != 1) {
    throw py::type_error(std::string(what) + ": expected a 1-D integer numpy array");
  }
  const auto arr = py::reinterpret_borrow<py::array>(a);
  if (arr.dtype().kind() != 'i' && arr.dtype().kind() != 'u') {
    throw py::type_error(std::string(what) + ": expected an integer dtype");
  }
  const auto v = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(arr);
  std::vector<uint32_t> out;
  out.reserve(static_cast<std::size_t>(v.size()));
  for (py::ssize_t i = 0; i < v.size(); ++i) {
    if (v.data()[i] < 0 || v.data()[i] > 0xffffffffLL) {
      throw py::value_error(std::string(what) + ": counts must be in [0, 2^32)");
    }
    out.push_back(static_cast<uint32_t>(v.data()[i]));
  }
  return out;
}

// The per-producer arrays' checks of p2b_cmab_init, naming the entry.
void check_producers(const p2b_cmab_config& c) {
  require_count("producers (the length of cost and capacity)", c.producers, 1,
                P2B_CMAB_MAX_PRODUCERS);
  uint32_t largest = 0;
  for (uint32_t i = 0; i < c.producers; ++i) {
    const std::string at = "[" + std::to_string(i) + "]";
    require_real("cost" + at, c.cost[i], finite_in(c.cost[i], -1e6, 1e6), "must be in [-1e6, 1e6]");
    require_count("capacity" + at, c.capacity[i], 1, P2B_CMAB_MAX_CAPACITY);
    largest = std::max(largest, c.capacity[i]);
  }
  if (c.public_max_capacity != 0) {
    require_count("public_max_capacity", c.public_max_capacity, largest, P2B_CMAB_MAX_CAPACITY);
  }
}

// Every other field p2b_cmab_init checks, named as the keyword that sets it,
// so a bad value raises BadConfigError saying which and what range.
void check_fields(const p2b_cmab_config& c) {
  check_producers(c);
  require_real("rho", c.rho, finite_in(c.rho, 0.0, 1e6) && c.rho > 0.0, "must be in (0, 1e6]");
  require_real("alpha", c.alpha, finite_in(c.alpha, 0.0, 1.0), "must be in [0, 1]");
  require_real("quality_margin", c.quality_margin, finite_in(c.quality_margin, 0.0, 1.0),
               "must be in [0, 1]");
  require_real("ucb_scale", c.ucb_scale, finite_in(c.ucb_scale, 0.0, 1e6), "must be in [0, 1e6]");
  require_at_least("horizon", c.horizon, 2);
  require_at_least("window_start", c.window_start, 1);
  require_at_least("window_stop", c.window_stop, c.window_start);
  require_real("epsilon", c.epsilon, c.epsilon >= 0.0, "must be >= 0 (inf: exact counts)");
  require_real("delta", c.delta, c.delta > 0.0 && c.delta < 1.0, "must be in (0, 1)");
  require_real("delta_target", c.delta_target, c.delta_target > 0.0 && c.delta_target < 1.0,
               "must be in (0, 1)");
  require_real("omega1", c.omega1, c.omega1 >= 0.0, "must be >= 0 (inf: accept all)");
  require_real("omega2", c.omega2, finite_in(c.omega2, 0.0, 1e6) && c.omega2 > 0.0,
               "must be in (0, 1e6]");
  require_at_least("agents", c.agents, 1);
  require_count("max_peers", c.max_peers, 1, P2B_CMAB_MAX_PEERS);
}

class CmabAgent {
 public:
  CmabAgent(const py::handle& cost, const py::handle& capacity, std::optional<double> rho,
            std::optional<double> alpha, std::optional<double> quality_margin,
            std::optional<uint32_t> explore_rounds, std::optional<double> ucb_scale,
            std::optional<uint64_t> horizon, const std::string& schedule,
            std::optional<uint64_t> window_start, std::optional<uint64_t> window_stop,
            const std::string& log_base, std::optional<double> epsilon, std::optional<double> delta,
            std::optional<double> delta_target, std::optional<uint32_t> public_max_capacity,
            std::optional<double> omega1, std::optional<double> omega2,
            std::optional<uint32_t> agents, std::optional<uint32_t> max_peers,
            std::optional<uint64_t> seed) {
    const auto c = float64_array(cost, 1, "cost");
    const std::vector<uint32_t> k = counts(capacity, "capacity");
    if (static_cast<std::size_t>(c.size()) != k.size()) {
      throw py::value_error("cost and capacity must have one value per producer");
    }
    p2b_cmab_config cfg;
    check(p2b_cmab_config_default(&cfg), "p2b_cmab_config_default");
    cfg.producers = static_cast<uint32_t>(k.size());
    cfg.cost = c.data();
    cfg.capacity = k.data();
    cfg.rho = rho.value_or(cfg.rho);
    cfg.alpha = alpha.value_or(cfg.alpha);
    cfg.quality_margin = quality_margin.value_or(cfg.quality_margin);
    cfg.explore_rounds = explore_rounds.value_or(cfg.explore_rounds);
    cfg.ucb_scale = ucb_scale.value_or(cfg.ucb_scale);
    cfg.horizon = horizon.value_or(cfg.horizon);
    cfg.schedule = schedule_code(schedule);
    cfg.window_start = window_start.value_or(cfg.window_start);
    cfg.window_stop = window_stop.value_or(cfg.window_stop);
    if (log_base == "e") {
      cfg.log_base = P2B_CMAB_LOG_E;
    } else if (log_base != "2") {
      bad_field("log_base", "'" + log_base + "'", "must be '2' or 'e'");
    }
    cfg.epsilon = epsilon.value_or(cfg.epsilon);
    cfg.delta = delta.value_or(cfg.delta);
    cfg.delta_target = delta_target.value_or(cfg.delta_target);
    cfg.public_max_capacity = public_max_capacity.value_or(cfg.public_max_capacity);
    cfg.omega1 = omega1.value_or(cfg.omega1);
    cfg.omega2 = omega2.value_or(cfg.omega2);
    cfg.agents = agents.value_or(cfg.agents);
    cfg.max_peers = max_peers.value_or(cfg.max_peers);
    if (seed) {
      cfg.rng_mode = P2B_RNG_SEEDED;
      cfg.seed = *seed;
    }
    check_fields(cfg);
    std::size_t bytes = 0;
    check(p2b_cmab_footprint(&cfg, &bytes), "p2b_cmab_footprint");
    void* mem = arena_.allocate(bytes);
    check(p2b_cmab_init(mem, arena_.size(), &cfg, &agent_), "p2b_cmab_init");
    footprint_ = bytes;
    m_ = cfg.producers;
  }

  py::array_t<uint32_t> decide() {
    py::array_t<uint32_t> units(m_);
    check(p2b_cmab_decide(agent_, units.mutable_data(), m_), "p2b_cmab_decide");
    return units;
  }

  void observe(const py::handle& good) {
    const std::vector<uint32_t> g = counts(good, "good");
    check(p2b_cmab_observe(agent_, g.data(), g.size()), "p2b_cmab_observe");
  }

  py::object poll_share() {
    std::vector<uint8_t> buf(p2b_cmab_share_size(m_));
    std::size_t n = 0;
    const p2b_status s = p2b_cmab_poll_share(agent_, buf.data(), buf.size(), &n);
    if (s == P2B_NO_REPORT || s == P2B_BUDGET_EXHAUSTED) return py::none();
    check(s, "p2b_cmab_poll_share");
    return to_bytes(buf.data(), n);
  }

  py::tuple apply_share(uint32_t sender, const py::handle& share) {
    const auto b = byte_vector(share, 0, "share");
    uint32_t accepted = 0, rejected = 0;
    check(p2b_cmab_apply_share(agent_, sender, b.data(), b.size(), &accepted, &rejected),
          "p2b_cmab_apply_share");
    return py::make_tuple(accepted, rejected);
  }

  py::dict privacy() const {
    p2b_cmab_privacy p{};
    check(p2b_cmab_privacy_spent(agent_, &p), "p2b_cmab_privacy_spent");
    return py::dict(
        py::arg("releases") = p.releases, py::arg("paper_epsilon") = p.paper_epsilon,
        py::arg("paper_delta") = p.paper_delta, py::arg("basic_epsilon") = p.basic_epsilon,
        py::arg("basic_delta") = p.basic_delta, py::arg("element_epsilon") = p.element_epsilon,
        py::arg("sequential_epsilon") = p.sequential_epsilon,
        py::arg("vector_epsilon") = p.vector_epsilon, py::arg("delta_target") = p.delta_target,
        py::arg("element_mu") = p.element_mu, py::arg("sequential_mu") = p.sequential_mu,
        py::arg("vector_mu") = p.vector_mu);
  }

  py::bytes save(const py::handle& key) const {
    return save_state(agent_, key, p2b_cmab_save_size, p2b_cmab_save,
                      {"p2b_cmab_save_size", "p2b_cmab_save"});
  }

  void restore(const py::handle& data, const py::handle& key) {
    restore_state(agent_, data, key, p2b_cmab_restore, "p2b_cmab_restore");
  }

  py::tuple estimates() const {
    py::array_t<double> seen(m_), quality(m_);
    check(p2b_cmab_estimates(agent_, seen.mutable_data(), quality.mutable_data(), m_),
          "p2b_cmab_estimates");
    return py::make_tuple(seen, quality);
  }

  std::size_t footprint() const { return footprint_; }
  uint32_t producers() const { return m_; }

 private:
  Arena arena_;
  p2b_cmab* agent_ = nullptr;
  std::size_t footprint_ = 0;
  uint32_t m_ = 0;
};

}  // namespace

void register_cmab_agent(py::module_& m) {
  py::class_<CmabAgent>(m, "CmabAgent", R"doc(
The C API's P-FCB agent: each round it decides how many units to procure
from each of m producers (decide), then learns how many were good
(observe); in its release rounds it draws a Gaussian-noised share of its
estimates (poll_share) for the other agents, who learn from it by selective
acceptance (apply_share). cost (float64) and capacity (integers) have one
value per producer; keywords left as None keep the C defaults
(p2b_cmab_config_default); seed=None draws from the system CSPRNG. Error
statuses raise p2b.P2BError subclasses.)doc")
      .def(py::init<const py::handle&, const py::handle&, std::optional<double>,
                    std::optional<double>, std::optional<double>, std::optional<uint32_t>,
                    std::optional<double>, std::optional<uint64_t>, const std::string&,
                    std::optional<uint64_t>, std::optional<uint64_t>, const std::string&,
                    std::optional<double>, std::optional<double>, std::optional<double>,
                    std::optional<uint32_t>, std::optional<double>, std::optional<double>,
                    std::optional<uint32_t>, std::optional<uint32_t>, std::optional<uint64_t>>(),
           py::arg("cost"), py::arg("capacity"), py::kw_only(), py::arg("rho") = py::none(),
           py::arg("alpha") = py::none(), py::arg("quality_margin") = py::none(),
           py::arg("explore_rounds") = py::none(), py::arg("ucb_scale") = py::none(),
           py::arg("horizon") = py::none(), py::arg("schedule") = "paper",
           py::arg("window_start") = py::none(), py::arg("window_stop") = py::none(),
           py::arg("log_base") = "2", py::arg("epsilon") = py::none(),
           py::arg("delta") = py::none(), py::arg("delta_target") = py::none(),
           py::arg("public_max_capacity") = py::none(), py::arg("omega1") = py::none(),
           py::arg("omega2") = py::none(), py::arg("agents") = py::none(),
           py::arg("max_peers") = py::none(), py::arg("seed") = py::none())
      .def("decide", &CmabAgent::decide, "Units to procure this round, uint32 of length m.")
      .def("observe", &CmabAgent::observe, py::arg("good"),
           "Ends the round with the good units among those procured (integers, length m).")
      .def("poll_share", &CmabAgent::poll_share,
           "The share drawn at the last release round (bytes), once; None when none waits.")
      .def("apply_share", &CmabAgent::apply_share, py::arg("sender"), py::arg("share"),
           "Learns from a peer's share: returns (producers accepted, producers rejected).")
      .def("privacy", &CmabAgent::privacy,
           "Releases so far and the epsilon/delta figures they cost (p2b_cmab_privacy).")
      .def("save", &CmabAgent::save, py::arg("key"),
           "The agent's state (counts, ledger, replay counters, random stream), MACed under "
           "a 32-byte key (p2b_cmab_save).")
      .def("restore", &CmabAgent::restore, py::arg("state"), py::arg("key"),
           "Restores a state saved under the same key and configuration; all or nothing.")
      .def("estimates", &CmabAgent::estimates,
           "(units seen, estimated quality) per producer, float64 arrays.")
      .def_property_readonly("footprint", &CmabAgent::footprint, "Bytes of the arena.")
      .def_property_readonly("producers", &CmabAgent::producers, "m, the producers.");
}

}  // namespace p2b::python
