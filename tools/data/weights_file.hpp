// Weights of the synthetic environment r = beta * map(W x + b) + z
// (P2B section 5.1): W is |A| x d, b has |A| entries. Read from NumPy .npy
// or .npz, or CSV; conventions in docs/data.md ("Weights files"):
//   one .npy or CSV:  shape (|A|, d + 1), each row is W's row then b
//   .npz:             entries W.npy (|A|, d) and b.npy (|A|,); or Keras's
//                     kernel.npy (d, |A|, the transpose) and bias.npy (|A|,);
//                     or one array in the single-file convention
//   two files:        W (|A|, d) and b (|A|,) (CSV: one column or one row)
// The format comes from the content (npy and zip magic, otherwise CSV),
// never from the file name. Orientation: Keras entry names fix it; else the
// layout asked for; else (auto) the shapes, i.e. b's length or the expected
// (|A|, d); a file both orientations fit is refused under auto, since a
// missing transpose of a square W runs silently on another environment.
// Every problem is a WeightsError naming the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace p2b::data {

struct Weights {
  size_t n_actions = 0;
  size_t dim = 0;
  std::vector<double> w;  // n_actions x dim, row-major, finite
  std::vector<double> b;  // n_actions, finite
  std::string layout;     // how the file was read, e.g. "Keras kernel (d, |A|), transposed"

  double w_at(size_t action, size_t j) const { return w[action * dim + j]; }
};

// How W is laid out in a file whose entry names do not say it.
enum class WeightsLayout {
  auto_detect,     // from b's length or the expected shape; ambiguous: refused
  actions_by_dim,  // W is (|A|, d): ours, and NumPy's natural W x
  dim_by_actions,  // W is (d, |A|): Keras's kernel, x W
};

// What the caller needs; 0 accepts whatever the file holds.
struct WeightsShape {
  size_t n_actions = 0;
  size_t dim = 0;
  WeightsLayout layout = WeightsLayout::auto_detect;
};

struct WeightsLimits {
  size_t max_file_bytes = size_t{1} << 28;
  size_t max_values = size_t{1} << 24;  // per array
};

class WeightsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// From memory; `name` is used in error messages.
Weights parse_weights(const uint8_t* data, size_t size, const std::string& name,
                      const WeightsShape& expected = {}, const WeightsLimits& limits = {});
Weights parse_weights_pair(const uint8_t* w_data, size_t w_size, const std::string& w_name,
                           const uint8_t* b_data, size_t b_size, const std::string& b_name,
                           const WeightsShape& expected = {}, const WeightsLimits& limits = {});

Weights load_weights(const std::string& path, const WeightsShape& expected = {},
                     const WeightsLimits& limits = {});
Weights load_weights_pair(const std::string& w_path, const std::string& b_path,
                          const WeightsShape& expected = {}, const WeightsLimits& limits = {});

}  // namespace p2b::data
