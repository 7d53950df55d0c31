#include "oar/ops/infer_meta/fused.h"

#include <unordered_map>

namespace oar::infer_meta {

bool fused_ew_is_binary(int64_t code) { return code >= 100; }

bool fused_ew_is_valid(int64_t code) {
  return (code >= static_cast<int64_t>(FusedEwOp::Relu) && code <= static_cast<int64_t>(FusedEwOp::Rsqrt)) ||
         (code >= static_cast<int64_t>(FusedEwOp::Add) && code <= static_cast<int64_t>(FusedEwOp::Min));
}

int64_t fused_ew_code(const std::string& name) {
  static const std::unordered_map<std::string, FusedEwOp> codes = {
      {"relu", FusedEwOp::Relu},     {"exp", FusedEwOp::Exp},        {"tanh", FusedEwOp::Tanh},
      {"sigmoid", FusedEwOp::Sigmoid}, {"neg", FusedEwOp::Neg},      {"sqrt", FusedEwOp::Sqrt},
      {"abs", FusedEwOp::Abs},       {"log", FusedEwOp::Log},        {"square", FusedEwOp::Square},
      {"silu", FusedEwOp::Silu},     {"rsqrt", FusedEwOp::Rsqrt},    {"gelu", FusedEwOp::Gelu},  // the exact (erf) form only
      {"add", FusedEwOp::Add},
      {"subtract", FusedEwOp::Sub},  {"multiply", FusedEwOp::Mul},   {"divide", FusedEwOp::Div},
      {"maximum", FusedEwOp::Max},   {"minimum", FusedEwOp::Min}};
  auto it = codes.find(name);
  return it == codes.end() ? -1 : static_cast<int64_t>(it->second);
}

Meta fused_elementwise(const char* op, const std::vector<Tensor>& inputs, const IntArray& program) {
  OAR_ENFORCE_ARG(!inputs.empty(), op, ": argument 'inputs' must hold at least one tensor, got none");
  const Tensor& first = inputs[0];
  OAR_ENFORCE(first.dtype() == DType::Float32 || first.dtype() == DType::Float64, TypeMismatch, op,
              ": argument 'inputs' must be float32 or float64, got ", dtype_name(first.dtype()));
  for (size_t i = 1; i < inputs.size(); ++i) {
    OAR_ENFORCE(inputs[i].dtype() == first.dtype(), TypeMismatch, op, ": inputs[", i, "] has dtype ",
                dtype_name(inputs[i].dtype()), ", expected ", dtype_name(first.dtype()), " as inputs[0]");
    OAR_ENFORCE_ARG(inputs[i].shape() == first.shape(), op, ": inputs[", i, "] has shape ",
                    shape_str(inputs[i].shape()), ", expected ", shape_str(first.shape()), " as inputs[0]");
  }
  OAR_ENFORCE_ARG(!program.empty() && program.size() % 3 == 0, op,
                  ": argument 'program' must hold (opcode, a, b) triples, got ", program.size(), " ints");
  const int64_t n_in = static_cast<int64_t>(inputs.size());
  for (size_t s = 0; s < program.size() / 3; ++s) {
    const int64_t code = program[3 * s], a = program[3 * s + 1], b = program[3 * s + 2];
    const int64_t defined = n_in + static_cast<int64_t>(s);  // registers available to step s
    OAR_ENFORCE_ARG(fused_ew_is_valid(code), op, ": step ", s, " has unknown opcode ", code);
    OAR_ENFORCE_ARG(a >= 0 && a < defined, op, ": step ", s, " reads register ", a, ", expected [0, ",
                    defined, ")");
    if (fused_ew_is_binary(code))
      OAR_ENFORCE_ARG(b >= 0 && b < defined, op, ": step ", s, " reads register ", b, ", expected [0, ",
                      defined, ")");
    else
      OAR_ENFORCE_ARG(b == -1, op, ": step ", s, " is unary, so its second register must be -1, got ", b);
  }
  return {first.shape(), first.dtype()};
}

Meta fused_attention(const char* op, const Tensor& query, const Tensor& key, const Tensor& value, double) {
  const Tensor* t[3] = {&query, &key, &value};
  const char* names[3] = {"query", "key", "value"};
  for (int i = 0; i < 3; ++i) {
    OAR_ENFORCE_ARG(t[i]->ndim() == 4, op, ": argument '", names[i], "' must be 4-D [B, S, H, D], got shape ",
                    shape_str(t[i]->shape()));
    OAR_ENFORCE(t[i]->dtype() == DType::Float32 || t[i]->dtype() == DType::Float64, TypeMismatch, op,
                ": argument '", names[i], "' must be float32 or float64, got ", dtype_name(t[i]->dtype()));
    OAR_ENFORCE(t[i]->dtype() == query.dtype(), TypeMismatch, op, ": argument '", names[i], "' has dtype ",
                dtype_name(t[i]->dtype()), ", expected ", dtype_name(query.dtype()), " as query");
  }
  auto same = [](int64_t a, int64_t b) { return a < 0 || b < 0 || a == b; };
  const Shape& q = query.shape();
  const Shape& k = key.shape();
  const Shape& v = value.shape();
  OAR_ENFORCE_ARG(same(q[0], k[0]) && same(q[0], v[0]) && same(q[2], k[2]) && same(q[2], v[2]) && same(q[3], k[3]) &&
                      same(k[1], v[1]),
                  op, ": query ", shape_str(q), ", key ", shape_str(k), " and value ", shape_str(v),
                  " must share B and H, query and key D, key and value S");
  return Meta{Shape{q[0], q[1], q[2], v[3]}, query.dtype()};
}

}  // namespace oar::infer_meta
