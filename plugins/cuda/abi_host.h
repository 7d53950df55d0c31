// Host-side harness for driving the plug-in purely through the device ABI, as oar's core does:
// load liboar_cuda.so, call oar_plugin_init with a recording registrar, move data with the
// device interface and call kernels with hand-built OarKernelContexts. Shared by cuda_test.cc and
// cuda_bench.cc; needs no CUDA headers (16-bit floats are converted here).
#pragma once

#include <dlfcn.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "oar/device/device_ext.h"

namespace abi {

// ---- loading and registration -----------------------------------------------------------------

struct Registry {
  const OarDeviceInterface* dev = nullptr;
  std::map<std::pair<std::string, int>, OarKernelFn> kernels;
  int registered = 0;
};

inline Registry& registry() {
  static Registry r;
  return r;
}

inline OarStatus record_device(const OarDeviceInterface* d) {
  registry().dev = d;
  return OAR_STATUS_OK;
}

inline OarStatus record_kernel(const char* type, const char* op, int32_t dtype, OarKernelFn fn) {
  if (std::strcmp(type, "gpu") != 0) return OAR_STATUS_ERROR;
  registry().kernels[{op, dtype}] = fn;
  ++registry().registered;
  return OAR_STATUS_OK;
}

// The plug-in's path: argv[1], else next to this executable, else where the build put it.
inline std::string plugin_path(int argc, char** argv) {
  if (argc > 1) return argv[1];
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = 0;
    std::string dir(self);
    dir = dir.substr(0, dir.rfind('/') + 1);
    const std::string p = dir + OAR_CUDA_PLUGIN_NAME;
    if (access(p.c_str(), F_OK) == 0) return p;
  }
#ifdef OAR_CUDA_PLUGIN_PATH
  return OAR_CUDA_PLUGIN_PATH;
#else
  return OAR_CUDA_PLUGIN_NAME;
#endif
}

// Loads and initialises the plug-in; exits with a message on failure.
inline Registry& load(int argc, char** argv) {
  const std::string path = plugin_path(argc, argv);
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "FAIL: dlopen %s: %s\n", path.c_str(), dlerror());
    std::exit(1);
  }
  auto init = reinterpret_cast<OarPluginInitFn>(dlsym(lib, OAR_PLUGIN_INIT_SYMBOL));
  if (!init) {
    std::fprintf(stderr, "FAIL: %s has no %s\n", path.c_str(), OAR_PLUGIN_INIT_SYMBOL);
    std::exit(1);
  }
  static const OarRegistrar reg = {OAR_DEVICE_ABI_VERSION, record_device, record_kernel};
  if (init(&reg) != OAR_STATUS_OK || !registry().dev) {
    std::fprintf(stderr, "FAIL: oar_plugin_init failed\n");
    std::exit(1);
  }
  return registry();
}

// ---- 16-bit floats ----------------------------------------------------------------------------

inline uint32_t f32_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float bits_f32(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

inline uint16_t to_bf16(float f) {
  const uint32_t u = f32_bits(f);
  if (std::isnan(f)) return 0x7fc0;
  return static_cast<uint16_t>((u + 0x7fff + ((u >> 16) & 1)) >> 16);  // round to nearest even
}
inline float from_bf16(uint16_t h) { return bits_f32(static_cast<uint32_t>(h) << 16); }

inline uint16_t to_f16(float f) {
  const uint32_t u = f32_bits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000);
  const float a = std::fabs(f);
  if (std::isnan(f)) return sign | 0x7e00;
  if (a >= 65520.0f) return sign | 0x7c00;  // rounds to inf
  if (a < 6.103515625e-05f) {               // subnormal: multiples of 2^-24, nearest even
    return sign | static_cast<uint16_t>(std::nearbyint(a * 16777216.0f));
  }
  const uint32_t au = f32_bits(a);
  uint32_t mant = au & 0x7fffff;
  int32_t exp = static_cast<int32_t>(au >> 23) - 127 + 15;
  uint32_t h = (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  const uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;  // carries into the exponent correctly
  return sign | static_cast<uint16_t>(h);
}
inline float from_f16(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float v;
  if (exp == 0) v = std::ldexp(static_cast<float>(mant), -24);
  else if (exp == 31) v = mant ? NAN : INFINITY;
  else v = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

// ---- dtypes -----------------------------------------------------------------------------------

inline size_t esize(int dt) {
  switch (dt) {
    case OAR_BOOL: return 1;
    case OAR_INT32: return 4;
    case OAR_INT64: return 8;
    case OAR_FLOAT16: case OAR_BFLOAT16: return 2;
    case OAR_FLOAT32: return 4;
    case OAR_FLOAT64: return 8;
  }
  return 0;
}

inline const char* dname(int dt) {
  switch (dt) {
    case OAR_BOOL: return "bool";
    case OAR_INT32: return "int32";
    case OAR_INT64: return "int64";
    case OAR_FLOAT16: return "float16";
    case OAR_BFLOAT16: return "bfloat16";
    case OAR_FLOAT32: return "float32";
    case OAR_FLOAT64: return "float64";
  }
  return "?";
}

inline bool is_float(int dt) {
  return dt == OAR_FLOAT16 || dt == OAR_BFLOAT16 || dt == OAR_FLOAT32 || dt == OAR_FLOAT64;
}

// Stores v as dtype dt (C++ conversion rules: to bool means != 0, float -> int truncates).
inline void encode(int dt, double v, void* p) {
  switch (dt) {
    case OAR_BOOL: *static_cast<uint8_t*>(p) = v != 0; break;
    case OAR_INT32: *static_cast<int32_t*>(p) = static_cast<int32_t>(v); break;
    case OAR_INT64: *static_cast<int64_t*>(p) = static_cast<int64_t>(v); break;
    case OAR_FLOAT16: *static_cast<uint16_t*>(p) = to_f16(static_cast<float>(v)); break;
    case OAR_BFLOAT16: *static_cast<uint16_t*>(p) = to_bf16(static_cast<float>(v)); break;
    case OAR_FLOAT32: *static_cast<float*>(p) = static_cast<float>(v); break;
    case OAR_FLOAT64: *static_cast<double*>(p) = v; break;
  }
}

inline double decode(int dt, const void* p) {
  switch (dt) {
    case OAR_BOOL: return *static_cast<const uint8_t*>(p) ? 1.0 : 0.0;
    case OAR_INT32: return *static_cast<const int32_t*>(p);
    case OAR_INT64: return static_cast<double>(*static_cast<const int64_t*>(p));
    case OAR_FLOAT16: return from_f16(*static_cast<const uint16_t*>(p));
    case OAR_BFLOAT16: return from_bf16(*static_cast<const uint16_t*>(p));
    case OAR_FLOAT32: return *static_cast<const float*>(p);
    case OAR_FLOAT64: return *static_cast<const double*>(p);
  }
  return 0;
}

// The value v becomes once stored as dt.
inline double quantize(int dt, double v) {
  unsigned char buf[8];
  encode(dt, v, buf);
  return decode(dt, buf);
}

// ---- device tensors ---------------------------------------------------------------------------

inline void check_ok(OarStatus st, const char* what) {
  if (st != OAR_STATUS_OK) {
    std::fprintf(stderr, "FAIL: %s returned %d\n", what, static_cast<int>(st));
    std::exit(1);
  }
}

// A device buffer holding `storage` (host copy kept for references) and a view into it.
struct Tensor {
  int dtype = OAR_FLOAT32;
  std::vector<int64_t> shape, strides;
  int64_t offset = 0;
  std::vector<double> storage;  // values of the whole buffer, already quantized to dtype
  void* dev = nullptr;          // buffer start on the device
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    return n;
  }
  OarTensor view() const {
    OarTensor t;
    t.data = static_cast<char*>(dev) + offset * static_cast<int64_t>(esize(dtype));
    t.dtype = dtype;
    t.ndim = static_cast<int32_t>(shape.size());
    t.shape = shape.data();
    t.strides = strides.data();
    t.numel = numel();
    return t;
  }
  // Logical element at multi-index idx (one entry per dim).
  double at(const std::vector<int64_t>& idx) const {
    int64_t o = offset;
    for (size_t d = 0; d < idx.size(); ++d) o += idx[d] * strides[d];
    return storage[static_cast<size_t>(o)];
  }
};

inline std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size());
  int64_t acc = 1;
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    s[d] = acc;
    acc *= shape[d];
  }
  return s;
}

inline void upload(const Registry& r, Tensor& t) {
  const size_t es = esize(t.dtype);
  const size_t bytes = t.storage.size() * es;
  std::vector<unsigned char> host(bytes ? bytes : 1);
  for (size_t i = 0; i < t.storage.size(); ++i) encode(t.dtype, t.storage[i], &host[i * es]);
  check_ok(r.dev->allocate(0, bytes ? bytes : 16, &t.dev), "allocate");
  if (bytes) check_ok(r.dev->memcpy_h2d(0, nullptr, t.dev, host.data(), bytes), "memcpy_h2d");
}

// Re-reads the whole buffer from the device into t.storage.
inline void download(const Registry& r, Tensor& t) {
  const size_t es = esize(t.dtype);
  const size_t bytes = t.storage.size() * es;
  if (!bytes) return;
  std::vector<unsigned char> host(bytes);
  check_ok(r.dev->memcpy_d2h(0, nullptr, host.data(), t.dev, bytes), "memcpy_d2h");
  for (size_t i = 0; i < t.storage.size(); ++i) t.storage[i] = decode(t.dtype, &host[i * es]);
}

inline void release(const Registry& r, Tensor& t) {
  if (t.dev) r.dev->deallocate(0, t.dev, t.storage.size() * esize(t.dtype));
  t.dev = nullptr;
}

// ---- attributes and kernel calls --------------------------------------------------------------

struct Attrs {
  std::vector<OarAttr> list;
  std::vector<std::vector<int64_t>> arrays;  // owned INT_ARRAY storage
  Attrs& add(const char* name, int kind, int64_t i = 0, double f = 0) {
    OarAttr a;
    std::memset(&a, 0, sizeof a);
    a.name = name;
    a.kind = kind;
    a.i = i;
    a.f = f;
    list.push_back(a);
    return *this;
  }
  Attrs& boolean(const char* name, bool v) { return add(name, OAR_ATTR_BOOL, v); }
  Attrs& scalar(const char* name, double v) { return add(name, OAR_ATTR_SCALAR_FLOAT, 0, v); }
  Attrs& scalar_int(const char* name, int64_t v) {
    return add(name, OAR_ATTR_SCALAR_INT, v, double(v));
  }
  Attrs& dtype(const char* name, int dt) { return add(name, OAR_ATTR_DTYPE, dt); }
  Attrs& ints(const char* name, std::vector<int64_t> v) {
    arrays.reserve(16);  // keeps earlier arrays' storage in place
    arrays.push_back(std::move(v));
    add(name, OAR_ATTR_INT_ARRAY);
    list.back().ints = arrays.back().data();
    list.back().count = static_cast<int64_t>(arrays.back().size());
    return *this;
  }
};

struct Call {
  OarStatus status;
  std::string error;
};

inline Call call(const Registry& r, const char* op, int key_dtype, const std::vector<OarTensor>& in,
                 const std::vector<OarTensor>& out, const Attrs& attrs = Attrs(),
                 OarStream stream = nullptr) {
  auto it = r.kernels.find({op, key_dtype});
  if (it == r.kernels.end())
    return {OAR_STATUS_ERROR, std::string("no kernel ") + op + " " + dname(key_dtype)};
  char err[512] = {0};
  OarKernelContext ctx;
  ctx.op = op;
  ctx.device_id = 0;
  ctx.stream = stream;
  ctx.num_inputs = static_cast<int32_t>(in.size());
  ctx.inputs = in.data();
  ctx.num_outputs = static_cast<int32_t>(out.size());
  ctx.outputs = out.data();
  ctx.num_attrs = static_cast<int32_t>(attrs.list.size());
  ctx.attrs = attrs.list.data();
  ctx.error = err;
  ctx.error_size = sizeof err;
  const OarStatus st = it->second(&ctx);
  return {st, err};
}

}  // namespace abi
