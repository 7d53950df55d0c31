// ProcessGroupGloo: the ProcessGroup of host tensors, over Gloo's TCP transport. The ranks
// meet through a store (TCPStore), connect a full mesh, then run Gloo's algorithms; oar adds
// the dtypes (float16/bfloat16 reductions in float), in-place semantics on strided tensors, the
// ordered worker thread behind sync_op=False, and errors that name the operation.
#pragma once
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "oar/distributed/process_group.h"

namespace gloo {
class Context;
namespace rendezvous { class Store; }
}  // namespace gloo

namespace oar::distributed {

class ProcessGroupGloo : public ProcessGroup {
 public:
  // `prefix` keeps this group's keys apart from other groups' on the same store; `hostname` is
  // the address the other ranks reach this one at.
  ProcessGroupGloo(gloo::rendezvous::Store& store, int rank, int size, const std::string& prefix,
                   const std::string& hostname, std::chrono::milliseconds timeout);
  ~ProcessGroupGloo() override;

  std::string backend() const override { return "gloo"; }
  std::shared_ptr<Task> all_reduce(Tensor tensor, ReduceOp op, bool sync) override;
  std::shared_ptr<Task> broadcast(Tensor tensor, int src, bool sync) override;
  std::shared_ptr<Task> reduce(Tensor tensor, int dst, ReduceOp op, bool sync) override;
  std::shared_ptr<Task> all_gather(std::vector<Tensor> out, Tensor tensor, bool sync) override;
  std::shared_ptr<Task> reduce_scatter(Tensor out, std::vector<Tensor> inputs, ReduceOp op, bool sync) override;
  std::shared_ptr<Task> scatter(Tensor out, std::vector<Tensor> inputs, int src, bool sync) override;
  std::shared_ptr<Task> gather(std::vector<Tensor> out, Tensor tensor, int dst, bool sync) override;
  std::shared_ptr<Task> all_to_all(std::vector<Tensor> out, std::vector<Tensor> inputs, bool sync) override;
  std::shared_ptr<Task> send(Tensor tensor, int dst, bool sync) override;
  std::shared_ptr<Task> recv(Tensor tensor, int src, bool sync) override;
  std::shared_ptr<Task> barrier(bool sync) override;

 private:
  // Queues `work` on the group's thread (named `op` in errors); waits for it when `sync`.
  std::shared_ptr<Task> enqueue(const char* op, std::function<void()> work, bool sync);
  std::shared_ptr<Task> point_to_point(const char* op, Tensor tensor, int peer, bool is_send, bool sync);
  void worker_loop();
  uint32_t next_tag() { return tag_++; }

  std::shared_ptr<gloo::Context> context_;
  std::chrono::milliseconds timeout_;
  uint32_t tag_ = 0;
  std::map<int, uint64_t> sent_, received_;  // point-to-point messages so far, per peer

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::packaged_task<void()>> queue_;
  bool stopping_ = false;
  bool busy_ = false;  // an operation runs (on the group's thread or inline in a sync call)
  std::thread worker_;
};

}  // namespace oar::distributed
