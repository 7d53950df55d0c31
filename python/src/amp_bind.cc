// oar._C._amp_*: auto_cast's thread state (oar/ops/amp.h) and GradScaler's gradient pass
// (oar/ops/grad_scale.h), for python/oar/amp.
#include <nanobind/stl/array.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>

#include "bind_common.h"
#include "oar/ops/amp.h"
#include "oar/ops/grad_scale.h"
#include "oar/ops/numerics_check.h"
#include "oar/ops/op_stats.h"

namespace oar::python {

namespace {
constexpr const char* kLevels[] = {"O0", "OD", "O1", "O2"};

amp::Level level_from_name(const std::string& s) {
  for (int i = 0; i < 4; ++i)
    if (s == kLevels[i]) return static_cast<amp::Level>(i);
  OAR_THROW(InvalidArgument, "auto_cast: level should be O0, OD, O1 or O2, got '", s, "'");
}

const char* category_name(amp::Category c) {
  switch (c) {
    case amp::Category::White: return "white";
    case amp::Category::Black: return "black";
    case amp::Category::Float32: return "float32";
    default: return "gray";
  }
}
}  // namespace

void bind_amp(nb::module_& m) {
  m.def("_amp_set_state",
        [](const std::string& level, const std::string& dtype, bool use_promote,
           std::vector<std::string> white, std::vector<std::string> black) {
          amp::State s;
          s.level = level_from_name(level);
          s.dtype = dtype_from_name(dtype);
          OAR_ENFORCE_ARG(s.dtype == DType::Float16 || s.dtype == DType::BFloat16,
                          "auto_cast: dtype should be 'float16' or 'bfloat16', got '", dtype, "'");
          s.use_promote = use_promote;
          s.custom_white.insert(white.begin(), white.end());
          s.custom_black.insert(black.begin(), black.end());
          amp::set_state(std::move(s));
        },
        nb::arg("level"), nb::arg("dtype"), nb::arg("use_promote"), nb::arg("white"), nb::arg("black"));
  m.def("_amp_state", [] {
    const amp::State& s = amp::state();
    std::vector<std::string> white(s.custom_white.begin(), s.custom_white.end());
    std::vector<std::string> black(s.custom_black.begin(), s.custom_black.end());
    return nb::make_tuple(kLevels[static_cast<int>(s.level)], dtype_name(s.dtype), s.use_promote, white,
                          black);
  });
  m.def("_amp_active", &amp::active);
  m.def("_amp_default_categories", [] {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [op, c] : amp::default_categories()) out.emplace_back(op, category_name(c));
    return out;
  });
  // The dtype op `op` computes in under the current state (for Python code that runs an op's
  // float32 kernel itself and must give the result in the dtype auto_cast would).
  m.def("_amp_compute_dtype", [](const std::string& op, const std::vector<Tensor>& inputs) {
    amp::Category category = amp::Category::Gray;
    for (const auto& [name, c] : amp::default_categories())
      if (name == op) category = c;
    return std::string(dtype_name(amp::compute_dtype(op, category, {}, {&inputs})));
  });
  // paddle.amp.debugging: check_numerics, the tensor checker, operator statistics.
  m.def("_amp_check_numerics", [](const Tensor& x, const std::string& op, const std::string& var, int mode) {
    const auto s = ops::check_numerics(x, op, var, static_cast<ops::DebugMode>(mode));
    return nb::make_tuple(std::array<int64_t, 3>{s.num_nan, s.num_inf, s.num_zero},
                          std::array<double, 3>{s.max, s.min, s.mean});
  }, nb::arg("x"), nb::arg("op"), nb::arg("var"), nb::arg("mode"));
  m.def("_amp_enable_tensor_checker", [](int mode, std::vector<std::string> checked, std::vector<std::string> skipped) {
    ops::enable_tensor_checker({static_cast<ops::DebugMode>(mode), std::move(checked), std::move(skipped)});
  });
  m.def("_amp_disable_tensor_checker", &ops::disable_tensor_checker);
  m.def("_amp_tensor_checker_enabled", &ops::tensor_checker_enabled);
  m.def("_amp_enable_op_stats", &ops::enable_op_stats);
  m.def("_amp_disable_op_stats", &ops::disable_op_stats);
  m.def("_amp_op_stats_enabled", &ops::op_stats_enabled);
  m.def("_amp_unscale", &amp::unscale_grads, nb::arg("grads"), nb::arg("inv_scale"),
        nb::call_guard<nb::gil_scoped_release>());
}

}  // namespace oar::python
