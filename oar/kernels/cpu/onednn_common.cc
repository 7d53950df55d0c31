#include "oar/kernels/cpu/onednn_common.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#include <algorithm>

#include "oar/core/parallel.h"

namespace oar::kernels::onednn {

dnnl::engine& engine() {
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}

ThreadGuard::ThreadGuard(int limit) {
#ifdef _OPENMP
  const int want = limit > 0 ? std::min(limit, get_num_threads()) : get_num_threads();
  if (!omp_in_parallel() && want != omp_get_max_threads()) {
    saved_ = omp_get_max_threads();
    omp_set_num_threads(want);
  }
#else
  (void)limit;
#endif
}

ThreadGuard::~ThreadGuard() {
#ifdef _OPENMP
  if (saved_ > 0) omp_set_num_threads(saved_);
#endif
}

dnnl::primitive_attr user_scratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

}  // namespace oar::kernels::onednn
