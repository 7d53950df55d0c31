#include "oar/kernels/cpu/fused_elementwise.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <unordered_map>

#include "oar/core/error.h"
#include "oar/core/parallel.h"
#include "oar/kernels/cpu/vec_math.h"

namespace oar::kernels {

namespace {

// Elements per block: the registers of one block (4 KB each in float32) stay in L1/L2.
constexpr int64_t kBlock = 1024;

// The unary kernels' op for a fused opcode, for the vectorised (SLEEF) spans of vec_math.h.
UnaryOp unary_op_of(FusedEwOp op) {
  switch (op) {
    case FusedEwOp::Relu: return UnaryOp::Relu;
    case FusedEwOp::Exp: return UnaryOp::Exp;
    case FusedEwOp::Tanh: return UnaryOp::Tanh;
    case FusedEwOp::Sigmoid: return UnaryOp::Sigmoid;
    case FusedEwOp::Neg: return UnaryOp::Neg;
    case FusedEwOp::Sqrt: return UnaryOp::Sqrt;
    case FusedEwOp::Abs: return UnaryOp::Abs;
    case FusedEwOp::Log: return UnaryOp::Log;
    case FusedEwOp::Square: return UnaryOp::Square;
    case FusedEwOp::Silu: return UnaryOp::Silu;
    case FusedEwOp::Gelu: return UnaryOp::Gelu;
    default: return UnaryOp::Rsqrt;
  }
}

template <typename T>
SpanFn<T> vec_span(FusedEwOp op) {
  if constexpr (std::is_same_v<T, float>) return vec_span_f32(unary_op_of(op));
  else return vec_span_f64(unary_op_of(op));
}

// One step over a block: the switch is outside the element loops, so each loop vectorises.
template <typename T>
void unary_block(FusedEwOp op, const T* x, T* r, int64_t n) {
  switch (op) {
    case FusedEwOp::Relu: for (int64_t k = 0; k < n; ++k) r[k] = x[k] > T(0) ? x[k] : T(0); return;
    case FusedEwOp::Exp: for (int64_t k = 0; k < n; ++k) r[k] = std::exp(x[k]); return;
    case FusedEwOp::Tanh: for (int64_t k = 0; k < n; ++k) r[k] = std::tanh(x[k]); return;
    case FusedEwOp::Sigmoid: for (int64_t k = 0; k < n; ++k) r[k] = T(1) / (T(1) + std::exp(-x[k])); return;
    case FusedEwOp::Neg: for (int64_t k = 0; k < n; ++k) r[k] = -x[k]; return;
    case FusedEwOp::Sqrt: for (int64_t k = 0; k < n; ++k) r[k] = std::sqrt(x[k]); return;
    case FusedEwOp::Abs: for (int64_t k = 0; k < n; ++k) r[k] = std::abs(x[k]); return;
    case FusedEwOp::Log: for (int64_t k = 0; k < n; ++k) r[k] = std::log(x[k]); return;
    case FusedEwOp::Square: for (int64_t k = 0; k < n; ++k) r[k] = x[k] * x[k]; return;
    case FusedEwOp::Silu: for (int64_t k = 0; k < n; ++k) r[k] = x[k] / (T(1) + std::exp(-x[k])); return;
    case FusedEwOp::Gelu:
      for (int64_t k = 0; k < n; ++k) r[k] = T(0.5) * x[k] * (T(1) + std::erf(x[k] * T(M_SQRT1_2)));
      return;
    case FusedEwOp::Rsqrt: for (int64_t k = 0; k < n; ++k) r[k] = T(1) / std::sqrt(x[k]); return;
    default: return;  // unreachable: infer_meta checked the codes
  }
}

template <typename T>
void binary_block(FusedEwOp op, const T* x, const T* y, T* r, int64_t n) {
  switch (op) {
    case FusedEwOp::Add: for (int64_t k = 0; k < n; ++k) r[k] = x[k] + y[k]; return;
    case FusedEwOp::Sub: for (int64_t k = 0; k < n; ++k) r[k] = x[k] - y[k]; return;
    case FusedEwOp::Mul: for (int64_t k = 0; k < n; ++k) r[k] = x[k] * y[k]; return;
    case FusedEwOp::Div: for (int64_t k = 0; k < n; ++k) r[k] = x[k] / y[k]; return;
    // NaN propagates as in the maximum/minimum kernels.
    case FusedEwOp::Max:
      for (int64_t k = 0; k < n; ++k) r[k] = std::isnan(x[k]) || std::isnan(y[k]) ? x[k] + y[k] : (x[k] > y[k] ? x[k] : y[k]);
      return;
    case FusedEwOp::Min:
      for (int64_t k = 0; k < n; ++k) r[k] = std::isnan(x[k]) || std::isnan(y[k]) ? x[k] + y[k] : (x[k] < y[k] ? x[k] : y[k]);
      return;
    default: return;
  }
}

template <typename T>
void run(const std::vector<Tensor>& inputs, const IntArray& program, const Tensor& out) {
  const size_t n_in = inputs.size(), n_steps = program.size() / 3;
  std::vector<const T*> in(n_in);
  std::vector<Tensor> keep;  // contiguous copies of strided inputs
  for (size_t i = 0; i < n_in; ++i) {
    keep.push_back(inputs[i].contiguous());
    in[i] = keep.back().data<T>();
  }
  // Decoded once: the op, its registers and, for unary ops, the vectorised span when there is one.
  struct Step {
    FusedEwOp op;
    int64_t a, b;
    bool binary;
    SpanFn<T> vec;
  };
  std::vector<Step> steps(n_steps);
  for (size_t s = 0; s < n_steps; ++s) {
    const auto op = static_cast<FusedEwOp>(program[3 * s]);
    const bool binary = fused_ew_is_binary(program[3 * s]);
    steps[s] = {op, program[3 * s + 1], program[3 * s + 2], binary, binary ? nullptr : vec_span<T>(op)};
  }
  T* o = out.data<T>();
  parallel_for(0, out.numel(), kBlock * 4, [&](int64_t begin, int64_t end) {
    // One buffer per computed register; input registers point into the inputs.
    std::vector<T> regs(n_steps * kBlock);
    std::vector<const T*> src(n_in + n_steps);
    for (int64_t b = begin; b < end; b += kBlock) {
      const int64_t len = std::min(kBlock, end - b);
      for (size_t i = 0; i < n_in; ++i) src[i] = in[i] + b;
      for (size_t s = 0; s < n_steps; ++s) {
        const Step& st = steps[s];
        T* r = s + 1 == n_steps ? o + b : regs.data() + s * kBlock;
        if (st.binary) binary_block(st.op, src[st.a], src[st.b], r, len);
        else if (st.vec) st.vec(src[st.a], r, len);
        else unary_block(st.op, src[st.a], r, len);
        src[n_in + s] = r;
      }
    }
  });
}

}  // namespace

void fused_elementwise(const std::vector<Tensor>& inputs, const IntArray& program, const Tensor& out) {
  if (out.numel() == 0) return;
  if (out.dtype() == DType::Float32) return run<float>(inputs, program, out);
  if (out.dtype() == DType::Float64) return run<double>(inputs, program, out);
  OAR_THROW(TypeMismatch, "fused_elementwise: expected float32 or float64, got ", dtype_name(out.dtype()));
}

}  // namespace oar::kernels
