// Streams and events of the custom_cpu device: an accelerator's queues, made of threads.
// Contract:
// - a Stream is one worker thread running a FIFO of tasks. enqueue() returns at once; tasks of
//   one stream run in order; tasks of different streams run concurrently, unordered. Each task
//   starts only after a short sleep (`delay`), so that a host read which skips synchronisation
//   sees stale data instead of passing by luck;
// - synchronize() returns once every task enqueued before the call has finished;
// - the destructor drains the queue, then joins the worker;
// - an Event counts recordings: record_marker() hands out a generation, the marker task marks
//   it complete (with a steady_clock timestamp). The event is done when its newest recording
//   has completed; an event never recorded is done (as in CUDA).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace oar_custom_cpu {

using Task = std::function<void()>;

class Stream {
 public:
  Stream(int device, std::chrono::microseconds delay);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  int device() const { return device_; }
  void enqueue(Task task);
  void synchronize();

 private:
  void run_worker();

  const int device_;
  const std::chrono::microseconds delay_;
  std::mutex mu_;
  std::condition_variable work_cv_;  // wakes the worker: a task arrived, or stopping
  std::condition_variable done_cv_;  // wakes synchronize(): a task finished
  std::deque<Task> queue_;
  uint64_t enqueued_ = 0;   // tasks ever enqueued
  uint64_t completed_ = 0;  // tasks ever finished; tasks finish in enqueue order
  bool stopping_ = false;
  std::thread worker_;  // declared last: it starts once the members above exist
};

class Event {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Event(int device) : device_(device) {}
  int device() const { return device_; }

  // A new recording: the generation its marker task must pass to complete().
  uint64_t record_marker();
  // Run by the marker task on the stream's worker.
  void complete(uint64_t generation);
  // The newest recording at the time of the call (0: never recorded).
  uint64_t latest();
  bool is_done();
  // Blocks until recording `generation` has completed.
  void wait_for(uint64_t generation);
  // When the newest completed recording ran; false if none has.
  bool completion_time(Clock::time_point* time);

 private:
  const int device_;
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t recorded_ = 0;
  uint64_t completed_ = 0;
  Clock::time_point time_{};
};

}  // namespace oar_custom_cpu
