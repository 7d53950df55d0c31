// The device random kernels (random_uniform, random_normal, random_randint, random_bernoulli,
// random_dropout_mask) of the custom_cpu plug-in, called as oar calls a backend kernel
// (ops::launch), give the same bits as oar's host kernels (kernels::uniform, normal, randint,
// bernoulli, dropout_mask) for the same seed and offset: every dtype, sizes that are not a
// multiple of the dropout mask's four draws per block, seeds and offsets past 2^32 and 2^63
// (their uint64 bits in the int attribute), and a strided view of bernoulli's p.
// plugins/cuda/cuda_test.cc checks the CUDA kernels against the same per-element definition
// (plugins/common/philox.h).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "oar/device/device_registry.h"
#include "oar/kernels/cpu/creation.h"
#include "oar/kernels/cpu/nn_common.h"
#include "oar/oar.h"
#include "oar/ops/device_dispatch.h"

namespace oar {
namespace {

class DeviceRandomTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { device::load_plugin(OAR_CUSTOM_CPU_PLUGIN); }
  const Place dev0 = CustomPlace("custom_cpu", 0);
};

const DType kFloatTypes[] = {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16};
const Shape kShapes[] = {{}, {0}, {1}, {7}, {3, 5}, {2, 3, 1001}};

struct SeedOffset {
  uint64_t seed, offset;
};
const SeedOffset kStates[] = {{0, 0}, {42, 3}, {34342423252ULL, 1ULL << 33}, {0xFFFFFFFFFFFFFFFFULL, 5},
                              {0x8000000000000001ULL, 0xFFFFFFFFFFFFFFF0ULL}};

ir::AttributeMap state_attrs(const SeedOffset& s) {
  return {{"seed", ir::Attribute::integer(static_cast<int64_t>(s.seed))},
          {"offset", ir::Attribute::integer(static_cast<int64_t>(s.offset))}};
}

// The bytes of a host tensor and of a device tensor are equal (the device one read back).
void expect_same_bits(const Tensor& host, const Tensor& dev, const std::string& what) {
  const Tensor back = dev.cpu().contiguous();
  ASSERT_EQ(back.dtype(), host.dtype()) << what;
  ASSERT_EQ(back.shape(), host.shape()) << what;
  const size_t bytes = static_cast<size_t>(host.numel()) * host.element_size();
  if (bytes == 0) return;
  const auto* a = static_cast<const unsigned char*>(host.raw_data());
  const auto* b = static_cast<const unsigned char*>(back.raw_data());
  size_t first = bytes;
  for (size_t i = 0; i < bytes; ++i)
    if (a[i] != b[i]) {
      first = i;
      break;
    }
  EXPECT_EQ(first, bytes) << what << ": first difference at element " << first / host.element_size();
}

std::string name_of(const char* op, DType dt, const Shape& shape, const SeedOffset& s) {
  return std::string(op) + " " + dtype_name(dt) + " " + shape_str(shape) + " seed " + std::to_string(s.seed) +
         " offset " + std::to_string(s.offset);
}

TEST_F(DeviceRandomTest, UniformMatchesTheHostKernel) {
  for (DType dt : kFloatTypes)
    for (const Shape& shape : kShapes)
      for (const SeedOffset& s : kStates) {
        const double low = -2.5, high = 7.25;
        const Tensor host = Tensor::make(shape, dt);
        kernels::uniform(low, high, s.seed, s.offset, host);
        const Tensor dev = Tensor::make(shape, dt, dev0);
        ir::AttributeMap attrs = state_attrs(s);
        attrs["low"] = ir::Attribute::floating(low);
        attrs["high"] = ir::Attribute::floating(high);
        ops::launch("random_uniform", dev0, {}, attrs, {dev});
        expect_same_bits(host, dev, name_of("uniform", dt, shape, s));
      }
}

TEST_F(DeviceRandomTest, NormalMatchesTheHostKernel) {
  for (DType dt : kFloatTypes)
    for (const Shape& shape : kShapes)
      for (const SeedOffset& s : kStates) {
        const double mean = 0.5, std = 3.0;
        const Tensor host = Tensor::make(shape, dt);
        kernels::normal(mean, std, s.seed, s.offset, host);
        const Tensor dev = Tensor::make(shape, dt, dev0);
        ir::AttributeMap attrs = state_attrs(s);
        attrs["mean"] = ir::Attribute::floating(mean);
        attrs["std"] = ir::Attribute::floating(std);
        ops::launch("random_normal", dev0, {}, attrs, {dev});
        expect_same_bits(host, dev, name_of("normal", dt, shape, s));
      }
}

TEST_F(DeviceRandomTest, RandintMatchesTheHostKernel) {
  struct Range {
    int64_t low, high;
  };
  const Range ranges[] = {{0, 10}, {-100, 3}, {-(1LL << 40), 1LL << 50},
                          {INT64_MIN, INT64_MAX}};  // a range that does not fit int64
  const DType types[] = {DType::Int32, DType::Int64, DType::Int8, DType::UInt8, DType::Int16};
  for (DType dt : types)
    for (const Range& r : ranges)
      for (const SeedOffset& s : kStates) {
        const Shape shape{3, 333};
        const Tensor host = Tensor::make(shape, dt);
        kernels::randint(r.low, r.high, s.seed, s.offset, host);
        const Tensor dev = Tensor::make(shape, dt, dev0);
        ir::AttributeMap attrs = state_attrs(s);
        attrs["low"] = ir::Attribute::integer(r.low);
        attrs["high"] = ir::Attribute::integer(r.high);
        ops::launch("random_randint", dev0, {}, attrs, {dev});
        expect_same_bits(host, dev, name_of("randint", dt, shape, s) + " [" + std::to_string(r.low) + ", " +
                                        std::to_string(r.high) + ")");
      }
}

TEST_F(DeviceRandomTest, BernoulliMatchesTheHostKernelOnStridedProbabilities) {
  for (DType dt : kFloatTypes)
    for (const SeedOffset& s : kStates) {
      // Probabilities in [-0.1, 1.1) (outside [0, 1] too), then a transposed view of them.
      const Tensor base = Tensor::make({37, 21}, dt);
      kernels::uniform(-0.1, 1.1, 7, 0, base);
      const Tensor host_p = base.transpose(IntArray{1, 0});
      const Tensor host = Tensor::make(host_p.shape(), dt);
      kernels::bernoulli(host_p, s.seed, s.offset, host);
      const Tensor dev_base = base.to(dev0);
      const Tensor dev_p = Tensor::make_view(dev_base, {21, 37}, {1, 21}, 0);  // the transpose
      ASSERT_FALSE(dev_p.is_contiguous());
      for (const Tensor& p : {dev_p, dev_base}) {
        const Tensor dev = Tensor::make(p.shape(), dt, dev0);
        ops::launch("random_bernoulli", dev0, {p}, state_attrs(s), {dev});
        if (p.is_contiguous()) {
          const Tensor h = Tensor::make(base.shape(), dt);
          kernels::bernoulli(base, s.seed, s.offset, h);
          expect_same_bits(h, dev, name_of("bernoulli", dt, base.shape(), s));
        } else {
          expect_same_bits(host, dev, name_of("bernoulli (strided p)", dt, host.shape(), s));
        }
      }
    }
}

TEST_F(DeviceRandomTest, DropoutMaskMatchesTheHostKernel) {
  const double probs[] = {0.0, 0.1, 0.5, 0.999, 1.0};
  for (DType dt : kFloatTypes)
    for (const Shape& shape : kShapes)
      for (double p : probs) {
        const SeedOffset s{1234567, 99};
        const double keep = p >= 1.0 ? 0.0 : 1.0 / (1.0 - p);
        const Tensor host = Tensor::make(shape, dt);
        kernels::dropout_mask(p, keep, s.seed, s.offset, host);
        const Tensor dev = Tensor::make(shape, dt, dev0);
        ir::AttributeMap attrs = state_attrs(s);
        attrs["p"] = ir::Attribute::floating(p);
        attrs["keep_value"] = ir::Attribute::floating(keep);
        ops::launch("random_dropout_mask", dev0, {}, attrs, {dev});
        expect_same_bits(host, dev, name_of("dropout_mask", dt, shape, s) + " p " + std::to_string(p));
      }
}

TEST_F(DeviceRandomTest, BadArgumentsAreErrors) {
  const Tensor dev = Tensor::make({4}, DType::Int64, dev0);
  ir::AttributeMap attrs = state_attrs({1, 0});
  attrs["low"] = ir::Attribute::integer(5);
  attrs["high"] = ir::Attribute::integer(5);
  EXPECT_THROW(ops::launch("random_randint", dev0, {}, attrs, {dev}), Error);  // empty range
  const Tensor f = Tensor::make({4}, DType::Float32, dev0);
  EXPECT_THROW(ops::launch("random_uniform", dev0, {}, {{"low", ir::Attribute::floating(0.0)}}, {f}),
               Error);  // no seed
}

}  // namespace
}  // namespace oar
