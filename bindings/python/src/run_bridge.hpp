// What every simulator binding shares: Python callables as a run's hooks
// (progress to tqdm, lines to logging, both under the GIL), and a run's
// result tables as Python dicts of numpy columns (p2b/_run.py makes them
// DataFrames).
#pragma once

#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "cli/result_table.hpp"
#include "cli/run_hooks.hpp"

namespace p2b::python {

// `progress(stage, done, total)` and `log(line)` may each be None. The hooks
// take the GIL for each call, so run() must be called with it released; and
// the hooks hold Python references, so create them and let them (and every
// copy run() made) go with the GIL held: outside the gil_scoped_release block.
tools::RunHooks python_hooks(const pybind11::object& progress, const pybind11::object& log);

// {table name: {column name: numpy int64/float64 array, or list of str}}.
pybind11::dict tables_to_python(const tools::ResultTables& tables);

// The one shape of every _run_X binding: `invalid` is the simulator's
// validate() message (ValueError when not empty); `run(hooks)` returns the
// ResultTables and runs with the GIL released; a data or option error it
// throws (std::runtime_error, std::invalid_argument) becomes ValueError.
template <class Run>
pybind11::dict run_simulation(const std::string& invalid, const pybind11::object& progress,
                              const pybind11::object& log, Run&& run) {
  if (!invalid.empty()) throw pybind11::value_error(invalid);
  tools::ResultTables tables;
  std::string error;
  {
    const tools::RunHooks hooks = python_hooks(progress, log);
    const pybind11::gil_scoped_release unlocked;
    try {
      tables = std::forward<Run>(run)(hooks);
    } catch (const std::runtime_error& e) {
      error = e.what();
    } catch (const std::invalid_argument& e) {
      error = e.what();
    }
  }
  if (!error.empty()) throw pybind11::value_error(error);
  return tables_to_python(tables);
}

}  // namespace p2b::python
