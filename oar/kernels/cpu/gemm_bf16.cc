#include "oar/kernels/cpu/gemm_bf16.h"

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "oar/core/tensor.h"
#include "oar/kernels/cpu/onednn_common.h"

namespace oar::kernels::onednn {

namespace {
using dnnl::memory;
using Key = std::array<int64_t, 8>;  // M, N, K, lda, ldb, ldc, trans_a, trans_b

struct Plan {
  bool ok = false;
  dnnl::matmul prim;
  memory::desc a, b, c;
  size_t scratch = 0;
};

std::shared_ptr<const Plan> make_plan(const Key& k) {
  auto plan = std::make_shared<Plan>();
  const auto [M, N, K, lda, ldb, ldc, ta, tb] = k;
  const auto bf16 = memory::data_type::bf16;
  plan->a = memory::desc({M, K}, bf16, ta ? memory::dims{1, lda} : memory::dims{lda, 1});
  plan->b = memory::desc({K, N}, bf16, tb ? memory::dims{1, ldb} : memory::dims{ldb, 1});
  plan->c = memory::desc({M, N}, bf16, memory::dims{ldc, 1});
  try {
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(plan->a, plan->b, plan->c), user_scratchpad(),
                                          engine());
    plan->prim = dnnl::matmul(pd);
    plan->scratch = pd.scratchpad_desc().get_size();
    plan->ok = true;
  } catch (const dnnl::error&) {
    plan->ok = false;  // no implementation: the caller falls back (the miss is cached too)
  }
  return plan;
}

// Plans by problem; a full cache is emptied and refilled (shapes in a model are few).
std::shared_ptr<const Plan> plan_for(const Key& k) {
  static std::mutex mutex;
  static std::map<Key, std::shared_ptr<const Plan>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(k); it != cache.end()) return it->second;
  if (cache.size() >= 1024) cache.clear();
  return cache.emplace(k, make_plan(k)).first->second;
}
}  // namespace

bool gemm_bf16(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, const bfloat16* A, int64_t lda,
               const bfloat16* B, int64_t ldb, bfloat16* C, int64_t ldc) {
  const auto plan = plan_for({M, N, K, lda, ldb, ldc, trans_a, trans_b});
  if (!plan->ok) return false;
  ThreadGuard threads;
  auto& eng = engine();
  dnnl::stream strm(eng);
  memory a(plan->a, eng, const_cast<bfloat16*>(A)), b(plan->b, eng, const_cast<bfloat16*>(B)),
      c(plan->c, eng, C);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}};
  Tensor scratch_buf;  // from oar's caching allocator
  if (plan->scratch) {
    scratch_buf = Tensor::make({static_cast<int64_t>(plan->scratch)}, DType::UInt8);
    args.emplace(DNNL_ARG_SCRATCHPAD, memory(memory::desc({static_cast<memory::dim>(plan->scratch)},
                                                          memory::data_type::u8, memory::format_tag::x),
                                             eng, scratch_buf.raw_data()));
  }
  plan->prim.execute(strm, args);
  strm.wait();
  return true;
}

}  // namespace oar::kernels::onednn
