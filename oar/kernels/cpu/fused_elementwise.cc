#include "oar/kernels/cpu/fused_elementwise.h"

#include <cmath>
#include <unordered_map>

#include "oar/core/error.h"
#include "oar/core/parallel.h"

namespace oar::kernels {

namespace {

// Elements per block: the registers of one block (a few KB each) stay in L1/L2.
constexpr int64_t kBlock = 512;

template <typename T>
T apply_unary(FusedEwOp op, T x) {
  switch (op) {
    case FusedEwOp::Relu: return x > T(0) ? x : T(0);
    case FusedEwOp::Exp: return std::exp(x);
    case FusedEwOp::Tanh: return std::tanh(x);
    case FusedEwOp::Sigmoid: return T(1) / (T(1) + std::exp(-x));
    case FusedEwOp::Neg: return -x;
    case FusedEwOp::Sqrt: return std::sqrt(x);
    case FusedEwOp::Abs: return std::abs(x);
    case FusedEwOp::Log: return std::log(x);
    case FusedEwOp::Square: return x * x;
    case FusedEwOp::Silu: return x / (T(1) + std::exp(-x));
    case FusedEwOp::Gelu: return T(0.5) * x * (T(1) + std::erf(x * T(M_SQRT1_2)));
    case FusedEwOp::Rsqrt: return T(1) / std::sqrt(x);
    default: return x;  // unreachable: infer_meta checked the codes
  }
}

template <typename T>
T apply_binary(FusedEwOp op, T a, T b) {
  switch (op) {
    case FusedEwOp::Add: return a + b;
    case FusedEwOp::Sub: return a - b;
    case FusedEwOp::Mul: return a * b;
    case FusedEwOp::Div: return a / b;
    // NaN propagates as in the maximum/minimum kernels.
    case FusedEwOp::Max: return std::isnan(a) || std::isnan(b) ? a + b : (a > b ? a : b);
    case FusedEwOp::Min: return std::isnan(a) || std::isnan(b) ? a + b : (a < b ? a : b);
    default: return a;
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
  T* o = out.data<T>();
  parallel_for(0, out.numel(), kBlock * 8, [&](int64_t begin, int64_t end) {
    // One buffer per computed register; input registers point into the inputs.
    std::vector<T> regs(n_steps * kBlock);
    std::vector<const T*> src(n_in + n_steps);
    for (int64_t b = begin; b < end; b += kBlock) {
      const int64_t len = std::min(kBlock, end - b);
      for (size_t i = 0; i < n_in; ++i) src[i] = in[i] + b;
      for (size_t s = 0; s < n_steps; ++s) {
        const auto op = static_cast<FusedEwOp>(program[3 * s]);
        const T* x = src[program[3 * s + 1]];
        T* r = s + 1 == n_steps ? o + b : regs.data() + s * kBlock;
        if (fused_ew_is_binary(program[3 * s])) {
          const T* y = src[program[3 * s + 2]];
          for (int64_t k = 0; k < len; ++k) r[k] = apply_binary(op, x[k], y[k]);
        } else {
          for (int64_t k = 0; k < len; ++k) r[k] = apply_unary(op, x[k]);
        }
        src[n_in + s] = r;
      }
    }
  });
}

}  // namespace

bool fused_ew_is_binary(int64_t code) { return code >= 100; }

bool fused_ew_is_valid(int64_t code) {
  return (code >= static_cast<int64_t>(FusedEwOp::Relu) && code <= static_cast<int64_t>(FusedEwOp::Rsqrt)) ||
         (code >= static_cast<int64_t>(FusedEwOp::Add) && code <= static_cast<int64_t>(FusedEwOp::Min));
}

int64_t fused_ew_code(const std::string& name) {
  static const std::unordered_map<std::string, FusedEwOp> codes = {
      {"relu", FusedEwOp::Relu},     {"exp", FusedEwOp::Exp},        {"tanh", FusedEwOp::Tanh},
      {"sigmoid", FusedEwOp::Sigmoid}, {"neg", FusedEwOp::Neg},      {"sqrt", FusedEwOp::Sqrt},
      {"abs", FusedEwOp::Abs},       {"log", FusedEwOp::Log},        {"square", FusedEwOp::Square},
      {"silu", FusedEwOp::Silu},     {"rsqrt", FusedEwOp::Rsqrt},    {"gelu", FusedEwOp::Gelu},  // the exact (erf) form only
      {"add", FusedEwOp::Add},
      {"subtract", FusedEwOp::Sub},  {"multiply", FusedEwOp::Mul},   {"divide", FusedEwOp::Div},
      {"maximum", FusedEwOp::Max},   {"minimum", FusedEwOp::Min}};
  auto it = codes.find(name);
  return it == codes.end() ? -1 : static_cast<int64_t>(it->second);
}

void fused_elementwise(const std::vector<Tensor>& inputs, const IntArray& program, const Tensor& out) {
  if (out.numel() == 0) return;
  if (out.dtype() == DType::Float32) return run<float>(inputs, program, out);
  if (out.dtype() == DType::Float64) return run<double>(inputs, program, out);
  OAR_THROW(TypeMismatch, "fused_elementwise: expected float32 or float64, got ", dtype_name(out.dtype()));
}

}  // namespace oar::kernels
