#include "oar/kernels/cpu/conv.h"

#include "oar/core/cpu_isa.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/conv_onednn.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/elementwise.h"
#include "oar/kernels/cpu/shape.h"
#include "oar/kernels/cpu/im2col.h"
#include "oar/kernels/cpu/matmul.h"

namespace oar::kernels {

bool ConvShape::pointwise() const {
  for (int d = 0; d < 3; ++d)
    if (k[d] != 1 || stride[d] != 1 || pad[d] != 0 || in[d] != out[d]) return false;
  return true;
}

ConvShape conv_shape(const Shape& x, const Shape& weight, const Shape& y, const IntArray& stride,
                     const IntArray& padding, const IntArray& dilation, int64_t groups,
                     bool channel_last) {
  ConvShape s;
  s.nd = static_cast<int>(x.size()) - 2;
  OAR_ENFORCE_ARG(s.nd >= 1 && s.nd <= 3, "conv: expected 1 to 3 spatial dims, got x of shape ",
                  shape_str(x));
  s.N = x[0];
  s.C = channel_last ? x.back() : x[1];
  s.M = weight[0];
  s.G = groups;
  s.channel_last = channel_last;
  const int first = 3 - s.nd;
  const int sp0 = channel_last ? 1 : 2;  // the first spatial dim in x and y
  for (int d = 0; d < s.nd; ++d) {
    s.in[first + d] = x[sp0 + d];
    s.out[first + d] = y[sp0 + d];
    s.k[first + d] = weight[2 + d];
    s.stride[first + d] = stride[d];
    s.dil[first + d] = dilation[d];
    s.pad[first + d] = padding[2 * d];
    s.pad_after[first + d] = padding[2 * d + 1];
  }
  return s;
}

namespace {

// C (+)= op(A) @ op(B), row-major, in float or double.
inline void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda,
                 const float* B, int64_t ldb, float* C, int64_t ldc, bool accumulate) {
  sgemm(ta, tb, M, N, K, 1.0f, A, lda, B, ldb, accumulate ? 1.0f : 0.0f, C, ldc);
}
inline void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const double* A,
                 int64_t lda, const double* B, int64_t ldb, double* C, int64_t ldc,
                 bool accumulate) {
  dgemm(ta, tb, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

// Runs f(n, scratch, slot) for every image n. Images go to threads when there are enough of
// them to share evenly; otherwise one after another, each GEMM and im2col threading itself.
// `slot` (< get_num_threads()) numbers the thread's share, `scratch` is `scratch_elems` of T.
template <typename T, typename F>
void for_each_image(int64_t N, int64_t scratch_elems, const F& f) {
  const int64_t threads = get_num_threads();
  const bool by_image = threads > 1 && N > 1 && (N % threads == 0 || N >= 4 * threads);
  const int64_t n_scratch = std::max<int64_t>(scratch_elems, 1);
  if (!by_image) {
    Tensor buf = Tensor::make({n_scratch}, dtype_of<T>);
    for (int64_t n = 0; n < N; ++n) f(n, buf.data<T>(), 0);
    return;
  }
  std::atomic<int> next_slot{0};
  parallel_for(0, N, 1, [&](int64_t b, int64_t e) {
    const int slot = next_slot++;
    Tensor buf = Tensor::make({n_scratch}, dtype_of<T>);
    for (int64_t n = b; n < e; ++n) f(n, buf.data<T>(), slot);
  });
}

// Channel-last GEMMs want the weights as [G][k..., C/G][M/G]: wt[g][(i, j, l, c)][m] =
// w[g * Mg + m][c][i][j][l] (and back for the weight gradient).
template <typename T>
void weights_to_cl(const ConvShape& s, const T* w, T* wt) {
  const int64_t Mg = s.M / s.G, Cg = s.C / s.G, kv = s.k_size(), K = Cg * kv;
  for (int64_t g = 0; g < s.G; ++g)
    for (int64_t m = 0; m < Mg; ++m)
      for (int64_t c = 0; c < Cg; ++c)
        for (int64_t q = 0; q < kv; ++q)
          wt[(g * K + q * Cg + c) * Mg + m] = w[((g * Mg + m) * Cg + c) * kv + q];
}
template <typename T>
void weights_from_cl(const ConvShape& s, const T* wt, T* w) {
  const int64_t Mg = s.M / s.G, Cg = s.C / s.G, kv = s.k_size(), K = Cg * kv;
  for (int64_t g = 0; g < s.G; ++g)
    for (int64_t m = 0; m < Mg; ++m)
      for (int64_t c = 0; c < Cg; ++c)
        for (int64_t q = 0; q < kv; ++q)
          w[((g * Mg + m) * Cg + c) * kv + q] = wt[(g * K + q * Cg + c) * Mg + m];
}

// ---- im2col + GEMM (float64 always, float32 when oneDNN declines) ----

template <typename T>
void forward_gemm(const ConvShape& s, const T* x, const T* w, const T* bias, T* y) {
  const int64_t G = s.G, Cg = s.C / G, Mg = s.M / G, P = s.out_size(), X = s.in_size();
  const int64_t K = Cg * s.k_size();
  const bool direct = s.pointwise();
  std::vector<T> wt;
  if (s.channel_last) {
    wt.resize(static_cast<size_t>(G * K * Mg));
    weights_to_cl(s, w, wt.data());
  }
  for_each_image<T>(s.N, direct ? 0 : K * P, [&](int64_t n, T* col, int) {
    const T* xn = x + n * s.C * X;
    T* yn = y + n * s.M * P;
    if (!s.channel_last) {
      for (int64_t g = 0; g < G; ++g) {
        const T* xg = xn + g * Cg * X;
        if (!direct) im2col(s, xg, Cg, col);
        T* yg = yn + g * Mg * P;
        if (bias)
          for (int64_t m = 0; m < Mg; ++m) std::fill(yg + m * P, yg + (m + 1) * P, bias[g * Mg + m]);
        gemm(false, false, Mg, P, K, w + g * Mg * K, K, direct ? xg : col, P, yg, P, bias != nullptr);
      }
      return;
    }
    if (bias)
      for (int64_t p = 0; p < P; ++p) std::copy(bias, bias + s.M, yn + p * s.M);
    for (int64_t g = 0; g < G; ++g) {
      if (!direct) im2col_cl(s, xn, g * Cg, Cg, col);
      gemm(false, false, P, Mg, K, direct ? xn + g * Cg : col, direct ? s.C : K,
           wt.data() + g * K * Mg, Mg, yn + g * Mg, s.M, bias != nullptr);
    }
  });
}

template <typename T>
void backward_data_gemm(const ConvShape& s, const T* dy, const T* w, T* dx) {
  const int64_t G = s.G, Cg = s.C / G, Mg = s.M / G, P = s.out_size(), X = s.in_size();
  const int64_t K = Cg * s.k_size();
  const bool direct = s.pointwise();
  std::vector<T> wt;
  if (s.channel_last) {
    wt.resize(static_cast<size_t>(G * K * Mg));
    weights_to_cl(s, w, wt.data());
  }
  for_each_image<T>(s.N, direct ? 0 : K * P, [&](int64_t n, T* col, int) {
    const T* dyn = dy + n * s.M * P;
    T* dxn = dx + n * s.C * X;
    if (!direct) std::fill(dxn, dxn + s.C * X, T(0));
    if (!s.channel_last) {
      for (int64_t g = 0; g < G; ++g) {
        T* dxg = dxn + g * Cg * X;
        // dcol[K, P] = W_g^T @ dy_g, then scattered back onto the image.
        gemm(true, false, K, P, Mg, w + g * Mg * K, K, dyn + g * Mg * P, P, direct ? dxg : col,
             P, false);
        if (!direct) col2im(s, col, Cg, dxg);
      }
      return;
    }
    for (int64_t g = 0; g < G; ++g) {
      // dcol[P, K] = dy_g[P, Mg] @ wt_g^T.
      gemm(false, true, P, K, Mg, dyn + g * Mg, s.M, wt.data() + g * K * Mg, Mg,
           direct ? dxn + g * Cg : col, direct ? s.C : K, false);
      if (!direct) col2im_cl(s, col, g * Cg, Cg, dxn);
    }
  });
}

template <typename T>
void backward_weight_gemm(const ConvShape& s, const T* x, const T* dy, T* dw) {
  const int64_t G = s.G, Cg = s.C / G, Mg = s.M / G, P = s.out_size(), X = s.in_size();
  const int64_t K = Cg * s.k_size(), W = G * Mg * K;
  const bool direct = s.pointwise();
  // One accumulator per thread share (slot), summed at the end; channel-last ones hold the
  // [G][K][Mg] layout.
  const int64_t slots = get_num_threads();
  std::vector<T> acc(static_cast<size_t>(slots * W), T(0));
  std::vector<char> used(static_cast<size_t>(slots), 0);
  for_each_image<T>(s.N, direct ? 0 : K * P, [&](int64_t n, T* col, int slot) {
    T* a = acc.data() + slot * W;
    const T* xn = x + n * s.C * X;
    const T* dyn = dy + n * s.M * P;
    used[slot] = 1;
    for (int64_t g = 0; g < G; ++g) {
      if (!s.channel_last) {
        const T* xg = xn + g * Cg * X;
        if (!direct) im2col(s, xg, Cg, col);
        // dW_g[Mg, K] += dy_g[Mg, P] @ col[K, P]^T
        gemm(false, true, Mg, K, P, dyn + g * Mg * P, P, direct ? xg : col, P, a + g * Mg * K, K,
             true);
      } else {
        if (!direct) im2col_cl(s, xn, g * Cg, Cg, col);
        // dWt_g[K, Mg] += col[P, K]^T @ dy_g[P, Mg]
        gemm(true, false, K, Mg, P, direct ? xn + g * Cg : col, direct ? s.C : K, dyn + g * Mg,
             s.M, a + g * K * Mg, Mg, true);
      }
    }
  });
  for (int64_t t = 1; t < slots; ++t) {
    if (!used[t]) continue;
    const T* src = acc.data() + t * W;
    for (int64_t i = 0; i < W; ++i) acc[i] += src[i];
  }
  if (s.channel_last) weights_from_cl(s, acc.data(), dw);
  else std::copy(acc.begin(), acc.begin() + W, dw);
}

// ---- dtype dispatch ----

// float16/bfloat16: compute in float32 copies.
Tensor as_f32(const Tensor& t) {
  if (!t.defined()) return t;
  Tensor r = Tensor::make(t.shape(), DType::Float32);
  copy(t, r);
  return r;
}

bool is_half(DType d) { return d == DType::Float16 || d == DType::BFloat16; }

// bfloat16 computed in bfloat16 by oneDNN (else converted to float32 and back).
bool native_bf16(DType d, const Tensor& out) {
  return d == DType::BFloat16 && cpu_has_bf16_dot() && out.is_contiguous();
}

template <typename T>
const T* ptr_or_null(const Tensor& t) {
  return t.defined() ? static_cast<const T*>(t.raw_data()) : nullptr;
}

// Fills `out` with the bias per channel (or zeros): a convolution over nothing.
void fill_bias(const ConvShape& s, const Tensor& bias, const Tensor& out) {
  if (!bias.defined()) {
    fill(out, Scalar(0));
    return;
  }
  Strides st(out.ndim(), 0);  // the bias broadcast along every dim but the channel one
  st[s.channel_last ? out.ndim() - 1 : 1] = bias.strides()[0];
  copy(Tensor::make_view(bias, out.shape(), st, bias.offset()), out);
}

}  // namespace

void conv_forward(const Tensor& x0, const Tensor& w0, const Tensor& b0, const IntArray& stride,
                  const IntArray& padding, const IntArray& dilation, int64_t groups,
                  bool channel_last, const Tensor& out) {
  if (out.numel() == 0) return;
  const ConvShape s = conv_shape(x0.shape(), w0.shape(), out.shape(), stride, padding, dilation,
                                 groups, channel_last);
  if (x0.numel() == 0 || w0.numel() == 0) return fill_bias(s, b0, out);
  const DType dt = x0.dtype();
  if (native_bf16(dt, out)) {
    const Tensor x = as_contiguous(x0), w = as_contiguous(w0), b = as_f32(b0);
    if (onednn::conv_forward_bf16(s, x.raw_data(), w.raw_data(), ptr_or_null<float>(b), out.raw_data())) return;
  }
  if (is_half(dt)) {
    Tensor o32 = Tensor::make(out.shape(), DType::Float32);
    conv_forward(as_f32(x0), as_f32(w0), as_f32(b0), stride, padding, dilation, groups,
                 channel_last, o32);
    copy(o32, out);
    return;
  }
  const Tensor x = as_contiguous(x0), w = as_contiguous(w0), b = as_contiguous(b0);
  if (dt == DType::Float32) {
    const float* xp = static_cast<const float*>(x.raw_data());
    const float* wp = static_cast<const float*>(w.raw_data());
    float* yp = static_cast<float*>(out.raw_data());
    if (onednn::conv_forward(s, xp, wp, ptr_or_null<float>(b), yp, w.storage())) return;
    return forward_gemm<float>(s, xp, wp, ptr_or_null<float>(b), yp);
  }
  if (dt == DType::Float64) {
    return forward_gemm<double>(s, static_cast<const double*>(x.raw_data()),
                                static_cast<const double*>(w.raw_data()), ptr_or_null<double>(b),
                                static_cast<double*>(out.raw_data()));
  }
  unsupported_dtype("conv", dt, "float16, bfloat16, float32, float64");
}

void conv_backward_data(const Tensor& dy0, const Tensor& w0, const IntArray& stride,
                        const IntArray& padding, const IntArray& dilation, int64_t groups,
                        bool channel_last, const Tensor& dx) {
  if (dx.numel() == 0) return;
  if (dy0.numel() == 0 || w0.numel() == 0) return fill(dx, Scalar(0));
  const ConvShape s = conv_shape(dx.shape(), w0.shape(), dy0.shape(), stride, padding, dilation,
                                 groups, channel_last);
  const DType dt = dy0.dtype();
  if (native_bf16(dt, dx)) {
    const Tensor dy = as_contiguous(dy0), w = as_contiguous(w0);
    if (onednn::conv_backward_data_bf16(s, dy.raw_data(), w.raw_data(), dx.raw_data())) return;
  }
  if (is_half(dt)) {
    Tensor d32 = Tensor::make(dx.shape(), DType::Float32);
    conv_backward_data(as_f32(dy0), as_f32(w0), stride, padding, dilation, groups, channel_last,
                       d32);
    copy(d32, dx);
    return;
  }
  const Tensor dy = as_contiguous(dy0), w = as_contiguous(w0);
  if (dt == DType::Float32) {
    const float* dyp = static_cast<const float*>(dy.raw_data());
    const float* wp = static_cast<const float*>(w.raw_data());
    float* dxp = static_cast<float*>(dx.raw_data());
    if (onednn::conv_backward_data(s, dyp, wp, dxp)) return;
    return backward_data_gemm<float>(s, dyp, wp, dxp);
  }
  if (dt == DType::Float64) {
    return backward_data_gemm<double>(s, static_cast<const double*>(dy.raw_data()),
                                      static_cast<const double*>(w.raw_data()),
                                      static_cast<double*>(dx.raw_data()));
  }
  unsupported_dtype("conv", dt, "float16, bfloat16, float32, float64");
}

void conv_backward_weight(const Tensor& x0, const Tensor& dy0, const IntArray& stride,
                          const IntArray& padding, const IntArray& dilation, int64_t groups,
                          bool channel_last, const Tensor& dw) {
  if (dw.numel() == 0) return;
  if (x0.numel() == 0 || dy0.numel() == 0) return fill(dw, Scalar(0));
  const ConvShape s = conv_shape(x0.shape(), dw.shape(), dy0.shape(), stride, padding, dilation,
                                 groups, channel_last);
  const DType dt = x0.dtype();
  if (native_bf16(dt, dw)) {
    const Tensor x = as_contiguous(x0), dy = as_contiguous(dy0);
    if (onednn::conv_backward_weight_bf16(s, x.raw_data(), dy.raw_data(), dw.raw_data())) return;
  }
  if (is_half(dt)) {
    Tensor d32 = Tensor::make(dw.shape(), DType::Float32);
    conv_backward_weight(as_f32(x0), as_f32(dy0), stride, padding, dilation, groups,
                         channel_last, d32);
    copy(d32, dw);
    return;
  }
  const Tensor x = as_contiguous(x0), dy = as_contiguous(dy0);
  if (dt == DType::Float32) {
    const float* xp = static_cast<const float*>(x.raw_data());
    const float* dyp = static_cast<const float*>(dy.raw_data());
    float* dwp = static_cast<float*>(dw.raw_data());
    if (onednn::conv_backward_weight(s, xp, dyp, dwp)) return;
    return backward_weight_gemm<float>(s, xp, dyp, dwp);
  }
  if (dt == DType::Float64) {
    return backward_weight_gemm<double>(s, static_cast<const double*>(x.raw_data()),
                                        static_cast<const double*>(dy.raw_data()),
                                        static_cast<double*>(dw.raw_data()));
  }
  unsupported_dtype("conv", dt, "float16, bfloat16, float32, float64");
}

}  // namespace oar::kernels
