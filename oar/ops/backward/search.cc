#include "oar/ops/backward/search.h"

#include "oar/ops/generated/api/creation.h"
#include "oar/ops/generated/api/elementwise.h"
#include "oar/ops/generated/api/search.h"
#include "oar/ops/generated/api/shape.h"
#include "oar/ops/op_helpers.h"

namespace oar {

Tensor put_along_axis_base_grad_arr(const Tensor& arr, const Tensor& indices, const Tensor& values,
                                    int64_t axis, const std::string& reduce, bool include_self,
                                    const Tensor& grad) {
  if (reduce == "add" && include_self) return grad;
  OAR_ENFORCE(reduce == "assign" || reduce == "add", Unimplemented, "put_along_axis: the ",
              "gradient for reduce='", reduce, "' is not implemented; use 'assign' or 'add'");
  // The written positions took their values from `values`: no gradient reaches arr there.
  return put_along_axis_base(grad, indices, zeros(indices.shape(), grad.dtype()), axis, "assign", true);
}

Tensor put_along_axis_base_grad_values(const Tensor& indices, const Tensor& values, int64_t axis,
                                       const std::string& reduce, const Tensor& grad) {
  OAR_ENFORCE(reduce == "assign" || reduce == "add", Unimplemented, "put_along_axis: the ",
              "gradient for reduce='", reduce, "' is not implemented; use 'assign' or 'add'");
  const Tensor g = take_along_axis_base(grad, indices, axis);
  if (reduce == "add") return g;
  // assign: where an index repeats, only the last value written reached the output. Scatter
  // each value's position along the axis, read it back, and keep the values that won.
  const int64_t a = normalize_axis(axis, indices.ndim(), "put_along_axis");
  std::vector<int64_t> id_shape(indices.ndim(), 1);
  id_shape[a] = indices.shape()[a];
  const Tensor ids = broadcast_to(
      reshape_exact(arange(0, indices.shape()[a], 1, DType::Float64), IntArray(id_shape)), indices.shape());
  const Tensor last =
      put_along_axis_base(full(grad.shape(), -1, DType::Float64), indices, ids, axis, "assign", true);
  return where(equal(take_along_axis_base(last, indices, axis), ids), g, zeros_like(g));
}

}  // namespace oar
