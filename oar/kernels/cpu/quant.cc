#include "oar/kernels/cpu/quant.h"

#include <cmath>
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

double round_by(double v, int64_t round_type) {
  return round_type == 1 ? std::round(v) : std::nearbyint(v);  // std::round: halves away from zero
}

void run(Mode mode, const Tensor& x0, const Tensor& scale, int64_t quant_axis, int64_t bit_length,
         int64_t round_type, const Tensor& out) {
  if (out.numel() == 0) return;
  const double qmax = static_cast<double>((int64_t{1} << (bit_length - 1)) - 1), qmin = -qmax - 1;
  const std::vector<double> s = scales_of(scale);
  // Element i's channel is (i / inner) % channels.
  int64_t inner = 1, channels = 1;
  if (quant_axis >= 0) {
    channels = x0.shape()[quant_axis];
    for (int64_t d = quant_axis + 1; d < x0.ndim(); ++d) inner *= x0.shape()[d];
  }
  const Tensor x = as_contiguous(x0);
  const bool direct = out.is_contiguous();
  const Tensor o = direct ? out : Tensor::make(out.shape(), out.dtype());
  dispatch_floating(x.dtype(), "quantize", [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.data<T>();
    T* res = o.data<T>();
    parallel_for(0, x.numel(), 1 << 14, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const double sc = s[quant_axis >= 0 ? (i / inner) % channels : 0];
        const double v = static_cast<double>(in[i]);
        double r = 0;
        if (mode == Mode::Dequantize) {
          r = v * sc / qmax;
        } else if (sc > 0) {
          if (mode == Mode::FakeQuant) {
            r = round_by(std::min(std::max(v, -sc), sc) / sc * qmax, round_type) * sc / qmax;
          } else {
            r = std::min(std::max(round_by(v / sc * qmax, round_type), qmin), qmax);
          }
        }
        res[i] = static_cast<T>(r);
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
