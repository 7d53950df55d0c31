// Out-of-place 2-D transposes: dst[j][i] = src[i][j] for a rows x cols source whose rows are
// lds elements apart, into dst whose rows (cols of them, each rows long) are ldd elements apart.
// Elements are moved as bits (any 1-, 2-, 4- or 8-byte type). Tiles keep both the reads and the
// writes inside a few cache lines at a time (a row-by-row walk touches a new line of dst for every
// element); 4-byte tiles of 8 x 8 are transposed in AVX registers. Large transposes run threaded;
// inside a parallel region the caller's thread does all of it.
#pragma once
#include <cstddef>
#include <cstdint>

namespace oar::kernels {

void transpose_2d(const void* src, int64_t rows, int64_t cols, int64_t lds, void* dst, int64_t ldd,
                  size_t element_size);

inline void transpose_2d(const float* src, int64_t rows, int64_t cols, int64_t lds, float* dst, int64_t ldd) {
  transpose_2d(src, rows, cols, lds, dst, ldd, sizeof(float));
}

}  // namespace oar::kernels
