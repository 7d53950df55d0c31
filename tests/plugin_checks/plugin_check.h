// What the plug-in checks (tests/plugin_checks/*_check.cc) share: loading a plug-in and keeping the
// device and kernels it registers for one device type, device copies of oar's host tensors,
// calling a kernel through the ABI, and comparing its output with the host kernel's.
// Each check is one program that includes this header once.
#pragma once
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "oar/core/tensor.h"
#include "oar/device/device_ext.h"

namespace {

const OarDeviceInterface* g_dev = nullptr;
const char* g_type = "custom_cpu";
std::map<std::pair<std::string, int>, OarKernelFn> g_kernels;

OarStatus record_device(const OarDeviceInterface* d) {
  if (std::strcmp(d->device_type, g_type) == 0) g_dev = d;
  return OAR_STATUS_OK;
}
OarStatus record_kernel(const char* type, const char* op, int32_t dtype, OarKernelFn fn) {
  if (std::strcmp(type, g_type) == 0) g_kernels[{op, dtype}] = fn;
  return OAR_STATUS_OK;
}

int g_failures = 0;

// A device copy of a host tensor (or an absent slot).
struct Dev {
  void* base = nullptr;
  size_t nbytes = 0;
  std::vector<int64_t> shape, strides;
  int32_t dtype = OAR_FLOAT32;
  bool present = false;
  OarTensor view() const {
    OarTensor t{};
    if (!present) {
      t.ndim = -1;
      return t;
    }
    t.data = base;
    t.dtype = dtype;
    t.ndim = static_cast<int32_t>(shape.size());
    t.shape = shape.data();
    t.strides = strides.data();
    t.numel = 1;
    for (int64_t s : shape) t.numel *= s;
    return t;
  }
};

std::vector<int64_t> contiguous(const std::vector<int64_t>& shape) {
  std::vector<int64_t> st(shape.size());
  int64_t step = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    st[d] = step;
    step *= shape[d];
  }
  return st;
}

Dev empty_like(const oar::Tensor& t) {
  Dev d;
  if (!t.defined()) return d;
  d.present = true;
  d.dtype = static_cast<int32_t>(t.dtype());
  d.shape = t.shape();
  d.strides = contiguous(d.shape);
  d.nbytes = static_cast<size_t>(t.numel()) * oar::dtype_size(t.dtype());
  if (g_dev->allocate(0, d.nbytes ? d.nbytes : 1, &d.base) != OAR_STATUS_OK) std::abort();
  return d;
}

Dev upload(const oar::Tensor& t) {
  Dev d = empty_like(t);
  if (d.present && d.nbytes) g_dev->memcpy_h2d(0, nullptr, d.base, t.raw_data(), d.nbytes);
  return d;
}

// A tensor of rank >= 2 uploaded with its last two dims swapped in memory: same values.
Dev upload_swapped(const oar::Tensor& t) {
  Dev d = empty_like(t);
  const size_t nd = d.shape.size();
  const int64_t r = d.shape[nd - 2], c = d.shape[nd - 1];
  const int64_t batch = t.numel() / std::max<int64_t>(1, r * c);
  const size_t es = oar::dtype_size(t.dtype());
  std::vector<char> host(d.nbytes);
  const char* src = static_cast<const char*>(t.raw_data());
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < r; ++i)
      for (int64_t j = 0; j < c; ++j)
        std::memcpy(&host[(b * r * c + j * r + i) * es], src + (b * r * c + i * c + j) * es, es);
  if (d.nbytes) g_dev->memcpy_h2d(0, nullptr, d.base, host.data(), d.nbytes);
  d.strides[nd - 2] = 1;
  d.strides[nd - 1] = r;
  return d;
}

void release(Dev& d) {
  if (d.present) g_dev->deallocate(0, d.base, d.nbytes ? d.nbytes : 1);
}

// Largest |got - want| / (1 + |want|); `zeros`: compare with 0 instead of `want`.
template <typename T>
void compare(const char* what, const std::string& label, const Dev& got, const oar::Tensor& want, double tol,
             bool zeros = false) {
  if (!got.present) return;
  std::vector<T> g(got.nbytes / sizeof(T));
  if (got.nbytes) g_dev->memcpy_d2h(0, nullptr, g.data(), got.base, got.nbytes);
  double worst = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    const double w = zeros ? 0.0 : double(want.data<T>()[i]);
    const double diff = std::fabs(double(g[i]) - w) / (1.0 + std::fabs(w));
    if (!(diff <= worst)) worst = diff;
  }
  if (!(worst <= tol)) {
    std::printf("FAIL %s %s: max relative difference %g\n", label.c_str(), what, worst);
    ++g_failures;
  }
}

OarStatus call(const char* op, int32_t dtype, const std::vector<const Dev*>& ins, const std::vector<const Dev*>& outs,
               const std::vector<OarAttr>& attrs, std::string* message) {
  std::vector<OarTensor> in_views, out_views;
  for (const Dev* d : ins) in_views.push_back(d->view());
  for (const Dev* d : outs) out_views.push_back(d->view());
  char error[512] = "";
  OarKernelContext ctx{};
  ctx.op = op;
  ctx.device_id = 0;
  ctx.stream = nullptr;
  ctx.num_inputs = static_cast<int32_t>(in_views.size());
  ctx.inputs = in_views.data();
  ctx.num_outputs = static_cast<int32_t>(out_views.size());
  ctx.outputs = out_views.data();
  ctx.num_attrs = static_cast<int32_t>(attrs.size());
  ctx.attrs = attrs.data();
  ctx.error = error;
  ctx.error_size = sizeof error;
  const OarStatus st = g_kernels.at({op, dtype})(&ctx);
  g_dev->synchronize_device(0);
  *message = error;
  return st;
}

// Loads the plug-in argv[1] and keeps device type argv[2] (default custom_cpu), device 0 current.
// Returns -1 to go on, else the exit status: 2 for bad usage, 1 when the plug-in does not load or
// has no such device type, 0 (a skip) when it has no device of that type.
int load_plugin(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s path/to/plugin.so [device type, default custom_cpu]\n", argv[0]);
    return 2;
  }
  if (argc > 2) g_type = argv[2];
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  auto init = reinterpret_cast<OarPluginInitFn>(dlsym(lib, OAR_PLUGIN_INIT_SYMBOL));
  static const OarRegistrar reg = {OAR_DEVICE_ABI_VERSION, record_device, record_kernel};
  if (!init || init(&reg) != OAR_STATUS_OK || !g_dev) {
    std::fprintf(stderr, "%s registers no device type %s\n", argv[1], g_type);
    return 1;
  }
  if (g_dev->device_count() < 1) {
    std::printf("no %s device: SKIP\n", g_type);
    return 0;
  }
  g_dev->set_device(0);
  return -1;
}

}  // namespace
