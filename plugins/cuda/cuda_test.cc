// Tests of liboar_cuda.so through oar's device ABI only (no CUDA headers, no oar core): loads the
// plug-in, checks what it registers, then, when a GPU is present, runs every kernel family on
// random inputs (broadcast, transposed and misaligned views, 0-D and 0-size tensors, odd sizes)
// against references computed here in double, and exercises streams and events.
//
// Usage: oar_cuda_test [path/to/liboar_cuda.so]. Prints PASS/FAIL per case (failures only with
// OAR_CUDA_TEST_QUIET=1); exits 1 on any failure, 0 with "SKIP: no GPU" when no device is
// visible (registration is still checked).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "plugins/common/philox.h"
#include "plugins/cuda/abi_host.h"

using abi::Attrs;
using abi::Tensor;
using Shape = std::vector<int64_t>;

namespace {

int g_failures = 0, g_passes = 0;
abi::Registry* R = nullptr;
std::mt19937_64 rng(20240611);

void report(bool ok, const std::string& name, const std::string& detail = "") {
  if (ok) ++g_passes; else ++g_failures;
  static const bool quiet = std::getenv("OAR_CUDA_TEST_QUIET") != nullptr;
  if (!ok || !quiet)
    std::printf("%s: %s%s%s\n", ok ? "PASS" : "FAIL", name.c_str(), detail.empty() ? "" : " -- ",
                detail.c_str());
}

const int kAllDtypes[] = {OAR_FLOAT32, OAR_FLOAT64, OAR_FLOAT16, OAR_BFLOAT16,
                          OAR_INT32,   OAR_INT64,   OAR_BOOL};
const int kFloatDtypes[] = {OAR_FLOAT32, OAR_FLOAT64, OAR_FLOAT16, OAR_BFLOAT16};

using Gen = std::function<double()>;
Gen uniform(double lo, double hi) {
  return [lo, hi] { return std::uniform_real_distribution<double>(lo, hi)(rng); };
}
Gen integers(int64_t lo, int64_t hi) {
  return [lo, hi] { return static_cast<double>(std::uniform_int_distribution<int64_t>(lo, hi)(rng)); };
}
Gen constant(double v) { return [v] { return v; }; }

// A view over a fresh device buffer of `base` elements.
Tensor make_view(int dt, int64_t base, Shape shape, Shape strides, int64_t offset, const Gen& gen) {
  Tensor t;
  t.dtype = dt;
  t.shape = std::move(shape);
  t.strides = std::move(strides);
  t.offset = offset;
  t.storage.resize(static_cast<size_t>(base));
  for (double& v : t.storage) v = abi::quantize(dt, gen());
  abi::upload(*R, t);
  return t;
}

Tensor make(int dt, const Shape& shape, const Gen& gen) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return make_view(dt, n, shape, abi::contiguous_strides(shape), 0, gen);
}

// A permuted view: view dim i is dim perm[i] of a contiguous buffer.
Tensor make_permuted(int dt, const Shape& shape, const std::vector<int>& perm, const Gen& gen) {
  Shape base(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) base[perm[i]] = shape[i];
  const Shape bs = abi::contiguous_strides(base);
  Shape st(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) st[i] = bs[perm[i]];
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return make_view(dt, n, shape, st, 0, gen);
}

// Calls fn(index) for every multi-index of shape in row-major order.
void for_each_index(const Shape& shape, const std::function<void(const Shape&)>& fn) {
  for (int64_t s : shape)
    if (s == 0) return;
  Shape idx(shape.size(), 0);
  while (true) {
    fn(idx);
    int d = static_cast<int>(shape.size()) - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

// Element of `t` for output index `idx`, t broadcast (aligned right) to the output's rank.
double bcast_at(const Tensor& t, const Shape& idx) {
  Shape ti(t.shape.size());
  const size_t lead = idx.size() - t.shape.size();
  for (size_t d = 0; d < t.shape.size(); ++d) ti[d] = t.shape[d] == 1 ? 0 : idx[lead + d];
  return t.at(ti);
}

struct Tol {
  double rtol, atol;
};
Tol tol_of(int dt) {
  switch (dt) {
    case OAR_FLOAT64: return {1e-12, 1e-12};
    case OAR_FLOAT32: return {2e-5, 1e-6};
    case OAR_FLOAT16: return {2.5e-3, 1e-3};
    case OAR_BFLOAT16: return {1.6e-2, 1e-2};
    default: return {0, 0};
  }
}

bool close(double got, double want, Tol t) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= t.atol + t.rtol * std::fabs(want);
}

// Compares a downloaded contiguous output with expected values; reports the first mismatch.
void expect_values(const std::string& name, const Tensor& out, const std::vector<double>& want,
                   Tol t) {
  if (out.storage.size() != want.size()) {
    report(false, name, "size " + std::to_string(out.storage.size()) + " vs " + std::to_string(want.size()));
    return;
  }
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < want.size(); ++i)
    if (!close(out.storage[i], want[i], t)) {
      if (!bad) first = i;
      ++bad;
    }
  char detail[256] = "";
  if (bad)
    std::snprintf(detail, sizeof detail, "%zu of %zu differ; first at %zu: got %.9g want %.9g", bad,
                  want.size(), first, out.storage[first], want[first]);
  report(bad == 0, name, detail);
}

bool expect_call(const std::string& name, const abi::Call& c) {
  if (c.status != OAR_STATUS_OK) {
    report(false, name, "kernel failed: " + c.error);
    return false;
  }
  return true;
}

void free_all(std::vector<Tensor*> ts) {
  for (Tensor* t : ts) abi::release(*R, *t);
}

// ---- registration (runs without a GPU) --------------------------------------------------------

void test_registration() {
  const OarDeviceInterface* d = R->dev;
  report(d->abi_version == OAR_DEVICE_ABI_VERSION && d->struct_size == sizeof(OarDeviceInterface),
         "device interface version and size");
  report(std::string(d->device_type) == "gpu", "device type is gpu");
  bool all_fns = d->device_count && d->set_device && d->allocate && d->deallocate &&
                 d->memcpy_h2d && d->memcpy_d2h && d->memcpy_d2d && d->create_stream &&
                 d->destroy_stream && d->synchronize_stream && d->default_stream &&
                 d->create_event && d->destroy_event && d->record_event && d->query_event &&
                 d->synchronize_event && d->stream_wait_event && d->synchronize_device &&
                 d->memory_info;
  report(all_fns, "device interface functions present");
  const char* ops[] = {"add", "subtract", "multiply", "elementwise_div", "maximum", "minimum",
                       "elementwise_pow", "equal", "not_equal", "greater_than", "greater_equal",
                       "less_than", "less_equal", "relu", "exp", "log", "sqrt", "rsqrt", "tanh",
                       "sigmoid", "abs", "neg", "square", "sin", "cos", "reciprocal", "scale",
                       "pow", "where", "full", "cast", "assign", "copy_", "sum", "mean", "max",
                       "min", "matmul"};
  std::string missing;
  for (const char* op : ops)
    for (int dt : kFloatDtypes)
      if (!R->kernels.count({op, dt})) missing += std::string(" ") + op + "/" + abi::dname(dt);
  report(missing.empty(), "every op registered for the float dtypes", missing);
  report(R->kernels.count({"where", OAR_BOOL}) && R->kernels.count({"sum", OAR_BOOL}) &&
             R->kernels.count({"add", OAR_INT64}) && !R->kernels.count({"exp", OAR_INT32}),
         "integer and bool registrations");
  std::printf("registered %d kernels for %zu (op, dtype) pairs\n", R->registered,
              R->kernels.size());
}

// ---- device interface -------------------------------------------------------------------------

void test_device() {
  const OarDeviceInterface* d = R->dev;
  const char* name = d->device_name ? d->device_name(0) : nullptr;
  std::printf("device 0: %s\n", name ? name : "(no name)");
  report(name && *name, "device_name");
  size_t free_b = 0, total_b = 0;
  report(d->memory_info(0, &free_b, &total_b) == OAR_STATUS_OK && total_b > 0 && free_b <= total_b,
         "memory_info");
  report(d->set_device(0) == OAR_STATUS_OK && d->synchronize_device(0) == OAR_STATUS_OK,
         "set_device / synchronize_device");
  OarStream s0 = nullptr, s0b = nullptr;
  report(d->default_stream(0, &s0) == OAR_STATUS_OK && s0 &&
             d->default_stream(0, &s0b) == OAR_STATUS_OK && s0 == s0b,
         "default_stream is one lazily created stream");
  void* p = nullptr;
  report(d->allocate(0, 0, &p) == OAR_STATUS_OK, "allocate 0 bytes");
  d->deallocate(0, p, 0);
  void* huge = nullptr;
  report(d->allocate(0, size_t(1) << 50, &huge) == OAR_STATUS_OUT_OF_MEMORY,
         "allocate 1 PiB reports OUT_OF_MEMORY");

  // Copies: pinned host -> device (async on a stream) -> device -> pageable host.
  const size_t n = 1 << 20;
  void* pinned = nullptr;
  report(d->host_allocate && d->host_allocate(0, n * 4, &pinned) == OAR_STATUS_OK && pinned,
         "host_allocate");
  std::vector<float> back(n, 0.f);
  if (pinned) {
    float* pf = static_cast<float*>(pinned);
    for (size_t i = 0; i < n; ++i) pf[i] = static_cast<float>(i) * 0.5f;
    OarStream s = nullptr;
    d->create_stream(0, &s);
    void *a = nullptr, *b = nullptr;
    d->allocate(0, n * 4, &a);
    d->allocate(0, n * 4, &b);
    bool ok = d->memcpy_h2d(0, s, a, pinned, n * 4) == OAR_STATUS_OK &&
              d->memcpy_d2d(0, s, b, a, n * 4) == OAR_STATUS_OK &&
              d->synchronize_stream(0, s) == OAR_STATUS_OK &&
              d->memcpy_d2h(0, nullptr, back.data(), b, n * 4) == OAR_STATUS_OK;
    for (size_t i = 0; ok && i < n; ++i) ok = back[i] == pf[i];
    report(ok, "h2d (pinned, async) / d2d / d2h round trip");
    d->deallocate(0, a, n * 4);
    d->deallocate(0, b, n * 4);
    d->destroy_stream(0, s);
    d->host_deallocate(0, pinned, n * 4);
  }
}

void test_streams_events() {
  const OarDeviceInterface* d = R->dev;
  OarStream s1 = nullptr, s2 = nullptr;
  d->create_stream(0, &s1);
  d->create_stream(0, &s2);
  OarEvent e0 = nullptr, e1 = nullptr, done = nullptr;
  d->create_event(0, &e0);
  d->create_event(0, &e1);
  d->create_event(0, &done);
  const Shape big = {int64_t(1) << 25};  // 128 MiB of float32: long enough to race
  Tensor buf;
  buf.dtype = OAR_FLOAT32;
  buf.shape = big;
  buf.strides = {1};
  buf.storage.assign(static_cast<size_t>(big[0]), 0.0);
  d->allocate(0, big[0] * 4, &buf.dev);
  Tensor copy = buf;
  d->allocate(0, big[0] * 4, &copy.dev);

  // s1: fill 1 then many fills, the last with 2; s2 waits on the event, then copies.
  d->record_event(0, s1, e0);
  Attrs one, two;
  one.ints("shape", big).scalar("fill_value", 1.0).dtype("dtype", OAR_FLOAT32);
  two.ints("shape", big).scalar("fill_value", 2.0).dtype("dtype", OAR_FLOAT32);
  bool ok = true;
  for (int i = 0; i < 20; ++i)
    ok = ok && abi::call(*R, "full", OAR_FLOAT32, {}, {buf.view()}, i == 19 ? two : one, s1).status == OAR_STATUS_OK;
  d->record_event(0, s1, e1);
  const OarStatus q = d->query_event(0, e1);
  std::printf("query_event right after enqueueing ~2.5 GB of writes: %s\n",
              q == OAR_STATUS_NOT_READY ? "NOT_READY" : (q == OAR_STATUS_OK ? "OK" : "ERROR"));
  report(q == OAR_STATUS_NOT_READY || q == OAR_STATUS_OK, "query_event answers");
  ok = ok && d->stream_wait_event(0, s2, e1) == OAR_STATUS_OK;
  ok = ok && abi::call(*R, "assign", OAR_FLOAT32, {buf.view()}, {copy.view()}, Attrs(), s2).status == OAR_STATUS_OK;
  d->record_event(0, s2, done);
  ok = ok && d->synchronize_event(0, done) == OAR_STATUS_OK;
  report(ok, "kernels on created streams, stream_wait_event");
  abi::download(*R, copy);
  bool all2 = true;
  for (double v : copy.storage) all2 = all2 && v == 2.0;
  report(all2, "stream_wait_event orders s2's copy after s1's fills");
  report(d->query_event(0, e1) == OAR_STATUS_OK, "query_event OK once done");
  float ms = -1;
  report(d->elapsed_time && d->elapsed_time(0, e0, e1, &ms) == OAR_STATUS_OK && ms > 0,
         "elapsed_time", std::to_string(ms) + " ms for 20 fills of 128 MiB");
  if (ms > 0) std::printf("fill bandwidth: %.0f GB/s\n", 20.0 * big[0] * 4 / (ms * 1e-3) / 1e9);
  d->destroy_event(0, e0);
  d->destroy_event(0, e1);
  d->destroy_event(0, done);
  // A stream that ran a matmul (it owns a cuBLASLt workspace) can be destroyed.
  Tensor a = make(OAR_FLOAT32, {16, 16}, uniform(-1, 1)), b = make(OAR_FLOAT32, {16, 16}, uniform(-1, 1));
  Tensor c = make(OAR_FLOAT32, {16, 16}, constant(0));
  ok = abi::call(*R, "matmul", OAR_FLOAT32, {a.view(), b.view()}, {c.view()}, Attrs(), s1).status == OAR_STATUS_OK;
  report(ok && d->destroy_stream(0, s1) == OAR_STATUS_OK && d->destroy_stream(0, s2) == OAR_STATUS_OK,
         "destroy_stream after a matmul on it");
  free_all({&buf, &copy, &a, &b, &c});
}

// ---- elementwise ------------------------------------------------------------------------------

struct BinCase {
  const char* name;
  std::function<Tensor(int, const Gen&)> x, y;
  Shape out;
};

std::vector<BinCase> binary_cases() {
  return {
      {"contiguous 1000003", [](int dt, const Gen& g) { return make(dt, {1000003}, g); },
       [](int dt, const Gen& g) { return make(dt, {1000003}, g); }, {1000003}},
      {"broadcast [4,1,37]x[5,1]", [](int dt, const Gen& g) { return make(dt, {4, 1, 37}, g); },
       [](int dt, const Gen& g) { return make(dt, {5, 1}, g); }, {4, 5, 37}},
      {"transposed view", [](int dt, const Gen& g) { return make_permuted(dt, {37, 64}, {1, 0}, g); },
       [](int dt, const Gen& g) { return make(dt, {37, 64}, g); }, {37, 64}},
      {"0-D with [3,4]", [](int dt, const Gen& g) { return make(dt, {}, g); },
       [](int dt, const Gen& g) { return make(dt, {3, 4}, g); }, {3, 4}},
      {"0-size", [](int dt, const Gen& g) { return make(dt, {0, 5}, g); },
       [](int dt, const Gen& g) { return make(dt, {5}, g); }, {0, 5}},
      {"misaligned 1001", [](int dt, const Gen& g) { return make_view(dt, 1002, {1001}, {1}, 1, g); },
       [](int dt, const Gen& g) { return make(dt, {1001}, g); }, {1001}},
      {"0-D", [](int dt, const Gen& g) { return make(dt, {}, g); },
       [](int dt, const Gen& g) { return make(dt, {}, g); }, {}},
  };
}

double ipow(double a, double b) {  // oar's integer pow
  int64_t x = static_cast<int64_t>(a), e = static_cast<int64_t>(b);
  if (e < 0) return x == 1 ? 1 : (x == -1 ? ((e & 1) ? -1 : 1) : 0);
  int64_t r = 1;
  while (e--) r *= x;
  return static_cast<double>(r);
}

void run_binary(const char* op, int dt, bool compare, const std::function<double(double, double)>& f,
                const Gen& gx, const Gen& gy) {
  for (const BinCase& c : binary_cases()) {
    Tensor x = c.x(dt, gx), y = c.y(dt, gy);
    const int odt = compare ? OAR_BOOL : dt;
    Tensor out = make(odt, c.out, constant(7));
    const std::string name = std::string(op) + " " + abi::dname(dt) + " " + c.name;
    if (expect_call(name, abi::call(*R, op, dt, {x.view(), y.view()}, {out.view()}))) {
      abi::download(*R, out);
      std::vector<double> want;
      for_each_index(c.out, [&](const Shape& i) {
        want.push_back(abi::quantize(odt, f(bcast_at(x, i), bcast_at(y, i))));
      });
      expect_values(name, out, want, tol_of(odt));
    }
    free_all({&x, &y, &out});
  }
}

void test_binary() {
  for (int dt : kAllDtypes) {
    const bool fl = abi::is_float(dt), bo = dt == OAR_BOOL;
    const Gen g = bo ? integers(0, 1) : (fl ? uniform(-3, 3) : integers(-50, 50));
    const Gen small = bo ? integers(0, 1) : integers(-3, 3);  // equal values happen
    auto nan_gen = [g, fl] { return [g, fl]() { return fl && rng() % 50 == 0 ? NAN : g(); }; };
    run_binary("add", dt, false, [bo](double a, double b) { return bo ? double(a || b) : a + b; }, g, g);
    run_binary("multiply", dt, false, [bo](double a, double b) { return bo ? double(a && b) : a * b; }, g, g);
    run_binary("maximum", dt, false, [](double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }, nan_gen(), nan_gen());
    run_binary("minimum", dt, false, [](double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); }, nan_gen(), nan_gen());
    run_binary("equal", dt, true, [](double a, double b) { return double(a == b); }, small, small);
    run_binary("not_equal", dt, true, [](double a, double b) { return double(a != b); }, small, small);
    run_binary("greater_than", dt, true, [](double a, double b) { return double(a > b); }, small, small);
    run_binary("greater_equal", dt, true, [](double a, double b) { return double(a >= b); }, small, small);
    run_binary("less_than", dt, true, [](double a, double b) { return double(a < b); }, small, small);
    run_binary("less_equal", dt, true, [](double a, double b) { return double(a <= b); }, small, small);
    if (bo) continue;
    run_binary("subtract", dt, false, [](double a, double b) { return a - b; }, g, g);
    const Gen denom = fl ? Gen([] { return (rng() % 2 ? 1 : -1) * uniform(0.5, 2)(); })
                         : Gen([] { return double((rng() % 2 ? 1 : -1) * integers(1, 9)()); });
    run_binary("elementwise_div", dt, false,
               [fl](double a, double b) { return fl ? a / b : std::trunc(a / b); }, g, denom);
    if (fl)
      run_binary("elementwise_pow", dt, false, [](double a, double b) { return std::pow(a, b); },
                 uniform(0.1, 3), uniform(-2, 2));
    else
      run_binary("elementwise_pow", dt, false, ipow, integers(-4, 4), integers(-2, 6));
  }
  // Mixed input dtypes are refused with a message.
  Tensor x = make(OAR_FLOAT32, {4}, uniform(-1, 1)), y = make(OAR_INT32, {4}, integers(0, 3));
  Tensor out = make(OAR_FLOAT32, {4}, constant(0));
  const abi::Call c = abi::call(*R, "add", OAR_FLOAT32, {x.view(), y.view()}, {out.view()});
  report(c.status == OAR_STATUS_ERROR && c.error.find("dtype") != std::string::npos,
         "add refuses mixed dtypes with a message", c.error);
  free_all({&x, &y, &out});
}

struct UnCase {
  const char* name;
  std::function<Tensor(int, const Gen&)> x;
};

std::vector<UnCase> unary_cases() {
  return {
      {"contiguous 1000003", [](int dt, const Gen& g) { return make(dt, {1000003}, g); }},
      {"transposed [3,37,64]", [](int dt, const Gen& g) { return make_permuted(dt, {3, 37, 64}, {2, 0, 1}, g); }},
      {"0-D", [](int dt, const Gen& g) { return make(dt, {}, g); }},
      {"0-size", [](int dt, const Gen& g) { return make(dt, {2, 0}, g); }},
      {"misaligned 1001", [](int dt, const Gen& g) { return make_view(dt, 1002, {1001}, {1}, 1, g); }},
  };
}

void run_unary(const char* op, int dt, const std::function<double(double)>& f, const Gen& g,
               const Attrs& attrs = Attrs(), const char* tag = "") {
  for (const UnCase& c : unary_cases()) {
    Tensor x = c.x(dt, g);
    Tensor out = make(dt, x.shape, constant(7));
    const std::string name = std::string(op) + tag + " " + abi::dname(dt) + " " + c.name;
    if (expect_call(name, abi::call(*R, op, dt, {x.view()}, {out.view()}, attrs))) {
      abi::download(*R, out);
      std::vector<double> want;
      for_each_index(x.shape, [&](const Shape& i) { want.push_back(abi::quantize(dt, f(x.at(i)))); });
      expect_values(name, out, want, tol_of(dt));
    }
    free_all({&x, &out});
  }
}

void test_unary() {
  for (int dt : kAllDtypes) {
    if (dt == OAR_BOOL) continue;
    const bool fl = abi::is_float(dt);
    const Gen g = fl ? uniform(-3, 3) : integers(-50, 50);
    run_unary("relu", dt, [](double a) { return a > 0 ? a : 0; }, g);
    run_unary("abs", dt, [](double a) { return std::fabs(a); }, g);
    run_unary("neg", dt, [](double a) { return -a; }, g);
    run_unary("square", dt, [](double a) { return a * a; }, g);
    {
      Attrs a1, a2;
      a1.scalar("scale", 2.5).scalar("bias", -1.25).boolean("bias_after_scale", true);
      a2.scalar("scale", 2.5).scalar("bias", -1.25).boolean("bias_after_scale", false);
      run_unary("scale", dt, [](double a) { return a * 2.5 - 1.25; }, g, a1, "(after)");
      run_unary("scale", dt, [](double a) { return (a - 1.25) * 2.5; }, g, a2, "(before)");
    }
    if (!fl) {
      Attrs p;
      p.scalar("y", 3.0);
      run_unary("pow", dt, [](double a) { return std::round(std::pow(a, 3.0)); }, integers(-20, 20), p, "(3)");
      continue;
    }
    const Gen pos = uniform(0.05, 5);
    run_unary("exp", dt, [](double a) { return std::exp(a); }, g);
    run_unary("log", dt, [](double a) { return std::log(a); }, pos);
    run_unary("sqrt", dt, [](double a) { return std::sqrt(a); }, pos);
    run_unary("rsqrt", dt, [](double a) { return 1 / std::sqrt(a); }, pos);
    run_unary("tanh", dt, [](double a) { return std::tanh(a); }, g);
    run_unary("sigmoid", dt, [](double a) { return 1 / (1 + std::exp(-a)); }, g);
    run_unary("sin", dt, [](double a) { return std::sin(a); }, g);
    run_unary("cos", dt, [](double a) { return std::cos(a); }, g);
    run_unary("reciprocal", dt, [](double a) { return 1 / a; }, pos);
    Attrs p2, p05, p33;
    p2.scalar("y", 2.0);
    p05.scalar("y", 0.5);
    p33.scalar("y", 3.3);
    run_unary("pow", dt, [](double a) { return a * a; }, g, p2, "(2)");
    run_unary("pow", dt, [](double a) { return std::sqrt(a); }, pos, p05, "(0.5)");
    run_unary("pow", dt, [](double a) { return std::pow(a, 3.3); }, pos, p33, "(3.3)");
  }
}

// ---- copies, fills, where ---------------------------------------------------------------------

void test_copy_ops() {
  const Gen wide = uniform(-100, 100);
  for (int src : kAllDtypes) {
    for (int dst : kAllDtypes) {
      Tensor x = make_permuted(src, {37, 64}, {1, 0}, src == OAR_BOOL ? integers(0, 1) : wide);
      Tensor out = make(dst, {37, 64}, constant(7));
      Attrs a;
      a.dtype("dtype", dst);
      const std::string name = std::string("cast ") + abi::dname(src) + "->" + abi::dname(dst);
      if (expect_call(name, abi::call(*R, "cast", src, {x.view()}, {out.view()}, a))) {
        abi::download(*R, out);
        std::vector<double> want;
        for_each_index(x.shape, [&](const Shape& i) { want.push_back(abi::quantize(dst, x.at(i))); });
        expect_values(name, out, want, {0, 0});
      }
      free_all({&x, &out});
    }
    // assign: contiguous (memcpy), strided, and permutations the tiled transpose takes.
    const std::pair<Shape, std::vector<int>> layouts[] = {
        {{5, 300}, {0, 1}}, {{5, 300}, {1, 0}}, {{37, 64}, {1, 0}}, {{3, 33, 65}, {0, 2, 1}},
        {{3, 37, 64}, {2, 0, 1}}, {{40, 17, 50}, {2, 1, 0}}, {{40, 3, 5, 64}, {3, 1, 2, 0}}};
    for (const auto& [shape, perm] : layouts) {
      Tensor x = make_permuted(src, shape, perm, wide);
      Tensor out = make(src, shape, constant(7));
      std::string name = std::string("assign ") + abi::dname(src) + " perm";
      for (int p : perm) name += static_cast<char>(' '), name += std::to_string(p);
      if (expect_call(name, abi::call(*R, "assign", src, {x.view()}, {out.view()}))) {
        abi::download(*R, out);
        std::vector<double> want;
        for_each_index(x.shape, [&](const Shape& i) { want.push_back(x.at(i)); });
        expect_values(name, out, want, {0, 0});
      }
      free_all({&x, &out});
    }
    // full: 1000003 elements, 0-D and 0-size.
    for (const Shape& shape : {Shape{1000003}, Shape{}, Shape{0, 3}}) {
      Tensor out = make(src, shape, constant(7));
      Attrs a;
      double v = 0.1;
      if (src == OAR_INT64) { a.scalar_int("fill_value", (int64_t(1) << 40) + 3); v = double((int64_t(1) << 40) + 3); }
      else if (src == OAR_INT32) { a.scalar_int("fill_value", -123); v = -123; }
      else if (src == OAR_BOOL) { a.add("fill_value", OAR_ATTR_SCALAR_BOOL, 1); v = 1; }
      else a.scalar("fill_value", 0.1);
      a.ints("shape", shape).dtype("dtype", src);
      const std::string name = std::string("full ") + abi::dname(src) + " numel " + std::to_string(out.numel());
      if (expect_call(name, abi::call(*R, "full", src, {}, {out.view()}, a))) {
        abi::download(*R, out);
        expect_values(name, out, std::vector<double>(out.storage.size(), abi::quantize(src, v)), {0, 0});
      }
      free_all({&out});
    }
    // where: bool condition [4,1,37], x [5,37], y 0-D.
    {
      Tensor cond = make(OAR_BOOL, {4, 1, 37}, integers(0, 1));
      Tensor x = make(src, {5, 37}, src == OAR_BOOL ? integers(0, 1) : wide);
      Tensor y = make(src, {}, src == OAR_BOOL ? integers(0, 1) : wide);
      Tensor out = make(src, {4, 5, 37}, constant(7));
      const std::string name = std::string("where ") + abi::dname(src) + " broadcast";
      if (expect_call(name, abi::call(*R, "where", OAR_BOOL, {cond.view(), x.view(), y.view()}, {out.view()}))) {
        abi::download(*R, out);
        std::vector<double> want;
        for_each_index(out.shape, [&](const Shape& i) {
          want.push_back(bcast_at(cond, i) != 0 ? bcast_at(x, i) : bcast_at(y, i));
        });
        expect_values(name, out, want, {0, 0});
      }
      free_all({&cond, &x, &y, &out});
    }
  }
  // copy_ of one dtype into a transposed destination (the tiled path), from a contiguous source
  // and from a broadcast row.
  for (int dt : {OAR_FLOAT32, OAR_BFLOAT16, OAR_INT64, OAR_BOOL}) {
    for (const Shape& src_shape : {Shape{40, 50}, Shape{50}}) {
      Tensor src = make(dt, src_shape, dt == OAR_BOOL ? integers(0, 1) : wide);
      Tensor out = make_view(dt, 40 * 50, {40, 50}, {1, 40}, 0, constant(7));
      char name_buf[96];
      std::snprintf(name_buf, sizeof name_buf, "copy_ %s %zu-D -> transposed view", abi::dname(dt),
                    src_shape.size());
      const std::string name = name_buf;
      if (expect_call(name, abi::call(*R, "copy_", dt, {src.view()}, {out.view()}))) {
        std::vector<double> want(out.storage.size(), 7.0);
        for_each_index(out.shape, [&](const Shape& i) {
          want[static_cast<size_t>(i[0] + i[1] * 40)] = bcast_at(src, i);
        });
        abi::download(*R, out);
        expect_values(name, out, want, {0, 0});
      }
      free_all({&src, &out});
    }
  }
  // copy_: a [5] float64 row broadcast and cast into a strided float32/bf16/int64 view; the rest
  // of the destination buffer must stay untouched.
  for (int dst : {OAR_FLOAT32, OAR_BFLOAT16, OAR_INT64}) {
    Tensor src = make(OAR_FLOAT64, {5}, uniform(-50, 50));
    Tensor out = make_view(dst, 10 * 12, {6, 5}, {1, 24}, 2, constant(-7));  // transposed, step 2
    const std::string name = std::string("copy_ float64 -> strided ") + abi::dname(dst);
    if (expect_call(name, abi::call(*R, "copy_", OAR_FLOAT64, {src.view()}, {out.view()}))) {
      std::vector<double> want(out.storage.size(), -7.0);
      for_each_index(out.shape, [&](const Shape& i) {
        want[static_cast<size_t>(out.offset + i[0] * out.strides[0] + i[1] * out.strides[1])] =
            abi::quantize(dst, bcast_at(src, i));
      });
      abi::download(*R, out);
      expect_values(name, out, want, {0, 0});
    }
    free_all({&src, &out});
  }
}

// ---- reductions -------------------------------------------------------------------------------

struct RedCase {
  const char* name;
  std::function<Tensor(int, const Gen&)> x;
  std::vector<int64_t> axis;  // empty: all
};

std::vector<RedCase> reduce_cases() {
  return {
      {"[1000003] all", [](int dt, const Gen& g) { return make(dt, {1000003}, g); }, {}},
      {"[37,1000] axis -1", [](int dt, const Gen& g) { return make(dt, {37, 1000}, g); }, {-1}},
      {"[1000,37] axis 0", [](int dt, const Gen& g) { return make(dt, {1000, 37}, g); }, {0}},
      {"[4,5,6,7] axes 1,3", [](int dt, const Gen& g) { return make(dt, {4, 5, 6, 7}, g); }, {1, 3}},
      {"[2,300,50] axes 0,2", [](int dt, const Gen& g) { return make(dt, {2, 300, 50}, g); }, {0, 2}},
      {"transposed [64,300] axis 1", [](int dt, const Gen& g) { return make_permuted(dt, {64, 300}, {1, 0}, g); }, {1}},
      {"[7,33] axis 1", [](int dt, const Gen& g) { return make(dt, {7, 33}, g); }, {1}},
      {"[1000,5] axis 1", [](int dt, const Gen& g) { return make(dt, {1000, 5}, g); }, {1}},
      {"[2,3000001] axis 1", [](int dt, const Gen& g) { return make(dt, {2, 3000001}, g); }, {1}},
      {"misaligned [3,999] axis 1", [](int dt, const Gen& g) { return make_view(dt, 3000, {3, 999}, {1000, 1}, 1, g); }, {1}},
      {"0-D", [](int dt, const Gen& g) { return make(dt, {}, g); }, {}},
      {"[3,0,4] axis 1", [](int dt, const Gen& g) { return make(dt, {3, 0, 4}, g); }, {1}},
  };
}

void run_reduce(const char* op, int dt, int out_dt, const Gen& g, bool nan_row = false) {
  for (const RedCase& c : reduce_cases()) {
    Tensor x = c.x(dt, g);
    const bool empty = x.numel() == 0;
    const bool minmax = std::string(op) == "max" || std::string(op) == "min";
    // Plant a NaN in the first output's reduction (max/min/sum must propagate it).
    if (nan_row && !empty && abi::is_float(dt)) {
      x.storage[static_cast<size_t>(x.offset)] = NAN;
      abi::release(*R, x);
      abi::upload(*R, x);
    }
    std::vector<bool> red(x.shape.size(), c.axis.empty());
    for (int64_t a : c.axis) red[static_cast<size_t>(a < 0 ? a + int64_t(x.shape.size()) : a)] = true;
    Shape out_shape;
    for (size_t d = 0; d < x.shape.size(); ++d)
      if (!red[d]) out_shape.push_back(x.shape[d]);
    Tensor out = make(out_dt, out_shape, constant(7));
    Attrs a;
    a.ints("axis", c.axis).boolean("keepdim", false);
    if (std::string(op) == "sum") a.dtype("dtype", out_dt);
    const std::string name = std::string(op) + " " + abi::dname(dt) + "->" + abi::dname(out_dt) + " " + c.name + (nan_row ? " with NaN" : "");
    const abi::Call call = abi::call(*R, op, dt, {x.view()}, {out.view()}, a);
    if (empty && minmax) {
      report(call.status == OAR_STATUS_ERROR && !call.error.empty(), name + " is an error", call.error);
    } else if (expect_call(name, call)) {
      abi::download(*R, out);
      // Reference: accumulate in double (int64 for integers) per output index.
      std::vector<double> acc(out.storage.size(), 0), mag(out.storage.size(), 0);
      std::vector<int64_t> cnt(out.storage.size(), 0);
      std::vector<double> best(out.storage.size(), std::string(op) == "max" ? -INFINITY : INFINITY);
      for_each_index(x.shape, [&](const Shape& i) {
        int64_t o = 0;
        for (size_t d = 0; d < i.size(); ++d)
          if (!red[d]) o = o * x.shape[d] + i[d];
        double v = x.at(i);
        if (std::string(op) == "sum" && !abi::is_float(out_dt) && abi::is_float(dt)) v = abi::quantize(out_dt, v);
        if (std::string(op) == "sum" && abi::is_float(out_dt)) v = abi::quantize(out_dt, v);
        acc[o] += v;
        mag[o] += std::fabs(v);
        ++cnt[o];
        if (std::isnan(v) || std::isnan(best[o])) best[o] = NAN;
        else best[o] = std::string(op) == "max" ? std::max(best[o], v) : std::min(best[o], v);
      });
      std::vector<double> want(out.storage.size());
      bool ok = true;
      size_t bad = 0;
      char detail[200] = "";
      const Tol t = tol_of(out_dt);
      for (size_t o = 0; o < want.size(); ++o) {
        double w;
        if (minmax) w = best[o];
        else if (std::string(op) == "mean") {
          if (out_dt == OAR_BOOL) w = acc[o] != 0;
          else if (!abi::is_float(out_dt)) w = cnt[o] ? std::trunc(acc[o] / double(cnt[o])) : 0;
          else w = acc[o] / double(cnt[o]);
        } else w = acc[o];
        w = abi::quantize(out_dt, w);
        const double scale = std::string(op) == "mean" && cnt[o] ? mag[o] / double(cnt[o]) : mag[o];
        const double tolerance = minmax || !abi::is_float(out_dt) ? 0 : t.atol + t.rtol * std::fabs(w) + 2e-6 * scale;
        const double got = out.storage[o];
        const bool same = std::isnan(w) ? std::isnan(got) : std::fabs(got - w) <= tolerance;
        if (!same && !bad++) std::snprintf(detail, sizeof detail, "output %zu: got %.9g want %.9g", o, got, w);
        ok = ok && same;
      }
      report(ok, name, bad ? std::to_string(bad) + " differ; " + detail : "");
    }
    free_all({&x, &out});
  }
}

void test_reduce() {
  for (int dt : kAllDtypes) {
    const bool fl = abi::is_float(dt), bo = dt == OAR_BOOL;
    const Gen g = bo ? integers(0, 1) : (fl ? uniform(-3, 3) : integers(-1000, 1000));
    const int sum_dt = fl ? dt : OAR_INT64;  // Paddle: integer and bool sums give int64
    run_reduce("sum", dt, sum_dt, g);
    run_reduce("max", dt, dt, g);
    run_reduce("min", dt, dt, g);
    run_reduce("mean", dt, dt, g);
  }
  for (int dt : kFloatDtypes) {
    run_reduce("max", dt, dt, uniform(-3, 3), true);
    run_reduce("sum", dt, dt, uniform(-3, 3), true);
  }
  // sum with a dtype: bf16 -> float32 (direct), int32 -> float32 and float32 -> float64 (cast
  // first), int64 -> int32.
  run_reduce("sum", OAR_BFLOAT16, OAR_FLOAT32, uniform(-3, 3));
  run_reduce("sum", OAR_INT32, OAR_FLOAT32, integers(-1000, 1000));
  run_reduce("sum", OAR_FLOAT32, OAR_FLOAT64, uniform(-3, 3));
  run_reduce("sum", OAR_INT64, OAR_INT32, integers(-1000, 1000));
}

// ---- matmul -----------------------------------------------------------------------------------

struct MmCase {
  const char* name;
  Shape x, y;  // logical shapes (before the transpose flags are applied to storage)
  bool x_colmajor = false;  // pass x as a column-major view instead of a row-major buffer
};

// Physical tensor for a logical matrix shape: with `trans` the last two dims are stored swapped.
Tensor mm_operand(int dt, Shape logical, bool trans, bool colmajor) {
  if (logical.size() >= 2 && trans) std::swap(logical[logical.size() - 1], logical[logical.size() - 2]);
  if (colmajor && logical.size() >= 2) {
    std::vector<int> perm(logical.size());
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int>(i);
    std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
    return make_permuted(dt, logical, perm, uniform(-1, 1));
  }
  return make(dt, logical, uniform(-1, 1));
}

void test_matmul() {
  const std::vector<MmCase> cases = {
      {"[64,128]x[128,96]", {64, 128}, {128, 96}},
      {"odd [33,17]x[17,65]", {33, 17}, {17, 65}},
      {"batched [3,20,24]x[3,24,16]", {3, 20, 24}, {3, 24, 16}},
      {"broadcast [2,1,16,8]x[5,8,4]", {2, 1, 16, 8}, {5, 8, 4}},
      {"y broadcast [4,32,64]x[64,16]", {4, 32, 64}, {64, 16}},
      {"1-D x [8]x[3,8,5]", {8}, {3, 8, 5}},
      {"1-D y [4,6,8]x[8]", {4, 6, 8}, {8}},
      {"dot [8]x[8]", {8}, {8}},
      {"K=0 [3,0]x[0,4]", {3, 0}, {0, 4}},
      {"column-major x view [32,48]x[48,16]", {32, 48}, {48, 16}, true},
  };
  for (int dt : kFloatDtypes) {
    for (int flags = 0; flags < 4; ++flags) {
      const bool tx = flags & 1, ty = flags & 2;
      for (const MmCase& c : cases) {
        Tensor x = mm_operand(dt, c.x, tx, c.x_colmajor), y = mm_operand(dt, c.y, ty, false);
        const bool x1 = c.x.size() == 1, y1 = c.y.size() == 1;
        const int64_t m = x1 ? 1 : c.x[c.x.size() - 2], k = c.x.back();
        const int64_t n = y1 ? 1 : c.y.back();
        // Output: broadcast batch dims, then [m] unless x is 1-D, [n] unless y is 1-D.
        Shape xb(c.x.begin(), c.x.end() - (x1 ? 1 : 2)), yb(c.y.begin(), c.y.end() - (y1 ? 1 : 2));
        Shape ob(std::max(xb.size(), yb.size()), 1);
        for (size_t i = 0; i < ob.size(); ++i) {
          const int64_t a = i + xb.size() >= ob.size() ? xb[i + xb.size() - ob.size()] : 1;
          const int64_t b = i + yb.size() >= ob.size() ? yb[i + yb.size() - ob.size()] : 1;
          ob[i] = std::max(a, b);
        }
        Shape os = ob;
        if (!x1) os.push_back(m);
        if (!y1) os.push_back(n);
        Tensor out = make(dt, os, constant(7));
        Attrs a;
        a.boolean("transpose_x", tx).boolean("transpose_y", ty);
        char name[160];
        std::snprintf(name, sizeof name, "matmul %s tx=%d ty=%d %s", abi::dname(dt), tx, ty, c.name);
        if (expect_call(name, abi::call(*R, "matmul", dt, {x.view(), y.view()}, {out.view()}, a))) {
          abi::download(*R, out);
          std::vector<double> want, mag;
          Shape bidx(ob.size());
          for_each_index(os, [&](const Shape& oi) {
            std::copy(oi.begin(), oi.begin() + ob.size(), bidx.begin());
            const int64_t i = x1 ? 0 : oi[ob.size()];
            const int64_t j = y1 ? 0 : oi.back();
            double s = 0, sa = 0;
            for (int64_t l = 0; l < k; ++l) {
              Shape xi(bidx.end() - xb.size(), bidx.end()), yi(bidx.end() - yb.size(), bidx.end());
              for (size_t d = 0; d < xb.size(); ++d) if (xb[d] == 1) xi[d] = 0;
              for (size_t d = 0; d < yb.size(); ++d) if (yb[d] == 1) yi[d] = 0;
              if (x1) xi.push_back(l);
              else if (tx) { xi.push_back(l); xi.push_back(i); }
              else { xi.push_back(i); xi.push_back(l); }
              if (y1) yi.push_back(l);
              else if (ty) { yi.push_back(j); yi.push_back(l); }
              else { yi.push_back(l); yi.push_back(j); }
              const double p = x.at(xi) * y.at(yi);
              s += p;
              sa += std::fabs(p);
            }
            want.push_back(s);
            mag.push_back(sa);
          });
          size_t bad = 0;
          char detail[200] = "";
          const Tol t = tol_of(dt);
          for (size_t o = 0; o < want.size(); ++o) {
            const double err = std::fabs(out.storage[o] - want[o]);
            if (err > t.atol + t.rtol * std::fabs(want[o]) + 2 * t.rtol * mag[o] && !bad++)
              std::snprintf(detail, sizeof detail, "output %zu: got %.9g want %.9g", o, out.storage[o], want[o]);
          }
          report(bad == 0, name, bad ? std::to_string(bad) + " differ; " + detail : "");
        }
        free_all({&x, &y, &out});
      }
    }
  }
  // A view with neither of its last two dims contiguous (and an expanded one, stride 0) is first
  // compacted (compact.h), then multiplied like any other.
  Tensor x = make_view(OAR_FLOAT32, 64 * 64, {16, 16}, {128, 2}, 0, uniform(-1, 1));
  Tensor y = make_view(OAR_FLOAT32, 16, {16, 16}, {0, 1}, 0, uniform(-1, 1));
  Tensor out = make(OAR_FLOAT32, {16, 16}, constant(0));
  const std::string name = "matmul of a strided and an expanded matrix view";
  if (expect_call(name, abi::call(*R, "matmul", OAR_FLOAT32, {x.view(), y.view()}, {out.view()}))) {
    abi::download(*R, out);
    std::vector<double> want;
    for (int64_t i = 0; i < 16; ++i)
      for (int64_t j = 0; j < 16; ++j) {
        double s = 0;
        for (int64_t k = 0; k < 16; ++k) s += x.storage[i * 128 + k * 2] * y.storage[j];
        want.push_back(s);
      }
    expect_values(name, out, want, tol_of(OAR_FLOAT32));
  }
  free_all({&x, &y, &out});
}

// ---- convolution: cuDNN and im2col (conv.cu, conv_cudnn.cc) ------------------------------------

// Every case runs twice: as the plug-in chooses (cuDNN when it loads, conv_cudnn.h) and with
// OAR_CUDA_DISABLE_CUDNN=1 (im2col + GEMM), both against a double reference. float32 tolerances
// hold only without TF32, so they also check that cuDNN's float32 path uses none.
struct ConvCase {
  const char* name;
  int64_t N, C, M, G;
  Shape in, ks, stride, pad_lo, pad_hi, dil;
  bool cl, bias, strided;  // strided: x and out_grad as permuted views
};

void conv_case(const ConvCase& cc, int dt, bool cudnn) {
  const int nd = static_cast<int>(cc.in.size());
  const int64_t Cg = cc.C / cc.G, Mg = cc.M / cc.G;
  Shape out(nd);
  for (int d = 0; d < nd; ++d)
    out[d] = (cc.in[d] + cc.pad_lo[d] + cc.pad_hi[d] - cc.dil[d] * (cc.ks[d] - 1) - 1) /
                 cc.stride[d] + 1;
  auto image_shape = [&](int64_t c, const Shape& sp) {
    Shape s = {cc.N};
    if (!cc.cl) s.push_back(c);
    s.insert(s.end(), sp.begin(), sp.end());
    if (cc.cl) s.push_back(c);
    return s;
  };
  auto image_index = [&](int64_t n, int64_t c, const Shape& sp) {
    Shape s = {n};
    if (!cc.cl) s.push_back(c);
    s.insert(s.end(), sp.begin(), sp.end());
    if (cc.cl) s.push_back(c);
    return s;
  };
  const Shape xs = image_shape(cc.C, cc.in), ys = image_shape(cc.M, out);
  Shape ws = {cc.M, Cg};
  ws.insert(ws.end(), cc.ks.begin(), cc.ks.end());
  std::vector<int> rev(xs.size());  // a permuted view: dims stored in reverse order
  for (size_t i = 0; i < rev.size(); ++i) rev[i] = static_cast<int>(rev.size() - 1 - i);
  Tensor x = cc.strided ? make_permuted(dt, xs, rev, uniform(-1, 1)) : make(dt, xs, uniform(-1, 1));
  Tensor dy = cc.strided ? make_permuted(dt, ys, rev, uniform(-1, 1)) : make(dt, ys, uniform(-1, 1));
  Tensor w = make(dt, ws, uniform(-1, 1));
  Tensor b = make(dt, {cc.M}, uniform(-1, 1));
  Tensor y = make(dt, ys, constant(0)), dx = make(dt, xs, constant(0)), dw = make(dt, ws, constant(0));

  // References over the row-major (storage) order of y, dx and dw, with sums of |terms|.
  auto flat = [](const Shape& shape, const Shape& idx) {
    int64_t f = 0;
    for (size_t d = 0; d < shape.size(); ++d) f = f * shape[d] + idx[d];
    return static_cast<size_t>(f);
  };
  std::vector<double> ry(y.storage.size(), 0), my(ry.size(), 0);
  std::vector<double> rdx(dx.storage.size(), 0), mdx(rdx.size(), 0);
  std::vector<double> rdw(dw.storage.size(), 0), mdw(rdw.size(), 0);
  Shape kpos(nd), opos(nd);
  for_each_index(ys, [&](const Shape& yi) {
    const int64_t n = yi[0], m = cc.cl ? yi.back() : yi[1];
    for (int d = 0; d < nd; ++d) opos[d] = yi[(cc.cl ? 1 : 2) + d];
    const size_t fy = flat(ys, yi);
    if (cc.bias) {
      ry[fy] += b.at({m});
      my[fy] += std::fabs(b.at({m}));
    }
    const double g = dy.at(yi);
    for (int64_t cg = 0; cg < Cg; ++cg) {
      const int64_t c = (m / Mg) * Cg + cg;
      for_each_index(cc.ks, [&](const Shape& k) {
        Shape ip(nd);
        for (int d = 0; d < nd; ++d) {
          ip[d] = opos[d] * cc.stride[d] - cc.pad_lo[d] + k[d] * cc.dil[d];
          if (ip[d] < 0 || ip[d] >= cc.in[d]) return;
        }
        Shape wi = {m, cg};
        wi.insert(wi.end(), k.begin(), k.end());
        const Shape xi = image_index(n, c, ip);
        const double xv = x.at(xi), wv = w.at(wi);
        ry[fy] += xv * wv;
        my[fy] += std::fabs(xv * wv);
        const size_t fx = flat(xs, xi), fw = flat(ws, wi);
        rdx[fx] += g * wv;
        mdx[fx] += std::fabs(g * wv);
        rdw[fw] += xv * g;
        mdw[fw] += std::fabs(xv * g);
      });
    }
  });

  Attrs a;
  Shape pad;
  for (int d = 0; d < nd; ++d) {
    pad.push_back(cc.pad_lo[d]);
    pad.push_back(cc.pad_hi[d]);
  }
  a.ints("stride", cc.stride).ints("padding", pad).ints("dilation", cc.dil);
  a.add("groups", OAR_ATTR_INT, cc.G).boolean("channel_last", cc.cl);
  setenv("OAR_CUDA_DISABLE_CUDNN", cudnn ? "0" : "1", 1);
  const std::string base = std::string("conv ") + cc.name + " " + abi::dname(dt) +
                           (cudnn ? " [cudnn]" : " [im2col]");
  const Tol t = tol_of(dt);
  auto check = [&](const std::string& name, Tensor& got, const std::vector<double>& want,
                   const std::vector<double>& mag) {
    abi::download(*R, got);
    size_t bad = 0;
    char detail[200] = "";
    for (size_t o = 0; o < want.size(); ++o) {
      const double err = std::fabs(got.storage[o] - want[o]);
      if (!(err <= t.atol + t.rtol * std::fabs(want[o]) + 2 * t.rtol * mag[o]) && !bad++)
        std::snprintf(detail, sizeof detail, "element %zu: got %.9g want %.9g", o,
                      got.storage[o], want[o]);
    }
    report(bad == 0, name, bad ? std::to_string(bad) + " differ; " + detail : "");
  };
  std::vector<OarTensor> fwd_in = {x.view(), w.view()};
  if (cc.bias) fwd_in.push_back(b.view());
  if (expect_call(base + " forward", abi::call(*R, "convolution", dt, fwd_in, {y.view()}, a)))
    check(base + " forward", y, ry, my);
  if (expect_call(base + " input_grad",
                  abi::call(*R, "convolution_input_grad", dt, {dy.view(), w.view()}, {dx.view()}, a)))
    check(base + " input_grad", dx, rdx, mdx);
  if (expect_call(base + " weight_grad",
                  abi::call(*R, "convolution_weight_grad", dt, {x.view(), dy.view()}, {dw.view()}, a)))
    check(base + " weight_grad", dw, rdw, mdw);
  unsetenv("OAR_CUDA_DISABLE_CUDNN");
  free_all({&x, &dy, &w, &b, &y, &dx, &dw});
}

void test_conv() {
  const std::vector<ConvCase> cases = {
      {"2d nchw 3x3 pad 1 bias", 2, 4, 6, 1, {9, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, false, true, false},
      {"2d nhwc stride 2 dil 2 groups 2 bias", 2, 4, 6, 2, {9, 8}, {3, 3}, {2, 2}, {2, 2}, {2, 2}, {2, 1}, true, true, false},
      {"2d nchw depthwise 5x5 stride 2", 3, 8, 8, 8, {11, 10}, {5, 5}, {2, 2}, {2, 2}, {2, 2}, {1, 1}, false, false, false},
      {"2d nchw 1x1", 2, 16, 8, 1, {6, 5}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {1, 1}, false, true, false},
      {"2d nchw asymmetric pad (im2col)", 2, 3, 4, 1, {7, 6}, {3, 2}, {1, 1}, {0, 1}, {1, 0}, {1, 1}, false, true, false},
      {"2d nhwc strided views", 2, 6, 4, 2, {8, 7}, {3, 3}, {1, 2}, {1, 1}, {1, 1}, {1, 1}, true, true, true},
      {"2d nchw strided views", 2, 4, 6, 1, {7, 9}, {2, 3}, {2, 1}, {0, 1}, {0, 1}, {1, 2}, false, false, true},
      {"1d ncl stride 2 bias", 3, 4, 6, 2, {17}, {3}, {2}, {1}, {1}, {1}, false, true, false},
      {"1d nlc dil 3", 2, 5, 3, 1, {20}, {4}, {1}, {3}, {3}, {3}, true, false, false},
      {"3d ncdhw groups 2 bias", 2, 4, 4, 2, {5, 6, 5}, {3, 3, 3}, {1, 2, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, false, true, false},
      {"3d ndhwc stride 2", 2, 3, 4, 1, {6, 5, 7}, {3, 2, 3}, {2, 1, 2}, {1, 0, 1}, {1, 0, 1}, {1, 1, 1}, true, true, false},
  };
  for (const ConvCase& cc : cases)
    for (int dt : kFloatDtypes)
      for (bool cudnn : {true, false}) conv_case(cc, dt, cudnn);
}

// ---- random draws (random.cu) -----------------------------------------------------------------
// Each draw compared byte for byte with the same draw computed here on the host through
// plugins/common/philox.h, the definition oar's host kernels use (tests/cpp/device_random_test.cc
// checks those against the custom_cpu plug-in): every dtype, odd sizes, seeds and offsets past
// 2^32 and 2^63, a transposed view of bernoulli's p.

int64_t abi_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

size_t random_esize(int dt) {
  switch (dt) {
    case OAR_INT8: case OAR_UINT8: case OAR_BOOL: return 1;
    case OAR_INT16: case OAR_FLOAT16: case OAR_BFLOAT16: return 2;
    case OAR_INT32: case OAR_FLOAT32: return 4;
    default: return 8;
  }
}

const char* random_dname(int dt) {
  switch (dt) {
    case OAR_INT8: return "int8";
    case OAR_UINT8: return "uint8";
    case OAR_INT16: return "int16";
    default: return abi::dname(dt);
  }
}

// v stored as dt (through float for the 16-bit floats, as oar), appended to `bytes`.
void put_float(int dt, double v, std::vector<unsigned char>& bytes) {
  unsigned char b[8];
  if (dt == OAR_FLOAT64) {
    std::memcpy(b, &v, 8);
  } else if (dt == OAR_FLOAT32) {
    const float f = static_cast<float>(v);
    std::memcpy(b, &f, 4);
  } else {
    const float f = static_cast<float>(v);
    const uint16_t h = dt == OAR_FLOAT16 ? oar_rng::float_to_half_bits(f) : oar_rng::float_to_bf16_bits(f);
    std::memcpy(b, &h, 2);
  }
  bytes.insert(bytes.end(), b, b + random_esize(dt));
}

void put_int(int dt, int64_t v, std::vector<unsigned char>& bytes) {
  unsigned char b[8];
  switch (dt) {
    case OAR_INT8: { const int8_t x = static_cast<int8_t>(v); std::memcpy(b, &x, 1); break; }
    case OAR_UINT8: { const uint8_t x = static_cast<uint8_t>(v); std::memcpy(b, &x, 1); break; }
    case OAR_INT16: { const int16_t x = static_cast<int16_t>(v); std::memcpy(b, &x, 2); break; }
    case OAR_INT32: { const int32_t x = static_cast<int32_t>(v); std::memcpy(b, &x, 4); break; }
    default: std::memcpy(b, &v, 8);
  }
  bytes.insert(bytes.end(), b, b + random_esize(dt));
}

// The value (in its compute type, widened to double) of element `i` of dt-typed bytes.
double get_float(int dt, const std::vector<unsigned char>& bytes, int64_t i) {
  const unsigned char* p = bytes.data() + i * random_esize(dt);
  if (dt == OAR_FLOAT64) { double d; std::memcpy(&d, p, 8); return d; }
  if (dt == OAR_FLOAT32) { float f; std::memcpy(&f, p, 4); return f; }
  uint16_t h;
  std::memcpy(&h, p, 2);
  return dt == OAR_FLOAT16 ? abi::from_f16(h) : abi::from_bf16(h);
}

// A raw device buffer and a view of it.
struct RawTensor {
  int dtype = OAR_FLOAT32;
  Shape shape, strides;
  void* dev = nullptr;
  size_t bytes = 0;
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    return n;
  }
  OarTensor view() const {
    return OarTensor{dev, dtype, static_cast<int32_t>(shape.size()), shape.data(), strides.data(), numel()};
  }
};

RawTensor raw_tensor(int dt, Shape shape, Shape strides, size_t elements,
                     const std::vector<unsigned char>* init = nullptr) {
  RawTensor t;
  t.dtype = dt;
  t.shape = std::move(shape);
  t.strides = std::move(strides);
  t.bytes = elements * random_esize(dt);
  abi::check_ok(R->dev->allocate(0, t.bytes ? t.bytes : 16, &t.dev), "allocate");
  std::vector<unsigned char> fill(t.bytes, 0xA5);  // junk where nothing is written
  if (init) fill = *init;
  if (t.bytes) abi::check_ok(R->dev->memcpy_h2d(0, nullptr, t.dev, fill.data(), t.bytes), "memcpy_h2d");
  return t;
}

std::vector<unsigned char> raw_download(const RawTensor& t) {
  std::vector<unsigned char> host(t.bytes);
  if (t.bytes) abi::check_ok(R->dev->memcpy_d2h(0, nullptr, host.data(), t.dev, t.bytes), "memcpy_d2h");
  return host;
}

void raw_release(RawTensor& t) {
  R->dev->deallocate(0, t.dev, t.bytes ? t.bytes : 16);
  t.dev = nullptr;
}

void expect_bytes(const std::string& name, const RawTensor& out, const std::vector<unsigned char>& want) {
  const std::vector<unsigned char> got = raw_download(out);
  size_t first = got.size();
  for (size_t i = 0; i < got.size() && i < want.size(); ++i)
    if (got[i] != want[i]) {
      first = i;
      break;
    }
  const bool ok = got.size() == want.size() && first == got.size();
  report(ok, name, ok ? "" : "first differing element " + std::to_string(first / random_esize(out.dtype)));
}

Attrs random_state(uint64_t seed, uint64_t offset) {
  Attrs a;
  a.add("seed", OAR_ATTR_INT, static_cast<int64_t>(seed));
  a.add("offset", OAR_ATTR_INT, static_cast<int64_t>(offset));
  return a;
}

void test_random() {
  struct State {
    uint64_t seed, offset;
  };
  const State states[] = {{0, 0}, {42, 3}, {34342423252ULL, 1ULL << 33}, {0xFFFFFFFFFFFFFFFFULL, 5},
                          {0x8000000000000001ULL, 0xFFFFFFFFFFFFFFF0ULL}};
  const Shape shapes[] = {{}, {0}, {7}, {3, 5}, {3, 1001}, {1000003}};
  const int int_dtypes[] = {OAR_INT32, OAR_INT64, OAR_INT8, OAR_UINT8, OAR_INT16};
  const char* ops[] = {"random_uniform", "random_normal", "random_bernoulli", "random_dropout_mask"};
  for (const char* op : ops)
    for (int dt : kFloatDtypes) report(R->kernels.count({op, dt}) == 1, std::string(op) + " registered for " + abi::dname(dt));
  for (int dt : int_dtypes)
    report(R->kernels.count({"random_randint", dt}) == 1, std::string("random_randint registered for ") + random_dname(dt));

  // uniform and normal
  for (int dt : kFloatDtypes)
    for (const Shape& shape : shapes)
      for (const State& s : states) {
        for (int normal = 0; normal < 2; ++normal) {
          RawTensor out = raw_tensor(dt, shape, abi::contiguous_strides(shape), static_cast<size_t>(abi_numel(shape)));
          Attrs a = random_state(s.seed, s.offset);
          const double x = normal ? 0.5 : -2.5, y = normal ? 3.0 : 7.25;
          a.add(normal ? "mean" : "low", OAR_ATTR_FLOAT, 0, x);
          a.add(normal ? "std" : "high", OAR_ATTR_FLOAT, 0, y);
          std::vector<unsigned char> want;
          for (int64_t i = 0; i < out.numel(); ++i) {
            const oar_rng::Block r = oar_rng::philox4x32(s.offset + static_cast<uint64_t>(i), 0, s.seed);
            put_float(dt, normal ? oar_rng::normal_value(x, y, r) : oar_rng::uniform_value(x, y, r), want);
          }
          const char* op = normal ? "random_normal" : "random_uniform";
          const std::string name = std::string(op) + " " + abi::dname(dt) + " numel " + std::to_string(out.numel()) +
                                   " seed " + std::to_string(s.seed) + " offset " + std::to_string(s.offset);
          if (expect_call(name, abi::call(*R, op, dt, {}, {out.view()}, a))) expect_bytes(name, out, want);
          raw_release(out);
        }
      }

  // randint, including a range that does not fit int64
  const std::pair<int64_t, int64_t> ranges[] = {{0, 10}, {-100, 3}, {-(int64_t(1) << 40), int64_t(1) << 50},
                                                {INT64_MIN, INT64_MAX}};
  for (int dt : int_dtypes)
    for (const auto& [low, high] : ranges)
      for (const State& s : states) {
        const Shape shape{3, 1001};
        RawTensor out = raw_tensor(dt, shape, abi::contiguous_strides(shape), 3003);
        Attrs a = random_state(s.seed, s.offset);
        a.add("low", OAR_ATTR_INT, low).add("high", OAR_ATTR_INT, high);
        const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
        std::vector<unsigned char> want;
        for (int64_t i = 0; i < out.numel(); ++i)
          put_int(dt, oar_rng::randint_value(low, range, oar_rng::philox4x32(s.offset + static_cast<uint64_t>(i), 0, s.seed)),
                  want);
        const std::string name = std::string("random_randint ") + random_dname(dt) + " [" + std::to_string(low) + ", " +
                                 std::to_string(high) + ") seed " + std::to_string(s.seed);
        if (expect_call(name, abi::call(*R, "random_randint", dt, {}, {out.view()}, a))) expect_bytes(name, out, want);
        raw_release(out);
      }

  // bernoulli on a contiguous p and on its transposed view
  for (int dt : kFloatDtypes)
    for (const State& s : states) {
      std::vector<unsigned char> pbytes;
      for (int64_t i = 0; i < 37 * 21; ++i) put_float(dt, std::uniform_real_distribution<double>(-0.1, 1.1)(rng), pbytes);
      RawTensor p = raw_tensor(dt, {37, 21}, {21, 1}, 37 * 21, &pbytes);
      for (int transposed = 0; transposed < 2; ++transposed) {
        RawTensor pv = p;
        if (transposed) {
          pv.shape = {21, 37};
          pv.strides = {1, 21};
        }
        RawTensor out = raw_tensor(dt, pv.shape, abi::contiguous_strides(pv.shape), 37 * 21);
        std::vector<unsigned char> want;
        for (int64_t i = 0; i < 37 * 21; ++i) {
          const int64_t src = transposed ? (i % 37) * 21 + i / 37 : i;
          const bool one = oar_rng::bernoulli_value(get_float(dt, pbytes, src),
                                                    oar_rng::philox4x32(s.offset + static_cast<uint64_t>(i), 0, s.seed));
          put_float(dt, one ? 1.0 : 0.0, want);
        }
        const std::string name = std::string("random_bernoulli ") + abi::dname(dt) + (transposed ? " transposed p" : "") +
                                 " seed " + std::to_string(s.seed);
        if (expect_call(name, abi::call(*R, "random_bernoulli", dt, {pv.view()}, {out.view()}, random_state(s.seed, s.offset))))
          expect_bytes(name, out, want);
        raw_release(out);
      }
      raw_release(p);
    }

  // dropout masks: four draws per Philox block, sizes that are not multiples of four
  for (int dt : kFloatDtypes)
    for (const Shape& shape : shapes)
      for (double prob : {0.0, 0.1, 0.5, 0.999, 1.0}) {
        const State s{1234567, 99};
        const double keep = prob >= 1.0 ? 0.0 : 1.0 / (1.0 - prob);
        RawTensor out = raw_tensor(dt, shape, abi::contiguous_strides(shape), static_cast<size_t>(abi_numel(shape)));
        Attrs a = random_state(s.seed, s.offset);
        a.add("p", OAR_ATTR_FLOAT, 0, prob).add("keep_value", OAR_ATTR_FLOAT, 0, keep);
        std::vector<unsigned char> want;
        for (int64_t i = 0; i < out.numel(); ++i) {
          const oar_rng::Block r = oar_rng::philox4x32(s.offset + static_cast<uint64_t>(i / 4), 0, s.seed);
          put_float(dt, oar_rng::dropout_drops(r.w[i % 4], prob) ? 0.0 : keep, want);
        }
        const std::string name = std::string("random_dropout_mask ") + abi::dname(dt) + " numel " +
                                 std::to_string(out.numel()) + " p " + std::to_string(prob);
        if (expect_call(name, abi::call(*R, "random_dropout_mask", dt, {}, {out.view()}, a))) expect_bytes(name, out, want);
        raw_release(out);
      }

  // errors: an empty randint range, a missing seed
  {
    RawTensor out = raw_tensor(OAR_INT64, {4}, {1}, 4);
    Attrs a = random_state(1, 0);
    a.add("low", OAR_ATTR_INT, 5).add("high", OAR_ATTR_INT, 5);
    report(abi::call(*R, "random_randint", OAR_INT64, {}, {out.view()}, a).status == OAR_STATUS_ERROR,
           "random_randint refuses low >= high");
    Attrs b;
    b.add("low", OAR_ATTR_FLOAT, 0, 0.0);
    RawTensor f = raw_tensor(OAR_FLOAT32, {4}, {1}, 4);
    report(abi::call(*R, "random_uniform", OAR_FLOAT32, {}, {f.view()}, b).status == OAR_STATUS_ERROR,
           "random_uniform refuses a missing seed");
    raw_release(out);
    raw_release(f);
  }
}

// ---- normalisation gradients (norm_grad.cu) ---------------------------------------------------
// layer_norm_grad and batch_norm_grad against the formulas of oar's host kernels evaluated here
// in double from the stored inputs (tests/plugin_checks/norm_grad_check.cc compares custom_cpu with
// the host kernels themselves). Tolerances scale with the magnitude of the terms summed, since
// the kernels round some products and the means to the dtype, as the host does.

// Compares out with want, allowing atol + rtol * |want| + 2 * rtol * mag per element.
void expect_scaled(const std::string& name, const Tensor& out, const std::vector<double>& want,
                   const std::vector<double>& mag, Tol t) {
  if (out.storage.size() != want.size()) {
    report(false, name, "size " + std::to_string(out.storage.size()) + " vs " + std::to_string(want.size()));
    return;
  }
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double err = std::fabs(out.storage[i] - want[i]);
    if (!(err <= t.atol + t.rtol * std::fabs(want[i]) + 2 * t.rtol * mag[i]) && !bad++) first = i;
  }
  char detail[200] = "";
  if (bad)
    std::snprintf(detail, sizeof detail, "%zu of %zu differ; first at %zu: got %.9g want %.9g", bad,
                  want.size(), first, out.storage[first], want[first]);
  report(bad == 0, name, detail);
}

OarTensor absent_tensor() {
  OarTensor t{};
  t.ndim = -1;
  return t;
}

// x as a row-major [shape] view: contiguous, or (strided) with its last two dims swapped in memory.
Tensor norm_input(int dt, const Shape& shape, bool strided, const Gen& gen) {
  if (!strided || shape.size() < 2) return make(dt, shape, gen);
  std::vector<int> perm(shape.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int>(i);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return make_permuted(dt, shape, perm, gen);
}

// Elements of a view in row-major order.
std::vector<double> logical_values(const Tensor& t) {
  std::vector<double> v;
  v.reserve(static_cast<size_t>(t.numel()));
  for_each_index(t.shape, [&](const Shape& i) { v.push_back(t.at(i)); });
  return v;
}

struct BnGradCase {
  Shape shape;
  int64_t axis;
  bool weight, batch_stats, strided;
  int want;  // bits: 1 dx, 2 dweight, 4 dbias
};

void bn_grad_case(const BnGradCase& c, int dt) {
  const int nd = static_cast<int>(c.shape.size());
  const int64_t ax = c.axis < 0 ? c.axis + nd : c.axis;
  int64_t outer = 1, C = c.shape[ax], inner = 1;
  for (int d = 0; d < nd; ++d) {
    if (d < ax) outer *= c.shape[d];
    else if (d > ax) inner *= c.shape[d];
  }
  const int64_t count = outer * inner;
  Tensor x = norm_input(dt, c.shape, c.strided, uniform(-2, 3));
  Tensor g = norm_input(dt, c.shape, c.strided, uniform(-1, 1));
  Tensor w = make(dt, {C}, uniform(0.5, 1.5));
  const std::vector<double> xv = logical_values(x), gv = logical_values(g);
  auto at = [&](int64_t o, int64_t ch, int64_t i) { return static_cast<size_t>((o * C + ch) * inner + i); };
  std::vector<double> mv(C), rv(C);
  for (int64_t ch = 0; ch < C; ++ch) {
    if (c.batch_stats && count > 0) {
      double s = 0, q = 0;
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) s += xv[at(o, ch, i)];
      const double m = s / count;
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) q += (xv[at(o, ch, i)] - m) * (xv[at(o, ch, i)] - m);
      mv[ch] = m;
      rv[ch] = 1 / std::sqrt(q / count + 1e-5);
    } else {
      mv[ch] = uniform(-0.5, 0.5)();
      rv[ch] = uniform(0.5, 2.0)();
    }
  }
  size_t k = 0;
  Tensor mean = make(dt, {C}, [&] { return mv[k++]; });
  k = 0;
  Tensor rstd = make(dt, {C}, [&] { return rv[k++]; });
  Tensor dx = make(dt, c.shape, constant(7)), dw = make(dt, {C}, constant(7)), db = make(dt, {C}, constant(7));
  // The reference, from the stored (quantized) statistics.
  std::vector<double> sg(C, 0), sgh(C, 0), mag_s(C, 0), mag_h(C, 0);
  auto h_of = [&](double xval, int64_t ch) { return (xval - mean.storage[ch]) * rstd.storage[ch]; };
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t ch = 0; ch < C; ++ch)
      for (int64_t i = 0; i < inner; ++i) {
        const double gg = gv[at(o, ch, i)], h = h_of(xv[at(o, ch, i)], ch);
        sg[ch] += gg;
        sgh[ch] += gg * h;
        mag_s[ch] += std::fabs(gg);
        mag_h[ch] += std::fabs(gg * h);
      }
  std::vector<double> want_dx(static_cast<size_t>(x.numel())), mag_dx(want_dx.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t ch = 0; ch < C; ++ch) {
      const double kk = rstd.storage[ch] * (c.weight ? w.storage[ch] : 1.0);
      const double mg = c.batch_stats ? sg[ch] / count : 0, mgh = c.batch_stats ? sgh[ch] / count : 0;
      for (int64_t i = 0; i < inner; ++i) {
        const double gg = gv[at(o, ch, i)], h = h_of(xv[at(o, ch, i)], ch);
        want_dx[at(o, ch, i)] = kk * (gg - mg - h * mgh);
        mag_dx[at(o, ch, i)] = std::fabs(kk) * (std::fabs(gg) + std::fabs(mg) + std::fabs(h * mgh));
      }
    }
  Attrs a;
  a.boolean("use_batch_stats", c.batch_stats).add("channel_axis", OAR_ATTR_INT, c.axis);
  std::string shape = "[";
  for (size_t d = 0; d < c.shape.size(); ++d) shape += (d ? "," : "") + std::to_string(c.shape[d]);
  char name[200];
  std::snprintf(name, sizeof name, "batch_norm_grad %s %s] axis=%lld weight=%d stats=%d strided=%d want=%d",
                abi::dname(dt), shape.c_str(), static_cast<long long>(c.axis), c.weight, c.batch_stats,
                c.strided, c.want);
  const abi::Call call = abi::call(*R, "batch_norm_grad", dt,
                                   {x.view(), c.weight ? w.view() : absent_tensor(), mean.view(), rstd.view(), g.view()},
                                   {c.want & 1 ? dx.view() : absent_tensor(), c.want & 2 ? dw.view() : absent_tensor(),
                                    c.want & 4 ? db.view() : absent_tensor()},
                                   a);
  if (expect_call(name, call)) {
    const Tol t = tol_of(dt);
    if (c.want & 1) {
      abi::download(*R, dx);
      expect_scaled(std::string(name) + " dx", dx, want_dx, mag_dx, t);
    }
    if (c.want & 2) {
      abi::download(*R, dw);
      expect_scaled(std::string(name) + " dweight", dw, sgh, mag_h, t);
    }
    if (c.want & 4) {
      abi::download(*R, db);
      expect_scaled(std::string(name) + " dbias", db, sg, mag_s, t);
    }
  }
  free_all({&x, &g, &w, &mean, &rstd, &dx, &dw, &db});
}

struct LnGradCase {
  Shape shape;
  int64_t begin;
  bool weight, strided;
  int want;
};

void ln_grad_case(const LnGradCase& c, int dt) {
  int64_t rows = 1, n = 1;
  for (size_t d = 0; d < c.shape.size(); ++d) (static_cast<int64_t>(d) < c.begin ? rows : n) *= c.shape[d];
  Tensor x = norm_input(dt, c.shape, c.strided, uniform(-2, 3));
  Tensor g = norm_input(dt, c.shape, c.strided, uniform(-1, 1));
  Tensor w = make(dt, {n}, uniform(0.5, 1.5));
  const std::vector<double> xv = logical_values(x), gv = logical_values(g);
  std::vector<double> mv(rows), rv(rows);
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0, q = 0;
    for (int64_t i = 0; i < n; ++i) s += xv[r * n + i];
    const double m = n ? s / n : 0;
    for (int64_t i = 0; i < n; ++i) q += (xv[r * n + i] - m) * (xv[r * n + i] - m);
    mv[r] = m;
    rv[r] = 1 / std::sqrt((n ? q / n : 0) + 1e-5);
  }
  size_t k = 0;
  Tensor mean = make(dt, {rows}, [&] { return mv[k++]; });
  k = 0;
  Tensor rstd = make(dt, {rows}, [&] { return rv[k++]; });
  Tensor dx = make(dt, c.shape, constant(7)), dw = make(dt, {n}, constant(7)), db = make(dt, {n}, constant(7));
  std::vector<double> want_dx(static_cast<size_t>(rows * n)), mag_dx(want_dx.size());
  std::vector<double> sw(n, 0), sb(n, 0), mag_w(n, 0), mag_b(n, 0);
  for (int64_t r = 0; r < rows; ++r) {
    double sg = 0, sgh = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double gg = gv[r * n + i], h = (xv[r * n + i] - mean.storage[r]) * rstd.storage[r];
      const double gw = gg * (c.weight ? w.storage[i] : 1.0);
      sg += gw;
      sgh += gw * h;
      sw[i] += gg * h;
      sb[i] += gg;
      mag_w[i] += std::fabs(gg * h);
      mag_b[i] += std::fabs(gg);
    }
    const double mg = sg / n, mgh = sgh / n, s = rstd.storage[r];
    for (int64_t i = 0; i < n; ++i) {
      const double gg = gv[r * n + i], h = (xv[r * n + i] - mean.storage[r]) * s;
      const double gw = gg * (c.weight ? w.storage[i] : 1.0);
      want_dx[r * n + i] = s * (gw - mg - h * mgh);
      mag_dx[r * n + i] = std::fabs(s) * (std::fabs(gw) + std::fabs(mg) + std::fabs(h * mgh));
    }
  }
  Attrs a;
  a.add("begin_norm_axis", OAR_ATTR_INT, c.begin);
  std::string shape = "[";
  for (size_t d = 0; d < c.shape.size(); ++d) shape += (d ? "," : "") + std::to_string(c.shape[d]);
  char name[200];
  std::snprintf(name, sizeof name, "layer_norm_grad %s %s] begin=%lld weight=%d strided=%d want=%d",
                abi::dname(dt), shape.c_str(), static_cast<long long>(c.begin), c.weight, c.strided, c.want);
  const bool want_w = (c.want & 2) && c.weight;
  const abi::Call call = abi::call(*R, "layer_norm_grad", dt,
                                   {x.view(), c.weight ? w.view() : absent_tensor(), mean.view(), rstd.view(), g.view()},
                                   {c.want & 1 ? dx.view() : absent_tensor(), want_w ? dw.view() : absent_tensor(),
                                    c.want & 4 ? db.view() : absent_tensor()},
                                   a);
  if (expect_call(name, call)) {
    const Tol t = tol_of(dt);
    if (c.want & 1) {
      abi::download(*R, dx);
      expect_scaled(std::string(name) + " dx", dx, want_dx, mag_dx, t);
    }
    if (want_w) {
      abi::download(*R, dw);
      expect_scaled(std::string(name) + " dweight", dw, sw, mag_w, t);  // 0 with no rows
    }
    if (c.want & 4) {
      abi::download(*R, db);
      expect_scaled(std::string(name) + " dbias", db, sb, mag_b, t);
    }
  }
  free_all({&x, &g, &w, &mean, &rstd, &dx, &dw, &db});
}

void test_norm_grad() {
  for (int dt : {OAR_FLOAT32, OAR_FLOAT64}) {
    for (bool stats : {true, false})
      for (bool weight : {true, false}) {
        bn_grad_case({{4, 3, 5, 6}, 1, weight, stats, false, 7}, dt);   // NCHW
        bn_grad_case({{4, 5, 6, 3}, -1, weight, stats, false, 7}, dt);  // NHWC
        bn_grad_case({{16, 7}, 1, weight, stats, false, 7}, dt);        // [N, C]
      }
    for (int want : {1, 6, 2, 4}) {
      bn_grad_case({{4, 3, 5, 6}, 1, true, true, false, want}, dt);
      bn_grad_case({{4, 5, 6, 3}, 3, true, true, false, want}, dt);
    }
    for (bool stats : {true, false}) {
      bn_grad_case({{2, 3, 4, 5}, 2, true, stats, false, 7}, dt);    // a middle axis
      bn_grad_case({{3, 6, 7}, 1, true, stats, true, 7}, dt);        // strided x and out_grad
      bn_grad_case({{3, 7, 6}, 2, false, stats, true, 7}, dt);       // strided, channel-last
      bn_grad_case({{0, 4, 3}, 1, true, stats, false, 7}, dt);       // empty batch: dweight, dbias 0
      bn_grad_case({{0, 4}, -1, true, stats, false, 6}, dt);
      bn_grad_case({{32, 4, 40, 40}, 1, true, stats, false, 7}, dt);  // several splits per channel
      bn_grad_case({{3000, 5}, -1, true, stats, false, 7}, dt);      // several row chunks
      bn_grad_case({{9, 70, 11, 13}, 1, true, stats, false, 7}, dt);
    }
    for (bool weight : {true, false})
      for (int want : {7, 1, 6}) {
        ln_grad_case({{4, 5, 6}, 2, weight, false, want}, dt);
        ln_grad_case({{4, 5, 6}, 1, weight, false, want}, dt);
        ln_grad_case({{3, 70}, 1, weight, false, want}, dt);
      }
    ln_grad_case({{2, 3, 8}, 2, true, true, 7}, dt);   // strided x and out_grad
    ln_grad_case({{0, 8}, 1, true, false, 7}, dt);     // no rows: dweight, dbias 0
    ln_grad_case({{5, 0}, 1, true, false, 7}, dt);     // empty rows
    ln_grad_case({{6, 2000}, 1, true, false, 7}, dt);  // a block per row
    ln_grad_case({{37, 768}, 1, true, false, 7}, dt);
    ln_grad_case({{3000, 40}, 1, true, false, 7}, dt);  // several row chunks
    ln_grad_case({{4, 3}, 0, true, false, 7}, dt);     // one row of everything
  }
}

}  // namespace

int main(int argc, char** argv) {
  R = &abi::load(argc, argv);
  test_registration();
  const int n = R->dev->device_count();
  if (n == 0) {
    std::printf("SKIP: no GPU (registration checks: %d passed, %d failed)\n", g_passes, g_failures);
    return g_failures ? 1 : 0;
  }
  std::printf("%d GPU(s) visible\n", n);
  const auto t0 = std::chrono::steady_clock::now();
  const std::pair<const char*, void (*)()> families[] = {
      {"device", test_device},  {"streams/events", test_streams_events},
      {"binary", test_binary},  {"unary", test_unary},
      {"copy/full/where", test_copy_ops}, {"reduce", test_reduce},
      {"matmul", test_matmul},
      {"convolution (cuDNN and im2col)", test_conv},
      {"random", test_random},
      {"normalisation gradients", test_norm_grad}};
  for (const auto& [name, fn] : families) {
    const int before = g_failures;
    const auto t = std::chrono::steady_clock::now();
    fn();
    std::printf("-- %s: %s (%.1f s)\n", name, g_failures == before ? "ok" : "FAILURES",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
    std::fflush(stdout);
  }
  std::printf("%d passed, %d failed (%.1f s)\n", g_passes, g_failures,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return g_failures ? 1 : 0;
}
