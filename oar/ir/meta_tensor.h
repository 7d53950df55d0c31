// MetaTensor: what a composite op's C++ body computes with when the IR infers its result types.
// Each oar/ops/composite/<family>.cc is compiled a second time in namespace oar::ir::shape_only
// with `Tensor` meaning `MetaTensor` (oar/ops/composite/composite.h): every op it calls resolves
// to that op's shape-only twin (its infer_meta on placeholders, or the composite's own
// shape-only body), and the arithmetic operators below do the same, so no kernel runs and
// nothing is allocated.
// A MetaTensor converts to `const Tensor&` (a placeholder) so infer_meta checks can read it;
// nothing converts a Tensor back into a MetaTensor implicitly, so an eager op's result can never
// flow into the shape-only computation.
#pragma once
#include <string>
#include <tuple>
#include <vector>

#include "oar/ir/type_inference.h"

namespace oar::ir::shape_only {

class MetaTensor {
 public:
  MetaTensor() = default;  // undefined, like Tensor()
  explicit MetaTensor(const Meta& m) : t_(placeholder(m.shape, m.dtype)) {}
  explicit MetaTensor(Tensor placeholder_tensor) : t_(std::move(placeholder_tensor)) {}
  // Tensor::make's twin: metadata only.
  static MetaTensor make(const Shape& shape, DType dtype, Place = CPUPlace()) {
    return MetaTensor(Meta{shape, dtype});
  }
  // The geometry of a view computed by a view kernel on placeholders.
  static MetaTensor of(const Tensor& view) { return MetaTensor(Meta{view.shape(), view.dtype()}); }
  static std::vector<MetaTensor> list(const std::vector<Tensor>& views);

  operator const Tensor&() const { return t_; }  // NOLINT: infer_meta functions read it
  const Tensor& tensor() const { return t_; }
  bool defined() const { return t_.defined(); }
  DType dtype() const { return t_.dtype(); }
  const Shape& shape() const { return t_.shape(); }
  int64_t ndim() const { return t_.ndim(); }
  int64_t numel() const { return t_.numel(); }
  bool is_contiguous() const { return true; }
  MetaTensor contiguous() const { return *this; }
  // Programs are place-free (the run decides: docs/devices.md), so types carry no place.
  Place place() const { return CPUPlace(); }

 private:
  Tensor t_;
};

// A Tensor[] argument: reads as a vector of MetaTensor and converts to the std::vector<Tensor>
// that infer_meta functions take.
struct MetaTensorList : std::vector<MetaTensor> {
  using std::vector<MetaTensor>::vector;
  MetaTensorList(std::vector<MetaTensor> v) : std::vector<MetaTensor>(std::move(v)) {}  // NOLINT
  operator std::vector<Tensor>() const;  // NOLINT
};

std::vector<Tensor> to_tensors(const std::vector<MetaTensor>& ts);
std::vector<MetaTensor> wrap(const std::vector<Tensor>& ts);

// The results of a shape-only op as infer_meta results.
std::vector<Meta> metas_of(const MetaTensor& t);
std::vector<Meta> metas_of(const std::vector<MetaTensor>& ts);
template <typename... Ts>
std::vector<Meta> metas_of(const std::tuple<Ts...>& ts) {
  std::vector<Meta> out;
  std::apply([&](const auto&... t) { (out.push_back(Meta{t.shape(), t.dtype()}), ...); }, ts);
  return out;
}

// The arithmetic of op_helpers.h, shape-only (same promotion rules).
MetaTensor operator+(const MetaTensor& a, const MetaTensor& b);
MetaTensor operator-(const MetaTensor& a, const MetaTensor& b);
MetaTensor operator*(const MetaTensor& a, const MetaTensor& b);
MetaTensor operator/(const MetaTensor& a, const MetaTensor& b);
MetaTensor operator-(const MetaTensor& a);
MetaTensor operator+(const MetaTensor& a, const Scalar& b);
MetaTensor operator-(const MetaTensor& a, const Scalar& b);
MetaTensor operator*(const MetaTensor& a, const Scalar& b);
MetaTensor operator/(const MetaTensor& a, const Scalar& b);
MetaTensor operator+(const Scalar& a, const MetaTensor& b);
MetaTensor operator-(const Scalar& a, const MetaTensor& b);
MetaTensor operator*(const Scalar& a, const MetaTensor& b);
MetaTensor operator/(const Scalar& a, const MetaTensor& b);
// The twins of op_helpers.h's fast paths for composites: matmul_bias_act_direct gives an
// undefined result (the body then describes the unfused ops, whose types are the same);
// activate_temporary is fused_activation's twin.
MetaTensor matmul_bias_act_direct(const MetaTensor& x, const MetaTensor& y, const MetaTensor& bias, bool transpose_x,
                                  bool transpose_y, const std::string& activation);
MetaTensor activate_temporary(const MetaTensor& t, const std::string& activation);

// scalar_tensor's twin. A function object, not a function: argument-dependent lookup would also
// find oar::scalar_tensor through DType's namespace (an ambiguous call), and it does not run
// when ordinary lookup finds an object.
struct ScalarTensorFn {
  MetaTensor operator()(const Scalar& s, DType dtype) const;
};
inline constexpr ScalarTensorFn scalar_tensor{};

}  // namespace oar::ir::shape_only
