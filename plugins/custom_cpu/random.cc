// Random draws: random_uniform, random_normal, random_randint, random_bernoulli and
// random_dropout_mask, with the same bits as oar's host kernels (kernels::uniform, normal,
// randint, bernoulli, dropout_mask) for the same seed and offset.
// Contract: seed and offset are INT attributes (int64 holding the uint64 bits; the offset is the
// generator's counter the draw reserved); out is contiguous and element i uses Philox block
// offset + i (the dropout mask: word i % 4 of block offset + i / 4), with the per-element
// transforms of plugins/common/philox.h, the one definition oar's host kernels use too.
// - random_uniform: low, high (FLOAT); out float16/bfloat16/float32/float64.
// - random_normal: mean, std (FLOAT); float dtypes.
// - random_randint: low, high (INT, low < high); out int8/uint8/int16/int32/int64.
// - random_bernoulli: inputs[0] = p (any view, out's shape and dtype); float dtypes.
// - random_dropout_mask: p, keep_value (FLOAT): keep_value with probability 1 - p, else 0.
#include <cstdint>

#include "plugins/common/philox.h"
#include "plugins/custom_cpu/kernel_util.h"
#include "plugins/custom_cpu/kernels.h"

namespace oar_custom_cpu {
namespace {

// seed or offset: required, the uint64 bits of the INT attribute.
uint64_t bits_attr(const OarKernelContext* ctx, const char* name) {
  if (find_attr(ctx, name) == nullptr) fail("attribute '%s' is missing", name);
  return static_cast<uint64_t>(int_attr(ctx, name, 0));
}

TensorDesc random_output(const OarKernelContext* ctx) {
  const TensorDesc out = output(ctx);
  expect_contiguous(out, "out");
  return out;
}

// out[i] = convert<T>(value(block i)) for a float out; `value` maps a Block to a double.
template <typename V>
void fill_float(const OarKernelContext* ctx, const char* op, const TensorDesc& out, uint64_t seed,
                uint64_t offset, V value) {
  visit_float_dtype(out.dtype, op, [&](auto tag) {
    using T = decltype(tag);
    T* p = out.as<T>();
    const int64_t n = out.numel;
    launch(ctx, [p, n, seed, offset, value] {
      for (int64_t i = 0; i < n; ++i)
        p[i] = convert<T>(value(oar_rng::philox4x32(offset + static_cast<uint64_t>(i), 0, seed)));
    });
  });
}

}  // namespace

OarStatus random_uniform_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc out = random_output(ctx);
    const double low = float_attr(ctx, "low", 0.0), high = float_attr(ctx, "high", 1.0);
    fill_float(ctx, "random_uniform", out, bits_attr(ctx, "seed"), bits_attr(ctx, "offset"),
               [low, high](const oar_rng::Block& r) { return oar_rng::uniform_value(low, high, r); });
  });
}

OarStatus random_normal_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc out = random_output(ctx);
    const double mean = float_attr(ctx, "mean", 0.0), std = float_attr(ctx, "std", 1.0);
    fill_float(ctx, "random_normal", out, bits_attr(ctx, "seed"), bits_attr(ctx, "offset"),
               [mean, std](const oar_rng::Block& r) { return oar_rng::normal_value(mean, std, r); });
  });
}

OarStatus random_randint_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc out = random_output(ctx);
    const int64_t low = int_attr(ctx, "low", 0), high = int_attr(ctx, "high", 0);
    if (low >= high)
      fail("random_randint: low (%lld) must be less than high (%lld)", static_cast<long long>(low),
           static_cast<long long>(high));
    const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
    const uint64_t seed = bits_attr(ctx, "seed"), offset = bits_attr(ctx, "offset");
    visit_storage_dtype(out.dtype, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!is_int_v<T>) {
        unsupported("no random_randint kernel for %s (int8, uint8, int16, int32, int64 have one)",
                    dtype_name(out.dtype));
      } else {
        T* p = out.as<T>();
        const int64_t n = out.numel;
        launch(ctx, [p, n, low, range, seed, offset] {
          for (int64_t i = 0; i < n; ++i)
            p[i] = static_cast<T>(oar_rng::randint_value(
                low, range, oar_rng::philox4x32(offset + static_cast<uint64_t>(i), 0, seed)));
        });
      }
    });
  });
}

OarStatus random_bernoulli_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc prob = input(ctx, 0, "p");
    const TensorDesc out = random_output(ctx);
    expect_dtype(out, prob.dtype, "out");
    expect_shape(out, prob.shape, "out");
    const uint64_t seed = bits_attr(ctx, "seed"), offset = bits_attr(ctx, "offset");
    visit_float_dtype(out.dtype, "random_bernoulli", [&](auto tag) {
      using T = decltype(tag);
      T* p = out.as<T>();
      const T* pp = prob.as<const T>();
      const StridedWalker<1> walk(prob.shape, {prob.strides});
      launch(ctx, [p, pp, walk, seed, offset] {
        int64_t i = 0;
        walk.run([&](const std::array<int64_t, 1>& off) {
          // p in its compute type (float for the 16-bit floats), then widened, as the host.
          const double pv = static_cast<double>(static_cast<compute_t<T>>(pp[off[0]]));
          const oar_rng::Block r = oar_rng::philox4x32(offset + static_cast<uint64_t>(i), 0, seed);
          p[i++] = convert<T>(oar_rng::bernoulli_value(pv, r) ? 1.0 : 0.0);
        });
      });
    });
  });
}

OarStatus random_dropout_mask_kernel(const OarKernelContext* ctx) {
  return run_kernel(ctx, [&] {
    const TensorDesc out = random_output(ctx);
    const double prob = float_attr(ctx, "p", 0.5), keep_value = float_attr(ctx, "keep_value", 1.0);
    const uint64_t seed = bits_attr(ctx, "seed"), offset = bits_attr(ctx, "offset");
    visit_float_dtype(out.dtype, "random_dropout_mask", [&](auto tag) {
      using T = decltype(tag);
      T* m = out.as<T>();
      const int64_t n = out.numel;
      const T keep = convert<T>(keep_value), zero = convert<T>(0.0);
      launch(ctx, [m, n, prob, keep, zero, seed, offset] {
        for (int64_t b = 0; b * 4 < n; ++b) {  // one Philox block per four elements
          const oar_rng::Block r = oar_rng::philox4x32(offset + static_cast<uint64_t>(b), 0, seed);
          for (int64_t j = 0; j < 4 && b * 4 + j < n; ++j)
            m[b * 4 + j] = oar_rng::dropout_drops(r.w[j], prob) ? zero : keep;
        }
      });
    });
  });
}

}  // namespace oar_custom_cpu
