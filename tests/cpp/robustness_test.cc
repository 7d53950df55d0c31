// GoogleTest for input that must raise instead of crashing (issue: no input crashes the process):
// sizes that overflow, exceptions thrown inside parallel regions, damaged parameter files, and
// the internal ops a program file may call with anything. The registry-wide search for more is
// tests/fuzz/op_fuzz.cc (run as the ctest op_fuzz_short).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <functional>
#include <string>

#include "error_of.h"
#include "oar/core/parallel.h"
#include "oar/io/safetensors.h"
#include "oar/oar.h"

using namespace oar;

namespace {
ErrorKind kind_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no oar::Error thrown";
  return ErrorKind::External;
}
}  // namespace

TEST(Sizes, ElementCountsThatOverflowAreResourceExhausted) {
  // 2^31 * 2^31 = 2^62 elements fits int64, but not as bytes; 2^32 * 2^32 overflows the count.
  EXPECT_EQ(kind_of([] { Tensor::make({int64_t{1} << 31, int64_t{1} << 31}, DType::Float32); }),
            ErrorKind::ResourceExhausted);
  EXPECT_EQ(kind_of([] { Tensor::make({int64_t{1} << 32, int64_t{1} << 32}, DType::Int8); }),
            ErrorKind::ResourceExhausted);
  EXPECT_NE(error_of([] { numel_of({int64_t{1} << 40, int64_t{1} << 40}); }).find("overflows int64"),
            std::string::npos);
  EXPECT_EQ(kind_of([] { checked_mul(int64_t{1} << 62, 4, "op", "size"); }), ErrorKind::ResourceExhausted);
  EXPECT_EQ(kind_of([] { Tensor::make({3, -2}, DType::Float32); }), ErrorKind::InvalidArgument);
  EXPECT_EQ(kind_of([] { CPUAllocator::instance().allocate(~size_t{0} - 7); }),
            ErrorKind::ResourceExhausted);
}

TEST(Sizes, AZeroDimMakesAnyShapeEmpty) {
  const Shape s{int64_t{1} << 40, int64_t{1} << 40, 0};
  EXPECT_EQ(numel_of(s), 0);
  Tensor t = Tensor::make(s, DType::Float32);
  EXPECT_EQ(t.numel(), 0);
  EXPECT_EQ(t.shape(), s);
  Tensor z = zeros({0, int64_t{1} << 40, int64_t{1} << 40});
  EXPECT_EQ(z.numel(), 0);
}

TEST(Parallel, AnExceptionOnAWorkerThreadReachesTheCaller) {
  ThreadCountScope threads(4);
  std::atomic<int> ran{0};
  const std::string msg = error_of([&] {
    parallel_for(0, 1 << 16, 1, [&](int64_t b, int64_t) {
      ++ran;
      OAR_ENFORCE(b == 0, OutOfRange, "chunk at ", b, " fails");
    });
  });
  EXPECT_NE(msg.find("fails"), std::string::npos) << msg;
  EXPECT_GE(ran.load(), 1);
}

TEST(Safetensors, DamagedHeadersRaiseWithoutAllocatingOrRecursing) {
  auto file = [](const std::string& header) {
    std::string bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
    return bytes + header;
  };
  // A shape claiming 2^60 floats with 4 bytes of data: an error naming the tensor, not an allocation.
  const std::string huge = error_of([&] {
    io::parse_safetensors(file(R"({"w":{"dtype":"F32","shape":[1152921504606846976],"data_offsets":[0,4]}})") +
                              "abcd", "f");
  });
  EXPECT_NE(huge.find("tensor 'w'"), std::string::npos) << huge;
  const std::string overflow = error_of([&] {
    io::parse_safetensors(file(R"({"w":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,0]}})"), "f");
  });
  EXPECT_NE(overflow.find("too large"), std::string::npos) << overflow;
  // 100,000 nested arrays would overflow the stack of a recursive reader (nlohmann/json's parser
  // and destructor are iterative): unterminated, and complete.
  const std::string deep = error_of([&] {
    io::parse_safetensors(file("{\"w\":" + std::string(100000, '[')), "f");
  });
  EXPECT_NE(deep.find("header is corrupted"), std::string::npos) << deep;
  const std::string nested = error_of([&] {
    io::parse_safetensors(file("{\"w\":" + std::string(100000, '[') + std::string(100000, ']') + "}"), "f");
  });
  EXPECT_NE(nested.find("tensor 'w' lacks dtype, shape or data_offsets"), std::string::npos) << nested;
}

TEST(InternalOps, GradientOpsCheckWhatAProgramFileGivesThem) {
  const Tensor x = randn({2, 3});
  // layer_norm_grad with a begin_norm_axis far out of range, and mean of the wrong shape.
  EXPECT_EQ(kind_of([&] { layer_norm_grad(x, Tensor(), zeros({2}), zeros({2}), x, 1e-5, int64_t{1} << 40); }),
            ErrorKind::InvalidArgument);
  EXPECT_EQ(kind_of([&] { layer_norm_grad(x, Tensor(), zeros({3}), zeros({2}), x, 1e-5, 1); }),
            ErrorKind::InvalidArgument);
  // batch_norm_grad with saved statistics that do not match the channels.
  EXPECT_EQ(kind_of([&] { batch_norm_grad(x, Tensor(), zeros({2}), zeros({3}), x, 1e-5, true, 1); }),
            ErrorKind::InvalidArgument);
  // sdpa_core on 2-D inputs, pool_max_gather on a 0-D tensor.
  EXPECT_NE(error_of([&] { sdpa_core({x, x, x}, Tensor(), 1.0, true); }).find("4-D"), std::string::npos);
  EXPECT_EQ(kind_of([&] { pool_max_gather(zeros({}), full({}, 0, DType::Int32), false); }),
            ErrorKind::InvalidArgument);
  // A max-pool mask pointing past its input.
  const Tensor img = randn({1, 1, 2, 2});
  EXPECT_EQ(kind_of([&] { pool_max_gather(img, full({1, 1, 1, 1}, 7, DType::Int32), false); }),
            ErrorKind::OutOfRange);
}

TEST(InternalOps, HugeCountsFinishOrRaise) {
  // repeat_interleave_index: a zero count over 2^62 elements is empty at once; a product past
  // int64 raises.
  EXPECT_EQ(repeat_interleave_index(full({1}, 0, DType::Int64), int64_t{1} << 62).numel(), 0);
  EXPECT_EQ(kind_of([&] { repeat_interleave_index(full({1}, 4, DType::Int64), int64_t{1} << 62); }),
            ErrorKind::ResourceExhausted);
  // polygamma of a huge order takes constant time: +-inf left of 0, a finite value far right.
  const Tensor p = polygamma(Tensor::from_vector<double>({-0.25, 1e15}, {2}), int64_t{1} << 40);
  EXPECT_TRUE(std::isinf(p.data<double>()[0]));
  EXPECT_EQ(p.data<double>()[1], 0.0);  // n! / x^(n+1) underflows
  // split of an empty dim into too many parts.
  EXPECT_EQ(kind_of([&] { split(zeros({0, 2}), {int64_t{1} << 40}); }), ErrorKind::ResourceExhausted);
}
