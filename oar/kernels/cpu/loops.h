// Strided elementwise loops over up to a few operands with broadcasting.
// Dimensions are coalesced where strides allow, then the innermost run of each chunk is handed
// to the body as (pointers, byte strides, length), so contiguous runs vectorise.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/core/tensor.h"

namespace oar::kernels {

constexpr int64_t kElementwiseGrain = 32768;

// Byte strides of t broadcast to `shape` (0 where t has size 1 or lacks the dimension).
std::vector<int64_t> broadcast_byte_strides(const Tensor& t, const Shape& shape);

template <int N>
class StridedLoop {
 public:
  // operands[0] is usually the output; all are viewed with `shape`.
  StridedLoop(const Shape& shape, const std::array<char*, N>& base,
              const std::array<std::vector<int64_t>, N>& strides)
      : base_(base) {
    // Drop size-1 dims, then merge dims d and d+1 when every operand is contiguous across them.
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] == 1) continue;
      std::array<int64_t, N> st;
      for (int k = 0; k < N; ++k) st[k] = strides[k][d];
      if (!shape_.empty()) {
        bool merge = true;
        for (int k = 0; k < N; ++k) merge &= strides_.back()[k] == st[k] * shape[d];
        if (merge) {
          shape_.back() *= shape[d];
          strides_.back() = st;
          continue;
        }
      }
      shape_.push_back(shape[d]);
      strides_.push_back(st);
    }
    numel_ = 1;
    for (int64_t s : shape_) numel_ *= s;
    if (shape_.empty()) {  // a single element
      shape_.push_back(1);
      strides_.push_back(std::array<int64_t, N>{});
    }
    if (shape.size() > 0 && numel_of(shape) == 0) numel_ = 0;
  }

  int64_t numel() const { return numel_; }
  const std::array<int64_t, N>& inner_strides() const { return strides_.back(); }

  // body(char* const* ptrs, const int64_t* strides, int64_t n), called on inner runs.
  template <typename Body>
  void run(const Body& body, int64_t grain = kElementwiseGrain) const {
    if (numel_ == 0) return;
    const int64_t inner = shape_.back();
    const int nd = static_cast<int>(shape_.size());
    parallel_for(0, numel_, grain, [&](int64_t begin, int64_t end) {
      // Multi-index of `begin` over the coalesced shape.
      std::vector<int64_t> idx(nd, 0);
      int64_t rem = begin;
      for (int d = nd - 1; d >= 0; --d) {
        idx[d] = rem % shape_[d];
        rem /= shape_[d];
      }
      int64_t pos = begin;
      while (pos < end) {
        std::array<char*, N> ptrs;
        for (int k = 0; k < N; ++k) {
          char* p = base_[k];
          for (int d = 0; d < nd; ++d) p += idx[d] * strides_[d][k];
          ptrs[k] = p;
        }
        const int64_t n = std::min(inner - idx[nd - 1], end - pos);
        body(ptrs.data(), strides_.back().data(), n);
        pos += n;
        idx[nd - 1] += n;
        for (int d = nd - 1; d > 0 && idx[d] >= shape_[d]; --d) {
          idx[d] = 0;
          ++idx[d - 1];
        }
      }
    });
  }

 private:
  std::array<char*, N> base_;
  Shape shape_;
  std::vector<std::array<int64_t, N>> strides_;
  int64_t numel_ = 0;
};

// out[i] = f(x[i]) with x broadcast to out's shape.
template <typename Out, typename In, typename F>
void unary_loop(const Tensor& x, const Tensor& out, const F& f) {
  if (x.is_contiguous() && out.is_contiguous() && x.shape() == out.shape()) {  // fast path
    Out* o = static_cast<Out*>(out.raw_data());
    const In* a = static_cast<const In*>(x.raw_data());
    parallel_for(0, out.numel(), kElementwiseGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) o[i] = f(a[i]);
    });
    return;
  }
  StridedLoop<2> loop(out.shape(), {static_cast<char*>(out.raw_data()), static_cast<char*>(x.raw_data())},
                      {broadcast_byte_strides(out, out.shape()), broadcast_byte_strides(x, out.shape())});
  loop.run([&](char* const* p, const int64_t* s, int64_t n) {
    Out* o = reinterpret_cast<Out*>(p[0]);
    const In* a = reinterpret_cast<const In*>(p[1]);
    if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
    } else if (s[0] == sizeof(Out) && s[1] == 0) {
      const Out v = f(a[0]);
      for (int64_t i = 0; i < n; ++i) o[i] = v;
    } else {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<Out*>(p[0] + i * s[0]) = f(*reinterpret_cast<const In*>(p[1] + i * s[1]));
    }
  });
}

// out[i] = f(a[i], b[i]) with broadcasting.
template <typename Out, typename A, typename B, typename F>
void binary_loop(const Tensor& a, const Tensor& b, const Tensor& out, const F& f) {
  const Shape& shape = out.shape();
  if (a.is_contiguous() && b.is_contiguous() && out.is_contiguous() && a.shape() == shape) {
    Out* o = static_cast<Out*>(out.raw_data());
    const A* x = static_cast<const A*>(a.raw_data());
    const B* y = static_cast<const B*>(b.raw_data());
    if (b.shape() == shape) {  // same shapes: one flat loop
      parallel_for(0, out.numel(), kElementwiseGrain, [&](int64_t s, int64_t e) {
        for (int64_t i = s; i < e; ++i) o[i] = f(x[i], y[i]);
      });
      return;
    }
    if (b.numel() == 1) {  // tensor with a scalar
      const B yv = y[0];
      parallel_for(0, out.numel(), kElementwiseGrain, [&](int64_t s, int64_t e) {
        for (int64_t i = s; i < e; ++i) o[i] = f(x[i], yv);
      });
      return;
    }
  }
  StridedLoop<3> loop(shape,
                      {static_cast<char*>(out.raw_data()), static_cast<char*>(a.raw_data()),
                       static_cast<char*>(b.raw_data())},
                      {broadcast_byte_strides(out, shape), broadcast_byte_strides(a, shape),
                       broadcast_byte_strides(b, shape)});
  loop.run([&](char* const* p, const int64_t* s, int64_t n) {
    Out* o = reinterpret_cast<Out*>(p[0]);
    const A* x = reinterpret_cast<const A*>(p[1]);
    const B* y = reinterpret_cast<const B*>(p[2]);
    if (s[0] == sizeof(Out) && s[1] == sizeof(A) && s[2] == sizeof(B)) {
      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
    } else if (s[0] == sizeof(Out) && s[1] == sizeof(A) && s[2] == 0) {
      const B yv = y[0];
      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], yv);
    } else if (s[0] == sizeof(Out) && s[1] == 0 && s[2] == sizeof(B)) {
      const A xv = x[0];
      for (int64_t i = 0; i < n; ++i) o[i] = f(xv, y[i]);
    } else {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<Out*>(p[0] + i * s[0]) = f(*reinterpret_cast<const A*>(p[1] + i * s[1]),
                                                     *reinterpret_cast<const B*>(p[2] + i * s[2]));
    }
  });
}

// out[i] = f(a[i], b[i], c[i]) with broadcasting.
template <typename Out, typename A, typename B, typename C, typename F>
void ternary_loop(const Tensor& a, const Tensor& b, const Tensor& c, const Tensor& out, const F& f) {
  const Shape& shape = out.shape();
  StridedLoop<4> loop(shape,
                      {static_cast<char*>(out.raw_data()), static_cast<char*>(a.raw_data()),
                       static_cast<char*>(b.raw_data()), static_cast<char*>(c.raw_data())},
                      {broadcast_byte_strides(out, shape), broadcast_byte_strides(a, shape),
                       broadcast_byte_strides(b, shape), broadcast_byte_strides(c, shape)});
  loop.run([&](char* const* p, const int64_t* s, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<Out*>(p[0] + i * s[0]) = f(*reinterpret_cast<const A*>(p[1] + i * s[1]),
                                                   *reinterpret_cast<const B*>(p[2] + i * s[2]),
                                                   *reinterpret_cast<const C*>(p[3] + i * s[3]));
  });
}

}  // namespace oar::kernels
