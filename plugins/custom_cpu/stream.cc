// Stream: a worker thread draining a FIFO with a per-task delay. Event: generation counting.
// See stream.h for the contract.
#include "plugins/custom_cpu/stream.h"

#include <cstdio>
#include <exception>

namespace oar_custom_cpu {

Stream::Stream(int device, std::chrono::microseconds delay)
    : device_(device), delay_(delay), worker_([this] { run_worker(); }) {}

Stream::~Stream() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_cv_.notify_one();
  worker_.join();  // the worker leaves only once the queue is empty
}

void Stream::enqueue(Task task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(task));
    ++enqueued_;
  }
  work_cv_.notify_one();
}

void Stream::synchronize() {
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t target = enqueued_;
  done_cv_.wait(lock, [&] { return completed_ >= target; });
}

void Stream::run_worker() {
  for (;;) {
    Task task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left to run
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    // The delay that makes a missing synchronisation visible: the host runs ahead meanwhile.
    if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
    try {
      task();
    } catch (const std::exception& e) {
      // Tasks are validated before they are enqueued; this is a plug-in bug, not the caller's.
      std::fprintf(stderr, "oar_custom_cpu: a task on device %d failed: %s\n", device_, e.what());
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++completed_;
    }
    done_cv_.notify_all();
  }
}

uint64_t Event::record_marker() {
  std::lock_guard<std::mutex> lock(mu_);
  return ++recorded_;
}

void Event::complete(uint64_t generation) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    // A re-recording on another stream may complete first; the newest one is what counts.
    if (generation > completed_) {
      completed_ = generation;
      time_ = Clock::now();
    }
  }
  cv_.notify_all();
}

uint64_t Event::latest() {
  std::lock_guard<std::mutex> lock(mu_);
  return recorded_;
}

bool Event::is_done() {
  std::lock_guard<std::mutex> lock(mu_);
  return completed_ >= recorded_;
}

void Event::wait_for(uint64_t generation) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return completed_ >= generation; });
}

bool Event::completion_time(Clock::time_point* time) {
  std::lock_guard<std::mutex> lock(mu_);
  if (completed_ == 0) return false;
  *time = time_;
  return true;
}

}  // namespace oar_custom_cpu
