#include "oar/kernels/cpu/quant.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/elementwise.h"
#include "oar/kernels/cpu/shape.h"

namespace oar::kernels {

namespace {
enum class Mode { FakeQuant, Quantize, Dequantize, QuantizeDequantize };

// Half away from zero, also without library calls: half to even (quant.h), moved away from zero
// at an exact half.
template <typename C>
inline C round_half_away(C t) {
  const C r = round_half_even(t);  // exact: t - r is representable for these magnitudes
  return t - r == C(0.5) ? r + C(1) : t - r == C(-0.5) ? r - C(1) : r;
}

// One element: v with the threshold sc (compute type C: float for half and float32 inputs).
// QuantizeDequantize: quantize with sc, dequantize with ds (one pass for the pair).
template <Mode M, int RoundType, typename C>
inline C quant_one(C v, C sc, C ds, C qmin, C qmax) {
  if constexpr (M == Mode::Dequantize) {
    return v * sc / qmax;
  } else {
    auto rnd = [](C t) { return RoundType == 1 ? round_half_away(t) : round_half_even(t); };
    if constexpr (M == Mode::FakeQuant) {
      if (!(sc > 0)) return C(0);
      return rnd(std::min(std::max(v, -sc), sc) / sc * qmax) * sc / qmax;
    } else {
      // Clamped before rounding (the magic-number rounding needs a small |t|), and after.
      // v / sc * qmax as Paddle's kernels compute it (a reciprocal would move exact halves).
      if (!(sc > 0)) return C(0);
      const C q = rnd(std::min(std::max(v / sc * qmax, qmin - 1), qmax + 1));
      const C clamped = std::min(std::max(q, qmin), qmax);
      if constexpr (M == Mode::Quantize) return clamped;
      else return clamped * ds / qmax;
    }
  }
}

template <Mode M, int RoundType, typename T, typename C>
void quant_run(const T* in, T* res, int64_t n, C sc, C ds, C qmin, C qmax) {
  // A zero scale maps everything to 0.
  for (int64_t i = 0; i < n; ++i) res[i] = static_cast<T>(quant_one<M, RoundType, C>(static_cast<C>(in[i]), sc, ds, qmin, qmax));
}

template <typename T, typename C>
void quant_dispatch(Mode mode, int64_t round_type, const T* in, T* res, int64_t n, C sc, C ds, C qmin, C qmax) {
  switch (mode) {
    case Mode::Dequantize: return quant_run<Mode::Dequantize, 0>(in, res, n, sc, ds, qmin, qmax);
    case Mode::FakeQuant:
      return round_type == 1 ? quant_run<Mode::FakeQuant, 1>(in, res, n, sc, ds, qmin, qmax)
                             : quant_run<Mode::FakeQuant, 0>(in, res, n, sc, ds, qmin, qmax);
    case Mode::Quantize:
      return round_type == 1 ? quant_run<Mode::Quantize, 1>(in, res, n, sc, ds, qmin, qmax)
                             : quant_run<Mode::Quantize, 0>(in, res, n, sc, ds, qmin, qmax);
    case Mode::QuantizeDequantize:
      return round_type == 1 ? quant_run<Mode::QuantizeDequantize, 1>(in, res, n, sc, ds, qmin, qmax)
                             : quant_run<Mode::QuantizeDequantize, 0>(in, res, n, sc, ds, qmin, qmax);
  }
}

void run(Mode mode, const Tensor& x0, const Tensor& scale, int64_t quant_axis, int64_t bit_length,
         int64_t round_type, const Tensor& out, double dequant_scale = 0) {
  if (out.numel() == 0) return;
  const double qmax = static_cast<double>((int64_t{1} << (bit_length - 1)) - 1), qmin = -qmax - 1;
  const std::vector<double> s = scale.to_vector<double>();  // one, or one per channel
  // Element i's channel is (i / inner) % channels; per tensor, one block covers everything.
  int64_t inner = x0.numel(), channels = 1;
  if (quant_axis >= 0) {
    channels = x0.shape()[quant_axis];
    inner = 1;
    for (int64_t d = quant_axis + 1; d < x0.ndim(); ++d) inner *= x0.shape()[d];
  }
  const Tensor x = as_contiguous(x0);
  const bool direct = out.is_contiguous();
  const Tensor o = direct ? out : Tensor::make(out.shape(), out.dtype());
  dispatch_floating(x.dtype(), "quantize", [&](auto tag) {
    using T = decltype(tag);
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const T* in = x.data<T>();
    T* res = o.data<T>();
    const int64_t blocks = x.numel() / std::max<int64_t>(inner, 1);  // runs of one scale each
    parallel_for(0, x.numel(), 1 << 14, [&](int64_t b, int64_t e) {
      while (b < e) {
        const int64_t block = b / std::max<int64_t>(inner, 1), stop = std::min(e, (block + 1) * inner);
        const C sc = static_cast<C>(s[blocks == 1 ? 0 : block % channels]), ds = static_cast<C>(dequant_scale);
        quant_dispatch<T, C>(mode, round_type, in + b, res + b, stop - b, sc, ds, C(qmin), C(qmax));
        b = stop;
      }
    });
  });
  if (!direct) copy(o, out);
}
}  // namespace

void fake_quantize_dequantize(const Tensor& x, const Tensor& scale, int64_t bit_length, int64_t round_type,
                              const Tensor& out) {
  run(Mode::FakeQuant, x, scale, -1, bit_length, round_type, out);
}

// The zero point is accepted and not applied: Paddle's kernels for these ops ignore it (symmetric
// quantization).
void quantize_linear(const Tensor& x, const Tensor& scale, const Tensor&, int64_t quant_axis, int64_t bit_length,
                     int64_t round_type, const Tensor& out) {
  run(Mode::Quantize, x, scale, quant_axis, bit_length, round_type, out);
}

void dequantize_linear(const Tensor& x, const Tensor& scale, const Tensor&, int64_t quant_axis, int64_t bit_length,
                       const Tensor& out) {
  run(Mode::Dequantize, x, scale, quant_axis, bit_length, 0, out);
}

void quantize_dequantize(const Tensor& x, const Tensor& scale, const Tensor& dequant_scale, int64_t bit_length,
                         int64_t round_type, const Tensor& out) {
  const double ds = dequant_scale.item<double>();
  run(Mode::QuantizeDequantize, x, scale, -1, bit_length, round_type, out, ds);
}

}  // namespace oar::kernels
