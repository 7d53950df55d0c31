#include "oar/pass/fusion_patterns.h"

#include <map>
#include <string>
#include <utility>

#include "oar/autograd/grad_mode.h"
#include "oar/ops/generated/api/conv.h"
#include "oar/ops/generated/api/creation.h"
#include "oar/ops/generated/api/elementwise.h"
#include "oar/ops/generated/api/nn_common.h"
#include "oar/ops/generated/api/norm.h"
#include "oar/ops/generated/api/reduce.h"
#include "oar/ops/generated/api/shape.h"
#include "oar/pass/rewrite_helpers.h"

namespace oar::pass {

namespace {

using drr::bind;
using drr::computed;
using drr::constant;
using drr::equals;
using drr::from;
using drr::Match;
using drr::Pattern;
using ir::Attribute;

// An activation op of the source program and its name in fused.yaml.
struct Activation {
  std::string op;
  std::map<std::string, drr::AttrPattern> attrs;
  std::string fused_name;
};

std::vector<Activation> activations() {
  return {{"relu", {}, "relu"},
          {"gelu", {{"approximate", equals(Attribute::boolean(false))}}, "gelu"},
          {"gelu", {{"approximate", equals(Attribute::boolean(true))}}, "gelu_tanh"},
          {"silu", {}, "silu"},
          {"sigmoid", {}, "sigmoid"},
          {"tanh", {}, "tanh"}};
}

const std::vector<std::string> kConvAttrs = {"stride", "padding", "dilation", "groups", "data_format",
                                             "padding_algorithm"};

std::map<std::string, drr::AttrPattern> bind_conv_attrs() {
  std::map<std::string, drr::AttrPattern> a;
  for (const auto& n : kConvAttrs) a[n] = bind(n);
  return a;
}

std::map<std::string, drr::ResultAttr> copy_conv_attrs() {
  std::map<std::string, drr::ResultAttr> a;
  for (const auto& n : kConvAttrs) a[n] = from(n);
  return a;
}

bool same_type(const Match& m, const char* a, const char* b) { return m.type(a) == m.type(b); }

// The channel dim of a conv output for its data_format (NCHW: 1, NHWC: last).
int64_t channel_dim(const Match& m) { return m.attr("data_format").as_string() == "NHWC" ? 3 : 1; }

}  // namespace

std::vector<Pattern> matmul_bias_patterns() {
  std::vector<Pattern> ps;
  // Both operand orders of the add; the bias must not change the matmul's shape or dtype.
  for (bool bias_first : {false, true}) {
    Pattern p(bias_first ? "matmul_bias_commuted" : "matmul_bias");
    p.source("matmul", {"x", "y"}, {{"transpose_x", bind("tx")}, {"transpose_y", bind("ty")}}, {"mm"})
        .source("add", bias_first ? std::vector<std::string>{"bias", "mm"} : std::vector<std::string>{"mm", "bias"},
                {}, {"out"})
        .constraint([](const Match& m) { return same_type(m, "out", "mm"); })
        .result("fused_matmul_bias", {"x", "y", "bias"},
                {{"transpose_x", from("tx")}, {"transpose_y", from("ty")},
                 {"activation", constant(Attribute::string("none"))}},
                {"out"});
    ps.push_back(std::move(p));
  }
  // linear (the op nn.Linear traces to) with a bias, then an activation.
  for (const Activation& act : activations()) {
    Pattern p("linear_" + act.fused_name);
    p.source("linear", {"x", "w", "bias"}, {}, {"lin"})
        .source(act.op, {"lin"}, act.attrs, {"out"})
        .result("fused_matmul_bias", {"x", "w", "bias"},
                {{"transpose_x", constant(Attribute::boolean(false))},
                 {"transpose_y", constant(Attribute::boolean(false))},
                 {"activation", constant(Attribute::string(act.fused_name))}},
                {"out"});
    ps.push_back(std::move(p));
  }
  for (const Activation& act : activations()) {
    Pattern p("matmul_bias_" + act.fused_name);
    p.source("fused_matmul_bias", {"x", "y", "bias"},
             {{"transpose_x", bind("tx")}, {"transpose_y", bind("ty")},
              {"activation", equals(Attribute::string("none"))}},
             {"mm"})
        .source(act.op, {"mm"}, act.attrs, {"out"})
        .result("fused_matmul_bias", {"x", "y", "bias"},
                {{"transpose_x", from("tx")}, {"transpose_y", from("ty")},
                 {"activation", constant(Attribute::string(act.fused_name))}},
                {"out"});
    ps.push_back(std::move(p));
  }
  return ps;
}

std::vector<Pattern> conv_bias_patterns() {
  std::vector<Pattern> ps;
  // conv2d(x, w) + reshape(b, [1, C, 1, 1]) (NCHW) or + reshape(b, [1, 1, 1, C]) (NHWC).
  for (bool bias_first : {false, true}) {
    Pattern p(bias_first ? "conv_bias_commuted" : "conv_bias");
    p.source("reshape", {"b"}, {}, {"rb"})
        .source("conv2d", {"x", "w", "none"}, bind_conv_attrs(), {"c"})
        .source("add", bias_first ? std::vector<std::string>{"rb", "c"} : std::vector<std::string>{"c", "rb"}, {},
                {"out"})
        .constraint([](const Match& m) {
          const auto& c = m.type("c").shape;
          const auto& b = m.type("b").shape;
          const int64_t ch = channel_dim(m);
          if (!same_type(m, "out", "c") || b.size() != 1 || c.size() != 4 || c[ch] < 0 || b[0] != c[ch]) return false;
          std::vector<int64_t> want(4, 1);
          want[ch] = c[ch];
          return m.type("rb").shape == want;
        })
        .result("conv2d", {"x", "w", "b"}, copy_conv_attrs(), {"out"});
    ps.push_back(std::move(p));
  }
  return ps;
}

std::vector<Pattern> conv_activation_patterns() {
  std::vector<Pattern> ps;
  for (bool has_bias : {true, false})
    for (const Activation& act : activations()) {
      Pattern p(std::string("conv") + (has_bias ? "_bias_" : "_") + act.fused_name);
      const std::string b = has_bias ? "b" : "none";
      auto attrs = copy_conv_attrs();
      attrs["activation"] = constant(Attribute::string(act.fused_name));
      p.source("conv2d", {"x", "w", b}, bind_conv_attrs(), {"c"})
          .source(act.op, {"c"}, act.attrs, {"out"})
          .result("fused_conv2d_bias_act", {"x", "w", b}, attrs, {"out"});
      ps.push_back(std::move(p));
    }
  return ps;
}

std::vector<Pattern> softmax_patterns() {
  auto one_axis = [](const Match& m) { return m.attr("axis").as_int_array().size() == 1; };
  auto axis0 = computed([](const Match& m) { return Attribute::integer(m.attr("axis").as_int_array()[0]); });
  std::vector<Pattern> ps;
  {
    // The numerically stable form: exp(x - max(x)) / sum(exp(x - max(x))), one axis, keepdim.
    Pattern p("softmax_stable");
    p.source("max", {"x"}, {{"axis", bind("axis")}, {"keepdim", equals(Attribute::boolean(true))}}, {"mx"})
        .source("subtract", {"x", "mx"}, {}, {"d"})
        .source("exp", {"d"}, {}, {"e"})
        .source("sum", {"e"},
                {{"axis", bind("axis")}, {"keepdim", equals(Attribute::boolean(true))}, {"dtype", equals(Attribute::none())}},
                {"s"})
        .source("divide", {"e", "s"}, {}, {"out"})
        .constraint(one_axis)
        .result("softmax", {"x"}, {{"axis", axis0}}, {"out"});
    ps.push_back(std::move(p));
  }
  {
    Pattern p("softmax_plain");
    p.source("exp", {"x"}, {}, {"e"})
        .source("sum", {"e"},
                {{"axis", bind("axis")}, {"keepdim", equals(Attribute::boolean(true))}, {"dtype", equals(Attribute::none())}},
                {"s"})
        .source("divide", {"e", "s"}, {}, {"out"})
        .constraint(one_axis)
        .result("softmax", {"x"}, {{"axis", axis0}}, {"out"});
    ps.push_back(std::move(p));
  }
  return ps;
}

std::vector<Pattern> attention_patterns() {
  // Multi-head attention as Paddle's MultiHeadAttention records it: heads transposed out of
  // [B, S, H, D], the query scaled by a constant, softmax over the keys, heads transposed back.
  Pattern p("attention");
  const auto heads = equals(Attribute::int_array({0, 2, 1, 3}));
  const auto no = equals(Attribute::boolean(false));
  p.source("transpose", {"q"}, {{"perm", heads}}, {"qt"})
      .source("transpose", {"k"}, {{"perm", heads}}, {"kt"})
      .source("transpose", {"v"}, {{"perm", heads}}, {"vt"})
      .source("multiply", {"qt", "s"}, {}, {"qs"})
      .source("matmul", {"qs", "kt"}, {{"transpose_x", no}, {"transpose_y", equals(Attribute::boolean(true))}},
              {"scores"})
      .source("softmax", {"scores"}, {{"axis", bind("axis")}}, {"p"})
      .source("matmul", {"p", "vt"}, {{"transpose_x", no}, {"transpose_y", no}}, {"o"})
      .source("transpose", {"o"}, {{"perm", heads}}, {"out"})
      .constraint([](const Match& m) {
        const ir::TensorType& q = m.type("q");
        const int64_t axis = m.attr("axis").as_int();
        const bool floats = q.dtype == DType::Float32 || q.dtype == DType::Float64;
        return q.rank() == 4 && (axis == -1 || axis == 3) && floats && m.type("qs") == m.type("qt") &&
               splat_value(m.value("s")).has_value() && m.type("k").dtype == q.dtype && m.type("v").dtype == q.dtype;
      })
      .compute([](Match& m) {
        m.set_attr("scale", Attribute::floating(*splat_value(m.value("s"))));
        return true;
      })
      .result("fused_attention", {"q", "k", "v"}, {{"scale", from("scale")}}, {"out"});
  std::vector<Pattern> ps;
  ps.push_back(std::move(p));
  return ps;
}

std::vector<Pattern> quantized_linear_patterns() {
  std::vector<Pattern> ps;
  for (bool with_bias : {true, false}) {
    Pattern p(with_bias ? "quantized_linear_bias" : "quantized_linear");
    const auto bits8 = equals(Attribute::integer(8));
    const auto per_tensor = equals(Attribute::integer(-1));
    p.source("quantize_linear", {"x", "sx", "_"},
             {{"quant_axis", per_tensor}, {"bit_length", bits8}, {"round_type", equals(Attribute::integer(0))}}, {"xq"})
        .source("dequantize_linear", {"xq", "dx", "_"}, {{"quant_axis", per_tensor}, {"bit_length", bits8}}, {"xd"})
        .source("dequantize_linear", {"w", "sw", "_"}, {{"quant_axis", bind("w_axis")}, {"bit_length", bits8}}, {"wd"})
        .source("linear", {"xd", "wd", with_bias ? "bias" : "none"}, {}, {"out"})
        .constraint([](const Match& m) {
          // The weight is a saved parameter (its integers are fixed) of shape [K, N]; its scale is
          // per tensor, or per output column (axis 1).
          const ir::Operation* w = m.value("w")->defining_op();
          const int64_t axis = m.attr("w_axis").as_int();
          const auto& wt = m.type("w");
          return w && w->name() == "parameter" && wt.rank() == 2 && wt.dtype == DType::Float32 &&
                 m.type("x").dtype == DType::Float32 && (axis == -1 || axis == 1);
        })
        .result("quantized_linear", {"x", "sx", "dx", "w", "sw", with_bias ? "bias" : "none"}, {}, {"out"});
    ps.push_back(std::move(p));
  }
  // The same for a converted Conv2D: conv2d(dequantize(quantize(x)), dequantize(integer weight), bias).
  for (bool with_bias : {true, false}) {
    Pattern p(with_bias ? "quantized_conv2d_bias" : "quantized_conv2d");
    const auto bits8 = equals(Attribute::integer(8));
    const auto per_tensor = equals(Attribute::integer(-1));
    const char* conv_attrs[] = {"stride", "padding", "dilation", "groups", "data_format", "padding_algorithm"};
    std::map<std::string, drr::AttrPattern> binds;
    std::map<std::string, drr::ResultAttr> copies;
    for (const char* a : conv_attrs) {
      binds[a] = bind(a);
      copies[a] = from(a);
    }
    p.source("quantize_linear", {"x", "sx", "_"},
             {{"quant_axis", per_tensor}, {"bit_length", bits8}, {"round_type", equals(Attribute::integer(0))}}, {"xq"})
        .source("dequantize_linear", {"xq", "dx", "_"}, {{"quant_axis", per_tensor}, {"bit_length", bits8}}, {"xd"})
        .source("dequantize_linear", {"w", "sw", "_"}, {{"quant_axis", bind("w_axis")}, {"bit_length", bits8}}, {"wd"})
        .source("conv2d", {"xd", "wd", with_bias ? "bias" : "none"}, binds, {"out"})
        .constraint([](const Match& m) {
          // A saved parameter of integers; its scale per tensor or per output channel (axis 0).
          const ir::Operation* w = m.value("w")->defining_op();
          const int64_t axis = m.attr("w_axis").as_int();
          return w && w->name() == "parameter" && m.type("w").rank() == 4 && m.type("w").dtype == DType::Float32 &&
                 m.type("x").dtype == DType::Float32 && (axis == -1 || axis == 0);
        })
        .result("quantized_conv2d", {"x", "sx", "dx", "w", "sw", with_bias ? "bias" : "none"}, copies, {"out"});
    ps.push_back(std::move(p));
  }
  return ps;
}

std::vector<Pattern> quantize_dequantize_patterns() {
  Pattern p("quantize_dequantize");
  const auto per_tensor = equals(Attribute::integer(-1));
  p.source("quantize_linear", {"x", "s", "_"}, {{"quant_axis", per_tensor}, {"bit_length", bind("bits")},
                                                {"round_type", bind("round")}}, {"q"})
      .source("dequantize_linear", {"q", "d", "_"}, {{"quant_axis", per_tensor}, {"bit_length", bind("bits")}}, {"out"})
      .result("quantize_dequantize", {"x", "s", "d"}, {{"bit_length", from("bits")}, {"round_type", from("round")}},
              {"out"});
  std::vector<Pattern> ps;
  ps.push_back(std::move(p));
  return ps;
}

std::vector<Pattern> layer_norm_patterns() {
  std::vector<Pattern> ps;
  // The normalisation: square(xc) or xc * xc; xc / sqrt(v + eps) or xc * rsqrt(v + eps).
  for (bool square : {true, false})
    for (bool rsqrt : {false, true}) {
      Pattern p(std::string("layer_norm") + (square ? "_square" : "_mul") + (rsqrt ? "_rsqrt" : "_sqrt"));
      const auto keep = equals(Attribute::boolean(true));
      p.source("mean", {"x"}, {{"axis", bind("axis")}, {"keepdim", keep}}, {"mu"})
          .source("subtract", {"x", "mu"}, {}, {"xc"});
      if (square) p.source("square", {"xc"}, {}, {"sq"});
      else p.source("multiply", {"xc", "xc"}, {}, {"sq"});
      p.source("mean", {"sq"}, {{"axis", bind("axis")}, {"keepdim", keep}}, {"var"})
          .source("add", {"var", "eps"}, {}, {"ve"});
      if (rsqrt) p.source("rsqrt", {"ve"}, {}, {"sd"}).source("multiply", {"xc", "sd"}, {}, {"y"});
      else p.source("sqrt", {"ve"}, {}, {"sd"}).source("divide", {"xc", "sd"}, {}, {"y"});
      p.constraint([](const Match& m) {
         // Normalised over the last axis (known size); eps a non-negative one-value constant.
         const auto& xs = m.type("x").shape;
         const auto& axis = m.attr("axis").as_int_array();
         const int64_t r = static_cast<int64_t>(xs.size());
         if (r == 0 || axis.size() != 1 || (axis[0] != -1 && axis[0] != r - 1) || xs[r - 1] < 0) return false;
         auto eps = splat_value(m.value("eps"));
         return eps && *eps >= 0 && m.type("ve") == m.type("var") && m.type("y") == m.type("x");
       })
          .result("layer_norm", {"x", "none", "none"},
                  {{"normalized_shape", computed([](const Match& m) {
                      return Attribute::int_array({m.type("x").shape.back()});
                    })},
                   {"epsilon", computed([](const Match& m) { return Attribute::floating(*splat_value(m.value("eps"))); })}},
                  {"y"});
      ps.push_back(std::move(p));
    }
  // The affine part, one operand at a time: layer_norm(x) * w, then + b, with w and b of shape
  // [D] over the (single) normalised axis.
  auto affine = [&](const char* name, const char* op, const std::vector<std::string>& before,
                    const std::vector<std::string>& after, const char* operand) {
    Pattern p(name);
    p.source("layer_norm", before, {{"normalized_shape", bind("ns")}, {"epsilon", bind("eps")}}, {"y"})
        .source(op, {"y", operand}, {}, {"out"})
        .constraint([operand = std::string(operand)](const Match& m) {
          const auto& ns = m.attr("ns").as_int_array();
          return ns.size() == 1 && m.type(operand).shape == std::vector<int64_t>{ns[0]} && m.type("out") == m.type("y");
        })
        .result("layer_norm", after, {{"normalized_shape", from("ns")}, {"epsilon", from("eps")}}, {"out"});
    ps.push_back(std::move(p));
  };
  affine("layer_norm_weight", "multiply", {"x", "none", "none"}, {"x", "w", "none"}, "w");
  affine("layer_norm_bias", "add", {"x", "w", "none"}, {"x", "w", "b"}, "b");
  return ps;
}

namespace {

// The name of the `parameter` op defining placeholder `name`, if it is one with a stored tensor.
const Tensor* stored_parameter(const Match& m, const ParameterStore& params, const std::string& name) {
  const ir::Operation* def = m.value(name)->defining_op();
  if (def == nullptr || def->name() != "parameter") return nullptr;
  auto it = params.find(def->attr("name")->as_string());
  return it == params.end() ? nullptr : &it->second;
}

std::string parameter_name(const Match& m, const std::string& name) {
  return m.value(name)->defining_op()->attr("name")->as_string();
}

}  // namespace

std::vector<Pattern> conv_batch_norm_fold_patterns(ParameterStore& params) {
  std::vector<Pattern> ps;
  for (bool has_bias : {false, true}) {
    Pattern p(has_bias ? "conv_bias_batch_norm_fold" : "conv_batch_norm_fold");
    p.source("conv2d", {"x", "w", has_bias ? "cb" : "none"}, bind_conv_attrs(), {"c"})
        .source("batch_norm_base", {"c", "mean", "var", "gamma", "beta"},
                {{"use_batch_stats", equals(Attribute::boolean(false))},
                 {"update_running", equals(Attribute::boolean(false))},
                 {"epsilon", bind("epsilon")},
                 {"channel_axis", bind("channel_axis")}},
                {"out", "saved_mean", "saved_rstd"})
        .constraint([&params, has_bias](const Match& m) {
          for (const char* n : {"w", "mean", "var", "gamma", "beta"})
            if (!stored_parameter(m, params, n)) return false;
          if (has_bias && !stored_parameter(m, params, "cb")) return false;
          // BN normalises the conv's output channels.
          int64_t ax = m.attr("channel_axis").as_int();
          if (ax < 0) ax += 4;
          return ax == channel_dim(m) && m.type("w").rank() == 4;
        })
        .compute([&params, has_bias](Match& m) {
          // scale = gamma / sqrt(var + eps); w' = w * scale (per output channel);
          // b' = (b - mean) * scale + beta.
          autograd::NoGradGuard no_grad;
          const Tensor& w = *stored_parameter(m, params, "w");
          const Tensor& mean = *stored_parameter(m, params, "mean");
          const Tensor& var = *stored_parameter(m, params, "var");
          const Tensor& gamma = *stored_parameter(m, params, "gamma");
          const Tensor& beta = *stored_parameter(m, params, "beta");
          const int64_t cout = w.shape()[0];
          if (mean.numel() != cout || var.numel() != cout || gamma.numel() != cout || beta.numel() != cout) return false;
          const Tensor scale = divide(gamma, sqrt(add(var, full_like(var, Scalar(m.attr("epsilon").as_float())))));
          const Tensor w2 = multiply(w, reshape(scale, IntArray{cout, 1, 1, 1})).contiguous();
          const Tensor b0 = has_bias ? *stored_parameter(m, params, "cb") : zeros_like(mean);
          const Tensor b2 = add(multiply(subtract(b0, mean), scale), beta).contiguous();
          const std::string wn = unique_parameter_name(params, parameter_name(m, "w") + "_bn_folded");
          params[wn] = w2;
          const std::string bn = unique_parameter_name(params, parameter_name(m, "gamma") + "_bn_folded_bias");
          params[bn] = b2;
          m.set_attr("w_name", Attribute::string(wn));
          m.set_attr("w_shape", Attribute::int_array(std::vector<int64_t>(w2.shape().begin(), w2.shape().end())));
          m.set_attr("w_dtype", Attribute::dtype(w2.dtype()));
          m.set_attr("b_name", Attribute::string(bn));
          m.set_attr("b_shape", Attribute::int_array({cout}));
          m.set_attr("b_dtype", Attribute::dtype(b2.dtype()));
          return true;
        })
        .result("parameter", {}, {{"name", from("w_name")}, {"shape", from("w_shape")}, {"dtype", from("w_dtype")}},
                {"w2"})
        .result("parameter", {}, {{"name", from("b_name")}, {"shape", from("b_shape")}, {"dtype", from("b_dtype")}},
                {"b2"})
        .result("conv2d", {"x", "w2", "b2"}, copy_conv_attrs(), {"out"});
    ps.push_back(std::move(p));
  }
  return ps;
}

}  // namespace oar::pass
