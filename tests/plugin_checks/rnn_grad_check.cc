// A check of a plug-in's rnn_layer and rnn_layer_grad kernels (custom_cpu's rnn.cc/rnn_grad.cc,
// or the CUDA plug-in's rnn.cu) against oar's host kernels (kernels::rnn_layer / rnn_layer_grad
// in oar/kernels/cpu/rnn.cc), called through the plug-in ABI as oar does.
// Built as oar_rnn_grad_check and run by ctest on custom_cpu (CMakeLists.txt); tools/gpu_check.sh
// runs it on the CUDA plug-in:  oar_rnn_grad_check <plug-in .so> [device type, default custom_cpu]
// Cases: every mode, reverse, sequence lengths (int32, int64, none), projected LSTM, biases
// absent, incoming gradients absent, unwanted gradients absent, a strided weight, T == 0;
// float32 and float64.
#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "oar/core/tensor.h"
#include "oar/device/device_ext.h"
#include "oar/kernels/cpu/rnn.h"

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

// A device copy of a host tensor (or an absent slot), optionally with a custom view.
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

Dev upload(const oar::Tensor& t) {
  Dev d;
  if (!t.defined()) return d;
  d.present = true;
  d.dtype = static_cast<int32_t>(t.dtype());
  d.shape = t.shape();
  d.strides = contiguous(d.shape);
  d.nbytes = static_cast<size_t>(t.numel()) * oar::dtype_size(t.dtype());
  if (g_dev->allocate(0, d.nbytes ? d.nbytes : 1, &d.base) != OAR_STATUS_OK) std::abort();
  if (d.nbytes) g_dev->memcpy_h2d(0, nullptr, d.base, t.raw_data(), d.nbytes);
  return d;
}

// A 2-d tensor uploaded transposed in memory: same values, strides (1, rows).
Dev upload_transposed(const oar::Tensor& t) {
  Dev d = upload(t);
  const int64_t r = t.shape()[0], c = t.shape()[1];
  const size_t es = oar::dtype_size(t.dtype());
  std::vector<char> host(d.nbytes);
  const char* src = static_cast<const char*>(t.raw_data());
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j) std::memcpy(&host[(j * r + i) * es], src + (i * c + j) * es, es);
  if (d.nbytes) g_dev->memcpy_h2d(0, nullptr, d.base, host.data(), d.nbytes);
  d.strides = {1, r};
  return d;
}

Dev empty_like(const oar::Tensor& t, bool want) {
  Dev d;
  if (!t.defined() || !want) return d;
  d.present = true;
  d.dtype = static_cast<int32_t>(t.dtype());
  d.shape = t.shape();
  d.strides = contiguous(d.shape);
  d.nbytes = static_cast<size_t>(t.numel()) * oar::dtype_size(t.dtype());
  if (g_dev->allocate(0, d.nbytes ? d.nbytes : 1, &d.base) != OAR_STATUS_OK) std::abort();
  return d;
}

void release(Dev& d) {
  if (d.present) g_dev->deallocate(0, d.base, d.nbytes ? d.nbytes : 1);
}

template <typename T>
void compare(const char* what, const std::string& label, const Dev& got, const oar::Tensor& want, double tol) {
  if (!got.present) return;
  std::vector<T> g(got.nbytes / sizeof(T));
  if (got.nbytes) g_dev->memcpy_d2h(0, nullptr, g.data(), got.base, got.nbytes);
  const T* w = want.data<T>();
  double worst = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    const double diff = std::fabs(double(g[i]) - double(w[i])) / (1.0 + std::fabs(double(w[i])));
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

struct Case {
  const char* mode;
  int64_t T, B, I, H, P;
  bool reverse, projected, bias;
  int lens;  // 0 none, 32 int32, 64 int64
  bool gout, gh, gc;
  bool all_wanted;
  bool strided_whh;
};

template <typename T>
void run_case(const Case& c, std::mt19937& rng) {
  const oar::DType dt = std::is_same_v<T, float> ? oar::DType::Float32 : oar::DType::Float64;
  const int32_t odt = static_cast<int32_t>(dt);
  const oar::kernels::RnnMode mode = oar::kernels::rnn_mode(c.mode, "test");
  const int64_t G = oar::kernels::rnn_gate_count(mode), GH = G * c.H;
  const int64_t P = c.projected ? c.P : c.H;
  const bool lstm = mode == oar::kernels::RnnMode::Lstm;
  std::uniform_real_distribution<double> u(-0.8, 0.8);
  auto rand = [&](const oar::Shape& s) {
    oar::Tensor t = oar::Tensor::make(s, dt);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<T>()[i] = T(u(rng));
    return t;
  };
  oar::Tensor x = rand({c.T, c.B, c.I}), wih = rand({GH, c.I}), whh = rand({GH, P});
  oar::Tensor bih = c.bias ? rand({GH}) : oar::Tensor(), bhh = c.bias ? rand({GH}) : oar::Tensor();
  oar::Tensor h0 = rand({c.B, P}), c0 = lstm ? rand({c.B, c.H}) : oar::Tensor();
  oar::Tensor who = c.projected ? rand({c.H, P}) : oar::Tensor();
  oar::Tensor lens;
  if (c.lens) {
    lens = oar::Tensor::make({c.B}, c.lens == 64 ? oar::DType::Int64 : oar::DType::Int32);
    for (int64_t b = 0; b < c.B; ++b) {
      const int64_t v = (b * 7 + 3) % (c.T + 1);  // 0 .. T, some full, some empty
      if (c.lens == 64) lens.data<int64_t>()[b] = v;
      else lens.data<int32_t>()[b] = static_cast<int32_t>(v);
    }
  }
  const int64_t R = oar::kernels::rnn_reserve_width(mode, c.H, P, c.projected);
  oar::Tensor out = oar::Tensor::make({c.T, c.B, P}, dt), last_h = oar::Tensor::make({c.B, P}, dt);
  oar::Tensor last_c = lstm ? oar::Tensor::make({c.B, c.H}, dt) : oar::Tensor::make({0}, dt);
  oar::Tensor reserve = oar::Tensor::make({c.T, c.B, R}, dt);
  oar::kernels::rnn_layer(x, wih, whh, bih, bhh, h0, c0, lens, who, mode, c.reverse, out, last_h, last_c, reserve);
  oar::Tensor gout = c.gout ? rand({c.T, c.B, P}) : oar::Tensor(), gh = c.gh ? rand({c.B, P}) : oar::Tensor();
  oar::Tensor gc = c.gc && lstm ? rand({c.B, c.H}) : oar::Tensor();
  const bool want[8] = {true, true, c.all_wanted, true, c.all_wanted, true, c.all_wanted, true};
  auto like = [&](bool w, const oar::Tensor& t) { return w && t.defined() ? oar::Tensor::make(t.shape(), dt) : oar::Tensor(); };
  oar::Tensor g[8] = {like(want[0], x),  like(want[1], wih), like(want[2], whh), like(want[3], bih),
                      like(want[4], bhh), like(want[5], h0), like(want[6] && lstm, c0), like(want[7], who)};
  oar::kernels::rnn_layer_grad(x, wih, whh, bih, bhh, lens, who, mode, c.reverse, out, reserve, gout, gh, gc, g[0],
                               g[1], g[2], g[3], g[4], g[5], g[6], g[7]);

  char label[256];
  std::snprintf(label, sizeof label, "%s %s T%lld B%lld I%lld H%lld P%lld rev%d proj%d bias%d lens%d go%d gh%d gc%d all%d str%d",
                std::is_same_v<T, float> ? "f32" : "f64", c.mode, (long long)c.T, (long long)c.B, (long long)c.I,
                (long long)c.H, (long long)P, c.reverse, c.projected, c.bias, c.lens, c.gout, c.gh, c.gc, c.all_wanted,
                c.strided_whh);
  const double tol = std::is_same_v<T, float> ? 2e-5 : 1e-10;
  std::vector<OarAttr> attrs(2);
  attrs[0].name = "mode";
  attrs[0].kind = OAR_ATTR_STRING;
  attrs[0].s = c.mode;
  attrs[1].name = "is_reverse";
  attrs[1].kind = OAR_ATTR_BOOL;
  attrs[1].i = c.reverse;

  Dev dx = upload(x), dwih = upload(wih), dwhh = c.strided_whh ? upload_transposed(whh) : upload(whh);
  Dev dbih = upload(bih), dbhh = upload(bhh), dh0 = upload(h0), dc0 = upload(c0), dlens = upload(lens);
  Dev dwho = upload(who), dgo = upload(gout), dgh = upload(gh), dgc = upload(gc);
  std::string message;
  // The forward on the device too: same out, last state and reserve.
  {
    Dev o = empty_like(out, true), lh = empty_like(last_h, true), lc = empty_like(last_c, true),
        rs = empty_like(reserve, true);
    const OarStatus st = call("rnn_layer", odt, {&dx, &dwih, &dwhh, &dbih, &dbhh, &dh0, &dc0, &dlens, &dwho},
                              {&o, &lh, &lc, &rs}, attrs, &message);
    if (st != OAR_STATUS_OK) {
      std::printf("FAIL %s rnn_layer: status %d: %s\n", label, st, message.c_str());
      ++g_failures;
    } else {
      compare<T>("out", label, o, out, tol);
      compare<T>("last_h", label, lh, last_h, tol);
      if (lstm) compare<T>("last_c", label, lc, last_c, tol);
      compare<T>("reserve", label, rs, reserve, tol);
    }
    for (Dev* d : {&o, &lh, &lc, &rs}) release(*d);
  }
  Dev dout = upload(out), dres = upload(reserve);
  Dev grads[8];
  for (int i = 0; i < 8; ++i) grads[i] = empty_like(g[i], true);
  const OarStatus st = call("rnn_layer_grad", odt,
                            {&dx, &dwih, &dwhh, &dbih, &dbhh, &dlens, &dwho, &dout, &dres, &dgo, &dgh, &dgc},
                            {&grads[0], &grads[1], &grads[2], &grads[3], &grads[4], &grads[5], &grads[6], &grads[7]},
                            attrs, &message);
  if (st != OAR_STATUS_OK) {
    std::printf("FAIL %s rnn_layer_grad: status %d: %s\n", label, st, message.c_str());
    ++g_failures;
  } else {
    const char* names[8] = {"dx", "dweight_ih", "dweight_hh", "dbias_ih", "dbias_hh", "dh0", "dc0", "dweight_ho"};
    for (int i = 0; i < 8; ++i) compare<T>(names[i], label, grads[i], g[i], tol * 10);
  }
  for (Dev* d : {&dx, &dwih, &dwhh, &dbih, &dbhh, &dh0, &dc0, &dlens, &dwho, &dgo, &dgh, &dgc, &dout, &dres})
    release(*d);
  for (Dev& d : grads) release(d);
}

}  // namespace

int main(int argc, char** argv) {
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
  std::mt19937 rng(7);
  std::vector<Case> cases;
  for (const char* mode : {"RNN_TANH", "RNN_RELU", "LSTM", "GRU"})
    for (int lens : {0, 32, 64})
      for (bool reverse : {false, true}) {
        cases.push_back({mode, 5, 4, 3, 6, 6, reverse, false, true, lens, true, true, true, true, false});
        cases.push_back({mode, 4, 3, 2, 5, 5, reverse, false, false, lens, false, true, false, false, true});
        cases.push_back({mode, 3, 2, 4, 3, 3, reverse, false, true, lens, true, false, true, true, false});
      }
  for (int lens : {0, 64})
    for (bool reverse : {false, true}) {
      cases.push_back({"LSTM", 5, 3, 3, 6, 4, reverse, true, true, lens, true, true, true, true, false});
      cases.push_back({"LSTM", 4, 2, 2, 3, 5, reverse, true, false, lens, true, false, false, false, true});
    }
  cases.push_back({"GRU", 0, 3, 2, 4, 4, false, false, true, 0, true, true, true, true, false});
  cases.push_back({"LSTM", 0, 2, 2, 3, 3, false, false, true, 0, true, true, true, true, false});
  for (const Case& c : cases) {
    run_case<float>(c, rng);
    run_case<double>(c, rng);
  }
  std::printf("%zu cases, %d failures\n", cases.size() * 2, g_failures);
  std::printf(g_failures ? "FAIL\n" : "PASS\n");
  return g_failures ? 1 : 0;
}
