#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "data/weights_file.hpp"

namespace p2b::data {
namespace {

constexpr size_t kActions = 5;
constexpr size_t kDim = 3;

// The values tests/make_weights.py writes.
double w_ref(size_t a, size_t j) {
  return static_cast<double>(static_cast<long>((31 * a + 17 * j) % 23) - 11) / 7;
}
double b_ref(size_t a) {
  return (static_cast<double>(a) - 2) / 3;
}

void expect_reference(const Weights& w, bool w_float32 = false) {
  ASSERT_EQ(w.n_actions, kActions);
  ASSERT_EQ(w.dim, kDim);
  for (size_t a = 0; a < kActions; ++a) {
    for (size_t j = 0; j < kDim; ++j) {
      const double want = w_float32 ? static_cast<float>(w_ref(a, j)) : w_ref(a, j);
      EXPECT_EQ(w.w_at(a, j), want) << "W[" << a << "][" << j << "]";
    }
  }
}
void expect_reference_b(const Weights& w, bool float32 = false) {
  for (size_t a = 0; a < kActions; ++a) {
    const double want = float32 ? static_cast<float>(b_ref(a)) : b_ref(a);
    EXPECT_EQ(w.b[a], want) << "b[" << a << "]";
  }
}

std::string error_of(const std::string& bytes, const WeightsShape& expected = {}) {
  try {
    parse_weights(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "mem", expected);
  } catch (const WeightsError& e) {
    return e.what();
  }
  return "";
}

// A hand-made .npy: version 1.0 header padded to 64 bytes, then `body`.
std::string npy(const std::string& dict, const std::string& body, char major = 1) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out("\x93NUMPY", 6);
  out += major;
  out += '\0';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + body;
}
std::string doubles(std::initializer_list<double> v) {
  std::string s(v.size() * 8, '\0');
  std::memcpy(s.data(), v.begin(), s.size());
  return s;
}

// The WeightsError `load` throws, or "" when it loads.
template <typename Load>
std::string err(Load&& load) {
  try {
    load();
  } catch (const WeightsError& e) {
    return e.what();
  }
  return "";
}

class Reference : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* dir = std::getenv("P2B_WEIGHTS_REF_DIR");
    if (!dir) GTEST_SKIP() << "P2B_WEIGHTS_REF_DIR unset: run through ctest (make_weights.py)";
    dir_ = dir;
  }
  std::string path(const char* name) const { return dir_ + "/" + name; }
  std::string dir_;
};

TEST_F(Reference, SingleArrayNpyInEveryLayout) {
  for (const char* name : {"combined_f8.npy", "combined_be.npy", "combined_fortran.npy",
                           "combined_v2.npy", "combined_v3.npy", "weights.csv", "single.npz"}) {
    SCOPED_TRACE(name);
    const Weights w = load_weights(path(name), {kActions, kDim});
    expect_reference(w);
    expect_reference_b(w);
  }
  const Weights f4 = load_weights(path("combined_f4.npy"));
  expect_reference(f4, true);
  expect_reference_b(f4, true);
}

TEST_F(Reference, NpzStoredAndDeflated) {
  const Weights w = load_weights(path("weights.npz"), {kActions, kDim});
  expect_reference(w);
  expect_reference_b(w);
  const Weights c = load_weights(path("weights_compressed.npz"), {kActions, kDim});
  expect_reference(c, true);  // W saved as float32
  expect_reference_b(c);
}

TEST_F(Reference, TwoFiles) {
  for (const auto& [w_name, b_name] :
       {std::pair{"W.npy", "b.npy"}, std::pair{"W.csv", "b.csv"}, std::pair{"W.npy", "b.csv"}}) {
    SCOPED_TRACE(w_name);
    const Weights w = load_weights_pair(path(w_name), path(b_name), {kActions, kDim});
    expect_reference(w);
    expect_reference_b(w);
  }
}

TEST_F(Reference, ShapeMismatchesAreRefused) {
  EXPECT_EQ(err([&] {
              load_weights(path("combined_f8.npy"), {10, kDim});
            }),
            path("combined_f8.npy") + ": holds |A| = 5, d = 3; expected |A| = 10, d = 3");
  EXPECT_EQ(err([&] {
              load_weights_pair(path("W_wrong.npy"), path("b.npy"), {kActions, kDim});
            }),
            path("W_wrong.npy") + ": holds |A| = 5, d = 2; expected |A| = 5, d = 3");
  EXPECT_EQ(err([&] { load_weights_pair(path("W.npy"), path("W.npy")); }),
            path("W.npy") + ": b has shape (5, 3), not a vector");
  EXPECT_EQ(err([&] { load_weights(path("b.npy")); }),
            path("b.npy") + ": shape (5,) is not (|A|, d + 1) with d >= 1");
  EXPECT_EQ(
      err([&] { load_weights(path("other_names.npz")); }),
      path("other_names.npz") +
          ": needs entries W.npy and b.npy, kernel.npy and bias.npy (Keras), or a single array; "
          "holds [weights.npy, bias.npy]");
  EXPECT_EQ(err([&] { load_weights(path("missing.npy")); }), path("missing.npy") + ": cannot open");
}

TEST_F(Reference, KerasKernelIsTransposed) {
  for (const char* name : {"keras.npz", "keras_scoped.npz"}) {
    const Weights w = load_weights(path(name), {kActions, kDim});
    expect_reference(w);
    expect_reference_b(w);
    EXPECT_EQ(w.layout, "W (d, |A|), transposed (Keras names)") << name;
  }
  // The names fix the layout: a flag that contradicts them is refused.
  EXPECT_EQ(err([&] {
              load_weights(path("keras.npz"), {0, 0, WeightsLayout::actions_by_dim});
            }),
            path("keras.npz") +
                "/kernel.npy: the entry names say W is (d, |A|), --weights-layout says (|A|, d)");
  EXPECT_EQ(err([&] { load_weights(path("both_names.npz")); }),
            path("both_names.npz") + ": holds both W/b and kernel/bias: which is meant?");
}

TEST_F(Reference, TransposedFilesAreDetectedFromTheShapes) {
  // W (d, |A|) beside b of |A| values: b's length says which axis is |A|.
  const Weights pair = load_weights_pair(path("W_T.npy"), path("b.npy"), {kActions, kDim});
  expect_reference(pair);
  EXPECT_EQ(pair.layout, "W (d, |A|), transposed");
  // One array (d + 1, |A|): only the expected (|A|, d) can tell, and does.
  const Weights combined = load_weights(path("combined_T.npy"), {kActions, kDim});
  expect_reference(combined);
  expect_reference_b(combined);
  EXPECT_EQ(combined.layout, "(d + 1, |A|), b in the last row, transposed");
  // Told the wrong layout, the shapes no longer fit: refused, not misread.
  EXPECT_NE(err([&] {
              load_weights_pair(path("W_T.npy"), path("b.npy"),
                                {kActions, kDim, WeightsLayout::actions_by_dim});
            }),
            "");
}

TEST_F(Reference, ASquareWIsReadByNamesOrFlagsOrRefused) {
  const WeightsShape square{3, 3};
  // No names: a square W cannot be told from its transpose.
  EXPECT_EQ(err([&] { load_weights_pair(path("Wsq.npy"), path("bsq.npy"), square); }),
            path("Wsq.npy") +
                ": W (3, 3) with b of 3 fits both (|A|, d) and (d, |A|); say which with "
                "--weights-layout actions-by-dim or dim-by-actions (Keras's kernel is "
                "dim-by-actions)");
  const Weights as_is =
      load_weights_pair(path("Wsq.npy"), path("bsq.npy"), {3, 3, WeightsLayout::actions_by_dim});
  const Weights flipped =
      load_weights_pair(path("Wsq.npy"), path("bsq.npy"), {3, 3, WeightsLayout::dim_by_actions});
  const Weights ours = load_weights(path("square_ours.npz"), square);
  const Weights keras = load_weights(path("square_keras.npz"), square);
  for (size_t a = 0; a < 3; ++a) {
    for (size_t j = 0; j < 3; ++j) {
      EXPECT_EQ(as_is.w_at(a, j), w_ref(a, j));
      EXPECT_EQ(flipped.w_at(a, j), w_ref(j, a));
      EXPECT_EQ(ours.w_at(a, j), w_ref(a, j));   // W/b: (|A|, d) as documented
      EXPECT_EQ(keras.w_at(a, j), w_ref(a, j));  // kernel = W^T, transposed back
    }
  }
}

TEST_F(Reference, CorruptNpzIsRefused) {
  std::ifstream f(path("weights.npz"), std::ios::binary);
  std::string zip((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const size_t data = zip.find("\x93NUMPY");
  ASSERT_NE(data, std::string::npos);
  std::string bad = zip;
  bad[data + 130] ^= 1;  // inside W's values
  EXPECT_EQ(error_of(bad), "mem: W.npy: CRC-32 mismatch");
  EXPECT_EQ(error_of(zip.substr(0, zip.size() - 30)),
            "mem: not a zip archive (no end-of-central-directory record)");

  std::ifstream fc(path("weights_compressed.npz"), std::ios::binary);
  std::string cz((std::istreambuf_iterator<char>(fc)), std::istreambuf_iterator<char>());
  cz[60] ^= 0x55;  // inside W's deflate stream
  EXPECT_NE(error_of(cz), "");
}

TEST(Npy, HandMadeArrays) {
  const std::string ok =
      npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 3), }", doubles({1.5, -2, 0.25}));
  EXPECT_EQ(error_of(ok), "");
  const Weights w = parse_weights(reinterpret_cast<const uint8_t*>(ok.data()), ok.size(), "m");
  EXPECT_EQ(w.w, (std::vector<double>{1.5, -2}));
  EXPECT_EQ(w.b, (std::vector<double>{0.25}));
}

TEST(Npy, MalformedHeadersAndDataAreRefused) {
  const std::string body = doubles({1, 2});
  const auto with = [&](const std::string& dict) { return error_of(npy(dict, body)); };
  EXPECT_EQ(with("{'descr': '<i8', 'fortran_order': False, 'shape': (1, 2), }"),
            "mem: dtype '<i8' unsupported (need <f4, <f8, >f4 or >f8)");
  EXPECT_EQ(with("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 3), }"),
            "mem: data is 16 bytes, shape and dtype need 24");
  EXPECT_EQ(with("{'descr': '<f8', 'fortran_order': Maybe, 'shape': (1, 2), }"),
            "mem: npy header: fortran_order is not True or False");
  EXPECT_EQ(with("{'descr': '<f8', 'shape': (1, 2), }"),
            "mem: npy header: needs descr, fortran_order and shape");
  EXPECT_EQ(with("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1, 2)}"),
            "mem: npy header: unexpected or repeated key 'descr'");
  EXPECT_EQ(with("{'descr': '<f8', 'fortran_order': False, 'shape': (1, -2), }"),
            "mem: npy header: shape entry is not a non-negative integer");
  EXPECT_EQ(with("{'descr': '<f8', 'fortran_order': False, 'shape': (999999999999999, "
                 "999999999999999), }"),
            "mem: more than 16777216 values");
  EXPECT_EQ(error_of(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }", body, 4)),
            "mem: unsupported .npy version 4");
  EXPECT_EQ(error_of(std::string("\x93NUMPY\x01\x00\xff\x00{", 11)),
            "mem: header runs past the end of the file");
  EXPECT_EQ(error_of(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }",
                         doubles({1, std::numeric_limits<double>::infinity()}))),
            "mem: value 1 (C order) is not finite");
}

TEST(Csv, ErrorsNameTheLine) {
  EXPECT_EQ(error_of("1,2,3\n4,5\n"), "mem:2: 2 values, earlier rows have 3");
  EXPECT_EQ(error_of("# header\n1,x,3\n"), "mem:2: field 2 ('x') is not a finite number");
  EXPECT_EQ(error_of("1,2,\n"), "mem:1: field 3 ('') is not a finite number");
  EXPECT_EQ(error_of("\n# nothing\n"), "mem: no numbers (empty CSV)");
  EXPECT_EQ(error_of("1\n2\n"), "mem: shape (2, 1) is not (|A|, d + 1) with d >= 1");
  // (2, 2) is (|A|, d + 1) and (d + 1, |A|) at once: auto refuses, a layout decides.
  EXPECT_EQ(error_of("1,2\n3,4\n", {2, 1}),
            "mem: shape (2, 2) fits both (|A|, d) and (d, |A|); say which with --weights-layout "
            "actions-by-dim or dim-by-actions (Keras's kernel is dim-by-actions)");
  EXPECT_EQ(error_of("1,2\n3,4\n", {2, 1, WeightsLayout::actions_by_dim}), "");
  EXPECT_EQ(error_of("1,2\n3,4\n", {2, 1, WeightsLayout::dim_by_actions}), "");
  EXPECT_EQ(error_of("1,2\n3,4\n", {2, 2}), "mem: holds |A| = 2, d = 1; expected |A| = 2, d = 2");
}

}  // namespace
}  // namespace p2b::data
