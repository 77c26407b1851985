// p2b._p2b: the compiled half of the p2b Python package. The package
// (bindings/python/p2b) re-exports what users call and adds the tables.
#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "p2b.h"
#include "status_error.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_p2b, m) {
  m.doc() = "p2b's C API, codebook trainer, keys and simulators (use the p2b package).";
  m.def("version", &p2b_version, "The linked library's version as major*10000+minor*100+patch.");
  m.def(
      "version_string", [] { return std::string(p2b_version_string()); },
      "The linked library's version, \"major.minor.patch\" (p2b_version_string).");
  m.def(
      "epsilon_per_report",
      [](double p) {
        double e = 0;
        p2b::python::check(p2b_epsilon_per_report(p, &e), "p2b_epsilon_per_report");
        return e;
      },
      py::arg("p"), "Epsilon of one P2B report at participation probability p.");
  m.attr("KEY_BYTES") = p2b_key_bytes();
  m.attr("FINGERPRINT_BYTES") = p2b_fingerprint_bytes();
  m.attr("ENVELOPE_BYTES") = p2b_envelope_bytes();
  m.attr("STATE_KEY_BYTES") = p2b_state_key_bytes();
  m.attr("STATE_ENCRYPTION_OVERHEAD") = p2b_state_encryption_overhead();
  m.attr("MAX_DIM") = p2b_max_dim();
  m.attr("MAX_ACTIONS") = p2b_max_actions();
  m.attr("MAX_CODES") = p2b_max_codes();
  p2b::python::register_status_error(m);
  p2b::python::register_agent(m);
  p2b::python::register_shared_model(m);
  p2b::python::register_cmab_agent(m);
  p2b::python::register_codebook(m);
  p2b::python::register_keys(m);
  p2b::python::register_sim_p2b(m);
  p2b::python::register_sim_fclub(m);
  p2b::python::register_sim_pfcb(m);
  p2b::python::register_sim_vertical(m);
  p2b::python::register_sim_compare(m);
}
