// Post-processing that keeps a released matrix usable by devices, which
// factor A (Cholesky) and refuse a model that is not positive definite.
#pragma once

#include <cstdint>

namespace p2b::dp {

// Makes the symmetric column-major dim x dim matrix `a` have every
// eigenvalue >= `floor` (> 0): eigenvalues below it are raised to it and the
// matrix rebuilt (then symmetrised exactly). A matrix whose eigenvalues are
// all >= floor already is left bit for bit. Returns whether it changed.
bool raise_eigenvalues(double* a, uint32_t dim, double floor);

}  // namespace p2b::dp
