#include "oar/kernels/cpu/transpose.h"

#include <algorithm>

#include "oar/core/parallel.h"

namespace oar::kernels {
namespace {

constexpr int64_t kTile = 16;
constexpr int64_t kParallelElements = 1 << 18;  // below this one thread beats waking another

template <typename T>
void transpose_tiles(const T* src, int64_t rows, int64_t cols, int64_t lds, T* dst, int64_t ldd) {
  const int64_t row_tiles = (rows + kTile - 1) / kTile;
  auto body = [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t i0 = t * kTile, i1 = std::min(rows, i0 + kTile);
      for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
        const int64_t j1 = std::min(cols, j0 + kTile);
        for (int64_t j = j0; j < j1; ++j)
          for (int64_t i = i0; i < i1; ++i) dst[j * ldd + i] = src[i * lds + j];
      }
    }
  };
  if (rows * cols >= kParallelElements) parallel_for(0, row_tiles, 1, body);
  else body(0, row_tiles);
}

}  // namespace

void transpose_2d(const float* src, int64_t rows, int64_t cols, int64_t lds, float* dst, int64_t ldd) {
  transpose_tiles(src, rows, cols, lds, dst, ldd);
}
void transpose_2d(const double* src, int64_t rows, int64_t cols, int64_t lds, double* dst, int64_t ldd) {
  transpose_tiles(src, rows, cols, lds, dst, ldd);
}

}  // namespace oar::kernels
