#include "oar/ops/device_dispatch.h"

#include <cstring>

#include "oar/device/device_registry.h"

namespace oar::ops {

namespace {

[[noreturn]] void mixed_places(const char* op, const Place& a, const Place& b) {
  OAR_THROW(InvalidArgument, op, ": inputs are on different devices, ", a.str(), " and ", b.str(),
            "; move them to one place first (Tensor.to)");
}

// One attribute in the plug-in ABI's form; pointers refer into the op's AttributeMap, which
// outlives the kernel call.
OarAttr to_oar_attr(const std::string& name, const ir::Attribute& a) {
  OarAttr r{};
  r.name = name.c_str();
  switch (a.kind()) {
    case ir::AttrKind::None: r.kind = OAR_ATTR_NONE; break;
    case ir::AttrKind::Bool: r.kind = OAR_ATTR_BOOL; r.i = a.as_bool(); break;
    case ir::AttrKind::Int: r.kind = OAR_ATTR_INT; r.i = a.as_int(); break;
    case ir::AttrKind::Float: r.kind = OAR_ATTR_FLOAT; r.f = a.as_float(); break;
    case ir::AttrKind::Str: r.kind = OAR_ATTR_STRING; r.s = a.as_string().c_str(); break;
    case ir::AttrKind::DType: r.kind = OAR_ATTR_DTYPE; r.i = static_cast<int64_t>(a.as_dtype()); break;
    case ir::AttrKind::IntArray: {
      const auto& v = a.as_int_array();
      r.kind = OAR_ATTR_INT_ARRAY;
      r.ints = v.data();
      r.count = static_cast<int64_t>(v.size());
      break;
    }
    case ir::AttrKind::FloatArray: {
      const auto& v = a.as_float_array();
      r.kind = OAR_ATTR_FLOAT_ARRAY;
      r.floats = v.data();
      r.count = static_cast<int64_t>(v.size());
      break;
    }
    case ir::AttrKind::Scalar: {
      const Scalar& s = a.as_scalar();
      switch (s.kind()) {
        case Scalar::Kind::Bool: r.kind = OAR_ATTR_SCALAR_BOOL; r.i = s.to<int64_t>(); break;
        case Scalar::Kind::Int: r.kind = OAR_ATTR_SCALAR_INT; r.i = s.to<int64_t>(); r.f = s.to<double>(); break;
        case Scalar::Kind::Float: r.kind = OAR_ATTR_SCALAR_FLOAT; r.f = s.to<double>(); break;
        case Scalar::Kind::Complex: {
          const complex128 c = s.to<complex128>();
          r.kind = OAR_ATTR_SCALAR_COMPLEX;
          r.f = c.real();
          r.f_imag = c.imag();
          break;
        }
      }
      break;
    }
  }
  return r;
}

OarTensor to_oar_tensor(const Tensor& t) {
  OarTensor r{};
  if (!t.defined()) {
    r.ndim = -1;
    return r;
  }
  r.data = t.device_data();
  r.dtype = static_cast<int32_t>(t.dtype());
  r.ndim = static_cast<int32_t>(t.ndim());
  r.shape = t.shape().data();
  r.strides = t.strides().data();
  r.numel = t.numel();
  return r;
}

std::string registered_dtypes(const device::Backend& b, const char* op) {
  std::string out;
  auto it = b.kernels.find(op);
  if (it == b.kernels.end()) return out;
  for (int d = 0; d < kNumDTypes; ++d) {
    if (!it->second[d]) continue;
    if (!out.empty()) out += ", ";
    out += dtype_name(static_cast<DType>(d));
  }
  return out;
}

}  // namespace

Place device_place_of(const char* op, std::initializer_list<const Tensor*> inputs,
                      std::initializer_list<const std::vector<Tensor>*> lists) {
  Place found = CPUPlace();
  auto visit = [&](const Tensor& t) {
    if (!t.defined() || !t.storage()) return;
    const Place p = t.storage()->place();
    if (p.is_host()) return;
    if (found.is_host()) found = p;
    else if (found != p) mixed_places(op, found, p);
  };
  for (const Tensor* t : inputs) visit(*t);
  for (const std::vector<Tensor>* l : lists)
    for (const Tensor& t : *l) visit(t);
  return found;
}

Tensor copy_to_place(const Tensor& x, const Place& place) {
  if (!x.defined() || x.place() == place) return x;
  // Host-side copies read whole strided views only through a contiguous buffer.
  const Tensor src = x.place().is_host() ? x.contiguous() : x;
  if (!src.is_contiguous()) {  // a strided device view: compact it on its device first
    return copy_to_place(src.contiguous(), place);
  }
  Tensor out = Tensor::make(src.shape(), src.dtype(), place);
  device::copy_bytes(place, out.device_data(), src.place(), src.device_data(),
                     static_cast<size_t>(src.numel()) * src.element_size());
  return out;
}

void launch(const char* op, const Place& place, const std::vector<Tensor>& inputs,
            const ir::AttributeMap& attrs, const std::vector<Tensor>& outputs) {
  device::Backend& b = device::backend_of(place, op);
  // The kernel's dtype: the first non-bool input's (where's x, not its condition), as the ABI says.
  const Tensor* key = nullptr;
  for (const Tensor& t : inputs) {
    if (!t.defined()) continue;
    if (key == nullptr || (key->dtype() == DType::Bool && t.dtype() != DType::Bool)) key = &t;
    if (key->dtype() != DType::Bool) break;
  }
  if (key == nullptr && !outputs.empty()) key = &outputs[0];
  const DType dtype = key ? key->dtype() : DType::Float32;
  OarKernelFn fn = device::find_kernel(b, op, dtype);
  if (fn == nullptr) {
    const std::string have = registered_dtypes(b, op);
    OAR_THROW(Unimplemented, op, ": no ", b.name, " kernel for dtype ", dtype_name(dtype), " (",
              place.str(), ")",
              have.empty() ? std::string("; the backend registers none for this op")
                           : "; it has kernels for " + have,
              ". Run this op on the CPU (Tensor.cpu()) or use a supported dtype");
  }
  // Nothing to write (every output is empty or absent): no kernel call, as on the host.
  bool all_empty = !outputs.empty();
  for (const Tensor& t : outputs) all_empty = all_empty && (!t.defined() || t.numel() == 0);
  if (all_empty) return;
  // Host inputs move to the device first (Paddle's data transform).
  std::vector<Tensor> on_device;
  on_device.reserve(inputs.size());
  for (const Tensor& t : inputs)
    on_device.push_back(t.defined() && t.place() != place ? copy_to_place(t, place) : t);
  std::vector<OarTensor> ins, outs;
  ins.reserve(on_device.size());
  for (const Tensor& t : on_device) ins.push_back(to_oar_tensor(t));
  outs.reserve(outputs.size());
  for (const Tensor& t : outputs) outs.push_back(to_oar_tensor(t));
  std::vector<OarAttr> oattrs;
  oattrs.reserve(attrs.size());
  for (const auto& [name, a] : attrs) oattrs.push_back(to_oar_attr(name, a));
  char error[512] = {0};
  OarKernelContext ctx{};
  ctx.op = op;
  ctx.device_id = place.device_id;
  ctx.stream = b.current_streams[place.device_id];
  ctx.num_inputs = static_cast<int32_t>(ins.size());
  ctx.inputs = ins.data();
  ctx.num_outputs = static_cast<int32_t>(outs.size());
  ctx.outputs = outs.data();
  ctx.num_attrs = static_cast<int32_t>(oattrs.size());
  ctx.attrs = oattrs.data();
  ctx.error = error;
  ctx.error_size = sizeof(error);
  const OarStatus status = fn(&ctx);
  if (status == OAR_STATUS_UNSUPPORTED)
    OAR_THROW(Unimplemented, op, ": the ", b.name, " kernel for dtype ", dtype_name(dtype),
              " does not handle this case (", place.str(), ")",
              error[0] ? std::string(": ") + error : std::string());
  if (status == OAR_STATUS_INVALID_VALUE)  // the message is the op's own, as on the host
    OAR_THROW(InvalidArgument, error[0] ? std::string(error) : std::string(op) + ": invalid input values");
  if (status == OAR_STATUS_OUT_OF_MEMORY)
    OAR_THROW(ResourceExhausted, op, " on ", place.str(), ": out of device memory",
              error[0] ? std::string(": ") + error : std::string());
  OAR_ENFORCE(status == OAR_STATUS_OK, External, op, " on ", place.str(), " failed in its ", b.name,
              " kernel (", dtype_name(dtype), ")", error[0] ? std::string(": ") + error : std::string());
}

void unsupported_on_device(const char* op, const Place& place) {
  OAR_THROW(Unimplemented, op, ": not supported on ", place.str(), " yet (its kernel makes its ",
            "own outputs, which only the CPU backend does); run it on the CPU (Tensor.cpu())");
}

}  // namespace oar::ops
