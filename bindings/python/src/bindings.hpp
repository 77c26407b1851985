// The parts of p2b._p2b, each registered on the module by its own file.
#pragma once

#include <pybind11/pybind11.h>

namespace p2b::python {

void register_status_error(pybind11::module_& m);
void register_agent(pybind11::module_& m);
void register_shared_model(pybind11::module_& m);
void register_cmab_agent(pybind11::module_& m);
void register_codebook(pybind11::module_& m);
void register_keys(pybind11::module_& m);
void register_sim_p2b(pybind11::module_& m);
void register_sim_fclub(pybind11::module_& m);
void register_sim_pfcb(pybind11::module_& m);
void register_sim_vertical(pybind11::module_& m);
void register_sim_compare(pybind11::module_& m);

}  // namespace p2b::python
