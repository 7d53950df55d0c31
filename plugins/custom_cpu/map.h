// map_elements: the one elementwise loop (out[i] = f(inputs at i)) the map-like kernels share.
// Contract: out may be any strided view; each input is broadcast to out's shape (numpy rules);
// the dtype and shape checks run when it is called, the loop later on the kernel's stream.
#pragma once

#include <array>
#include <utility>
#include <vector>

#include "plugins/custom_cpu/kernel_util.h"
#include "plugins/custom_cpu/strided.h"

namespace oar_custom_cpu {

// out[i] = f(ins[0][i], ins[1][i], ...) for each element i of out (any strides), the inputs
// read as Ins... and broadcast to out's shape. The shape checks run now, the loop later on the
// kernel's stream.
template <typename R, typename... Ins, typename F>
void map_elements(const OarKernelContext* ctx, const TensorDesc& out,
                  const std::array<TensorDesc, sizeof...(Ins)>& ins, F f) {
  constexpr int K = sizeof...(Ins);
  expect_dtype(out, dtype_of<R>, "out");
  std::array<std::vector<int64_t>, K + 1> strides;
  std::array<const char*, K> data{};
  strides[0] = out.strides;
  for (int k = 0; k < K; ++k) {
    expect_dtype(ins[k], std::array<int32_t, K>{dtype_of<Ins>...}[k], "input");
    strides[k + 1] = broadcast_strides(ins[k], out.shape, "input");
    data[k] = ins[k].data;
  }
  const StridedWalker<K + 1> walk(out.shape, std::move(strides));
  R* o = out.as<R>();
  launch(ctx, [walk, o, data, f] {
    walk.run([&](const std::array<int64_t, K + 1>& off) {
      [&]<size_t... I>(std::index_sequence<I...>) {
        o[off[0]] = f(reinterpret_cast<const Ins*>(data[I])[off[I + 1]]...);
      }(std::index_sequence_for<Ins...>{});
    });
  });
}

}  // namespace oar_custom_cpu
