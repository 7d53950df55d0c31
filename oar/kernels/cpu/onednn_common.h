// What every oneDNN-backed kernel shares: the CPU engine, oar's thread count for a call, and
// scratchpads owned by the caller.
#pragma once
#include <oneapi/dnnl/dnnl.hpp>

namespace oar::kernels::onednn {

// The process's CPU engine.
dnnl::engine& engine();

// oneDNN threads through OpenMP with omp_get_max_threads() threads: make that oar's count (at most
// `limit` when given) for the scope (inside a parallel region oneDNN runs on the calling thread).
class ThreadGuard {
 public:
  explicit ThreadGuard(int limit = 0);
  ~ThreadGuard();
  ThreadGuard(const ThreadGuard&) = delete;
  ThreadGuard& operator=(const ThreadGuard&) = delete;

 private:
  int saved_ = 0;
};

// Scratchpads come from the caller (oar's allocator), not from oneDNN's shared global buffer, so
// primitives may run concurrently from several threads.
dnnl::primitive_attr user_scratchpad();

}  // namespace oar::kernels::onednn
