// ThreadCountTuner: the intra-op thread count of each predictor run, chosen from measured run
// times. On a quiet machine all threads win; when other work competes for the cores (another
// process, or a PredictorPool's predictors running at once), every parallel region waits for its
// slowest thread to be scheduled, and a run with fewer threads can be several times faster
// (ResNet-18 at batch 1 on 2 busy cores: 5.7 ms on 2 threads, 1.0 ms on 1). The tuner keeps, per
// input-shape signature, a moving average of the run times of each candidate count (max, max/2,
// ..., 1), runs the fastest, and tries the others in short bursts now and then so that it notices
// when conditions change. Thread count does not change results for the convolution, matmul and elementwise
// kernels the predictor runs (tests/python/test_jit_inference.py checks conv, LeNet and
// encoder programs bitwise). OAR_PREDICTOR_ADAPTIVE_THREADS=0 pins the configured count.
#pragma once
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace oar::inference {

class ThreadCountTuner {
 public:
  // Candidates max_threads, max_threads / 2, ..., 1; a single candidate when max_threads <= 1 or
  // OAR_PREDICTOR_ADAPTIVE_THREADS=0.
  explicit ThreadCountTuner(int max_threads);

  // The thread count for the next run of inputs with this shape signature.
  int choose(const std::string& signature);
  // The wall time of a run made with `threads` (as choose() said).
  void record(const std::string& signature, int threads, double seconds);

  // Runs between tries of the candidates other than the fastest, and runs per try: a try is a
  // burst, so its times are those of a warm team (the first run after a change of count pays for
  // waking the threads and is not kept).
  static constexpr int64_t kExploreEvery = 256;
  static constexpr int64_t kBurst = 6;
  // Weight of a new time in a candidate's moving average. Each streak of runs with one count
  // (a burst, or the fastest running on) starts the average afresh: a plain mean until it has
  // 1 / kAlpha times, then exponential. Under contention run times come in spikes (a parallel
  // region waiting for a descheduled thread): the average, not a median, is what a caller's
  // throughput sees.
  static constexpr double kAlpha = 0.2;

 private:
  struct Candidate {
    int threads;
    double average = 0;  // of the warm times of its latest streak of runs
    int64_t kept = 0;    // warm times ever kept
    int64_t streak = 0;  // warm times kept in the latest streak
  };
  struct Signature {
    std::vector<Candidate> candidates;
    int64_t runs = 0;
    size_t trying = 0;        // the candidate of the current burst
    int64_t burst_left = 0;   // its runs still to come
    int last_threads = 0;     // the count of the previous run (0: none yet)
  };
  Signature& state(const std::string& signature);

  std::vector<int> counts_;
  std::mutex mu_;
  std::unordered_map<std::string, Signature> states_;
};

}  // namespace oar::inference
