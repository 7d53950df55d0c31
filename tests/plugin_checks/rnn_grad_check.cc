// A check of a plug-in's rnn_layer and rnn_layer_grad kernels (custom_cpu's rnn.cc/rnn_grad.cc,
// or the CUDA plug-in's rnn.cu) against oar's host kernels (kernels::rnn_layer / rnn_layer_grad
// in oar/kernels/cpu/rnn.cc), called through the plug-in ABI as oar does.
// Built as oar_rnn_grad_check and run by ctest on custom_cpu (CMakeLists.txt); tools/gpu_check.sh
// runs it on the CUDA plug-in:  oar_rnn_grad_check <plug-in .so> [device type, default custom_cpu]
// Cases: every mode, reverse, sequence lengths (int32, int64, none), projected LSTM, biases
// absent, incoming gradients absent, unwanted gradients absent, a strided weight, T == 0;
// float32 and float64.
#include <random>

#include "oar/kernels/cpu/rnn.h"
#include "tests/plugin_checks/plugin_check.h"

namespace {

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

  Dev dx = upload(x), dwih = upload(wih), dwhh = c.strided_whh ? upload_swapped(whh) : upload(whh);
  Dev dbih = upload(bih), dbhh = upload(bhh), dh0 = upload(h0), dc0 = upload(c0), dlens = upload(lens);
  Dev dwho = upload(who), dgo = upload(gout), dgh = upload(gh), dgc = upload(gc);
  std::string message;
  // The forward on the device too: same out, last state and reserve.
  {
    Dev o = empty_like(out), lh = empty_like(last_h), lc = empty_like(last_c),
        rs = empty_like(reserve);
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
  for (int i = 0; i < 8; ++i) grads[i] = empty_like(g[i]);
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
  if (const int status = load_plugin(argc, argv); status >= 0) return status;
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
