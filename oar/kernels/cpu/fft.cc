#include "oar/kernels/cpu/fft.h"

#include <fftw3.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <vector>

#include "oar/core/error.h"
#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/elementwise.h"

namespace oar::kernels {
namespace {

// FFTW's planner is not thread-safe (executing a plan is): every plan is made and destroyed
// under this lock.
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

// One precision of FFTW's API (fftw_* for double, fftwf_* for float) behind one set of names.
template <typename Real> struct Fftw;
template <> struct Fftw<double> {
  using plan = fftw_plan;
  using cpx = fftw_complex;
  static plan c2c(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* hd, void* in, void* out, int sign,
                  unsigned f) {
    return fftw_plan_guru64_dft(r, d, hr, hd, static_cast<cpx*>(in), static_cast<cpx*>(out), sign, f);
  }
  static plan r2c(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* hd, void* in, void* out, unsigned f) {
    return fftw_plan_guru64_dft_r2c(r, d, hr, hd, static_cast<double*>(in), static_cast<cpx*>(out), f);
  }
  static plan c2r(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* hd, void* in, void* out, unsigned f) {
    return fftw_plan_guru64_dft_c2r(r, d, hr, hd, static_cast<cpx*>(in), static_cast<double*>(out), f);
  }
  static void run_c2c(plan p, void* in, void* out) { fftw_execute_dft(p, static_cast<cpx*>(in), static_cast<cpx*>(out)); }
  static void run_r2c(plan p, void* in, void* out) {
    fftw_execute_dft_r2c(p, static_cast<double*>(in), static_cast<cpx*>(out));
  }
  static void run_c2r(plan p, void* in, void* out) {
    fftw_execute_dft_c2r(p, static_cast<cpx*>(in), static_cast<double*>(out));
  }
  static void destroy(plan p) { fftw_destroy_plan(p); }
  static void threads(int n) {
    static const bool ok = fftw_init_threads() != 0;
    if (ok) fftw_plan_with_nthreads(n);
  }
};
template <> struct Fftw<float> {
  using plan = fftwf_plan;
  using cpx = fftwf_complex;
  static plan c2c(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* hd, void* in, void* out, int sign,
                  unsigned f) {
    return fftwf_plan_guru64_dft(r, d, hr, hd, static_cast<cpx*>(in), static_cast<cpx*>(out), sign, f);
  }
  static plan r2c(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* hd, void* in, void* out, unsigned f) {
    return fftwf_plan_guru64_dft_r2c(r, d, hr, hd, static_cast<float*>(in), static_cast<cpx*>(out), f);
  }
  static plan c2r(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* hd, void* in, void* out, unsigned f) {
    return fftwf_plan_guru64_dft_c2r(r, d, hr, hd, static_cast<cpx*>(in), static_cast<float*>(out), f);
  }
  static void run_c2c(plan p, void* in, void* out) { fftwf_execute_dft(p, static_cast<cpx*>(in), static_cast<cpx*>(out)); }
  static void run_r2c(plan p, void* in, void* out) {
    fftwf_execute_dft_r2c(p, static_cast<float*>(in), static_cast<cpx*>(out));
  }
  static void run_c2r(plan p, void* in, void* out) {
    fftwf_execute_dft_c2r(p, static_cast<cpx*>(in), static_cast<float*>(out));
  }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
  static void threads(int n) {
    static const bool ok = fftwf_init_threads() != 0;
    if (ok) fftwf_plan_with_nthreads(n);
  }
};

enum class Kind { C2C, R2C, C2R };

// What a plan depends on: FFTW reuses a plan on new arrays of the same layout and alignment.
using PlanKey = std::tuple<Kind, bool /*double*/, int /*sign*/, std::vector<int64_t> /*dims*/,
                           std::vector<int64_t> /*howmany*/, bool /*aligned*/, int /*threads*/>;

// A cache of plans by layout. A plan is shared with the calls running it, so evicting it from
// the cache never frees it under a running transform.
template <typename Real> class PlanCache {
 public:
  using Plan = std::shared_ptr<std::remove_pointer_t<typename Fftw<Real>::plan>>;

  template <typename MakePlan> Plan get(const PlanKey& key, MakePlan&& make) {
    std::lock_guard<std::mutex> lock(planner_mutex());
    auto it = plans_.find(key);
    if (it != plans_.end()) return it->second;
    if (plans_.size() >= kCapacity) plans_.clear();  // a workload with this many layouts re-plans
    Fftw<Real>::threads(std::get<6>(key));
    auto raw = make();
    OAR_ENFORCE(raw != nullptr, External, "fft: FFTW could not plan this transform");
    Plan plan(raw, [](typename Fftw<Real>::plan p) {
      std::lock_guard<std::mutex> l(planner_mutex());
      Fftw<Real>::destroy(p);
    });
    plans_.emplace(key, plan);
    return plan;
  }

 private:
  static constexpr size_t kCapacity = 256;
  std::map<PlanKey, Plan> plans_;
};

template <typename Real> PlanCache<Real>& plan_cache() {
  static auto* cache = new PlanCache<Real>();  // never destroyed: plans may outlive static teardown
  return *cache;
}

// The transform's dims (n, input stride, output stride) in the order of `axes`, and the loop
// dims over every other axis. Strides are in elements of each side's own type; `in_strides` and
// `out_strides` index the input and output tensors, `sizes[d]` is the logical signal size.
struct Layout {
  std::vector<fftw_iodim64> dims, howmany;
};

Layout make_layout(const Shape& loop_shape, const std::vector<int64_t>& sizes, const Strides& in_strides,
                   const Strides& out_strides, const IntArray& axes) {
  Layout l;
  std::vector<bool> is_axis(loop_shape.size(), false);
  for (size_t i = 0; i < axes.size(); ++i) {
    const auto a = static_cast<size_t>(axes[i]);
    is_axis[a] = true;
    l.dims.push_back({sizes[i], in_strides[a], out_strides[a]});
  }
  for (size_t a = 0; a < loop_shape.size(); ++a)
    if (!is_axis[a] && loop_shape[a] != 1) l.howmany.push_back({loop_shape[a], in_strides[a], out_strides[a]});
  return l;
}

std::vector<int64_t> flatten(const Layout& l, bool howmany) {
  std::vector<int64_t> v;
  for (const auto& d : howmany ? l.howmany : l.dims) v.insert(v.end(), {d.n, d.is, d.os});
  return v;
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (auto s : v) p *= s;
  return p;
}

// Large transforms use FFTW's threads; small ones would only pay for the hand-off.
int threads_for(int64_t elements) { return elements >= (int64_t{1} << 16) ? get_num_threads() : 1; }

bool simd_aligned(const void* a, const void* b) {
  return reinterpret_cast<uintptr_t>(a) % 64 == 0 && reinterpret_cast<uintptr_t>(b) % 64 == 0;
}

// FFTW_ESTIMATE: planning reads no data and takes microseconds, so a plan is cheap to make on the
// caller's own arrays; FFTW_UNALIGNED when a view's data is not SIMD-aligned.
unsigned plan_flags(bool aligned, bool preserve_input) {
  return FFTW_ESTIMATE | (aligned ? 0u : FFTW_UNALIGNED) | (preserve_input ? FFTW_PRESERVE_INPUT : 0u);
}

template <typename Real> void scale_in_place(Real* data, int64_t count, double scale) {
  if (scale == 1.0) return;
  const Real s = static_cast<Real>(scale);
  parallel_for(0, count, 1 << 15, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) data[i] *= s;
  });
}

std::vector<int64_t> sizes_of(const Shape& shape, const IntArray& axes) {
  std::vector<int64_t> s;
  for (auto a : axes) s.push_back(shape[static_cast<size_t>(a)]);
  return s;
}

// A contiguous copy made by the copy kernel (kernels do not call ops).
Tensor contiguous_copy(const Tensor& x) {
  Tensor c = Tensor::make(x.shape(), x.dtype());
  copy(x, c);
  return c;
}

// A view FFTW can read: positive strides (an expanded or flipped view is copied first).
Tensor readable(const Tensor& x) {
  for (size_t i = 0; i < x.strides().size(); ++i)
    if (x.strides()[i] <= 0 && x.shape()[i] > 1) return contiguous_copy(x);
  return x;
}

// FFTW's plans for signals spread over memory (a transform along axis 0 of [4096, 256]) run
// several times slower than for contiguous ones. A transform whose axes are not the trailing
// ones runs on a copy with the other axes first and the transform axes last (in their order),
// into a temporary, which is then copied into out: two copies, much cheaper than the difference.
template <typename Run>
void with_axes_trailing(const Tensor& x, const Tensor& out, const IntArray& axes, Run&& run) {
  const auto ndim = static_cast<int64_t>(x.ndim()), k = static_cast<int64_t>(axes.size());
  bool trailing = true;
  for (int64_t i = 0; i < k; ++i) trailing = trailing && axes[static_cast<size_t>(i)] == ndim - k + i;
  if (trailing) return run(x, out, axes);
  std::vector<int64_t> perm;
  std::vector<bool> is_axis(static_cast<size_t>(ndim), false);
  for (auto a : axes) is_axis[static_cast<size_t>(a)] = true;
  for (int64_t d = 0; d < ndim; ++d)
    if (!is_axis[static_cast<size_t>(d)]) perm.push_back(d);
  perm.insert(perm.end(), axes.begin(), axes.end());
  auto permuted = [&](const Tensor& t) {
    Shape shape;
    Strides strides;
    for (auto d : perm) {
      shape.push_back(t.shape()[static_cast<size_t>(d)]);
      strides.push_back(t.strides()[static_cast<size_t>(d)]);
    }
    return Tensor::make_view(t, shape, strides, t.offset());
  };
  const Tensor out_view = permuted(out);
  const Tensor tmp = Tensor::make(out_view.shape(), out.dtype());
  IntArray moved;
  for (int64_t i = 0; i < k; ++i) moved.push_back(ndim - k + i);
  run(contiguous_copy(permuted(x)), tmp, moved);
  copy(tmp, out_view);
}

template <typename Real>
void c2c_impl(const Tensor& x0, const IntArray& axes, const std::string& norm, bool forward, const Tensor& out) {
  if (out.numel() == 0) return;
  const Tensor x = readable(x0);
  const auto sizes = sizes_of(x.shape(), axes);
  const Layout l = make_layout(x.shape(), sizes, x.strides(), out.strides(), axes);
  void* in = x.raw_data();
  void* dst = out.raw_data();
  const bool aligned = simd_aligned(in, dst);
  const int sign = forward ? FFTW_FORWARD : FFTW_BACKWARD;
  const PlanKey key{Kind::C2C, std::is_same_v<Real, double>, sign, flatten(l, false), flatten(l, true), aligned,
                    threads_for(out.numel())};
  auto plan = plan_cache<Real>().get(key, [&] {
    return Fftw<Real>::c2c(static_cast<int>(l.dims.size()), l.dims.data(), static_cast<int>(l.howmany.size()),
                           l.howmany.data(), in, dst, sign, plan_flags(aligned, true));
  });
  Fftw<Real>::run_c2c(plan.get(), in, dst);
  scale_in_place(static_cast<Real*>(dst), 2 * out.numel(), fft_scale(norm, forward, product(sizes)));
}

// The entries of a full spectrum beyond the half that r2c wrote, from Hermitian symmetry:
// X[k_1, ..., k_d] = conj(X[-k_1, ..., -k_d]) over the transform axes (indices mod n).
template <typename Real> void fill_hermitian_half(const Tensor& out, const IntArray& axes) {
  using C = std::complex<Real>;
  C* data = static_cast<C*>(out.raw_data());
  const Shape& shape = out.shape();
  const Strides& st = out.strides();
  const auto last = static_cast<size_t>(axes.back());
  const int64_t n = shape[last], half = n / 2 + 1;
  if (half >= n) return;
  std::vector<bool> is_axis(shape.size(), false);
  for (auto a : axes) is_axis[static_cast<size_t>(a)] = true;
  // Walk every position with last-axis index in [half, n), odometer-style over the other dims.
  std::vector<int64_t> idx(shape.size(), 0);
  const int64_t rows = out.numel() / n;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t base = 0, mirror = 0;
    for (size_t a = 0; a < shape.size(); ++a) {
      if (a == last) continue;
      base += idx[a] * st[a];
      const int64_t m = is_axis[a] ? (shape[a] - idx[a]) % shape[a] : idx[a];
      mirror += m * st[a];
    }
    for (int64_t k = half; k < n; ++k) data[base + k * st[last]] = std::conj(data[mirror + (n - k) * st[last]]);
    for (size_t a = shape.size(); a-- > 0;) {  // next position of the other dims
      if (a == last) continue;
      if (++idx[a] < shape[a]) break;
      idx[a] = 0;
    }
  }
}

template <typename Real>
void r2c_impl(const Tensor& x0, const IntArray& axes, const std::string& norm, bool forward, bool onesided,
              const Tensor& out) {
  if (out.numel() == 0) return;
  const Tensor x = readable(x0);
  const auto sizes = sizes_of(x.shape(), axes);
  const Layout l = make_layout(x.shape(), sizes, x.strides(), out.strides(), axes);
  void* in = x.raw_data();
  void* dst = out.raw_data();
  const bool aligned = simd_aligned(in, dst);
  const PlanKey key{Kind::R2C, std::is_same_v<Real, double>, FFTW_FORWARD, flatten(l, false), flatten(l, true),
                    aligned, threads_for(out.numel())};
  auto plan = plan_cache<Real>().get(key, [&] {
    return Fftw<Real>::r2c(static_cast<int>(l.dims.size()), l.dims.data(), static_cast<int>(l.howmany.size()),
                           l.howmany.data(), in, dst, plan_flags(aligned, true));
  });
  // FFTW's r2c writes the first n/2 + 1 entries of the last axis; with !onesided the output
  // has room for all n, and the rest are filled in below.
  Fftw<Real>::run_r2c(plan.get(), in, dst);
  if (!onesided) fill_hermitian_half<Real>(out, axes);
  auto* c = static_cast<std::complex<Real>*>(dst);
  const Real s = static_cast<Real>(fft_scale(norm, forward, product(sizes)));
  if (forward && s == Real(1)) return;
  // The inverse direction of a real signal is the conjugate of its forward transform.
  parallel_for(0, out.numel(), 1 << 14, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) c[i] = forward ? c[i] * s : std::conj(c[i]) * s;
  });
}

template <typename Real>
void c2r_impl(const Tensor& x, const IntArray& axes, const std::string& norm, bool forward, const Tensor& out) {
  if (out.numel() == 0) return;
  using C = std::complex<Real>;
  const auto sizes = sizes_of(out.shape(), axes);  // signal sizes: the output's
  const auto last = static_cast<size_t>(axes.back());
  const int64_t half = sizes.back() / 2 + 1, have = x.shape()[last];
  // FFTW's multi-dimensional c2r overwrites its input, so it runs on a contiguous copy of
  // exactly `half` entries of the last axis (zero-padded or cut); conjugated for the forward
  // direction, whose output from a Hermitian input is that of the inverse on the conjugate.
  Shape buf_shape = x.shape();
  buf_shape[last] = half;
  Tensor buf = Tensor::make(buf_shape, x.dtype());
  const Strides& bs = buf.strides();
  const Strides& xs = x.strides();
  C* b = static_cast<C*>(buf.raw_data());
  const C* src = static_cast<const C*>(x.raw_data());
  const int64_t rows = buf.numel() / half;
  std::vector<int64_t> idx(buf_shape.size(), 0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t in_off = 0, out_off = 0;
    for (size_t a = 0; a < buf_shape.size(); ++a) {
      if (a == last) continue;
      in_off += idx[a] * xs[a];
      out_off += idx[a] * bs[a];
    }
    for (int64_t k = 0; k < half; ++k) {
      const C v = k < have ? src[in_off + k * xs[last]] : C(0);
      b[out_off + k * bs[last]] = forward ? std::conj(v) : v;
    }
    for (size_t a = buf_shape.size(); a-- > 0;) {
      if (a == last) continue;
      if (++idx[a] < buf_shape[a]) break;
      idx[a] = 0;
    }
  }
  const Layout l = make_layout(out.shape(), sizes, bs, out.strides(), axes);
  void* in = buf.raw_data();
  void* dst = out.raw_data();
  const bool aligned = simd_aligned(in, dst);
  const PlanKey key{Kind::C2R, std::is_same_v<Real, double>, FFTW_BACKWARD, flatten(l, false), flatten(l, true),
                    aligned, threads_for(out.numel())};
  auto plan = plan_cache<Real>().get(key, [&] {
    return Fftw<Real>::c2r(static_cast<int>(l.dims.size()), l.dims.data(), static_cast<int>(l.howmany.size()),
                           l.howmany.data(), in, dst, plan_flags(aligned, false));
  });
  Fftw<Real>::run_c2r(plan.get(), in, dst);
  scale_in_place(static_cast<Real*>(dst), out.numel(), fft_scale(norm, forward, product(sizes)));
}

}  // namespace

double fft_scale(const std::string& norm, bool forward, int64_t n) {
  if (norm == "ortho") return 1.0 / std::sqrt(static_cast<double>(n));
  const bool scaled_direction_is_forward = norm == "forward";
  return scaled_direction_is_forward == forward ? 1.0 / static_cast<double>(n) : 1.0;
}

void fft_c2c(const Tensor& x, const IntArray& axes, const std::string& norm, bool forward, const Tensor& out) {
  with_axes_trailing(x, out, axes, [&](const Tensor& x2, const Tensor& out2, const IntArray& axes2) {
    switch (x.dtype()) {
      case DType::Complex64: return c2c_impl<float>(x2, axes2, norm, forward, out2);
      case DType::Complex128: return c2c_impl<double>(x2, axes2, norm, forward, out2);
      default: unsupported_dtype("fft_c2c", x.dtype(), "complex64, complex128");
    }
  });
}

void fft_r2c(const Tensor& x, const IntArray& axes, const std::string& norm, bool forward, bool onesided,
             const Tensor& out) {
  with_axes_trailing(x, out, axes, [&](const Tensor& x2, const Tensor& out2, const IntArray& axes2) {
    switch (x.dtype()) {
      case DType::Float32: return r2c_impl<float>(x2, axes2, norm, forward, onesided, out2);
      case DType::Float64: return r2c_impl<double>(x2, axes2, norm, forward, onesided, out2);
      default: unsupported_dtype("fft_r2c", x.dtype(), "float32, float64");
    }
  });
}

void fft_c2r(const Tensor& x, const IntArray& axes, const std::string& norm, bool forward, const Tensor& out) {
  with_axes_trailing(x, out, axes, [&](const Tensor& x2, const Tensor& out2, const IntArray& axes2) {
    switch (x.dtype()) {
      case DType::Complex64: return c2r_impl<float>(x2, axes2, norm, forward, out2);
      case DType::Complex128: return c2r_impl<double>(x2, axes2, norm, forward, out2);
      default: unsupported_dtype("fft_c2r", x.dtype(), "complex64, complex128");
    }
  });
}

}  // namespace oar::kernels
