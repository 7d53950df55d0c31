// Custom ops registered through paddle/extension.h inside this binary (as a loaded library would
// register them): run eagerly, differentiate through the grad op, and check their declarations.
#include <gtest/gtest.h>

#include "error_of.h"
#include "oar/extension/custom_op.h"
#include "oar/extension/paddle/extension.h"
#include "oar/oar.h"

using namespace oar;

namespace {

std::vector<paddle::Tensor> Cube(const paddle::Tensor& x, float scale) {
  paddle::Tensor out = paddle::empty_like(x);
  PD_DISPATCH_FLOATING_TYPES(x.type(), "oar_test_cube", ([&] {
    for (int64_t i = 0; i < x.numel(); ++i) {
      const data_t v = x.data<data_t>()[i];
      out.data<data_t>()[i] = static_cast<data_t>(scale) * v * v * v;
    }
  }));
  return {out};
}

std::vector<paddle::Tensor> CubeGrad(const paddle::Tensor& x, const paddle::Tensor& grad_out, float scale) {
  paddle::Tensor gx = paddle::empty_like(x);
  PD_DISPATCH_FLOATING_TYPES(x.type(), "oar_test_cube_grad", ([&] {
    for (int64_t i = 0; i < x.numel(); ++i) {
      const data_t v = x.data<data_t>()[i];
      gx.data<data_t>()[i] = static_cast<data_t>(3 * scale) * v * v * grad_out.data<data_t>()[i];
    }
  }));
  return {gx};
}

std::vector<std::vector<int64_t>> CubeShape(const std::vector<int64_t>& x, float) { return {x}; }

std::vector<paddle::Tensor> Concat(const std::vector<paddle::Tensor>& xs, const paddle::optional<paddle::Tensor>& extra) {
  int64_t n = 0;
  for (const auto& x : xs) n += x.numel();
  if (extra) n += extra->numel();
  paddle::Tensor out = paddle::empty({n}, paddle::DataType::FLOAT32);
  int64_t k = 0;
  for (const auto& x : xs)
    for (int64_t i = 0; i < x.numel(); ++i) out.data<float>()[k++] = x.data<float>()[i];
  if (const paddle::Tensor* e = extra.get_ptr())
    for (int64_t i = 0; i < e->numel(); ++i) out.data<float>()[k++] = e->data<float>()[i];
  return {out};
}

}  // namespace

PD_BUILD_OP(oar_test_cube)
    .Inputs({"X"})
    .Outputs({"Out"})
    .Attrs({"scale: float"})
    .SetKernelFn(PD_KERNEL(Cube))
    .SetInferShapeFn(PD_INFER_SHAPE(CubeShape));
PD_BUILD_GRAD_OP(oar_test_cube)
    .Inputs({"X", paddle::Grad("Out")})
    .Outputs({paddle::Grad("X")})
    .SetKernelFn(PD_KERNEL(CubeGrad));
PD_BUILD_OP(oar_test_concat)
    .Inputs({paddle::Vec("X"), paddle::Optional("Extra")})
    .Outputs({"Out"})
    .SetKernelFn(PD_KERNEL(Concat));

TEST(CustomOp, RunsAndDifferentiatesThroughItsGradOp) {
  Tensor x = Tensor::from_vector(std::vector<double>{1, -2, 0.5}, {3});
  x.set_stop_gradient(false);
  extension::KernelContext ctx;
  ctx.inputs = {{x}};
  ctx.attrs = {std::any(2.0)};
  std::vector<Tensor> out = extension::run("oar_test_cube", ctx);
  EXPECT_EQ(out.at(0).to_vector<double>(), (std::vector<double>{2, -16, 0.25}));
  sum(out[0]).backward();
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{6, 24, 1.5}));
}

TEST(CustomOp, ListAndOptionalInputs) {
  extension::KernelContext ctx;
  ctx.inputs = {{ones({2}), zeros({1})}, {}};
  EXPECT_EQ(extension::run("oar_test_concat", ctx).at(0).to_vector<float>(), (std::vector<float>{1, 1, 0}));
  ctx.inputs[1] = {full({1}, 5.0)};
  EXPECT_EQ(extension::run("oar_test_concat", ctx).at(0).to_vector<float>(), (std::vector<float>{1, 1, 0, 5}));
}

TEST(CustomOp, ErrorsNameTheOp) {
  extension::KernelContext ctx;
  ctx.inputs = {{ones({2}, DType::Int32)}};
  ctx.attrs = {std::any(1.0)};
  EXPECT_NE(error_of([&] { extension::run("oar_test_cube", ctx); }).find("\"oar_test_cube\" is not implemented for data type `int32`"),
            std::string::npos);
  ctx.attrs.clear();
  EXPECT_NE(error_of([&] { extension::run("oar_test_cube", ctx); }).find("oar_test_cube: expected 1 attributes, got 0"),
            std::string::npos);
  EXPECT_NE(error_of([&] { extension::run("oar_test_nothing", ctx); }).find("custom op 'oar_test_nothing' is not registered"),
            std::string::npos);
  // A second registration of a name is an error the loader reports, not an exception at start-up.
  paddle::OpMetaInfoBuilder("oar_test_cube", 0);
  const std::vector<std::string> errors = extension::Registry::global().take_errors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("'oar_test_cube' is registered twice"), std::string::npos);
  EXPECT_NE(error_of([&] { extension::load_library("/nonexistent/libx.so"); }).find("cannot be loaded"),
            std::string::npos);
}
