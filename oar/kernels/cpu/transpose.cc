#include "oar/kernels/cpu/transpose.h"

#include <immintrin.h>

#include <algorithm>

#include "oar/core/error.h"
#include "oar/core/parallel.h"

namespace oar::kernels {
namespace {

constexpr int64_t kTile = 16;
constexpr int64_t kParallelElements = 1 << 18;  // below this one thread beats waking another

// dst[j][i] = src[i][j] over an 8 x 8 block of 4-byte elements: eight row loads, three rounds of
// shuffles, eight row stores (the build's baseline has AVX2).
inline void block8x8(const float* src, int64_t lds, float* dst, int64_t ldd) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(src + i * lds);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    t[i] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x20);
    t[i + 4] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x31);
  }
  for (int i = 0; i < 8; ++i) _mm256_storeu_ps(dst + i * ldd, t[i]);
}

template <typename T>
void tile(const T* src, int64_t i0, int64_t i1, int64_t j0, int64_t j1, int64_t lds, T* dst, int64_t ldd) {
  int64_t i = i0;
  if constexpr (sizeof(T) == 4) {
    // Whole 8 x 8 blocks in registers; the edges below.
    for (; i + 8 <= i1; i += 8) {
      int64_t j = j0;
      for (; j + 8 <= j1; j += 8)
        block8x8(reinterpret_cast<const float*>(src + i * lds + j), lds, reinterpret_cast<float*>(dst + j * ldd + i),
                 ldd);
      for (; j < j1; ++j)
        for (int64_t ii = i; ii < i + 8; ++ii) dst[j * ldd + ii] = src[ii * lds + j];
    }
  }
  for (int64_t j = j0; j < j1; ++j)
    for (int64_t ii = i; ii < i1; ++ii) dst[j * ldd + ii] = src[ii * lds + j];
}

template <typename T>
void transpose_tiles(const T* src, int64_t rows, int64_t cols, int64_t lds, T* dst, int64_t ldd) {
  const int64_t row_tiles = (rows + kTile - 1) / kTile;
  auto body = [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t i0 = t * kTile, i1 = std::min(rows, i0 + kTile);
      for (int64_t j0 = 0; j0 < cols; j0 += kTile) tile(src, i0, i1, j0, std::min(cols, j0 + kTile), lds, dst, ldd);
    }
  };
  if (rows * cols >= kParallelElements) parallel_for(0, row_tiles, 1, body);
  else body(0, row_tiles);
}

}  // namespace

void transpose_2d(const void* src, int64_t rows, int64_t cols, int64_t lds, void* dst, int64_t ldd,
                  size_t element_size) {
  switch (element_size) {
    case 1: return transpose_tiles(static_cast<const uint8_t*>(src), rows, cols, lds, static_cast<uint8_t*>(dst), ldd);
    case 2: return transpose_tiles(static_cast<const uint16_t*>(src), rows, cols, lds, static_cast<uint16_t*>(dst), ldd);
    case 4: return transpose_tiles(static_cast<const uint32_t*>(src), rows, cols, lds, static_cast<uint32_t*>(dst), ldd);
    case 8: return transpose_tiles(static_cast<const uint64_t*>(src), rows, cols, lds, static_cast<uint64_t*>(dst), ldd);
    default: OAR_THROW(Unimplemented, "transpose_2d: elements of ", element_size, " bytes are not supported");
  }
}

}  // namespace oar::kernels
