#include "oar/ops/device_kernels.h"

#include "oar/autograd/grad_mode.h"
#include "oar/ops/device_dispatch.h"
#include "oar/kernels/cpu/index.h"
#include "oar/kernels/cpu/search.h"
#include "oar/ops/generated/api/elementwise.h"
#include "oar/ops/generated/api/index.h"
#include "oar/ops/generated/api/search.h"
#include "oar/ops/generated/api/shape.h"

namespace oar::ops {

void batch_norm_on_device(const Place& place, const Tensor& x, const Tensor& running_mean,
                          const Tensor& running_var, const Tensor& weight, const Tensor& bias,
                          bool use_batch_stats, bool update_running, double momentum,
                          double epsilon, int64_t channel_axis, const Tensor& out,
                          const Tensor& saved_mean, const Tensor& saved_rstd) {
  launch("batch_norm_base", place, {x, running_mean, running_var, weight, bias},
         ir::AttributeMap{{"use_batch_stats", ir::to_attribute(use_batch_stats)},
                          {"update_running", ir::to_attribute(false)},
                          {"momentum", ir::to_attribute(momentum)},
                          {"epsilon", ir::to_attribute(epsilon)},
                          {"channel_axis", ir::to_attribute(channel_axis)}},
         {out, saved_mean, saved_rstd});
  if (!use_batch_stats || !update_running || !running_mean.defined()) return;
  autograd::NoGradGuard no_grad;  // buffers, not part of the graph
  const Tensor var = scale(reciprocal(square(saved_rstd)), 1.0, -epsilon);
  Tensor rm = running_mean, rv = running_var;  // handles to the buffers' storage
  rm.copy_(add(scale(running_mean, momentum), scale(saved_mean, 1.0 - momentum)));
  if (rv.defined()) rv.copy_(add(scale(running_var, momentum), scale(var, 1.0 - momentum)));
}

namespace {

// The rows of x, viewed as [outer, inner] with outer = x.shape[:k], that advanced indexing
// addresses (k leading dims), positioned as B, on `place`.
struct RowIndex {
  Tensor rows;  // int64 [numel(B)] on the device
  Shape b;
  int64_t dims = 0, outer = 1, inner = 1;
};

RowIndex resolve_rows(const char* op, const Tensor& x, const std::vector<Tensor>& indices,
                      const Place& place) {
  std::vector<Tensor> host;
  host.reserve(indices.size());
  for (const Tensor& t : indices)
    host.push_back(t.defined() && !t.place().is_host() ? copy_to_place(t, CPUPlace()) : t);
  const Shape& shape = x.shape();
  Strides strides(shape.size());
  int64_t s = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    strides[d] = s;
    s *= shape[d];
  }
  const kernels::AdvancedIndex adv = kernels::resolve_indices(op, shape, strides, host);
  RowIndex r;
  r.b = adv.shape;
  r.dims = adv.dims;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) (d < adv.dims ? r.outer : r.inner) *= shape[d];
  Tensor rows = Tensor::make({static_cast<int64_t>(adv.offsets.size())}, DType::Int64);
  int64_t* p = rows.data<int64_t>();
  for (size_t i = 0; i < adv.offsets.size(); ++i) p[i] = r.inner ? adv.offsets[i] / r.inner : 0;
  r.rows = copy_to_place(rows, place);
  return r;
}

Shape concat_shapes(Shape a, const Shape& x, int64_t from) {
  a.insert(a.end(), x.begin() + from, x.end());
  return a;
}

}  // namespace

Tensor index_tensor_on_device(const Place& place, const Tensor& x, const std::vector<Tensor>& indices) {
  autograd::NoGradGuard no_grad;  // the generated op records index_tensor's own gradient
  const RowIndex r = resolve_rows("index_tensor", x, indices, place);
  const Tensor picked = index_select(reshape(x, {r.outer, r.inner}), r.rows, 0);
  return reshape(picked, IntArray(concat_shapes(r.b, x.shape(), r.dims)));
}

void index_put_on_device(const Place& place, const Tensor& x, const std::vector<Tensor>& indices,
                         const Tensor& value, bool accumulate, const Tensor& out) {
  autograd::NoGradGuard no_grad;
  const RowIndex r = resolve_rows("index_put", x, indices, place);
  const Shape target = concat_shapes(r.b, x.shape(), r.dims);
  bool fits = value.ndim() <= static_cast<int64_t>(target.size());
  for (int64_t i = 0; fits && i < value.ndim(); ++i) {
    const int64_t v = value.shape()[value.ndim() - 1 - i], t = target[target.size() - 1 - i];
    fits = v == t || v == 1;
  }
  OAR_ENFORCE_ARG(fits, "index_put: shape mismatch: value tensor of shape ", shape_str(value.shape()),
                  " cannot be broadcast to the indexing result of shape ", shape_str(target),
                  " (x's shape = ", shape_str(x.shape()), ").");
  Tensor o = out;  // a handle to the output's storage
  o.copy_(x);
  const int64_t positions = r.rows.numel();
  if (positions == 0 || r.inner == 0) return;
  const Tensor flat = reshape(o, {r.outer, r.inner});
  const Tensor v = reshape(expand(value.dtype() == o.dtype() ? value : cast(value, o.dtype()), IntArray(target)),
                           {positions, r.inner});
  Tensor result;
  if (accumulate) {
    result = index_add(flat, r.rows, 0, v);  // repeated rows add up
  } else {  // each row written in order: the last of repeated rows wins, as on the host
    result = put_along_axis_base(flat, expand(unsqueeze(r.rows, {1}), {positions, r.inner}), v, 0, "assign");
  }
  o.copy_(reshape(result, IntArray(x.shape())));
}

Tensor masked_select_on_device(const Place& place, const Tensor& x, const Tensor& mask) {
  autograd::NoGradGuard no_grad;
  OAR_ENFORCE(mask.dtype() == DType::Bool, TypeMismatch, "masked_select: argument 'mask' must be ",
              "a bool tensor, but received dtype ", dtype_name(mask.dtype()), ".");
  const Shape shape = broadcast_shapes(x.shape(), mask.shape(), "masked_select");
  const Tensor xb = expand(x, IntArray(shape));
  return index_tensor_on_device(place, reshape(xb, {-1}), {reshape(expand(mask, IntArray(shape)), {-1})});
}

Tensor nonzero_on_device(const Place& place, const Tensor& x) {
  // The count decides the shape: the coordinates are found on the host copy.
  return copy_to_place(kernels::nonzero(copy_to_place(x, CPUPlace())), place);
}

}  // namespace oar::ops
