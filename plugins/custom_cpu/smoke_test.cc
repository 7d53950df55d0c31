// A standalone smoke test of liboar_custom_cpu.so, without oar: it dlopens the plug-in, calls
// oar_plugin_init with a registrar that records what is registered, and drives the device and
// kernels as oar would. Contract: exits 0 and prints PASS when every check holds; aborts
// (assert) otherwise. Build by hand (see README.md) or as the EXCLUDE_FROM_ALL CMake target
// oar_custom_cpu_smoke; run: smoke /path/to/liboar_custom_cpu.so
#undef NDEBUG
#include <dlfcn.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "oar/device/device_ext.h"

#if defined(__SANITIZE_THREAD__)
#define SMOKE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SMOKE_TSAN 1
#endif
#endif

namespace {

// ---- the fake registrar ----

const OarDeviceInterface* g_device = nullptr;
std::map<std::pair<std::string, int32_t>, OarKernelFn> g_kernels;

OarStatus record_device(const OarDeviceInterface* d) {
  if (g_device != nullptr) return OAR_STATUS_ERROR;
  g_device = d;
  return OAR_STATUS_OK;
}

OarStatus record_kernel(const char* type, const char* op, int32_t dtype, OarKernelFn fn) {
  assert(std::strcmp(type, "custom_cpu") == 0);
  const bool fresh = g_kernels.emplace(std::make_pair(std::string(op), dtype), fn).second;
  return fresh ? OAR_STATUS_OK : OAR_STATUS_ERROR;  // a duplicate registration is a bug
}

#define CHECK_OK(expr) assert((expr) == OAR_STATUS_OK)

size_t element_size(int32_t dtype) {
  switch (dtype) {
    case OAR_BOOL: case OAR_INT8: case OAR_UINT8: return 1;
    case OAR_INT16: case OAR_FLOAT16: case OAR_BFLOAT16: return 2;
    case OAR_INT32: case OAR_FLOAT32: return 4;
    case OAR_COMPLEX128: return 16;
    default: return 8;
  }
}

// ---- device tensors ----

struct DevTensor {
  int32_t dtype = OAR_FLOAT32;
  std::vector<int64_t> shape, strides;
  void* base = nullptr;  // the allocation
  size_t nbytes = 0;
  int64_t offset = 0;    // element 0 of the view, in elements from base

  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    return n;
  }
  OarTensor view() const {
    return OarTensor{static_cast<char*>(base) + offset * int64_t(element_size(dtype)), dtype,
                     int32_t(shape.size()), shape.data(), strides.data(), numel()};
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

DevTensor empty(int32_t dtype, std::vector<int64_t> shape, int device = 0) {
  DevTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.strides = contiguous(t.shape);
  t.nbytes = size_t(t.numel()) * element_size(dtype);
  CHECK_OK(g_device->allocate(device, t.nbytes, &t.base));
  return t;
}

void release(DevTensor& t, int device = 0) { CHECK_OK(g_device->deallocate(device, t.base, t.nbytes)); }

// Uploads on `stream` (asynchronously unless it is NULL).
template <typename T>
DevTensor upload(int32_t dtype, std::vector<int64_t> shape, const std::vector<T>& values, OarStream stream) {
  DevTensor t = empty(dtype, std::move(shape));
  assert(values.size() * sizeof(T) == t.nbytes);
  CHECK_OK(g_device->memcpy_h2d(0, stream, t.base, values.data(), t.nbytes));
  return t;
}

// The whole allocation, synchronously (default stream), after `stream` has finished.
template <typename T>
std::vector<T> download(const DevTensor& t, OarStream stream) {
  CHECK_OK(g_device->synchronize_stream(0, stream));
  std::vector<T> out(t.nbytes / sizeof(T));
  CHECK_OK(g_device->memcpy_d2h(0, nullptr, out.data(), t.base, t.nbytes));
  return out;
}

// ---- attributes ----

OarAttr attr_bool(const char* name, bool v) { OarAttr a{}; a.name = name; a.kind = OAR_ATTR_BOOL; a.i = v; return a; }
OarAttr attr_float(const char* name, double v) { OarAttr a{}; a.name = name; a.kind = OAR_ATTR_SCALAR_FLOAT; a.f = v; return a; }
OarAttr attr_int(const char* name, int64_t v) { OarAttr a{}; a.name = name; a.kind = OAR_ATTR_SCALAR_INT; a.i = v; return a; }
OarAttr attr_string(const char* name, const char* v) { OarAttr a{}; a.name = name; a.kind = OAR_ATTR_STRING; a.s = v; return a; }
OarAttr attr_dtype(const char* name, int32_t d) { OarAttr a{}; a.name = name; a.kind = OAR_ATTR_DTYPE; a.i = d; return a; }
OarAttr attr_ints(const char* name, const std::vector<int64_t>& v) {
  OarAttr a{};
  a.name = name;
  a.kind = OAR_ATTR_INT_ARRAY;
  a.ints = v.data();
  a.count = int64_t(v.size());
  return a;
}

// Calls kernel (op, dtype) on `stream`. The shape and stride arrays it sees are private copies
// that are scribbled over as soon as it returns: a kernel that kept pointers to them instead
// of copying would compute garbage.
OarStatus call(const char* op, int32_t dtype, const std::vector<DevTensor>& ins,
               const std::vector<DevTensor>& outs, const std::vector<OarAttr>& attrs, OarStream stream,
               std::string* error = nullptr) {
  auto it = g_kernels.find({op, dtype});
  assert(it != g_kernels.end() && "kernel not registered");
  std::vector<DevTensor> copies(ins);
  copies.insert(copies.end(), outs.begin(), outs.end());
  std::vector<OarTensor> views;
  for (const DevTensor& t : copies) views.push_back(t.view());
  char message[256] = "";
  OarKernelContext ctx{};
  ctx.op = op;
  ctx.device_id = 0;
  ctx.stream = stream;
  ctx.num_inputs = int32_t(ins.size());
  ctx.inputs = views.data();
  ctx.num_outputs = int32_t(outs.size());
  ctx.outputs = views.data() + ins.size();
  ctx.num_attrs = int32_t(attrs.size());
  ctx.attrs = attrs.data();
  ctx.error = message;
  ctx.error_size = sizeof message;
  const OarStatus st = it->second(&ctx);
  for (DevTensor& t : copies) {
    for (int64_t& s : t.shape) s = -12345;
    for (int64_t& s : t.strides) s = 999999;
  }
  if (error != nullptr) *error = message;
  if (st != OAR_STATUS_OK && error == nullptr) std::fprintf(stderr, "%s failed: %s\n", op, message);
  return st;
}

// ---- the checks ----

void check_registration() {
  assert(g_device != nullptr);
  assert(g_device->abi_version == OAR_DEVICE_ABI_VERSION);
  assert(g_device->struct_size == sizeof(OarDeviceInterface));
  assert(std::strcmp(g_device->device_type, "custom_cpu") == 0);
  assert(g_device->device_count() == 2);
  assert(g_kernels.count({"add", OAR_FLOAT32}) && g_kernels.count({"where", OAR_BOOL}));
  assert(g_kernels.count({"full", OAR_INT64}) && g_kernels.count({"copy_", OAR_BOOL}));
  assert(!g_kernels.count({"exp", OAR_INT32}));
  std::printf("registered %zu kernels\n", g_kernels.size());
}

void check_memory() {
  size_t free0 = 0, total = 0;
  CHECK_OK(g_device->memory_info(1, &free0, &total));
  assert(total == (size_t{8} << 30) && free0 == total);
  void* p = nullptr;
  CHECK_OK(g_device->allocate(1, 1000, &p));
  size_t free1 = 0;
  CHECK_OK(g_device->memory_info(1, &free1, &total));
  assert(free1 == free0 - 1000);
  int on_the_host = 0;
  assert(g_device->deallocate(1, &on_the_host, 4) == OAR_STATUS_ERROR);  // not device memory
  assert(g_device->deallocate(1, p, 999) == OAR_STATUS_ERROR);            // wrong size
  assert(g_device->deallocate(0, p, 1000) == OAR_STATUS_ERROR);           // wrong device
  void* huge = nullptr;
  assert(g_device->allocate(1, size_t{9} << 30, &huge) == OAR_STATUS_OUT_OF_MEMORY);
  CHECK_OK(g_device->deallocate(1, p, 1000));
  CHECK_OK(g_device->memory_info(1, &free1, &total));
  assert(free1 == free0);
  void* pinned = nullptr;
  CHECK_OK(g_device->host_allocate(0, 64, &pinned));
  assert(g_device->host_deallocate(0, &on_the_host, 64) == OAR_STATUS_ERROR);
  CHECK_OK(g_device->host_deallocate(0, pinned, 64));
  assert(g_device->device_count() == 2 && g_device->set_device(1) == OAR_STATUS_OK);
  assert(g_device->set_device(2) == OAR_STATUS_ERROR);
  std::printf("memory: ok\n");
}

void check_kernels(OarStream s) {
  // add, y broadcast with fewer dims: [2,3] + [3]
  DevTensor x = upload<float>(OAR_FLOAT32, {2, 3}, {1, 2, 3, 4, 5, 6}, s);
  DevTensor y = upload<float>(OAR_FLOAT32, {3}, {10, 20, 30}, s);
  DevTensor sum = empty(OAR_FLOAT32, {2, 3});
  CHECK_OK(call("add", OAR_FLOAT32, {x, y}, {sum}, {}, s));
  assert((download<float>(sum, s) == std::vector<float>{11, 22, 33, 14, 25, 36}));

  // matmul [2,3] x [3,2] in float64, then with transpose_y ([2,3] x [2,3]^T)
  DevTensor a = upload<double>(OAR_FLOAT64, {2, 3}, {1, 2, 3, 4, 5, 6}, s);
  DevTensor b = upload<double>(OAR_FLOAT64, {3, 2}, {7, 8, 9, 10, 11, 12}, s);
  DevTensor ab = empty(OAR_FLOAT64, {2, 2});
  CHECK_OK(call("matmul", OAR_FLOAT64, {a, b}, {ab}, {attr_bool("transpose_x", false), attr_bool("transpose_y", false)}, s));
  assert((download<double>(ab, s) == std::vector<double>{58, 64, 139, 154}));
  DevTensor aat = empty(OAR_FLOAT64, {2, 2});
  CHECK_OK(call("matmul", OAR_FLOAT64, {a, a}, {aat}, {attr_bool("transpose_y", true)}, s));
  assert((download<double>(aat, s) == std::vector<double>{14, 32, 32, 77}));
  // 1-D y: [2,3] x [3] -> [2]; batch broadcast: [2,1,3] x [3] handled by the same rules
  DevTensor v = upload<double>(OAR_FLOAT64, {3}, {1, 0, -1}, s);
  DevTensor av = empty(OAR_FLOAT64, {2});
  CHECK_OK(call("matmul", OAR_FLOAT64, {a, v}, {av}, {}, s));
  assert((download<double>(av, s) == std::vector<double>{-2, -2}));
  DevTensor bad = empty(OAR_FLOAT64, {2, 2});
  std::string error;
  assert(call("matmul", OAR_FLOAT64, {a, a}, {bad}, {}, s, &error) == OAR_STATUS_ERROR);  // 3 vs 2
  assert(error.find("contract") != std::string::npos);

  // sum over axis 1 with keepdim: [2,3] -> [2,1]; mean over all axes; sum of bools into int64
  DevTensor rows = empty(OAR_FLOAT32, {2, 1});
  std::vector<int64_t> axis1{1}, all{};
  CHECK_OK(call("sum", OAR_FLOAT32, {x}, {rows}, {attr_ints("axis", axis1), attr_dtype("dtype", OAR_FLOAT32), attr_bool("keepdim", true)}, s));
  assert((download<float>(rows, s) == std::vector<float>{6, 15}));
  DevTensor avg = empty(OAR_FLOAT32, {});
  CHECK_OK(call("mean", OAR_FLOAT32, {x}, {avg}, {attr_ints("axis", all), attr_bool("keepdim", false)}, s));
  assert((download<float>(avg, s) == std::vector<float>{3.5f}));
  DevTensor flags = upload<uint8_t>(OAR_BOOL, {4}, {1, 0, 1, 1}, s);  // bools as bytes
  DevTensor count = empty(OAR_INT64, {});
  CHECK_OK(call("sum", OAR_BOOL, {flags}, {count}, {attr_ints("axis", all), attr_dtype("dtype", OAR_INT64)}, s));
  assert((download<int64_t>(count, s) == std::vector<int64_t>{3}));
  DevTensor colmax = empty(OAR_FLOAT32, {3});
  std::vector<int64_t> axis0{-2};
  CHECK_OK(call("max", OAR_FLOAT32, {x}, {colmax}, {attr_ints("axis", axis0)}, s));
  assert((download<float>(colmax, s) == std::vector<float>{4, 5, 6}));

  // cast float32 -> int64 truncates toward zero
  DevTensor f = upload<float>(OAR_FLOAT32, {4}, {1.7f, -1.7f, 2.5f, -0.2f}, s);
  DevTensor i = empty(OAR_INT64, {4});
  CHECK_OK(call("cast", OAR_FLOAT32, {f}, {i}, {attr_dtype("dtype", OAR_INT64)}, s));
  assert((download<int64_t>(i, s) == std::vector<int64_t>{1, -1, 2, 0}));

  // copy_ int64 [2] into the float32 view dst[:, 1:3] of a [3,4] buffer (broadcast, cast)
  DevTensor grid = upload<float>(OAR_FLOAT32, {3, 4}, std::vector<float>(12, 0.0f), s);
  DevTensor src = upload<int64_t>(OAR_INT64, {2}, {7, 8}, s);
  DevTensor view = grid;
  view.shape = {3, 2};
  view.strides = {4, 1};
  view.offset = 1;
  CHECK_OK(call("copy_", OAR_INT64, {src}, {view}, {}, s));
  assert((download<float>(grid, s) == std::vector<float>{0, 7, 8, 0, 0, 7, 8, 0, 0, 7, 8, 0}));

  // where with all three broadcast
  DevTensor cond = upload<uint8_t>(OAR_BOOL, {2, 1}, {1, 0}, s);
  DevTensor w = empty(OAR_FLOAT32, {2, 3});
  CHECK_OK(call("where", OAR_BOOL, {cond, x, y}, {w}, {}, s));
  assert((download<float>(w, s) == std::vector<float>{1, 2, 3, 10, 20, 30}));

  // Python-style integer and float division semantics
  DevTensor n = upload<int32_t>(OAR_INT32, {4}, {-7, 7, -7, 7}, s);
  DevTensor d = upload<int32_t>(OAR_INT32, {4}, {2, -2, -2, 0}, s);
  DevTensor q = empty(OAR_INT32, {4}), r = empty(OAR_INT32, {4});
  CHECK_OK(call("floor_divide", OAR_INT32, {n, d}, {q}, {}, s));
  CHECK_OK(call("remainder", OAR_INT32, {n, d}, {r}, {}, s));
  assert((download<int32_t>(q, s) == std::vector<int32_t>{-4, -4, 3, 0}));  // by 0: 0, no trap
  assert((download<int32_t>(r, s) == std::vector<int32_t>{1, -1, -1, 0}));
  DevTensor fx = upload<double>(OAR_FLOAT64, {2}, {-7.5, 7.5}, s);
  DevTensor fy = upload<double>(OAR_FLOAT64, {1}, {2.0}, s);
  DevTensor fr = empty(OAR_FLOAT64, {2});
  CHECK_OK(call("remainder", OAR_FLOAT64, {fx, fy}, {fr}, {}, s));
  assert((download<double>(fr, s) == std::vector<double>{0.5, 1.5}));

  // scale with bias before scale; pow; full
  DevTensor sc = empty(OAR_FLOAT32, {2, 3});
  CHECK_OK(call("scale", OAR_FLOAT32, {x}, {sc}, {attr_float("scale", 2.0), attr_int("bias", 1), attr_bool("bias_after_scale", false)}, s));
  assert((download<float>(sc, s) == std::vector<float>{4, 6, 8, 10, 12, 14}));
  DevTensor p = empty(OAR_FLOAT32, {2, 3});
  CHECK_OK(call("pow", OAR_FLOAT32, {x}, {p}, {attr_float("y", 2.0)}, s));
  assert((download<float>(p, s) == std::vector<float>{1, 4, 9, 16, 25, 36}));
  DevTensor full = empty(OAR_INT32, {2, 2});
  std::vector<int64_t> full_shape{2, 2};
  CHECK_OK(call("full", OAR_INT32, {}, {full}, {attr_ints("shape", full_shape), attr_int("fill_value", -3), attr_dtype("dtype", OAR_INT32)}, s));
  assert((download<int32_t>(full, s) == std::vector<int32_t>{-3, -3, -3, -3}));

  // checked before enqueuing: shapes that do not broadcast, a host pointer as a tensor
  DevTensor y4 = empty(OAR_FLOAT32, {4});
  assert(call("add", OAR_FLOAT32, {x, y4}, {sum}, {}, s, &error) == OAR_STATUS_ERROR);
  assert(error.find("broadcast") != std::string::npos);
  float host[6] = {};
  DevTensor on_host = x;
  on_host.base = host;
  assert(call("relu", OAR_FLOAT32, {on_host}, {sum}, {}, s, &error) == OAR_STATUS_ERROR);
  assert(error.find("not in memory of custom_cpu") != std::string::npos);

  for (DevTensor* t : {&x, &y, &sum, &a, &b, &ab, &aat, &v, &av, &bad, &rows, &avg, &flags, &count, &colmax, &f, &i,
                       &grid, &src, &cond, &w, &n, &d, &q, &r, &fx, &fy, &fr, &sc, &p, &full, &y4})
    release(*t);
  std::printf("kernels: ok\n");
}

// ---- random strided, broadcast cases against a host reference ----

// A float64 view with a random layout: a slice of a padded buffer, so it is not contiguous.
struct HostView {
  std::vector<double> buf;
  std::vector<int64_t> shape, strides;
  int64_t offset = 0;

  // The element at `index`, an index into a shape this one broadcasts to (aligned right).
  double at(const std::vector<int64_t>& index) const {
    int64_t off = offset;
    const size_t lead = index.size() - shape.size();
    for (size_t d = 0; d < shape.size(); ++d) off += (shape[d] == 1 ? 0 : index[lead + d]) * strides[d];
    return buf[size_t(off)];
  }
};

HostView random_view(std::mt19937& rng, const std::vector<int64_t>& shape) {
  HostView v;
  v.shape = shape;
  std::vector<int64_t> padded(shape);
  for (int64_t& p : padded) p += int64_t(rng() % 2);
  v.strides = contiguous(padded);
  for (size_t d = 0; d < shape.size(); ++d) v.offset += int64_t(rng() % size_t(padded[d] - shape[d] + 1)) * v.strides[d];
  int64_t n = 1;
  for (int64_t p : padded) n *= p;
  std::uniform_real_distribution<double> value(-2, 2);
  v.buf.resize(size_t(n));
  for (double& x : v.buf) x = std::round(value(rng) * 8) / 8;  // exact in float64 sums
  return v;
}

DevTensor to_device(const HostView& v, OarStream s) {
  DevTensor t = upload<double>(OAR_FLOAT64, {int64_t(v.buf.size())}, v.buf, s);
  t.shape = v.shape;
  t.strides = v.strides;
  t.offset = v.offset;
  return t;
}

// Visits every index of `shape` in row-major order.
template <typename F>
void for_each_index(const std::vector<int64_t>& shape, F f) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    f(index);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

// `shape` with random leading dimensions dropped and others set to 1: broadcasts to shape.
std::vector<int64_t> broadcastable(std::mt19937& rng, const std::vector<int64_t>& shape) {
  std::vector<int64_t> out(shape.begin() + int64_t(rng() % (shape.size() + 1)), shape.end());
  for (int64_t& d : out) if (rng() % 3 == 0) d = 1;
  return out;
}

void check_against_reference(OarStream s) {
  std::mt19937 rng(1234);
  for (int round = 0; round < 60; ++round) {
    std::vector<int64_t> shape(rng() % 5);
    for (int64_t& d : shape) d = 1 + int64_t(rng() % 4);

    // subtract, both operands strided and broadcast
    const HostView hx = random_view(rng, broadcastable(rng, shape)), hy = random_view(rng, broadcastable(rng, shape));
    DevTensor x = to_device(hx, s), y = to_device(hy, s);
    std::vector<int64_t> out_shape(std::max(hx.shape.size(), hy.shape.size()));
    for (size_t d = 0; d < out_shape.size(); ++d) {
      auto dim = [&](const HostView& v) {
        const size_t lead = out_shape.size() - v.shape.size();
        return d < lead ? int64_t(1) : v.shape[d - lead];
      };
      out_shape[d] = std::max(dim(hx), dim(hy));
    }
    DevTensor diff = empty(OAR_FLOAT64, out_shape);
    CHECK_OK(call("subtract", OAR_FLOAT64, {x, y}, {diff}, {}, s));
    const std::vector<double> got = download<double>(diff, s);
    size_t k = 0;
    for_each_index(out_shape, [&](const std::vector<int64_t>& idx) { assert(got[k++] == hx.at(idx) - hy.at(idx)); });

    // sum over random axes of a strided x, keepdim at random
    const HostView hz = random_view(rng, shape);
    DevTensor z = to_device(hz, s);
    std::vector<int64_t> axes, kept_shape, reduced_shape;
    for (size_t d = 0; d < shape.size(); ++d) {
      const bool reduce = rng() % 2 == 0;
      if (reduce) axes.push_back(rng() % 2 ? int64_t(d) : int64_t(d) - int64_t(shape.size()));
      reduced_shape.push_back(reduce ? 1 : shape[d]);
      if (!reduce) kept_shape.push_back(shape[d]);
    }
    if (axes.empty()) reduced_shape.assign(shape.size(), 1), kept_shape.clear();  // empty: all axes
    const bool keepdim = rng() % 2 == 0;
    DevTensor total = empty(OAR_FLOAT64, keepdim ? reduced_shape : kept_shape);
    CHECK_OK(call("sum", OAR_FLOAT64, {z}, {total}, {attr_ints("axis", axes), attr_bool("keepdim", keepdim)}, s));
    std::vector<double> want(size_t(std::max<int64_t>(1, total.numel())), 0.0);
    const std::vector<int64_t> rstrides = contiguous(reduced_shape);
    for_each_index(shape, [&](const std::vector<int64_t>& idx) {
      int64_t slot = 0;
      for (size_t d = 0; d < shape.size(); ++d) slot += (reduced_shape[d] == 1 ? 0 : idx[d]) * rstrides[d];
      want[size_t(slot)] += hz.at(idx);
    });
    assert(download<double>(total, s) == want);

    // matmul with broadcast batch dimensions, transposes and strided operands
    const int64_t M = 1 + rng() % 3, K = 1 + rng() % 3, N = 1 + rng() % 3;
    const bool tx = rng() % 2, ty = rng() % 2;
    std::vector<int64_t> batch(rng() % 3);
    for (int64_t& d : batch) d = 1 + int64_t(rng() % 3);
    std::vector<int64_t> xs = broadcastable(rng, batch), ys = broadcastable(rng, batch);
    xs.push_back(tx ? K : M), xs.push_back(tx ? M : K);
    ys.push_back(ty ? N : K), ys.push_back(ty ? K : N);
    const HostView ha = random_view(rng, xs), hb = random_view(rng, ys);
    DevTensor a = to_device(ha, s), b = to_device(hb, s);
    std::vector<int64_t> obatch(std::max(xs.size(), ys.size()) - 2);
    for (size_t d = 0; d < obatch.size(); ++d) {
      auto dim = [&](const std::vector<int64_t>& v) {
        const size_t lead = obatch.size() - (v.size() - 2);
        return d < lead ? int64_t(1) : v[d - lead];
      };
      obatch[d] = std::max(dim(xs), dim(ys));
    }
    std::vector<int64_t> oshape = obatch;
    oshape.push_back(M), oshape.push_back(N);
    DevTensor prod = empty(OAR_FLOAT64, oshape);
    CHECK_OK(call("matmul", OAR_FLOAT64, {a, b}, {prod}, {attr_bool("transpose_x", tx), attr_bool("transpose_y", ty)}, s));
    const std::vector<double> mm = download<double>(prod, s);
    k = 0;
    for_each_index(oshape, [&](const std::vector<int64_t>& idx) {
      const int64_t m = idx[idx.size() - 2], n = idx.back();
      double acc = 0;
      for (int64_t j = 0; j < K; ++j) {
        std::vector<int64_t> ia(idx.begin(), idx.end() - 2), ib(ia);
        ia.push_back(tx ? j : m), ia.push_back(tx ? m : j);
        ib.push_back(ty ? n : j), ib.push_back(ty ? j : n);
        acc += ha.at(ia) * hb.at(ib);
      }
      assert(std::fabs(mm[k++] - acc) < 1e-9);
    });
    for (DevTensor* t : {&x, &y, &diff, &z, &total, &a, &b, &prod}) release(*t);
  }
  std::printf("random strided cases: ok\n");
}

// Every registered (op, dtype) runs on small inputs without an error.
void check_every_kernel(OarStream s) {
  const std::vector<std::string> binary = {"add", "subtract", "multiply", "elementwise_div", "maximum", "minimum",
                                           "elementwise_pow", "floor_divide", "remainder", "fmax", "fmin", "atan2"};
  const std::vector<std::string> predicate = {"equal", "not_equal", "greater_than", "greater_equal", "less_than",
                                              "less_equal", "logical_and", "logical_or", "logical_xor"};
  std::vector<int64_t> axis0{0}, shape23{2, 3}, ones2{1, 1}, twos2{2, 2}, zeros4{0, 0, 0, 0};  // attr_ints keeps pointers
  std::vector<int64_t> pads{0, 1, 1, 0}, slice_axes{1}, slice_starts{1}, slice_ends{3}, tile_reps{2, 1};
  int ran = 0;
  for (const auto& [key, fn] : g_kernels) {
    const std::string& op = key.first;
    const int32_t dt = key.second;
    auto in = [&](std::vector<int64_t> shape, int32_t dtype) {
      DevTensor t = empty(dtype, std::move(shape));
      std::vector<unsigned char> ones(t.nbytes, 0);  // 1 in every element: low byte set
      for (size_t k = 0; k < ones.size(); k += element_size(dtype)) ones[k] = 1;
      if (dtype == OAR_FLOAT32) for (size_t k = 0; k < ones.size(); k += 4) { float one = 1; std::memcpy(&ones[k], &one, 4); }
      if (dtype == OAR_FLOAT64) for (size_t k = 0; k < ones.size(); k += 8) { double one = 1; std::memcpy(&ones[k], &one, 8); }
      CHECK_OK(g_device->memcpy_h2d(0, s, t.base, ones.data(), t.nbytes));
      return t;
    };
    std::vector<DevTensor> ins, outs;
    std::vector<OarAttr> attrs;
    auto is = [&](const std::vector<std::string>& names) {
      for (const auto& name : names) if (name == op) return true;
      return false;
    };
    if (is(binary)) { ins = {in({2, 3}, dt), in({3}, dt)}; outs = {empty(dt, {2, 3})}; }
    else if (is(predicate)) { ins = {in({2, 3}, dt), in({1, 3}, dt)}; outs = {empty(OAR_BOOL, {2, 3})}; }
    else if (op == "logical_not" || op == "isnan" || op == "isinf" || op == "isfinite") {
      ins = {in({2, 3}, dt)};
      outs = {empty(OAR_BOOL, {2, 3})};
    } else if (op == "act2_grad" || op == "act2_grad2") {
      ins = {in({2, 3}, dt), in({2, 3}, dt)};
      outs = {empty(dt, {2, 3})};
      attrs = {attr_int("op", 0), attr_float("a", 1.0)};
    }
    else if (op == "full") { outs = {empty(dt, {2, 3})}; attrs = {attr_ints("shape", shape23), attr_float("fill_value", 1.5)}; }
    else if (op == "cast") { ins = {in({2, 3}, dt)}; outs = {empty(OAR_FLOAT64, {2, 3})}; attrs = {attr_dtype("dtype", OAR_FLOAT64)}; }
    else if (op == "copy_") { ins = {in({3}, dt)}; outs = {empty(OAR_INT32, {2, 3})}; }
    else if (op == "where") { ins = {in({2, 1}, OAR_BOOL), in({2, 3}, OAR_FLOAT32), in({3}, OAR_FLOAT32)}; outs = {empty(OAR_FLOAT32, {2, 3})}; }
    else if (is({"sum", "mean", "max", "min", "amax", "amin", "prod", "logsumexp", "p_norm", "all", "any"})) {
      ins = {in({2, 3}, dt)};
      const bool logical = op == "all" || op == "any";
      outs = {empty(logical ? OAR_BOOL : (op == "sum" || op == "prod") && dt == OAR_BOOL ? OAR_INT64 : dt, {3})};
      attrs = {attr_ints("axis", axis0), attr_bool("keepdim", false)};
    } else if (op == "argmax" || op == "argmin") {
      ins = {in({2, 3}, dt)};
      outs = {empty(OAR_INT64, {3})};
      attrs = {attr_int("axis", 0)};
    } else if (op == "matmul") { ins = {in({2, 3}, dt), in({3, 2}, dt)}; outs = {empty(dt, {2, 2})}; }
    else if (op == "scale") { ins = {in({2, 3}, dt)}; outs = {empty(dt, {2, 3})}; attrs = {attr_float("scale", 3.0), attr_float("bias", 1.0)}; }
    else if (op == "pow") { ins = {in({2, 3}, dt)}; outs = {empty(dt, {2, 3})}; attrs = {attr_int("y", 3)}; }
    else if (op == "index_select" || op == "gather") {
      ins = {in({2, 3}, dt == OAR_INT64 ? OAR_BOOL : dt), in({2}, OAR_INT64)};  // int64: keyed by the index of bool x
      outs = {empty(dt == OAR_INT64 ? OAR_BOOL : dt, {2, 2})};
      attrs = {attr_int("axis", 1)};
    } else if (op == "index_add") {
      ins = {in({2, 3}, dt), in({2}, OAR_INT64), in({2, 2}, dt)};
      outs = {empty(dt, {2, 3})};
      attrs = {attr_int("axis", 1)};
    } else if (op == "take_along_axis_base") {
      ins = {in({2, 3}, dt), in({2, 1}, OAR_INT64)};
      outs = {empty(dt, {2, 1})};
      attrs = {attr_int("axis", 1)};
    } else if (op == "embedding_base") {
      ins = {in({2}, dt), in({3, 4}, OAR_FLOAT32)};
      outs = {empty(OAR_FLOAT32, {2, 4})};
    } else if (op == "embedding_grad") {
      ins = {in({2}, dt), in({2, 4}, OAR_FLOAT32)};
      outs = {empty(OAR_FLOAT32, {3, 4})};
      attrs = {attr_int("num_weights", 3)};
    } else if (op == "one_hot") {
      ins = {in({2}, dt)};
      outs = {empty(OAR_FLOAT32, {2, 3})};
      attrs = {attr_int("num_classes", 3)};
    } else if (op == "arange") {
      outs = {empty(dt, {4})};
      attrs = {attr_int("start", 1), attr_int("end", 5), attr_int("step", 1)};
    } else if (op == "layer_norm_base") {
      ins = {in({2, 3}, dt), in({3}, dt), in({3}, dt)};
      outs = {empty(dt, {2, 3}), empty(dt, {2}), empty(dt, {2})};
      attrs = {attr_float("epsilon", 1e-5), attr_int("begin_norm_axis", 1)};
    } else if (op == "batch_norm_base") {
      ins = {in({2, 3}, dt), in({3}, dt), in({3}, dt), in({3}, dt), in({3}, dt)};
      outs = {empty(dt, {2, 3}), empty(dt, {3}), empty(dt, {3})};
      attrs = {attr_bool("use_batch_stats", true), attr_bool("update_running", false), attr_float("epsilon", 1e-5),
               attr_int("channel_axis", 1)};
    } else if (op == "hard_cross_entropy") {
      ins = {in({2, 3}, dt), in({2}, OAR_INT64), in({3}, dt)};
      outs = {empty(dt, {2}), empty(dt, {2}), empty(dt, {2})};
    }
    else if (op == "convolution" || op == "convolution_input_grad" || op == "convolution_weight_grad") {
      // x [1, 2, 3, 3] * weight [2, 1, 2, 2], groups 2 -> y [1, 2, 2, 2]
      if (op == "convolution") { ins = {in({1, 2, 3, 3}, dt), in({2, 1, 2, 2}, dt), in({2}, dt)}; outs = {empty(dt, {1, 2, 2, 2})}; }
      else if (op == "convolution_input_grad") { ins = {in({1, 2, 2, 2}, dt), in({2, 1, 2, 2}, dt)}; outs = {empty(dt, {1, 2, 3, 3})}; }
      else { ins = {in({1, 2, 3, 3}, dt), in({1, 2, 2, 2}, dt)}; outs = {empty(dt, {2, 1, 2, 2})}; }
      attrs = {attr_ints("stride", ones2), attr_ints("padding", zeros4), attr_ints("dilation", ones2),
               attr_int("groups", 2), attr_bool("channel_last", false)};
    } else if (op == "pool_max" || op == "pool_avg" || op == "pool_avg_grad") {
      if (op == "pool_avg_grad") { ins = {in({1, 2, 2, 2}, dt)}; outs = {empty(dt, {1, 2, 4, 4})}; }
      else { ins = {in({1, 2, 4, 4}, dt)}; outs = {empty(dt, {1, 2, 2, 2})}; }
      if (op == "pool_max") outs.push_back(empty(OAR_INT32, {1, 2, 2, 2}));
      attrs = {attr_ints("kernel_size", twos2), attr_ints("stride", twos2), attr_ints("padding", zeros4),
               attr_bool("exclusive", true), attr_bool("adaptive", false), attr_bool("channel_last", false)};
    } else if (op == "pool_max_grad" || op == "pool_max_gather") {
      DevTensor mask = empty(OAR_INT32, {1, 2, 2, 2});
      const std::vector<int32_t> zeros(8, 0);
      CHECK_OK(g_device->memcpy_h2d(0, s, mask.base, zeros.data(), mask.nbytes));
      if (op == "pool_max_grad") { ins = {in({1, 2, 2, 2}, dt), mask}; outs = {empty(dt, {1, 2, 4, 4})}; }
      else { ins = {in({1, 2, 4, 4}, dt), mask}; outs = {empty(dt, {1, 2, 2, 2})}; }
    }
    else if (op == "tile") { ins = {in({2, 3}, dt)}; outs = {empty(dt, {4, 3})}; attrs = {attr_ints("repeat_times", tile_reps)}; }
    else if (op == "flip") { ins = {in({2, 3}, dt)}; outs = {empty(dt, {2, 3})}; attrs = {attr_ints("axis", axis0)}; }
    else if (op == "pad_nd") { ins = {in({2, 3}, dt)}; outs = {empty(dt, {3, 4})}; attrs = {attr_ints("pads", pads)}; }
    else if (op == "pad_nd_grad") { ins = {in({3, 4}, dt)}; outs = {empty(dt, {2, 3})}; attrs = {attr_ints("pads", pads)}; }
    else if (op == "slice_grad" || op == "strided_slice_grad") {
      ins = {in({2, 2}, dt)};
      outs = {empty(dt, {2, 3})};
      attrs = {attr_ints("axes", slice_axes), attr_ints("starts", slice_starts), attr_ints("ends", slice_ends),
               attr_ints("strides", ones2)};  // strides: one entry per axis
      attrs.back().count = 1;
    }
    else if (op == "argsort" || op == "topk_indices") {
      ins = {in({2, 3}, dt)};
      outs = {empty(OAR_INT64, {2, op == "argsort" ? 3 : 2})};
      attrs = {attr_int("axis", 1), attr_int("k", 2)};
    } else if (op == "put_along_axis_base") {
      ins = {in({2, 3}, dt == OAR_INT64 ? OAR_BOOL : dt), in({2, 1}, OAR_INT64), in({2, 1}, dt == OAR_INT64 ? OAR_BOOL : dt)};
      outs = {empty(dt == OAR_INT64 ? OAR_BOOL : dt, {2, 3})};
      attrs = {attr_int("axis", 1)};
    } else if (op == "cumsum_scan" || op == "cumprod_scan" || op == "logcumsumexp_scan") {
      ins = {in({2, 3}, dt)};
      outs = {empty(dt == OAR_BOOL ? OAR_INT64 : dt, {2, 3})};
      attrs = {attr_int("axis", 1)};
    } else if (op == "cum_extreme_scan") {
      ins = {in({2, 3}, dt)};
      outs = {empty(dt, {2, 3}), empty(OAR_INT64, {2, 3})};
      attrs = {attr_int("axis", 1), attr_bool("is_max", true)};
    }
    else if (op == "interp" || op == "interp_grad") {
      if (op == "interp") { ins = {in({1, 2, 2, 2}, dt)}; outs = {empty(dt, {1, 2, 3, 3})}; }
      else { ins = {in({1, 2, 3, 3}, dt)}; outs = {empty(dt, {1, 2, 2, 2})}; }
      attrs = {attr_bool("align_corners", false)};
    } else if (op == "grid_sample_base") {
      ins = {in({1, 2, 3, 3}, dt), in({1, 2, 2, 2}, dt)};
      outs = {empty(dt, {1, 2, 2, 2})};
      attrs = {attr_int("inputs_count", 2), attr_bool("align_corners", true)};
    } else if (op == "affine_grid_base") {
      outs = {empty(dt, {2, 3, 3})};
      attrs = {attr_int("depth", 0), attr_int("height", 2), attr_int("width", 3)};
    }
    else if (op == "check_values") { ins = {in({2, 3}, dt), in({2, 3}, OAR_BOOL)}; outs = {empty(dt, {2, 3})}; }
    else if (op == "rnn_layer") {
      // c0, sequence_length and weight_ho not passed: absent
      ins = {in({2, 1, 2}, dt), in({3, 2}, dt), in({3, 3}, dt), in({3}, dt), in({3}, dt), in({1, 3}, dt)};
      outs = {empty(dt, {2, 1, 3}), empty(dt, {1, 3}), empty(dt, {0}), empty(dt, {2, 1, 3})};
      attrs = {attr_string("mode", "RNN_TANH")};
    }
    else if (op == "rnn_layer_grad") {  // rnn_grad.cc: a projected LSTM, every tensor present
      // x, weight_ih, weight_hh, bias_ih, bias_hh, sequence_length, weight_ho, out, reserve, grad_out, grad_h, grad_c
      ins = {in({2, 1, 2}, dt), in({4, 2}, dt), in({4, 1}, dt), in({4}, dt), in({4}, dt), in({1}, OAR_INT32),
             in({1, 1}, dt), in({2, 1, 1}, dt), in({2, 1, 8}, dt), in({2, 1, 1}, dt), in({1, 1}, dt), in({1, 1}, dt)};
      outs = {empty(dt, {2, 1, 2}), empty(dt, {4, 2}), empty(dt, {4, 1}), empty(dt, {4}), empty(dt, {4}),
              empty(dt, {1, 1}), empty(dt, {1, 1}), empty(dt, {1, 1})};
      attrs = {attr_string("mode", "LSTM")};
    }
    else if (op == "layer_norm_grad" || op == "batch_norm_grad") {  // norm_grad.cc
      // x [2, 3], weight, mean and rstd (2 rows / 3 channels), out_grad -> dx, dweight, dbias
      const int64_t stats = op == "layer_norm_grad" ? 2 : 3;
      ins = {in({2, 3}, dt), in({3}, dt), in({stats}, dt), in({stats}, dt), in({2, 3}, dt)};
      outs = {empty(dt, {2, 3}), empty(dt, {3}), empty(dt, {3})};
      attrs = {attr_int("begin_norm_axis", 1), attr_bool("use_batch_stats", true), attr_int("channel_axis", 1)};
    }
    else if (op == "sdpa_core") {
      ins = {in({1, 2, 1, 3}, dt), in({1, 2, 1, 3}, dt), in({1, 2, 1, 3}, dt)};  // dmask not passed: absent
      outs = {empty(dt, {1, 2, 1, 3}), empty(dt, {1, 1, 2, 2})};
      attrs = {attr_int("inputs_count", 3), attr_float("scale", 0.5), attr_bool("is_causal", true)};
    }
    else if (op == "masked_fill") { ins = {in({2, 3}, dt), in({3}, OAR_BOOL)}; outs = {empty(dt, {2, 3})}; attrs = {attr_int("value", 7)}; }
    else { ins = {in({2, 3}, dt)}; outs = {empty(dt, {2, 3})}; }  // the unary maps
    CHECK_OK(call(op.c_str(), dt, ins, outs, attrs, s));
    CHECK_OK(g_device->synchronize_stream(0, s));
    for (DevTensor& t : ins) release(t);
    for (DevTensor& t : outs) release(t);
    ++ran;
  }
  assert(ran == int(g_kernels.size()));
  std::printf("every kernel: %d ran\n", ran);
}

// Work is really asynchronous: without synchronisation the host sees stale data.
void check_streams_and_events(OarStream s) {
  DevTensor t = empty(OAR_FLOAT32, {1024});
  std::vector<int64_t> shape{1024};
  float* pinned = nullptr;
  CHECK_OK(g_device->host_allocate(0, t.nbytes, reinterpret_cast<void**>(&pinned)));
  for (int k = 0; k < 1024; ++k) pinned[k] = -1;

  OarEvent start = nullptr, done = nullptr;
  CHECK_OK(g_device->create_event(0, &start));
  CHECK_OK(g_device->create_event(0, &done));
  CHECK_OK(g_device->record_event(0, s, start));
  CHECK_OK(call("full", OAR_FLOAT32, {}, {t}, {attr_ints("shape", shape), attr_float("fill_value", 7.0)}, s));
  CHECK_OK(g_device->memcpy_d2h(0, s, pinned, t.base, t.nbytes));  // pinned: truly async
  CHECK_OK(g_device->record_event(0, s, done));
  const OarStatus early = g_device->query_event(0, done);
  assert(early == OAR_STATUS_OK || early == OAR_STATUS_NOT_READY);
#ifndef SMOKE_TSAN  // reading while the worker writes is the very race TSan reports
  const float before = pinned[1023];
  std::printf("before synchronize_stream: pinned[1023] = %g (%s), event %s\n", before,
              before == 7 ? "already done" : "stale, as expected", early == OAR_STATUS_OK ? "done" : "not ready");
#endif
  CHECK_OK(g_device->synchronize_stream(0, s));
  for (int k = 0; k < 1024; ++k) assert(pinned[k] == 7);
  CHECK_OK(g_device->query_event(0, done));
  float ms = -1;
  CHECK_OK(g_device->elapsed_time(0, start, done, &ms));
  assert(ms >= 0);
  std::printf("after synchronize_stream: pinned[1023] = %g; elapsed %.3f ms\n", pinned[1023], ms);

  // Cross-stream order only through stream_wait_event: s2 scales what s fills.
  OarStream s2 = nullptr;
  CHECK_OK(g_device->create_stream(0, &s2));
  DevTensor doubled = empty(OAR_FLOAT32, {1024});
  // Work queued ahead on s: without the wait, s2 would scale the old 7s long before the 5s land.
  for (int k = 0; k < 5; ++k)
    CHECK_OK(call("full", OAR_FLOAT32, {}, {doubled}, {attr_ints("shape", shape), attr_float("fill_value", 0.0)}, s));
  CHECK_OK(call("full", OAR_FLOAT32, {}, {t}, {attr_ints("shape", shape), attr_float("fill_value", 5.0)}, s));
  CHECK_OK(g_device->record_event(0, s, done));
  CHECK_OK(g_device->stream_wait_event(0, s2, done));
  CHECK_OK(call("scale", OAR_FLOAT32, {t}, {doubled}, {attr_float("scale", 2.0)}, s2));
  CHECK_OK(g_device->synchronize_event(0, done));
  CHECK_OK(g_device->query_event(0, done));
  for (float value : download<float>(doubled, s2)) assert(value == 10);
  CHECK_OK(g_device->synchronize_device(0));

  // Handles are checked: another device's stream, a destroyed stream, the default stream.
  OarStream dflt = nullptr;
  CHECK_OK(g_device->default_stream(0, &dflt));
  assert(g_device->destroy_stream(0, dflt) == OAR_STATUS_ERROR);
  assert(g_device->synchronize_stream(1, s2) == OAR_STATUS_ERROR);
  CHECK_OK(g_device->destroy_stream(0, s2));
  assert(g_device->synchronize_stream(0, s2) == OAR_STATUS_ERROR);
  CHECK_OK(g_device->destroy_event(0, start));
  CHECK_OK(g_device->destroy_event(0, done));
  CHECK_OK(g_device->host_deallocate(0, pinned, t.nbytes));
  release(t);
  release(doubled);
  std::printf("streams and events: ok\n");
}

// Host threads, each with its own stream, on both devices at once (for TSan).
void check_threads() {
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([k] {
      const int device = k % 2;
      OarStream st = nullptr;
      CHECK_OK(g_device->create_stream(device, &st));
      void* buf = nullptr;
      CHECK_OK(g_device->allocate(device, 64 * sizeof(double), &buf));
      std::vector<double> host(64, double(k)), back(64, 0);
      for (int round = 0; round < 20; ++round) {
        CHECK_OK(g_device->memcpy_h2d(device, st, buf, host.data(), 64 * sizeof(double)));
        CHECK_OK(g_device->memcpy_d2h(device, st, back.data(), buf, 64 * sizeof(double)));  // pageable: waits
        assert(back == host);
      }
      CHECK_OK(g_device->destroy_stream(device, st));
      CHECK_OK(g_device->deallocate(device, buf, 64 * sizeof(double)));
    });
  }
  for (auto& t : threads) t.join();
  std::printf("threads: ok\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s /path/to/liboar_custom_cpu.so\n", argv[0]);
    return 2;
  }
  // A delay long enough that a missing synchronisation is seen, unless the caller set one.
  setenv("OAR_CUSTOM_CPU_DELAY_US", "1000", 0);
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  auto init = reinterpret_cast<OarPluginInitFn>(dlsym(lib, OAR_PLUGIN_INIT_SYMBOL));
  assert(init != nullptr);
  const OarRegistrar registrar{OAR_DEVICE_ABI_VERSION, record_device, record_kernel};
  CHECK_OK(init(&registrar));
  check_registration();
  check_memory();
  OarStream s = nullptr;
  CHECK_OK(g_device->create_stream(0, &s));
  check_kernels(s);
  check_against_reference(s);
  check_every_kernel(s);
  check_streams_and_events(s);
  check_threads();
  CHECK_OK(g_device->destroy_stream(0, s));
  size_t free_bytes = 0, total = 0;
  for (int dev = 0; dev < 2; ++dev) {
    CHECK_OK(g_device->memory_info(dev, &free_bytes, &total));
    assert(free_bytes == total);  // nothing leaked
  }
  std::printf("PASS\n");
  return 0;  // the plug-in is never dlclosed: oar keeps it until exit too
}
