// Deployment keys (the files p2b-keygen writes, through server/common's key
// file code) and the server halves tests need: opening an envelope with the
// shuffler's and the analyzer's keys (server/wire) and signing a model bundle
// an agent accepts.
#include <sodium.h>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "common/keyfiles.hpp"
#include "keygen/key_sets.hpp"
#include "p2b.h"
#include "wire/envelope_open.hpp"
#include "wire/model_bundle.hpp"

namespace py = pybind11;
namespace kf = p2b::keyfiles;

namespace p2b::python {
namespace {

// One of p2b-keygen's key sets (tools/keygen), under its file names: the
// same library the tool uses, so the files cannot differ.
py::dict make_key_set(std::optional<std::string> out_dir, const std::string& kind_name) {
  keygen::KeySetKind kind{};
  if (!keygen::key_set_kind(kind_name, &kind)) {
    throw py::value_error(
        "kind: expected 'p2b', 'vfl', 'fclub', 'fclub-local', "
        "'pfcb-consortium', 'pfcb-agent' or 'shuffler-spool', not '" +
        kind_name + "'");
  }
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialise");
  keygen::KeySet keys;
  keygen::generate(&keys);
  const keygen::KeyFiles files = keygen::key_files(keys, kind);
  if (out_dir) {
    std::string err;
    std::size_t done = 0;
    while (done < files.size() &&
           kf::create_key_file(*out_dir + "/" + files[done].name, files[done].bytes,
                               files[done].size, files[done].kind, &err)) {
      ++done;
    }
    if (done != files.size()) {  // all or nothing, as p2b-keygen
      for (std::size_t i = 0; i < done; ++i) std::remove((*out_dir + "/" + files[i].name).c_str());
      throw py::value_error(err + " (no key files were written)");
    }
  }
  py::dict out;
  for (const keygen::KeyFile& f : files) out[f.name] = to_bytes(f.bytes, f.size);
  return out;
}

py::bytes read_key(const std::string& path, std::size_t size) {
  std::vector<uint8_t> b(size);
  std::string err;
  if (!kf::read_key_file(path, b.data(), size, &err)) throw py::value_error(err);
  return to_bytes(b.data(), b.size());
}

std::string fingerprint_hex(const py::handle& pk) {
  const auto k = byte_vector(pk, P2B_KEY_BYTES, "public key");
  std::string hex;
  if (!kf::fingerprint_hex(k.data(), &hex)) throw std::runtime_error("fingerprint failed");
  return hex;
}

server::BoxKey box_key(const py::handle& pk, const py::handle& sk, const char* what) {
  const auto p = byte_vector(pk, P2B_KEY_BYTES, what);
  const auto s = byte_vector(sk, P2B_KEY_BYTES, what);
  server::BoxKey k{};
  if (!server::make_box_key(p.data(), s.data(), &k)) throw std::runtime_error("libsodium failed");
  return k;
}

py::dict open_envelope(const py::handle& envelope, const py::handle& shuffler_pk,
                       const py::handle& shuffler_sk, const py::handle& analyzer_pk,
                       const py::handle& analyzer_sk) {
  const auto env = byte_vector(envelope, 0, "envelope");
  const server::BoxKey shuffler = box_key(shuffler_pk, shuffler_sk, "shuffler key");
  const server::BoxKey analyzer = box_key(analyzer_pk, analyzer_sk, "analyzer key");
  server::OuterOpened outer{};
  server::OpenStatus s = server::open_outer(env.data(), env.size(), &shuffler, 1, &outer);
  if (s != server::OpenStatus::ok) {
    throw py::value_error(std::string("outer layer: ") + server::open_status_str(s));
  }
  server::InnerOpened inner{};
  s = server::open_inner(outer.inner, sizeof outer.inner, &analyzer, 1, &inner);
  if (s != server::OpenStatus::ok) {
    throw py::value_error(std::string("inner layer: ") + server::open_status_str(s));
  }
  return py::dict(py::arg("crowd_id") = outer.crowd_id, py::arg("code") = inner.code,
                  py::arg("action") = inner.action, py::arg("reward") = inner.reward,
                  py::arg("model_version") = inner.model_version);
}

// a: (K, d, d) float64, b: (K, d); the wire wants column-major matrices.
py::bytes sign_model(const py::handle& sign_sk, const py::handle& codebook_fp, const py::handle& a,
                     const py::handle& b, uint64_t version, uint32_t policy, double alpha,
                     double ridge_lambda, double ts_scale, std::optional<uint64_t> created_unix,
                     uint64_t not_after_unix, bool raw_baseline) {
  const auto sk = byte_vector(sign_sk, crypto_sign_SECRETKEYBYTES, "sign_sk");
  const auto fp = byte_vector(codebook_fp, P2B_FINGERPRINT_BYTES, "codebook_fp");
  const auto pa = float64_array(a, 3, "a");
  const auto pb = float64_array(b, 2, "b");
  const auto k = static_cast<uint32_t>(pa.shape(0));
  const auto d = static_cast<uint32_t>(pa.shape(1));
  if (pa.shape(2) != d || pb.shape(0) != k || pb.shape(1) != d) {
    throw py::value_error("a must be (K, d, d) and b (K, d)");
  }
  std::vector<double> col(static_cast<std::size_t>(k) * d * d);
  const auto ua = pa.unchecked<3>();
  for (uint32_t m = 0; m < k; ++m) {
    for (uint32_t i = 0; i < d; ++i) {
      for (uint32_t j = 0; j < d; ++j)
        col[(static_cast<std::size_t>(m) * d + j) * d + i] = ua(m, i, j);
    }
  }
  server::ModelSpec spec;
  spec.dim = d;
  spec.n_actions = k;
  spec.policy = policy;
  spec.alpha = alpha;
  spec.ridge_lambda = ridge_lambda;
  spec.ts_scale = ts_scale;
  std::memcpy(spec.codebook_fp, fp.data(), sizeof spec.codebook_fp);
  spec.version = version;
  spec.created_unix = created_unix.value_or(static_cast<uint64_t>(std::time(nullptr)));
  spec.not_after_unix = not_after_unix;
  spec.kind = raw_baseline ? P2B_MODEL_RAW_BASELINE : P2B_MODEL_PRIVATE;
  std::vector<uint8_t> out;
  std::string err;
  if (!server::build_model_bundle(spec, col.data(), pb.data(), sk.data(), &out, &err)) {
    throw py::value_error(err);
  }
  return to_bytes(out.data(), out.size());
}

// FCLUB's warm start: a cluster's Gram matrix S (d, d) and moment u (d).
py::bytes sign_shared_model(const py::handle& sign_sk, const py::handle& gram,
                            const py::handle& moment, uint64_t version, double ridge_lambda,
                            std::optional<uint64_t> created_unix, uint64_t not_after_unix) {
  const auto sk = byte_vector(sign_sk, crypto_sign_SECRETKEYBYTES, "sign_sk");
  const auto g = float64_array(gram, 2, "gram");
  const auto u = float64_array(moment, 1, "moment");
  const auto d = static_cast<uint32_t>(u.shape(0));
  if (g.shape(0) != d || g.shape(1) != d) throw py::value_error("gram must be (d, d), moment (d,)");
  std::vector<double> col(static_cast<std::size_t>(d) * d);
  const auto ug = g.unchecked<2>();
  for (uint32_t i = 0; i < d; ++i) {
    for (uint32_t j = 0; j < d; ++j) col[static_cast<std::size_t>(j) * d + i] = ug(i, j);
  }
  server::ModelSpec spec;
  spec.dim = d;
  spec.ridge_lambda = ridge_lambda;
  spec.version = version;
  spec.created_unix = created_unix.value_or(static_cast<uint64_t>(std::time(nullptr)));
  spec.not_after_unix = not_after_unix;
  std::vector<uint8_t> out;
  std::string err;
  if (!server::build_shared_model_bundle(spec, col.data(), u.data(), sk.data(), &out, &err)) {
    throw py::value_error(err);
  }
  return to_bytes(out.data(), out.size());
}

}  // namespace

void register_keys(py::module_& m) {
  m.def("_keygen", &make_key_set, py::arg("out_dir") = py::none(), py::arg("kind") = "p2b",
        "A fresh key set of p2b-keygen's kind as {file name: bytes}; with out_dir, also the "
        "files.");
  m.def("_read_key_file", &read_key, py::arg("path"), py::arg("size"),
        "A key file's bytes; ValueError unless it is exactly size bytes.");
  m.def("fingerprint_hex", &fingerprint_hex, py::arg("public_key"),
        "The lowercase hex BLAKE2b-128 fingerprint p2b-keygen prints for a public key.");
  m.def("_open_envelope", &open_envelope, py::arg("envelope"), py::arg("shuffler_pk"),
        py::arg("shuffler_sk"), py::arg("analyzer_pk"), py::arg("analyzer_sk"),
        "Opens both layers of an envelope as the shuffler and the analyzer do.");
  m.def("_sign_model", &sign_model, py::arg("sign_sk"), py::arg("codebook_fp"), py::arg("a"),
        py::arg("b"), py::arg("version"), py::arg("policy"), py::arg("alpha"),
        py::arg("ridge_lambda"), py::arg("ts_scale"), py::arg("created_unix") = py::none(),
        py::arg("not_after_unix") = 0, py::arg("raw_baseline") = false,
        "A signed model bundle as the analyzer builds it (server/wire/model_bundle).");
  m.def("_sign_shared_model", &sign_shared_model, py::arg("sign_sk"), py::arg("gram"),
        py::arg("moment"), py::arg("version"), py::arg("ridge_lambda"),
        py::arg("created_unix") = py::none(), py::arg("not_after_unix") = 0,
        "A signed shared-model warm start (server/wire/model_bundle, FCLUB's).");
}

}  // namespace p2b::python
