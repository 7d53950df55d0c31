// What the convolution and pooling kernels share: a batched image tensor seen as (n, c,
// spatial position), whatever its layout, and row-major positions over spatial extents.
// Contract: channel-first tensors are [N, C, S0, S1, ...], channel-last ones [N, S0, S1, ..., C];
// a spatial position is a flat row-major index over S0, S1, ...; offsets are in elements.
#pragma once

#include <cstdint>
#include <vector>

#include "plugins/custom_cpu/kernel_util.h"

namespace oar_custom_cpu {

struct ImageView {
  int64_t N = 0, C = 0;
  std::vector<int64_t> spatial;         // extents S0, S1, ...
  int64_t n_stride = 0, c_stride = 0;
  std::vector<int64_t> pos_offset;      // element offset of each flat spatial position

  int64_t positions() const { return static_cast<int64_t>(pos_offset.size()); }
  int64_t at(int64_t n, int64_t c, int64_t pos) const { return n * n_stride + c * c_stride + pos_offset[pos]; }
};

// The coordinates of the flat row-major position `pos` over `extents`.
inline void unflatten(int64_t pos, const std::vector<int64_t>& extents, int64_t* coord) {
  for (size_t d = extents.size(); d-- > 0;) {
    coord[d] = pos % extents[d];
    pos /= extents[d];
  }
}

// t (shape and strides) as an image batch; channel_last puts C last. t needs >= 3 dims.
inline ImageView image_view(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides, bool channel_last,
                            const char* role) {
  const int nd = static_cast<int>(shape.size());
  if (nd < 3) fail("'%s' must have batch, channel and spatial dimensions, got shape %s", role, shape_str(shape).c_str());
  ImageView v;
  const int c_dim = channel_last ? nd - 1 : 1, sp0 = channel_last ? 1 : 2;
  v.N = shape[0];
  v.C = shape[c_dim];
  v.n_stride = strides[0];
  v.c_stride = strides[c_dim];
  v.spatial.assign(shape.begin() + sp0, shape.begin() + sp0 + (nd - 2));
  const std::vector<int64_t> sp_strides(strides.begin() + sp0, strides.begin() + sp0 + (nd - 2));
  const int64_t P = shape_numel(v.spatial);
  v.pos_offset.resize(static_cast<size_t>(P));
  std::vector<int64_t> coord(nd - 2);
  for (int64_t p = 0; p < P; ++p) {
    unflatten(p, v.spatial, coord.data());
    int64_t off = 0;
    for (int d = 0; d < nd - 2; ++d) off += coord[d] * sp_strides[d];
    v.pos_offset[p] = off;
  }
  return v;
}

inline ImageView image_view(const TensorDesc& t, bool channel_last, const char* role) {
  return image_view(t.shape, t.strides, channel_last, role);
}

// An IntArray attribute with exactly n entries.
inline std::vector<int64_t> ints_attr_n(const OarKernelContext* ctx, const char* name, size_t n) {
  std::vector<int64_t> v = ints_attr(ctx, name);
  if (v.size() != n) fail("attribute '%s' has %zu entries, expected %zu", name, v.size(), n);
  return v;
}

}  // namespace oar_custom_cpu
