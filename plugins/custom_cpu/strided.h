// The one N-d iterator every kernel is built on.
// Contract: StridedWalker<N> visits the elements of `shape` in row-major order (the last
// dimension fastest) and hands the callback, for each, the element offsets of N operands
// (sum over dimensions of index * stride). Operands are aligned to `shape` beforehand (see
// broadcast_strides in kernel_util.h): a stride of 0 repeats an operand along that dimension.
// A 0-d shape has one element; a shape with a 0 extent has none. Strides are in elements.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace oar_custom_cpu {

// Row-major strides of a contiguous tensor of `shape`.
inline std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t step = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = step;
    step *= shape[d];
  }
  return strides;
}

inline int64_t shape_numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

template <int N>
class StridedWalker {
 public:
  StridedWalker() = default;
  StridedWalker(std::vector<int64_t> shape, std::array<std::vector<int64_t>, N> strides)
      : shape_(std::move(shape)), strides_(std::move(strides)) {}

  int64_t numel() const { return shape_numel(shape_); }

  // f(const std::array<int64_t, N>& offsets), once per element.
  template <typename F>
  void run(F&& f) const {
    const int64_t total = numel();
    const int nd = static_cast<int>(shape_.size());
    std::vector<int64_t> index(nd, 0);
    std::array<int64_t, N> offsets{};
    for (int64_t i = 0; i < total; ++i) {
      f(offsets);
      // Odometer step: bump the last dimension, carrying into earlier ones.
      for (int d = nd - 1; d >= 0; --d) {
        if (++index[d] < shape_[d]) {
          for (int k = 0; k < N; ++k) offsets[k] += strides_[k][d];
          break;
        }
        for (int k = 0; k < N; ++k) offsets[k] -= strides_[k][d] * (shape_[d] - 1);
        index[d] = 0;
      }
    }
  }

 private:
  std::vector<int64_t> shape_;
  std::array<std::vector<int64_t>, N> strides_;
};

}  // namespace oar_custom_cpu
