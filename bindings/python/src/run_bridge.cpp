#include "run_bridge.hpp"

#include <pybind11/numpy.h>

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace py = pybind11;

namespace p2b::python {
namespace {

// A column is int64 when every cell is an integer, float64 when every cell is
// a number, else a list of str (numbers printed as the CSV prints them).
py::object column_to_python(const tools::ResultTable& table, size_t c) {
  bool all_int = true;
  bool all_number = true;
  for (const auto& row : table.rows()) {
    all_int = all_int && std::holds_alternative<int64_t>(row[c]);
    all_number = all_number && !std::holds_alternative<std::string>(row[c]);
  }
  const auto n = static_cast<py::ssize_t>(table.n_rows());
  if (all_int) {
    py::array_t<int64_t> out(n);
    for (py::ssize_t i = 0; i < n; ++i) out.mutable_at(i) = std::get<int64_t>(table.rows()[i][c]);
    return std::move(out);
  }
  if (all_number) {
    py::array_t<double> out(n);
    for (py::ssize_t i = 0; i < n; ++i) {
      const tools::Cell& cell = table.rows()[i][c];
      out.mutable_at(i) = std::holds_alternative<double>(cell)
                              ? std::get<double>(cell)
                              : static_cast<double>(std::get<int64_t>(cell));
    }
    return std::move(out);
  }
  py::list out;
  for (const auto& row : table.rows()) {
    const tools::Cell& cell = row[c];
    if (const auto* s = std::get_if<std::string>(&cell)) {
      out.append(*s);
    } else if (const auto* i = std::get_if<int64_t>(&cell)) {
      out.append(std::to_string(*i));
    } else {
      out.append(py::str(py::float_(std::get<double>(cell))));
    }
  }
  return std::move(out);
}

}  // namespace

tools::RunHooks python_hooks(const py::object& progress, const py::object& log) {
  tools::RunHooks hooks;
  // Each call takes the GIL. A callback that raises (tqdm closed, Ctrl-C
  // seen inside it) must not unwind through run()'s worker threads, so the
  // error is reported as unraisable and the run goes on.
  if (!progress.is_none()) {
    auto callable = std::make_shared<py::object>(progress);
    hooks.progress = [callable](const std::string& stage, uint64_t done, uint64_t total) {
      const py::gil_scoped_acquire locked;
      try {
        (*callable)(stage, done, total);
      } catch (py::error_already_set& e) {
        e.discard_as_unraisable("p2b progress callback");
      }
    };
  }
  if (!log.is_none()) {
    auto callable = std::make_shared<py::object>(log);
    hooks.log = [callable](const std::string& line) {
      const py::gil_scoped_acquire locked;
      try {
        (*callable)(line);
      } catch (py::error_already_set& e) {
        e.discard_as_unraisable("p2b log callback");
      }
    };
  }
  return hooks;
}

py::dict tables_to_python(const tools::ResultTables& tables) {
  py::dict out;
  for (const auto& [name, table] : tables) {
    py::dict columns;
    for (size_t c = 0; c < table.columns().size(); ++c) {
      columns[py::str(table.columns()[c])] = column_to_python(table, c);
    }
    out[py::str(name)] = columns;
  }
  return out;
}

}  // namespace p2b::python
