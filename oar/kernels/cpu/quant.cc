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
enum class Mode { FakeQuant, Quantize, Dequantize };

// The scales as doubles on the host (one, or one per channel).
std::vector<double> scales_of(const Tensor& scale) {
  const Tensor s = as_contiguous(scale, DType::Float64);
  const double* p = s.data<double>();
  return std::vector<double>(p, p + s.numel());
}

// One element: v with the threshold sc (compute type C: float for half and float32 inputs).
template <typename C>
inline C quant_one(Mode mode, C v, C sc, C qmin, C qmax, int64_t round_type) {
  if (mode == Mode::Dequantize) return v * sc / qmax;
  if (!(sc > 0)) return C(0);
  auto rnd = [&](C t) { return round_type == 1 ? std::round(t) : std::nearbyint(t); };
  if (mode == Mode::FakeQuant) return rnd(std::min(std::max(v, -sc), sc) / sc * qmax) * sc / qmax;
  return std::min(std::max(rnd(v / sc * qmax), qmin), qmax);
}

void run(Mode mode, const Tensor& x0, const Tensor& scale, int64_t quant_axis, int64_t bit_length,
         int64_t round_type, const Tensor& out) {
  if (out.numel() == 0) return;
  const double qmax = static_cast<double>((int64_t{1} << (bit_length - 1)) - 1), qmin = -qmax - 1;
  const std::vector<double> s = scales_of(scale);
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
        const C sc = static_cast<C>(s[blocks == 1 ? 0 : block % channels]);
        for (int64_t i = b; i < stop; ++i)
          res[i] = static_cast<T>(quant_one<C>(mode, static_cast<C>(in[i]), sc, C(qmin), C(qmax), round_type));
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

}  // namespace oar::kernels
