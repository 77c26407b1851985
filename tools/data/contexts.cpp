// Features -> P2B contexts (docs/data.md, "Preprocessing"): min-max, PCA to
// dim components, min-max again, then rows normalised to sum 1.
#include <Eigen/Dense>
#include <string>

#include "data/multilabel.hpp"

namespace p2b::data {

namespace {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Each column to [0, 1] over the data set; a constant column becomes 0.
void min_max_columns(Matrix& m) {
  for (Eigen::Index c = 0; c < m.cols(); ++c) {
    // Halved, so that features near +-DBL_MAX cannot overflow the range.
    const double lo = m.col(c).minCoeff() / 2;
    const double range = m.col(c).maxCoeff() / 2 - lo;
    if (range > 0) {
      m.col(c) = ((m.col(c).array() / 2 - lo) / range).cwiseMin(1.0).matrix();
    } else {
      m.col(c).setZero();
    }
  }
}

// Top `dim` principal axes, largest variance first. An eigenvector's sign is
// arbitrary; fixing its largest entry positive makes the result repeatable.
Eigen::MatrixXd principal_axes(const Matrix& centred, size_t dim) {
  const double denom = centred.rows() > 1 ? static_cast<double>(centred.rows() - 1) : 1.0;
  const Eigen::MatrixXd cov = (centred.transpose() * centred) / denom;
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(cov);
  if (eig.info() != Eigen::Success) throw DataError("PCA: the eigen-solver did not converge");
  const Eigen::Index f = cov.cols();
  const auto d = static_cast<Eigen::Index>(dim);
  Eigen::MatrixXd axes(f, d);
  for (Eigen::Index j = 0; j < d; ++j) {
    Eigen::VectorXd v = eig.eigenvectors().col(f - 1 - j);  // eigenvalues ascend
    Eigen::Index arg = 0;
    v.cwiseAbs().maxCoeff(&arg);
    if (v(arg) < 0) v = -v;
    axes.col(j) = v;
  }
  return axes;
}

}  // namespace

std::vector<float> make_contexts(const LabeledTable& t, size_t dim) {
  const size_t f = t.feature_names.size();
  if (dim == 0 || dim > f) {
    throw DataError("context dimension " + std::to_string(dim) + " is not in 1.." +
                    std::to_string(f) + " (the number of features)");
  }
  if (t.rows == 0) return {};
  const auto n = static_cast<Eigen::Index>(t.rows);
  Matrix x = Eigen::Map<const Matrix>(t.features.data(), n, static_cast<Eigen::Index>(f));
  min_max_columns(x);
  x.rowwise() -= x.colwise().mean();
  Matrix z = x * principal_axes(x, dim);
  min_max_columns(z);
  std::vector<float> out(t.rows * dim);
  for (Eigen::Index r = 0; r < n; ++r) {
    const double sum = z.row(r).sum();
    for (size_t j = 0; j < dim; ++j) {
      const double v =
          sum > 0 ? z(r, static_cast<Eigen::Index>(j)) / sum : 1.0 / static_cast<double>(dim);
      out[static_cast<size_t>(r) * dim + j] = static_cast<float>(v);
    }
  }
  return out;
}

}  // namespace p2b::data
