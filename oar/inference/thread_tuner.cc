#include "oar/inference/thread_tuner.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace oar::inference {

namespace {

bool adaptive_enabled() {
  const char* v = std::getenv("OAR_PREDICTOR_ADAPTIVE_THREADS");
  return !(v && std::strcmp(v, "0") == 0);
}

}  // namespace

ThreadCountTuner::ThreadCountTuner(int max_threads) {
  const int top = std::max(max_threads, 1);
  counts_.push_back(top);
  if (!adaptive_enabled()) return;
  for (int n = top / 2; n >= 1; n /= 2) counts_.push_back(n);  // halvings end at 1
}

ThreadCountTuner::Signature& ThreadCountTuner::state(const std::string& signature) {
  auto [it, fresh] = states_.try_emplace(signature);
  if (fresh)
    for (int n : counts_) it->second.candidates.push_back(Candidate{n});
  return it->second;
}

int ThreadCountTuner::choose(const std::string& signature) {
  if (counts_.size() == 1) return counts_[0];
  std::lock_guard<std::mutex> lock(mu_);
  Signature& s = state(signature);
  ++s.runs;
  if (s.burst_left == 0) {
    size_t best = 0;
    for (size_t i = 1; i < s.candidates.size(); ++i)
      if (s.candidates[i].kept > 0 && s.candidates[i].average < s.candidates[best].average) best = i;
    const auto untried = std::find_if(s.candidates.begin(), s.candidates.end(),
                                      [](const Candidate& c) { return c.kept == 0; });
    if (untried != s.candidates.end()) {  // warm-up: every candidate once, in order
      s.trying = static_cast<size_t>(untried - s.candidates.begin());
    } else if (s.runs % kExploreEvery == 0) {  // round robin over the others
      s.trying = (s.trying + 1) % s.candidates.size();
      if (s.trying == best) s.trying = (s.trying + 1) % s.candidates.size();
    } else {
      return s.candidates[best].threads;
    }
    s.burst_left = kBurst;
  }
  --s.burst_left;
  return s.candidates[s.trying].threads;
}

void ThreadCountTuner::record(const std::string& signature, int threads, double seconds) {
  if (counts_.size() == 1) return;
  std::lock_guard<std::mutex> lock(mu_);
  Signature& s = state(signature);
  const bool warm = s.last_threads == threads;  // else this run woke threads or made plans
  s.last_threads = threads;
  for (Candidate& c : s.candidates) {
    if (c.threads != threads) continue;
    if (!warm) {
      c.streak = 0;  // a new streak starts with the next run
      return;
    }
    ++c.kept;
    ++c.streak;
    const double alpha = std::max(kAlpha, 1.0 / static_cast<double>(c.streak));
    c.average += alpha * (seconds - c.average);
    return;
  }
}

}  // namespace oar::inference
