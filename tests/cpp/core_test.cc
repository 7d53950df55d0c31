// GoogleTest for the core: allocator reuse and statistics, views and strides, errors, RNG,
// and autograd through the C++ API.
#include <gtest/gtest.h>

#include "oar/oar.h"

using namespace oar;

TEST(Allocator, ReusesFreedBlocksAndTracksStatistics) {
  CachingAllocator& a = CPUAllocator::instance();
  a.empty_cache();
  const MemoryStats before = a.stats();
  void* p = a.allocate(1000);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % CPUAllocator::kAlignment, 0u);
  const MemoryStats mid = a.stats();
  EXPECT_EQ(mid.allocated - before.allocated, static_cast<int64_t>(CPUAllocator::round_size(1000)));
  EXPECT_GE(mid.peak_allocated, mid.allocated);
  a.deallocate(p, 1000);
  EXPECT_EQ(a.stats().allocated, before.allocated);
  EXPECT_GT(a.stats().reserved, before.reserved - 1);  // the block stays cached
  void* q = a.allocate(990);  // same size class -> the cached block comes back
  EXPECT_EQ(p, q);
  EXPECT_EQ(a.stats().num_cache_hits, mid.num_cache_hits + 1);
  a.deallocate(q, 990);
  a.empty_cache();
  EXPECT_EQ(a.stats().reserved, a.stats().allocated);
}

TEST(Allocator, SizeClassesBoundWaste) {
  for (size_t n : {1ul, 63ul, 64ul, 4097ul, 100000ul, 12345678ul}) {
    const size_t r = CPUAllocator::round_size(n);
    EXPECT_GE(r, n);
    EXPECT_LE(r, n + n / 4 + 64);
  }
}

TEST(Tensor, ViewsShareStorageAndStrides) {
  Tensor x = Tensor::from_vector<float>({0, 1, 2, 3, 4, 5}, {2, 3});
  EXPECT_EQ(x.strides(), (Strides{3, 1}));
  EXPECT_TRUE(x.is_contiguous());
  Tensor t = transpose(x, {1, 0});
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_EQ(t.strides(), (Strides{1, 3}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.storage(), x.storage());
  Tensor c = t.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  Tensor r = reshape(x, {3, -1});
  EXPECT_EQ(r.shape(), (Shape{3, 2}));
  EXPECT_EQ(r.storage(), x.storage());
}

TEST(Tensor, BroadcastAndPromotion) {
  Tensor a = ones({2, 1, 3});
  Tensor b = ones({4, 1}, DType::Float64);
  Tensor c = a + b;
  EXPECT_EQ(c.shape(), (Shape{2, 4, 3}));
  EXPECT_EQ(c.dtype(), DType::Float64);
  Tensor i = full({2}, 3, DType::Int64);
  EXPECT_EQ((i / full({2}, 2, DType::Int64)).dtype(), DType::Float32);  // true division
  EXPECT_EQ((i * 2.5).dtype(), DType::Float32);
  EXPECT_EQ((i * 2).dtype(), DType::Int64);
}

TEST(Errors, AreTypedAndNameTheOp) {
  try {
    add(ones({2, 3}), ones({2, 4}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("add"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("[2, 3]"), std::string::npos);
  }
  try {
    add(full({2}, 1, DType::Int32), ones({2}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::TypeMismatch);
  }
}

TEST(Random, SameSeedSameNumbersForAnyThreadCount) {
  manual_seed(7);
  std::vector<float> a = rand({100000}).to_vector<float>();
  const int threads = get_num_threads();
  set_num_threads(1);
  manual_seed(7);
  std::vector<float> b = rand({100000}).to_vector<float>();
  set_num_threads(threads);
  EXPECT_EQ(a, b);
  std::vector<float> c = rand({100000}).to_vector<float>();
  EXPECT_NE(a, c);
  double mean = 0;
  for (float v : a) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LT(v, 1.0f);
    mean += v;
  }
  EXPECT_NEAR(mean / a.size(), 0.5, 0.01);
}

TEST(Autograd, BackwardAccumulatesAndGradDoesNot) {
  Tensor x = Tensor::from_vector<double>({1, 2, 3}, {3});
  x.set_stop_gradient(false);
  Tensor y = sum(x * x * x);  // dy/dx = 3 x^2
  y.backward();
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{3, 12, 27}));
  sum(x * 2.0).backward();
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{5, 14, 29}));
  // Second order: d2/dx2 sum(x^3) = 6x.
  Tensor z = sum(x * x * x);
  auto g = autograd::grad({z}, {x}, {}, true, true, false);
  auto g2 = autograd::grad({sum(g[0])}, {x}, {}, false, false, false);
  EXPECT_EQ(g2[0].to_vector<double>(), (std::vector<double>{6, 12, 18}));
}

TEST(Autograd, InplaceModificationOfSavedTensorIsAnError) {
  Tensor x = Tensor::from_vector<double>({1, 2}, {2});
  x.set_stop_gradient(false);
  Tensor a = x * 1.0;
  Tensor b = a * a;
  {
    NoGradGuard g;
    a.add_(ones({2}, DType::Float64));
  }
  EXPECT_THROW(sum(b).backward(), Error);
}

// The base window ops of fold/unfold check their attribute arrays (short arrays or a zero stride
// used to index past them or divide by zero).
TEST(Ops, FoldUnfoldBaseRejectBadWindows) {
  const Tensor x = randn({1, 2, 4, 4});
  EXPECT_THROW(unfold_base(x, IntArray{2}, IntArray{1}, IntArray{0}, IntArray{1}), Error);
  EXPECT_THROW(unfold_base(x, IntArray{2, 2}, IntArray{0, 1}, IntArray{0, 0, 0, 0}, IntArray{1, 1}), Error);
  const Tensor cols = unfold_base(x, IntArray{2, 2}, IntArray{1, 1}, IntArray{0, 0, 0, 0}, IntArray{1, 1});
  EXPECT_EQ(cols.shape(), (Shape{1, 8, 9}));
  EXPECT_THROW(fold_base(cols, IntArray{4}, IntArray{2, 2}, IntArray{1, 1}, IntArray{0, 0, 0, 0}, IntArray{1, 1}),
               Error);
  EXPECT_EQ(fold_base(cols, IntArray{4, 4}, IntArray{2, 2}, IntArray{1, 1}, IntArray{0, 0, 0, 0}, IntArray{1, 1})
                .shape(),
            (Shape{1, 2, 4, 4}));
}
