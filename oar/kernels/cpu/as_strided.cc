// as_strided: a view of a tensor's storage with any shape, strides and offset, and the two kernels
// of its gradient (scatter into a storage-sized buffer by one geometry, gather by the other).
#include <type_traits>
#include <vector>

#include "oar/kernels/cpu/dispatch.h"
#include "oar/kernels/cpu/shape.h"

namespace oar::kernels {

Tensor as_strided_view(const Tensor& x, const StridedPlan& plan) {
  return Tensor::make_view(x, plan.shape, plan.strides, plan.offset);
}

namespace {

// f(k, position) for the k-th element (row-major) of `geo` and its storage position.
template <typename F> void for_each_position(const StridedPlan& geo, F&& f) {
  const int64_t n = numel_of(geo.shape);
  if (n == 0) return;
  const size_t nd = geo.shape.size();
  std::vector<int64_t> idx(nd, 0);
  int64_t pos = geo.offset;
  for (int64_t k = 0; k < n; ++k) {
    f(k, pos);
    for (size_t d = nd; d-- > 0;) {  // odometer step, last dim fastest
      if (++idx[d] < geo.shape[d]) {
        pos += geo.strides[d];
        break;
      }
      pos -= (geo.shape[d] - 1) * geo.strides[d];
      idx[d] = 0;
    }
  }
}

// out (contiguous, `to`'s shape) = src (`from`'s shape) summed into a buffer of `storage_numel`
// elements at `from`'s positions, read back at `to`'s positions. Sums run in double.
void transfer(const Tensor& src, const StridedPlan& from, const StridedPlan& to, int64_t storage_numel,
              const Tensor& out, const char* op) {
  const Tensor s = as_contiguous(src);
  dispatch_floating(s.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    std::vector<double> buffer(static_cast<size_t>(storage_numel), 0.0);
    const T* in = s.data<T>();
    for_each_position(from, [&](int64_t k, int64_t pos) { buffer[pos] += static_cast<double>(in[k]); });
    T* o = out.data<T>();
    for_each_position(to, [&](int64_t k, int64_t pos) {
      if constexpr (std::is_same_v<T, double>) {
        o[k] = buffer[pos];
      } else {  // half types convert through float
        o[k] = static_cast<T>(static_cast<float>(buffer[pos]));
      }
    });
  });
}

StridedPlan geometry_of(const Tensor& x) { return {x.shape(), x.strides(), x.offset()}; }

int64_t storage_numel(const Tensor& x) {
  return static_cast<int64_t>(x.storage()->nbytes() / x.element_size());
}

}  // namespace

void as_strided_grad(const Tensor& out_grad, const Tensor& x, const StridedPlan& plan, const Tensor& out) {
  transfer(out_grad, plan, geometry_of(x), storage_numel(x), out, "as_strided_grad");
}

void as_strided_grad_adjoint(const Tensor& grad, const Tensor& x, const StridedPlan& plan,
                             const Tensor& out) {
  transfer(grad, geometry_of(x), plan, storage_numel(x), out, "as_strided_grad_adjoint");
}

}  // namespace oar::kernels
