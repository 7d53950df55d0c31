#include "oar/ir/meta_tensor.h"

#include "oar/ops/generated/shape_only/elementwise.h"
#include "oar/ops/generated/shape_only/fused.h"
#include "oar/ops/op_helpers.h"

namespace oar::ir::shape_only {

std::vector<MetaTensor> MetaTensor::list(const std::vector<Tensor>& views) {
  std::vector<MetaTensor> out;
  for (const Tensor& v : views) out.push_back(of(v));
  return out;
}

MetaTensorList::operator std::vector<Tensor>() const { return to_tensors(*this); }

std::vector<Tensor> to_tensors(const std::vector<MetaTensor>& ts) {
  std::vector<Tensor> out;
  for (const MetaTensor& t : ts) out.push_back(t.tensor());
  return out;
}

std::vector<MetaTensor> wrap(const std::vector<Tensor>& ts) {
  std::vector<MetaTensor> out;
  for (const Tensor& t : ts) out.emplace_back(t);
  return out;
}

std::vector<Meta> metas_of(const MetaTensor& t) { return {Meta{t.shape(), t.dtype()}}; }
std::vector<Meta> metas_of(const std::vector<MetaTensor>& ts) {
  std::vector<Meta> out;
  for (const MetaTensor& t : ts) out.push_back(Meta{t.shape(), t.dtype()});
  return out;
}

MetaTensor matmul_bias_act_direct(const MetaTensor&, const MetaTensor&, const MetaTensor&, bool, bool,
                                  const std::string&) {
  return MetaTensor();
}

MetaTensor activate_temporary(const MetaTensor& t, const std::string& activation) {
  return fused_activation(t, activation);
}

MetaTensor ScalarTensorFn::operator()(const Scalar&, DType dtype) const { return MetaTensor::make({}, dtype); }

namespace {
using BinaryFn = MetaTensor (*)(const MetaTensor&, const MetaTensor&);
MetaTensor with_scalar(const MetaTensor& a, const Scalar& b, BinaryFn op, bool scalar_first) {
  const DType t = scalar_result_dtype(a.dtype(), b);
  const MetaTensor x = a.dtype() == t ? a : cast(a, t);
  const MetaTensor s = scalar_tensor(b, t);
  return scalar_first ? op(s, x) : op(x, s);
}
MetaTensor add2(const MetaTensor& a, const MetaTensor& b) { return add(a, b); }
MetaTensor sub2(const MetaTensor& a, const MetaTensor& b) { return subtract(a, b); }
MetaTensor mul2(const MetaTensor& a, const MetaTensor& b) { return multiply(a, b); }
MetaTensor div2(const MetaTensor& a, const MetaTensor& b) { return divide(a, b); }
}  // namespace

MetaTensor operator+(const MetaTensor& a, const MetaTensor& b) { return add(a, b); }
MetaTensor operator-(const MetaTensor& a, const MetaTensor& b) { return subtract(a, b); }
MetaTensor operator*(const MetaTensor& a, const MetaTensor& b) { return multiply(a, b); }
MetaTensor operator/(const MetaTensor& a, const MetaTensor& b) { return divide(a, b); }
MetaTensor operator-(const MetaTensor& a) { return neg(a); }
MetaTensor operator+(const MetaTensor& a, const Scalar& b) { return with_scalar(a, b, &add2, false); }
MetaTensor operator-(const MetaTensor& a, const Scalar& b) { return with_scalar(a, b, &sub2, false); }
MetaTensor operator*(const MetaTensor& a, const Scalar& b) { return with_scalar(a, b, &mul2, false); }
MetaTensor operator/(const MetaTensor& a, const Scalar& b) { return with_scalar(a, b, &div2, false); }
MetaTensor operator+(const Scalar& a, const MetaTensor& b) { return with_scalar(b, a, &add2, true); }
MetaTensor operator-(const Scalar& a, const MetaTensor& b) { return with_scalar(b, a, &sub2, true); }
MetaTensor operator*(const Scalar& a, const MetaTensor& b) { return with_scalar(b, a, &mul2, true); }
MetaTensor operator/(const Scalar& a, const MetaTensor& b) { return with_scalar(b, a, &div2, true); }

}  // namespace oar::ir::shape_only
