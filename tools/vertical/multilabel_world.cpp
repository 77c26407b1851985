#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "data/arff.hpp"
#include "data/multilabel.hpp"
#include "vertical/world.hpp"

namespace p2b::vertical {
namespace {

using Mat = Eigen::MatrixXd;

// Party-local preprocessing: standardise the block's columns, keep its top
// `r` principal components, whitened, so each component has unit variance.
Mat local_components(const Mat& block, uint32_t r) {
  Mat z = block.rowwise() - block.colwise().mean();
  for (Eigen::Index c = 0; c < z.cols(); ++c) {
    const double sd = std::sqrt(z.col(c).squaredNorm() / static_cast<double>(z.rows()));
    z.col(c) = sd > 0 ? Eigen::VectorXd(z.col(c) / sd) : Eigen::VectorXd::Zero(z.rows());
  }
  const Mat cov = z.transpose() * z / static_cast<double>(z.rows());
  const Eigen::SelfAdjointEigenSolver<Mat> eig(cov);
  const Eigen::Index n = std::min<Eigen::Index>(r, z.cols());
  Mat out = Mat::Zero(z.rows(), r);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::Index col = z.cols() - 1 - i;  // eigenvalues ascend
    const double lambda = std::max(eig.eigenvalues()[col], 1e-12);
    out.col(i) = z * eig.eigenvectors().col(col) / std::sqrt(lambda);
  }
  return out;
}

class MultiLabel final : public World {
 public:
  MultiLabel(const data::LabeledTable& t, uint32_t parties, uint32_t r, uint64_t seed)
      : k_(static_cast<uint32_t>(t.label_names.size())), r_(r), m_(parties), rng_(seed) {
    const auto rows = static_cast<Eigen::Index>(t.rows);
    const auto p = static_cast<Eigen::Index>(t.feature_names.size());
    const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>
        all(t.features.data(), rows, p);
    user_ = Mat::Zero(rows, static_cast<Eigen::Index>(m_) * r_);
    for (uint32_t j = 0; j < m_; ++j) {
      const Eigen::Index lo = p * j / m_;
      const Eigen::Index hi = p * (j + 1) / m_;
      user_.middleCols(static_cast<Eigen::Index>(j) * r_, r_) =
          local_components(all.middleCols(lo, hi - lo), r_);
      feature_blocks_.push_back(static_cast<uint32_t>(hi - lo));
    }
    // Scaled so that a user's vector has about unit norm.
    user_ /= std::sqrt(static_cast<double>(m_ * r_ + 1));
    bias_ = 1.0 / std::sqrt(static_cast<double>(m_ * r_ + 1));
    labels_ = t.labels;
    partition_.push_back(k_ * (r_ + 1));
    for (uint32_t j = 1; j < m_; ++j) partition_.push_back(k_ * r_);
    order_.resize(t.rows);
    std::iota(order_.begin(), order_.end(), 0);
    std::shuffle(order_.begin(), order_.end(), rng_);
    rows_ = t.rows;
    name_ = t.note;
  }
  uint32_t dim() const override { return k_ * (m_ * r_ + 1); }
  uint32_t items() const override { return k_; }
  const vfl::Partition& partition() const override { return partition_; }
  std::string describe() const override {
    std::string blocks;
    for (const uint32_t b : feature_blocks_)
      blocks += (blocks.empty() ? "" : ",") + std::to_string(b);
    return "multi-label: " + std::to_string(rows_) + " rows, " + std::to_string(k_) +
           " labels as items; raw feature blocks " + blocks + " -> " + std::to_string(r_) +
           " local components each; d = " + std::to_string(dim());
  }
  void draw(Round* out) override {
    if (next_ == rows_) {  // a new pass, in a new order
      std::shuffle(order_.begin(), order_.end(), rng_);
      next_ = 0;
    }
    const std::size_t row = order_[next_++];
    const uint32_t d = dim();
    out->contexts.assign(static_cast<std::size_t>(k_) * d, 0.0);
    out->mean.resize(k_);
    out->realised.resize(k_);
    for (uint32_t a = 0; a < k_; ++a) {
      double* x = out->contexts.data() + static_cast<std::size_t>(a) * d;
      // Party 0: [bias, its r components] in label a's slot.
      const std::size_t own = static_cast<std::size_t>(a) * (r_ + 1);
      x[own] = bias_;
      for (uint32_t c = 0; c < r_; ++c) x[own + 1 + c] = user_(row, c);
      for (uint32_t j = 1; j < m_; ++j) {
        const std::size_t base = static_cast<std::size_t>(k_) * (r_ + 1) +
                                 static_cast<std::size_t>(j - 1) * k_ * r_ +
                                 static_cast<std::size_t>(a) * r_;
        for (uint32_t c = 0; c < r_; ++c) x[base + c] = user_(row, j * r_ + c);
      }
      out->mean[a] = labels_[row * k_ + a];
      out->realised[a] = out->mean[a];
    }
  }

 private:
  uint32_t k_;
  uint32_t r_;
  uint32_t m_;
  std::mt19937_64 rng_;
  Mat user_;
  double bias_ = 1.0;
  std::vector<uint8_t> labels_;
  vfl::Partition partition_;
  std::vector<uint32_t> feature_blocks_;
  std::vector<std::size_t> order_;
  std::size_t next_ = 0;
  std::size_t rows_ = 0;
  std::string name_;
};

}  // namespace

std::unique_ptr<World> multilabel_world(const std::string& arff_path, const std::string& labels,
                                        uint32_t parties, uint32_t components, uint64_t seed,
                                        std::string* err) {
  try {
    const data::ArffTable table = data::load_arff(arff_path);
    const data::LabeledTable t = data::split_labels(table, data::LabelSpec::parse(labels));
    if (t.rows == 0 || t.feature_names.size() < parties || parties == 0 || components == 0) {
      *err = "need at least one row and one feature per party";
      return nullptr;
    }
    return std::make_unique<MultiLabel>(t, parties, components, seed);
  } catch (const std::exception& e) {
    *err = e.what();
    return nullptr;
  }
}

}  // namespace p2b::vertical
