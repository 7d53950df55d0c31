// A check of a plug-in's layer_norm_grad and batch_norm_grad kernels (custom_cpu's norm_grad.cc)
// against oar's host kernels (kernels::layer_norm_grad / batch_norm_grad in
// oar/kernels/cpu/norm.cc), called through the plug-in ABI as oar's composites do.
// Built as oar_norm_grad_check and run by ctest on custom_cpu (CMakeLists.txt); tools/gpu_check.sh
// runs it on the CUDA plug-in:  oar_norm_grad_check <plug-in .so> [device type, default custom_cpu]
// Cases: batch norm with channel_axis 1 and last (and a middle axis), with and without weight,
// use_batch_stats true and false, unwanted outputs absent, an empty batch, a strided x;
// layer norm with several begin_norm_axis, with and without weight, unwanted outputs, no rows
// (dweight and dbias 0), long rows; float32 and float64.
#include <random>

#include "oar/kernels/cpu/norm.h"
#include "tests/plugin_checks/plugin_check.h"

namespace {

int g_cases = 0;

OarAttr attr_bool(const char* name, bool v) {
  OarAttr a{};
  a.name = name;
  a.kind = OAR_ATTR_BOOL;
  a.i = v;
  return a;
}
OarAttr attr_int(const char* name, int64_t v) {
  OarAttr a{};
  a.name = name;
  a.kind = OAR_ATTR_INT;
  a.i = v;
  return a;
}

template <typename T>
oar::Tensor random_tensor(const oar::Shape& s, std::mt19937& rng, double lo, double hi) {
  const oar::DType dt = std::is_same_v<T, float> ? oar::DType::Float32 : oar::DType::Float64;
  std::uniform_real_distribution<double> u(lo, hi);
  oar::Tensor t = oar::Tensor::make(s, dt);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<T>()[i] = T(u(rng));
  return t;
}

std::string shape_label(const oar::Shape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

// Which of dx, dweight, dbias are wanted (bits 1, 2, 4).
struct BnCase {
  oar::Shape shape;
  int64_t axis;
  bool weight, batch_stats;
  int want;
  bool strided;
};

template <typename T>
void run_bn(const BnCase& c, std::mt19937& rng) {
  ++g_cases;
  const oar::DType dt = std::is_same_v<T, float> ? oar::DType::Float32 : oar::DType::Float64;
  const int32_t odt = static_cast<int32_t>(dt);
  const int64_t ax = c.axis < 0 ? c.axis + static_cast<int64_t>(c.shape.size()) : c.axis;
  const int64_t C = c.shape[ax];
  oar::Tensor x = random_tensor<T>(c.shape, rng, -2.0, 3.0), g = random_tensor<T>(c.shape, rng, -1.0, 1.0);
  oar::Tensor w = c.weight ? random_tensor<T>({C}, rng, 0.5, 1.5) : oar::Tensor();
  oar::Tensor sm = oar::Tensor::make({C}, dt), sr = oar::Tensor::make({C}, dt);
  if (c.batch_stats && x.numel() > 0) {
    oar::Tensor y = oar::Tensor::make(c.shape, dt);
    oar::kernels::batch_norm(x, oar::Tensor(), oar::Tensor(), w, oar::Tensor(), true, false, 0.9, 1e-5, c.axis,
                             y, sm, sr);
  } else {
    sm = random_tensor<T>({C}, rng, -0.5, 0.5);
    sr = random_tensor<T>({C}, rng, 0.5, 2.0);
  }
  auto like = [&](int bit, const oar::Shape& s) {
    return (c.want & bit) ? oar::Tensor::make(s, dt) : oar::Tensor();
  };
  oar::Tensor dx = like(1, c.shape), dw = like(2, {C}), db = like(4, {C});
  oar::kernels::batch_norm_grad(x, w, sm, sr, g, c.batch_stats, c.axis, dx, dw, db);

  char label[256];
  std::snprintf(label, sizeof label, "batch_norm_grad %s x%s axis%lld w%d stats%d want%d str%d",
                std::is_same_v<T, float> ? "f32" : "f64", shape_label(c.shape).c_str(), (long long)c.axis,
                c.weight, c.batch_stats, c.want, c.strided);
  const double tol = std::is_same_v<T, float> ? 2e-6 : 1e-12;
  const std::vector<OarAttr> attrs = {attr_bool("use_batch_stats", c.batch_stats), attr_int("channel_axis", c.axis)};
  Dev ddx = c.strided ? upload_swapped(x) : upload(x), dgr = c.strided ? upload_swapped(g) : upload(g);
  Dev dwt = upload(w), dsm = upload(sm), dsr = upload(sr);
  Dev o[3] = {empty_like(dx), empty_like(dw), empty_like(db)};
  std::string message;
  const OarStatus st = call("batch_norm_grad", odt, {&ddx, &dwt, &dsm, &dsr, &dgr}, {&o[0], &o[1], &o[2]}, attrs,
                            &message);
  if (st != OAR_STATUS_OK) {
    std::printf("FAIL %s: status %d: %s\n", label, st, message.c_str());
    ++g_failures;
  } else {
    compare<T>("dx", label, o[0], dx, tol);
    compare<T>("dweight", label, o[1], dw, tol);
    compare<T>("dbias", label, o[2], db, tol);
  }
  for (Dev* d : {&ddx, &dgr, &dwt, &dsm, &dsr, &o[0], &o[1], &o[2]}) release(*d);
}

struct LnCase {
  oar::Shape shape;
  int64_t begin;
  bool weight;
  int want;
  bool strided;
};

template <typename T>
void run_ln(const LnCase& c, std::mt19937& rng) {
  ++g_cases;
  const oar::DType dt = std::is_same_v<T, float> ? oar::DType::Float32 : oar::DType::Float64;
  const int32_t odt = static_cast<int32_t>(dt);
  int64_t rows = 1;
  for (int64_t d = 0; d < c.begin; ++d) rows *= c.shape[d];
  const oar::Shape pshape(c.shape.begin() + c.begin, c.shape.end());
  oar::Tensor x = random_tensor<T>(c.shape, rng, -2.0, 3.0), g = random_tensor<T>(c.shape, rng, -1.0, 1.0);
  oar::Tensor w = c.weight ? random_tensor<T>(pshape, rng, 0.5, 1.5) : oar::Tensor();
  oar::Tensor mean = oar::Tensor::make({rows}, dt), rstd = oar::Tensor::make({rows}, dt);
  {
    oar::Tensor y = oar::Tensor::make(c.shape, dt);
    oar::kernels::layer_norm(x, w, oar::Tensor(), 1e-5, c.begin, y, mean, rstd);
  }
  auto like = [&](int bit, const oar::Shape& s) {
    return (c.want & bit) ? oar::Tensor::make(s, dt) : oar::Tensor();
  };
  oar::Tensor dx = like(1, c.shape), dw = c.weight ? like(2, pshape) : oar::Tensor(), db = like(4, pshape);
  oar::kernels::layer_norm_grad(x, w, mean, rstd, g, c.begin, dx, dw, db);

  char label[256];
  std::snprintf(label, sizeof label, "layer_norm_grad %s x%s begin%lld w%d want%d str%d",
                std::is_same_v<T, float> ? "f32" : "f64", shape_label(c.shape).c_str(), (long long)c.begin,
                c.weight, c.want, c.strided);
  const double tol = std::is_same_v<T, float> ? 2e-6 : 1e-12;
  const std::vector<OarAttr> attrs = {attr_int("begin_norm_axis", c.begin)};
  Dev ddx = c.strided ? upload_swapped(x) : upload(x), dgr = c.strided ? upload_swapped(g) : upload(g);
  Dev dwt = upload(w), dm = upload(mean), dr = upload(rstd);
  Dev o[3] = {empty_like(dx), empty_like(dw), empty_like(db)};
  std::string message;
  const OarStatus st = call("layer_norm_grad", odt, {&ddx, &dwt, &dm, &dr, &dgr}, {&o[0], &o[1], &o[2]}, attrs,
                            &message);
  if (st != OAR_STATUS_OK) {
    std::printf("FAIL %s: status %d: %s\n", label, st, message.c_str());
    ++g_failures;
  } else {
    // With no rows the host leaves dweight and dbias unwritten; their gradient is 0.
    compare<T>("dx", label, o[0], dx, tol);
    compare<T>("dweight", label, o[1], dw, tol, rows == 0);
    compare<T>("dbias", label, o[2], db, tol, rows == 0);
  }
  for (Dev* d : {&ddx, &dgr, &dwt, &dm, &dr, &o[0], &o[1], &o[2]}) release(*d);
}

}  // namespace

int main(int argc, char** argv) {
  if (const int status = load_plugin(argc, argv); status >= 0) return status;
  std::mt19937 rng(11);
  std::vector<BnCase> bn;
  for (int want : {7, 1, 6, 2, 4})
    for (bool weight : {true, false})
      for (bool stats : {true, false}) {
        bn.push_back({{4, 3, 5, 6}, 1, weight, stats, want, false});  // NCHW
        bn.push_back({{4, 5, 6, 3}, -1, weight, stats, want, false});  // NHWC
        bn.push_back({{16, 7}, 1, weight, stats, want, false});  // BatchNorm1D [N, C]
      }
  for (bool stats : {true, false}) {
    bn.push_back({{2, 3, 4, 5}, 2, true, stats, 7, false});  // a middle axis
    bn.push_back({{3, 6, 7}, 1, true, stats, 7, true});  // strided x and out_grad
    bn.push_back({{3, 7, 6}, 2, false, stats, 7, true});
    bn.push_back({{0, 4, 3}, 1, true, stats, 7, false});  // empty batch: dweight, dbias 0
    bn.push_back({{0, 4}, -1, true, stats, 6, false});
    bn.push_back({{9, 64, 11, 13}, 1, true, stats, 7, false});
    bn.push_back({{300, 33}, 1, true, stats, 7, false});
  }
  std::vector<LnCase> ln;
  for (int want : {7, 1, 6, 2, 4})
    for (bool weight : {true, false}) {
      ln.push_back({{4, 5, 6}, 2, weight, want, false});
      ln.push_back({{4, 5, 6}, 1, weight, want, false});
      ln.push_back({{3, 70}, 1, weight, want, false});
    }
  ln.push_back({{2, 3, 8}, 2, true, 7, true});  // strided x and out_grad
  ln.push_back({{0, 8}, 1, true, 7, false});  // no rows: dweight, dbias 0
  ln.push_back({{0, 8}, 1, true, 6, false});
  ln.push_back({{5, 0}, 1, true, 7, false});  // empty rows
  ln.push_back({{6, 2000}, 1, true, 7, false});  // long rows
  ln.push_back({{37, 768}, 1, true, 7, false});
  ln.push_back({{4, 3}, 0, true, 7, false});  // one row of everything
  for (const BnCase& c : bn) {
    run_bn<float>(c, rng);
    run_bn<double>(c, rng);
  }
  for (const LnCase& c : ln) {
    run_ln<float>(c, rng);
    run_ln<double>(c, rng);
  }
  std::printf("%d cases, %d failures\n", g_cases, g_failures);
  std::printf(g_failures ? "FAIL\n" : "PASS\n");
  return g_failures ? 1 : 0;
}
