// The single place the core includes Eigen, so its configuration is uniform.
#pragma once

// Scalar (non-SIMD) kernels keep the summation order identical on SSE, NEON
// and Cortex-M, which is what makes one seed give one action sequence everywhere.
#ifndef EIGEN_DONT_VECTORIZE
#define EIGEN_DONT_VECTORIZE
#endif
#ifndef EIGEN_NO_IO
#define EIGEN_NO_IO
#endif

#include <Eigen/Core>
