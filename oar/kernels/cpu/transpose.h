// Out-of-place 2-D transposes: dst[j][i] = src[i][j] for a rows x cols source whose rows are
// lds elements apart, into dst whose rows (cols of them, each rows long) are ldd elements apart.
// Tiles of 16 x 16 keep both the reads and the writes inside a few cache lines at a time (a
// row-by-row walk touches a new line of dst for every element); large ones run threaded.
// Inside a parallel region the caller's thread does all of it.
#pragma once
#include <cstdint>

namespace oar::kernels {

void transpose_2d(const float* src, int64_t rows, int64_t cols, int64_t lds, float* dst, int64_t ldd);
void transpose_2d(const double* src, int64_t rows, int64_t cols, int64_t lds, double* dst, int64_t ldd);

}  // namespace oar::kernels
