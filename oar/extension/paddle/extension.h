// `#include "paddle/extension.h"` for custom operators written for Paddle: the source of a Paddle
// custom op compiles unchanged against oar (oar.utils.cpp_extension puts this directory on the
// include path). paddle::Tensor wraps an oar::Tensor; PD_BUILD_OP / PD_BUILD_GRAD_OP register into
// oar's custom-op registry (oar/extension/custom_op.h); PD_KERNEL, PD_INFER_SHAPE and
// PD_INFER_DTYPE adapt the user's function signatures to the registry's uniform ones, taking
// inputs in order, then attributes in order, as Paddle does. CPU tensors only.
#pragma once
#include <any>
#include <cstdint>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "oar/core/error.h"
#include "oar/core/tensor.h"
#include "oar/extension/custom_op.h"

namespace paddle {

// ---- dtypes and places -------------------------------------------------------------------------
enum class DataType { BOOL, INT8, UINT8, INT16, INT32, INT64, FLOAT16, BFLOAT16, FLOAT32, FLOAT64, COMPLEX64,
                      COMPLEX128, UNDEFINED };

inline oar::DType to_oar(DataType t) {
  OAR_ENFORCE(t != DataType::UNDEFINED, InvalidArgument, "custom op: the data type is UNDEFINED");
  return static_cast<oar::DType>(static_cast<int>(t));  // same order as oar::DType
}
inline DataType from_oar(oar::DType t) { return static_cast<DataType>(static_cast<int>(t)); }
inline std::ostream& operator<<(std::ostream& os, DataType t) {
  return os << (t == DataType::UNDEFINED ? "undefined" : oar::dtype_name(to_oar(t)));
}

enum class PlaceType { kUNK = -1, kCPU = 0, kGPU = 1 };
class Place {
 public:
  Place(oar::Place p = oar::CPUPlace()) : p_(p) {}  // NOLINT: implicit, as Paddle's
  bool is_cpu_place() const { return p_.is_cpu(); }
  bool is_gpu_place() const { return !p_.is_cpu() && !p_.is_host(); }
  PlaceType GetType() const { return p_.is_cpu() ? PlaceType::kCPU : PlaceType::kGPU; }
  const oar::Place& oar_place() const { return p_; }
  bool operator==(const Place& o) const { return p_ == o.p_; }

 private:
  oar::Place p_;
};
inline Place CPUPlace() { return Place(oar::CPUPlace()); }

// ---- errors ------------------------------------------------------------------------------------
namespace detail {
template <typename... Args> std::string concat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace detail
#define PD_THROW(...) \
  throw ::oar::Error(::oar::ErrorKind::InvalidArgument, ::paddle::detail::concat(__VA_ARGS__, " [", __FILE__, ":", __LINE__, "]"))
#define PD_CHECK(COND, ...)                                                                 \
  do {                                                                                      \
    if (!(COND)) PD_THROW("Expected " #COND ", but it's not satisfied. ", ##__VA_ARGS__);   \
  } while (0)

// ---- Tensor ------------------------------------------------------------------------------------
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(oar::Tensor t) : t_(std::move(t)) {}

  template <typename T> T* data() const { return t_.data<T>(); }
  template <typename T> T* mutable_data(const Place& = Place()) { return t_.data<T>(); }
  int64_t numel() const { return t_.numel(); }
  int64_t size() const { return t_.numel(); }
  std::vector<int64_t> shape() const { return std::vector<int64_t>(t_.shape()); }
  std::vector<int64_t> dims() const { return shape(); }
  DataType dtype() const { return from_oar(t_.dtype()); }
  DataType type() const { return dtype(); }
  Place place() const { return Place(t_.place()); }
  bool is_cpu() const { return t_.place().is_cpu(); }
  bool is_gpu() const { return place().is_gpu_place(); }
  bool defined() const { return t_.defined(); }
  bool initialized() const { return t_.defined(); }
  bool is_initialized() const { return t_.defined(); }
  bool is_dense_tensor() const { return true; }
  Tensor cast(DataType t) const { return Tensor(t_.cast(to_oar(t))); }
  Tensor copy_to(const Place& place, bool /*blocking*/ = true) const { return Tensor(t_.to(place.oar_place())); }
  // The same data with another shape (the tensor is contiguous, as kernels receive them).
  Tensor reshape(const std::vector<int64_t>& shape) const {
    OAR_ENFORCE(oar::numel_of(shape) == t_.numel(), InvalidArgument, "Tensor.reshape: ", oar::shape_str(shape),
                " does not hold ", t_.numel(), " elements");
    oar::Tensor c = t_.contiguous();
    return Tensor(oar::Tensor::make_view(c, shape, oar::contiguous_strides(shape), c.offset()));
  }
  const oar::Tensor& oar_tensor() const { return t_; }

 private:
  oar::Tensor t_;
};

// Creation, on the CPU.
inline Tensor empty(const std::vector<int64_t>& shape, DataType dtype = DataType::FLOAT32, const Place& place = CPUPlace()) {
  return Tensor(oar::Tensor::make(shape, to_oar(dtype), place.oar_place()));
}
inline Tensor empty_like(const Tensor& x, DataType dtype = DataType::UNDEFINED, const Place& place = Place()) {
  return empty(x.shape(), dtype == DataType::UNDEFINED ? x.dtype() : dtype, place);
}
inline Tensor full(const std::vector<int64_t>& shape, double value, DataType dtype = DataType::FLOAT32,
                   const Place& place = CPUPlace()) {
  Tensor t = empty(shape, dtype, place);
  oar::Tensor f = oar::Tensor::from_vector(std::vector<double>{value}, {});
  const_cast<oar::Tensor&>(t.oar_tensor()).copy_(f);
  return t;
}
inline Tensor full_like(const Tensor& x, double value, DataType dtype = DataType::UNDEFINED, const Place& place = Place()) {
  return full(x.shape(), value, dtype == DataType::UNDEFINED ? x.dtype() : dtype, place);
}
inline Tensor zeros(const std::vector<int64_t>& shape, DataType dtype = DataType::FLOAT32, const Place& place = CPUPlace()) {
  return full(shape, 0, dtype, place);
}
inline Tensor ones(const std::vector<int64_t>& shape, DataType dtype = DataType::FLOAT32, const Place& place = CPUPlace()) {
  return full(shape, 1, dtype, place);
}
inline Tensor zeros_like(const Tensor& x) { return full_like(x, 0); }
inline Tensor ones_like(const Tensor& x) { return full_like(x, 1); }

// An input that may be absent (paddle::Optional("X")).
template <typename T> class optional : public std::optional<T> {
 public:
  using std::optional<T>::optional;
  const T* get_ptr() const { return this->has_value() ? &this->value() : nullptr; }
  bool is_initialized() const { return this->has_value(); }
  const T& get() const { return this->value(); }
};

// Names of gradients, list inputs and optional inputs in Inputs()/Outputs().
inline std::string Grad(const std::string& name) { return name + oar::extension::kGradSuffix; }
inline std::string Vec(const std::string& name) { return name + oar::extension::kVectorSuffix; }
inline std::string Optional(const std::string& name) { return name + oar::extension::kOptionalSuffix; }

// ---- dispatch over dtypes ----------------------------------------------------------------------
#define PD_PRIVATE_CASE_TYPE(NAME, ENUM, TYPE, ...) \
  case ENUM: {                                      \
    using data_t = TYPE;                            \
    __VA_ARGS__();                                  \
    break;                                          \
  }
#define PD_PRIVATE_DISPATCH_DEFAULT(TYPE, NAME) \
  default: PD_THROW("function " #NAME " is not implemented for data type `", TYPE, "`")
#define PD_PRIVATE_FLOATING_CASES(NAME, ...)                                    \
  PD_PRIVATE_CASE_TYPE(NAME, ::paddle::DataType::FLOAT32, float, __VA_ARGS__)   \
  PD_PRIVATE_CASE_TYPE(NAME, ::paddle::DataType::FLOAT64, double, __VA_ARGS__)
#define PD_PRIVATE_INTEGRAL_CASES(NAME, ...)                                    \
  PD_PRIVATE_CASE_TYPE(NAME, ::paddle::DataType::INT32, int, __VA_ARGS__)       \
  PD_PRIVATE_CASE_TYPE(NAME, ::paddle::DataType::INT64, int64_t, __VA_ARGS__)   \
  PD_PRIVATE_CASE_TYPE(NAME, ::paddle::DataType::INT8, int8_t, __VA_ARGS__)     \
  PD_PRIVATE_CASE_TYPE(NAME, ::paddle::DataType::UINT8, uint8_t, __VA_ARGS__)   \
  PD_PRIVATE_CASE_TYPE(NAME, ::paddle::DataType::INT16, int16_t, __VA_ARGS__)
#define PD_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...)     \
  [&] {                                                 \
    switch (TYPE) {                                     \
      PD_PRIVATE_FLOATING_CASES(NAME, __VA_ARGS__)      \
      PD_PRIVATE_DISPATCH_DEFAULT(TYPE, NAME);          \
    }                                                   \
  }()
#define PD_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...)     \
  [&] {                                                 \
    switch (TYPE) {                                     \
      PD_PRIVATE_INTEGRAL_CASES(NAME, __VA_ARGS__)      \
      PD_PRIVATE_DISPATCH_DEFAULT(TYPE, NAME);          \
    }                                                   \
  }()
#define PD_DISPATCH_FLOATING_AND_INTEGRAL_TYPES(TYPE, NAME, ...) \
  [&] {                                                          \
    switch (TYPE) {                                              \
      PD_PRIVATE_FLOATING_CASES(NAME, __VA_ARGS__)               \
      PD_PRIVATE_INTEGRAL_CASES(NAME, __VA_ARGS__)               \
      PD_PRIVATE_DISPATCH_DEFAULT(TYPE, NAME);                   \
    }                                                            \
  }()

// ---- adapting user functions -------------------------------------------------------------------
namespace detail {

struct Cursor {
  size_t input = 0, attr = 0;
};

// Attributes arrive as bool, int64_t, double, std::string or vectors of int64_t, double, std::string.
template <typename T> T attr_as(const std::any& a) {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string> || std::is_same_v<T, int64_t> ||
                std::is_same_v<T, std::vector<int64_t>> || std::is_same_v<T, std::vector<std::string>>) {
    return std::any_cast<T>(a);
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(std::any_cast<int64_t>(a));
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(std::any_cast<double>(a));
  } else if constexpr (std::is_same_v<T, std::vector<int>>) {
    const auto& v = std::any_cast<const std::vector<int64_t>&>(a);
    return std::vector<int>(v.begin(), v.end());
  } else if constexpr (std::is_same_v<T, std::vector<float>> || std::is_same_v<T, std::vector<double>>) {
    const auto& v = std::any_cast<const std::vector<double>&>(a);
    return T(v.begin(), v.end());
  } else {
    static_assert(sizeof(T) == 0, "custom op: unsupported attribute type");
  }
}

template <typename T> struct KernelArg {
  static T get(const oar::extension::KernelContext& c, Cursor& k) { return attr_as<T>(c.attrs.at(k.attr++)); }
};
template <> struct KernelArg<Tensor> {
  static Tensor get(const oar::extension::KernelContext& c, Cursor& k) { return Tensor(c.inputs.at(k.input++).at(0)); }
};
template <> struct KernelArg<std::vector<Tensor>> {
  static std::vector<Tensor> get(const oar::extension::KernelContext& c, Cursor& k) {
    std::vector<Tensor> out;
    for (const oar::Tensor& t : c.inputs.at(k.input++)) out.emplace_back(t);
    return out;
  }
};
template <> struct KernelArg<optional<Tensor>> {
  static optional<Tensor> get(const oar::extension::KernelContext& c, Cursor& k) {
    const auto& list = c.inputs.at(k.input++);
    return list.empty() ? optional<Tensor>() : optional<Tensor>(Tensor(list[0]));
  }
};

template <typename F, F f> struct KernelAdapter;
template <typename... Args, std::vector<Tensor> (*f)(Args...)>
struct KernelAdapter<std::vector<Tensor> (*)(Args...), f> {
  static std::vector<oar::Tensor> run(const oar::extension::KernelContext& c) {
    Cursor k;
    std::tuple<std::decay_t<Args>...> args{KernelArg<std::decay_t<Args>>::get(c, k)...};  // in order
    std::vector<oar::Tensor> out;
    for (const Tensor& t : std::apply(f, args)) out.push_back(t.oar_tensor());
    return out;
  }
};

// Infer functions see shapes (or dtypes) where the kernel sees tensors, then the attributes.
template <typename T> struct MetaArg {
  static T get(const oar::extension::MetaContext& c, Cursor& k) {
    if constexpr (std::is_same_v<T, std::vector<int64_t>>)
      if (k.input < c.shapes.size()) return c.shapes[k.input++].at(0);
    return attr_as<T>(c.attrs.at(k.attr++));
  }
};
template <> struct MetaArg<std::vector<std::vector<int64_t>>> {
  static std::vector<std::vector<int64_t>> get(const oar::extension::MetaContext& c, Cursor& k) {
    return c.shapes.at(k.input++);
  }
};
template <> struct MetaArg<optional<std::vector<int64_t>>> {
  static optional<std::vector<int64_t>> get(const oar::extension::MetaContext& c, Cursor& k) {
    const auto& list = c.shapes.at(k.input++);
    return list.empty() ? optional<std::vector<int64_t>>() : optional<std::vector<int64_t>>(list[0]);
  }
};
template <> struct MetaArg<DataType> {
  static DataType get(const oar::extension::MetaContext& c, Cursor& k) { return from_oar(c.dtypes.at(k.input++).at(0)); }
};
template <> struct MetaArg<std::vector<DataType>> {
  static std::vector<DataType> get(const oar::extension::MetaContext& c, Cursor& k) {
    std::vector<DataType> out;
    for (oar::DType t : c.dtypes.at(k.input++)) out.push_back(from_oar(t));
    return out;
  }
};
template <> struct MetaArg<optional<DataType>> {
  static optional<DataType> get(const oar::extension::MetaContext& c, Cursor& k) {
    const auto& list = c.dtypes.at(k.input++);
    return list.empty() ? optional<DataType>() : optional<DataType>(from_oar(list[0]));
  }
};

template <typename F, F f> struct InferShapeAdapter;
template <typename... Args, std::vector<std::vector<int64_t>> (*f)(Args...)>
struct InferShapeAdapter<std::vector<std::vector<int64_t>> (*)(Args...), f> {
  static std::vector<std::vector<int64_t>> run(const oar::extension::MetaContext& c) {
    Cursor k;
    std::tuple<std::decay_t<Args>...> args{MetaArg<std::decay_t<Args>>::get(c, k)...};
    return std::apply(f, args);
  }
};
template <typename F, F f> struct InferDtypeAdapter;
template <typename... Args, std::vector<DataType> (*f)(Args...)>
struct InferDtypeAdapter<std::vector<DataType> (*)(Args...), f> {
  static std::vector<oar::DType> run(const oar::extension::MetaContext& c) {
    Cursor k;
    std::tuple<std::decay_t<Args>...> args{MetaArg<std::decay_t<Args>>::get(c, k)...};
    std::vector<oar::DType> out;
    for (DataType t : std::apply(f, args)) out.push_back(to_oar(t));
    return out;
  }
};

}  // namespace detail

#define PD_KERNEL(...) (&::paddle::detail::KernelAdapter<decltype(&__VA_ARGS__), &__VA_ARGS__>::run)
#define PD_INFER_SHAPE(...) (&::paddle::detail::InferShapeAdapter<decltype(&__VA_ARGS__), &__VA_ARGS__>::run)
#define PD_INFER_DTYPE(...) (&::paddle::detail::InferDtypeAdapter<decltype(&__VA_ARGS__), &__VA_ARGS__>::run)

// ---- registration ------------------------------------------------------------------------------
class OpMetaInfoBuilder {
 public:
  // index 0: the op; 1: its grad op ("<name>_grad").
  OpMetaInfoBuilder(const std::string& name, size_t index)
      : meta_(&oar::extension::Registry::global().add(index == 0 ? name : name + "_grad")) {}
  OpMetaInfoBuilder& Inputs(std::vector<std::string>&& inputs) { meta_->inputs = std::move(inputs); return *this; }
  OpMetaInfoBuilder& Outputs(std::vector<std::string>&& outputs) { meta_->outputs = std::move(outputs); return *this; }
  OpMetaInfoBuilder& Attrs(std::vector<std::string>&& attrs) { meta_->attrs = std::move(attrs); return *this; }
  OpMetaInfoBuilder& SetKernelFn(oar::extension::KernelFn fn) { meta_->kernel = std::move(fn); return *this; }
  OpMetaInfoBuilder& SetInferShapeFn(oar::extension::InferShapeFn fn) { meta_->infer_shape = std::move(fn); return *this; }
  OpMetaInfoBuilder& SetInferDtypeFn(oar::extension::InferDtypeFn fn) { meta_->infer_dtype = std::move(fn); return *this; }

 private:
  oar::extension::OpMeta* meta_;
};

}  // namespace paddle

#define PD_BUILD_OP(op_name) \
  static ::paddle::OpMetaInfoBuilder __oar_custom_op_##op_name##__ = ::paddle::OpMetaInfoBuilder(#op_name, 0)
#define PD_BUILD_GRAD_OP(op_name) \
  static ::paddle::OpMetaInfoBuilder __oar_custom_grad_op_##op_name##__ = ::paddle::OpMetaInfoBuilder(#op_name, 1)
