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
// Only Eigen's MPL-2.0 code may reach the device library (NOTICE): a header
// under another licence then fails to compile instead of slipping in.
#ifndef EIGEN_MPL2_ONLY
#define EIGEN_MPL2_ONLY
#endif

#include <Eigen/Core>
