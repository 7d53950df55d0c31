// One way to run loops in parallel: parallel_for over OpenMP with a grain size.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#ifdef _OPENMP
#include <omp.h>
#endif

namespace oar {

int get_num_threads();
void set_num_threads(int n);

// Overrides get_num_threads() on this thread for the scope (an executor's inter-op worker runs
// its kernels with fewer threads so that the workers together do not oversubscribe the cores).
class ThreadCountScope {
 public:
  explicit ThreadCountScope(int n);
  ~ThreadCountScope();
  ThreadCountScope(const ThreadCountScope&) = delete;
  ThreadCountScope& operator=(const ThreadCountScope&) = delete;

 private:
  int previous_;
};

// Calls f(begin, end) on disjoint chunks covering [begin, end). Chunks are at least `grain` long;
// small ranges and calls from inside a parallel region run inline on the calling thread.
// An exception thrown by f on any thread is rethrown on the calling thread once the region ends
// (one escaping an OpenMP region would terminate the process); the first one wins.
template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  const int64_t n = end - begin;
  if (n <= 0) return;
#ifdef _OPENMP
  const int64_t max_chunks = std::max<int64_t>(1, n / std::max<int64_t>(grain, 1));
  const int threads = static_cast<int>(std::min<int64_t>(get_num_threads(), max_chunks));
  if (threads > 1 && !omp_in_parallel()) {
    std::exception_ptr error;
    std::atomic<bool> failed{false};
#pragma omp parallel num_threads(threads)
    {
      const int64_t tid = omp_get_thread_num(), nt = omp_get_num_threads();
      const int64_t chunk = (n + nt - 1) / nt;
      const int64_t b = begin + tid * chunk, e = std::min(end, b + chunk);
      try {
        if (b < e) f(b, e);
      } catch (...) {
        if (!failed.exchange(true)) error = std::current_exception();
      }
    }
    if (error) std::rethrow_exception(error);
    return;
  }
#endif
  f(begin, end);
}

}  // namespace oar
