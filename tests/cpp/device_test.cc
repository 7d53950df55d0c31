// The device layer through the custom_cpu plug-in (plugins/custom_cpu): loading, placement,
// copies, kernel dispatch by (backend, dtype), missing-kernel errors, allocator statistics,
// autograd across places. The Python side is tests/python/test_device_custom_cpu.py.
#include <gtest/gtest.h>

#include "oar/autograd/engine.h"
#include "oar/device/device_registry.h"
#include "oar/inference/predictor.h"
#include "oar/ir/tracer.h"
#include "oar/jit/model_file.h"
#include "oar/oar.h"
#include "oar/ops/device_ops.h"
#include "oar/ops/generated/api.h"
#include "oar/ops/op_helpers.h"
#include "oar/runtime/executor.h"

namespace oar {
namespace {

class DeviceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { device::load_plugin(OAR_CUSTOM_CPU_PLUGIN); }
  const Place dev0 = CustomPlace("custom_cpu", 0);
  const Place dev1 = CustomPlace("custom_cpu", 1);
};

TEST_F(DeviceTest, PlacesParseAndPrint) {
  EXPECT_EQ(dev0.str(), "Place(custom_cpu:0)");
  EXPECT_EQ(parse_place("custom_cpu:1"), dev1);
  EXPECT_EQ(parse_place("gpu:2").str(), "Place(gpu:2)");
  EXPECT_EQ(parse_place("cpu"), CPUPlace());
  EXPECT_EQ(GPUPinnedPlace().str(), "Place(gpu_pinned)");
  EXPECT_THROW(parse_place("gpu:x"), Error);
  EXPECT_THROW(parse_place("a b"), Error);
  EXPECT_EQ(device::device_count("custom_cpu"), 2);
}

TEST_F(DeviceTest, CopiesRoundTrip) {
  const Tensor h = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor d = h.to(dev0);
  EXPECT_EQ(d.place(), dev0);
  EXPECT_EQ(d.to_vector<float>(), h.to_vector<float>());
  EXPECT_EQ(d.to(dev1).to_vector<float>(), h.to_vector<float>());  // device to device
  // Host code cannot read device memory directly.
  EXPECT_THROW(d.data<float>(), Error);
  EXPECT_FLOAT_EQ(d.cpu().data<float>()[4], 5.0f);
}

TEST_F(DeviceTest, OpsDispatchToTheBackendKernel) {
  const Tensor a = Tensor::from_vector<float>({1, -2, 3, -4}, {2, 2}).to(dev0);
  const Tensor b = Tensor::from_vector<float>({10, 20}, {2}).to(dev0);
  const Tensor sum = add(a, b);  // broadcast on the device
  EXPECT_EQ(sum.place(), dev0);
  EXPECT_EQ(sum.to_vector<float>(), (std::vector<float>{11, 18, 13, 16}));
  EXPECT_EQ(relu(a).to_vector<float>(), (std::vector<float>{1, 0, 3, 0}));
  EXPECT_EQ(matmul(a, a).to_vector<float>(), (std::vector<float>{-5, 6, -9, 10}));
  EXPECT_EQ(sum.sum(IntArray{1}, std::nullopt, false).to_vector<float>(), (std::vector<float>{29, 29}));
  // A host input joins the device (Paddle's data transform).
  const Tensor h = Tensor::from_vector<float>({1, 1}, {2});
  EXPECT_EQ(add(b, h).place(), dev0);
  // Two devices do not mix.
  EXPECT_THROW(add(b, b.to(dev1)), Error);
}

TEST_F(DeviceTest, MissingKernelIsAClearError) {
  const Tensor a = Tensor::from_vector<float>({0.1f, 0.2f}, {2}).to(dev0);
  try {
    roll(a, IntArray{1});
    FAIL() << "roll ran on custom_cpu without a kernel";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unimplemented);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("roll"), std::string::npos) << msg;
    EXPECT_NE(msg.find("custom_cpu"), std::string::npos) << msg;
    EXPECT_NE(msg.find("float32"), std::string::npos) << msg;
  }
}

TEST_F(DeviceTest, AllocatorStatisticsPerDevice) {
  CachingAllocator& alloc = device::allocator(dev1);
  const int64_t before = alloc.stats().allocated;
  {
    Tensor t = Tensor::make({1024}, DType::Float32, dev1);
    EXPECT_GE(alloc.stats().allocated - before, 4096);
  }
  EXPECT_EQ(alloc.stats().allocated, before);
  alloc.empty_cache();
  EXPECT_EQ(alloc.stats().reserved, alloc.stats().allocated);
}

TEST_F(DeviceTest, AutogradAcrossPlaces) {
  Tensor w = Tensor::from_vector<float>({1, 2, 3}, {3}).to(dev0);
  w.set_stop_gradient(false);
  Tensor loss = (w * w).sum(IntArray{}, std::nullopt, false);
  loss.backward();
  EXPECT_EQ(w.grad().place(), dev0);
  EXPECT_EQ(w.grad().to_vector<float>(), (std::vector<float>{2, 4, 6}));
  // A host leaf moved to the device gets its gradient back on the host.
  Tensor h = Tensor::from_vector<float>({1, 2}, {2});
  h.set_stop_gradient(false);
  (h.to(dev0) * 3.0).sum(IntArray{}, std::nullopt, false).backward();
  EXPECT_EQ(h.grad().place(), CPUPlace());
  EXPECT_EQ(h.grad().to_vector<float>(), (std::vector<float>{3, 3}));
}

TEST_F(DeviceTest, CreationOpsFollowTheExpectedPlace) {
  ExpectedPlaceGuard on(dev1);
  const Tensor z = full(IntArray{2, 2}, 7, DType::Float32);
  EXPECT_EQ(z.place(), dev1);
  EXPECT_EQ(z.to_vector<float>(), (std::vector<float>(4, 7.0f)));
}

// A program traced on the host runs on the device through the executor and the predictor: the
// same numbers as eager on the host, weights moved once, outputs read back through the handles.
TEST_F(DeviceTest, ProgramsRunOnTheDevice) {
  manual_seed(12);
  Tensor w = randn({4, 3}), b = randn({3});
  w.set_name("w");
  b.set_name("b");
  auto program = std::make_shared<ir::Program>();
  ir::Tracer tracer(program);
  {
    ir::TracingScope scope(&tracer);
    Tensor x = tracer.data("x", DType::Float32, {-1, 4});
    Tensor y = softmax(add(matmul(x, w), b), -1);
    tracer.record("fetch", {{y}}, {{"name", ir::Attribute::string("probs")}});
  }
  const Tensor x = randn({5, 4});
  const Tensor want = softmax(add(matmul(x, w), b), -1);
  runtime::Executor exe(program, runtime::ExecutorOptions{1, dev0});
  runtime::NamedTensors params(tracer.captured().begin(), tracer.captured().end());
  std::vector<Tensor> got = exe.run({{"x", x}}, params, {program->outputs().at(0).second});
  EXPECT_EQ(got[0].place(), dev0);
  EXPECT_TRUE(allclose(got[0].cpu(), want, 1e-5, 1e-6).item<bool>());

  const std::string prefix = std::string(::testing::TempDir()) + "/oar_device_predictor";
  jit::save_model(prefix, *program, io::TensorMap(params.begin(), params.end()));
  inference::Config config(prefix + ".pdmodel", prefix + ".pdiparams");
  config.EnableCustomDevice("custom_cpu", 1);
  auto predictor = inference::CreatePredictor(config);
  EXPECT_EQ(predictor->place(), dev1);
  auto in = predictor->GetInputHandle("x");
  in->Reshape({5, 4});
  in->CopyFromCpu(x.data<float>());
  ASSERT_TRUE(predictor->Run());
  std::vector<float> probs(15);
  predictor->GetOutputHandle("probs")->CopyToCpu(probs.data());
  EXPECT_TRUE(allclose(Tensor::from_vector(probs, {5, 3}), want, 1e-5, 1e-6).item<bool>());
}

}  // namespace
}  // namespace oar
