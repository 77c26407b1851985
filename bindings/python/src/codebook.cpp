// The codebook trainer behind p2b-codebook (tools/codebook/train.hpp), the
// codebook file format (encode here, parse through the C API), for Python.
// The trainer's report comes back as lines and its progress through a
// callback, never on stdout: p2b/codebook.py hands both to logging and tqdm.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "codebook/train.hpp"
#include "codebook/train_summary.hpp"
#include "p2b.h"
#include "p2b/codebook_format.hpp"
#include "posix/sodium_port.hpp"
#include "status_error.hpp"

namespace py = pybind11;

namespace p2b::python {
namespace {

py::dict train(uint32_t dim, uint32_t codes, uint32_t digits, uint64_t seed, unsigned threads,
               bool mini_batch, bool no_refine, std::size_t batch_size, int max_iterations,
               int max_no_improvement, const py::object& on_status) {
  codebook::TrainOptions o;
  o.dim = dim;
  o.codes = codes;
  o.digits = digits;
  o.seed = seed;
  o.threads = threads;
  o.mini_batch = mini_batch;
  o.refine = !no_refine;
  o.batch_size = batch_size;
  o.max_iterations = max_iterations;
  o.max_no_improvement = max_no_improvement;
  if (!on_status.is_none()) {
    // Called from the training loop, which runs without the GIL. An
    // exception it raises (KeyboardInterrupt in a progress bar) unwinds
    // the training and reaches the caller.
    o.on_status = [&on_status](const char* text) {
      const py::gil_scoped_acquire locked;
      on_status(std::string(text));
    };
  }
  codebook::TrainResult r;
  {
    const py::gil_scoped_release unlocked;
    r = codebook::train_codebook(o);  // std::invalid_argument -> ValueError
  }
  py::list report;
  codebook::write_train_summary(o, r, nullptr,
                                [&report](const std::string& text) { report.append(text); });
  py::array_t<float> c({static_cast<py::ssize_t>(codes), static_cast<py::ssize_t>(dim)});
  std::memcpy(c.mutable_data(), r.centroids.data(), r.centroids.size() * sizeof(float));
  return py::dict(
      py::arg("centroids") = c, py::arg("inertia") = r.stats.inertia,
      py::arg("sizes") = py::array_t<uint64_t>(r.stats.sizes.size(), r.stats.sizes.data()),
      py::arg("grid") = r.grid, py::arg("whole") = r.whole, py::arg("iterations") = r.iterations,
      py::arg("seconds") = r.seconds, py::arg("report") = report);
}

py::bytes encode(const py::handle& centroids, uint32_t digits) {
  const auto c = float32_array(centroids, 2, "centroids");
  const auto k = static_cast<uint32_t>(c.shape(0));
  const auto d = static_cast<uint32_t>(c.shape(1));
  std::size_t size = 0;
  if (encoded_codebook_size(c.data(), k, d, digits, &size) != Status::ok) {
    throw py::value_error("codebook cannot be encoded (k, d or digits out of range)");
  }
  std::vector<uint8_t> out(size);
  std::size_t written = 0;
  if (encode_codebook(port::sodium_crypto(), c.data(), k, d, digits, out.data(), out.size(),
                      &written) != Status::ok) {
    throw py::value_error("codebook encoding failed (non-finite centroids?)");
  }
  return to_bytes(out.data(), written);
}

py::tuple parse(const py::handle& file) {
  const auto bytes = byte_vector(file, 0, "codebook file");
  std::vector<float> c(static_cast<std::size_t>(p2b_max_codes()) * p2b_max_dim());
  p2b_codebook_info info{};
  check(p2b_codebook_parse(bytes.data(), bytes.size(), c.data(), c.size(), &info),
        "p2b_codebook_parse");
  py::array_t<float> out({static_cast<py::ssize_t>(info.k), static_cast<py::ssize_t>(info.dim)});
  std::memcpy(out.mutable_data(), c.data(), sizeof(float) * info.k * info.dim);
  return py::make_tuple(
      out,
      py::dict(py::arg("k") = info.k, py::arg("dim") = info.dim, py::arg("digits") = info.digits,
               py::arg("fingerprint") = to_bytes(info.fingerprint, sizeof info.fingerprint)));
}

}  // namespace

void register_codebook(py::module_& m) {
  m.def("train_codebook", &train, py::arg("dim"), py::arg("codes"), py::kw_only(),
        py::arg("digits") = 1, py::arg("seed") = 0, py::arg("threads") = 1,
        py::arg("mini_batch") = false, py::arg("no_refine") = false, py::arg("batch_size") = 4096,
        py::arg("max_iterations") = 1000, py::arg("max_no_improvement") = 10,
        py::arg("on_status") = py::none(),
        R"doc(The trainer behind p2b.train_codebook (use that): the same dict plus
report, p2b-codebook's report as a list of lines; on_status(line) is called
with each progress line, holding the GIL.)doc");
  m.def("encode_codebook", &encode, py::arg("centroids"), py::arg("digits") = 1,
        "The codebook file bytes (the format p2b-codebook writes) of k x d float32 centroids.");
  m.def("parse_codebook", &parse, py::arg("data"),
        "Parses codebook file bytes: (centroids k x d float32, info dict with k, dim, digits, "
        "fingerprint).");
}

}  // namespace p2b::python
