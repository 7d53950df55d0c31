// The bound of a clip on integers, shared by the host kernel (oar/kernels/cpu/elementwise.cc) and
// the device plug-ins (plugins/custom_cpu, plugins/cuda), so that every backend clips alike.
//
// A bound beyond T's range saturates to it: the default bounds (+-3.4e38, "no bound") and, say,
// -1000 for int8 mean "no bound", not a wrapped value; a NaN bound is 0; in range, a float bound
// truncates as a C cast does. The Scalar comes as (is_float, i, f), as each backend holds it.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#ifdef __CUDACC__
#define OAR_CLIP_HD __host__ __device__ __forceinline__
#else
#define OAR_CLIP_HD inline
#endif

namespace oar_common {

template <typename T>
OAR_CLIP_HD T int_clip_bound(bool is_float, int64_t i, double f) {
  const double lowest = static_cast<double>(std::numeric_limits<T>::lowest());
  const double highest = static_cast<double>(std::numeric_limits<T>::max());
  const double v = is_float ? f : static_cast<double>(i);
  if (v != v) return T(0);
  if (v <= lowest) return std::numeric_limits<T>::lowest();
  if (v >= highest) return std::numeric_limits<T>::max();
  return is_float ? static_cast<T>(f) : static_cast<T>(i);  // an int in range converts exactly
}

}  // namespace oar_common
