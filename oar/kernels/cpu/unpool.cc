#include "oar/kernels/cpu/unpool.h"

#include <algorithm>

#include "oar/core/error.h"
#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"

namespace oar::kernels {

void max_unpool(const Tensor& x0, const Tensor& idx0, const Tensor& out) {
  if (out.numel() == 0) return;
  const Tensor x = x0.contiguous(), idx = idx0.contiguous();
  const int64_t planes = x.shape()[0] * x.shape()[1];
  const int64_t in_plane = planes ? x.numel() / planes : 0, out_plane = out.numel() / planes;
  const int32_t* ip = static_cast<const int32_t*>(idx.raw_data());
  for (int64_t i = 0; i < idx.numel(); ++i)
    OAR_ENFORCE_ARG(ip[i] >= 0 && ip[i] < out_plane, "max_unpool: index ", ip[i],
                    " is out of range for an output plane of ", out_plane, " elements");
  dispatch_floating(x.dtype(), "max_unpool", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T* xp = static_cast<const T*>(x.raw_data());
      T* op = static_cast<T*>(out.raw_data());
      parallel_for(0, planes, 1, [&](int64_t b, int64_t e) {
        for (int64_t p = b; p < e; ++p) {
          T* o = op + p * out_plane;
          std::fill(o, o + out_plane, T(0));
          const T* xs = xp + p * in_plane;
          const int32_t* is = ip + p * in_plane;
          for (int64_t i = 0; i < in_plane; ++i) o[is[i]] = xs[i];
        }
      });
    } else {
      unsupported_dtype("max_unpool", x.dtype(), "float32, float64");
    }
  });
}

}  // namespace oar::kernels
