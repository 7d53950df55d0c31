// ProcessGroup: the collectives of a group of ranks, one interface for every communication
// engine (Gloo for host tensors here; NCCL for GPU tensors joins behind the same interface).
//
// Contract:
//  - Every rank of the group issues the same collectives in the same order (as in Paddle and
//    PyTorch); a group runs its operations one after another on its own thread, so an
//    asynchronous call (sync_op=False) returns a Task at once and its wait() gives the result or
//    rethrows the error.
//  - Tensors are written in place (all_reduce, broadcast, recv, ...), with their strides: a
//    non-contiguous tensor is communicated through a contiguous copy and written back.
//  - Each operation has the group's timeout: a rank that died or hangs makes the others raise,
//    naming the operation, never wait forever.
#pragma once
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "oar/core/tensor.h"

namespace oar::distributed {

enum class ReduceOp { Sum, Max, Min, Prod, Avg };

// The handle of an operation that may still run.
class Task {
 public:
  explicit Task(std::shared_future<void> done) : done_(std::move(done)) {}
  bool is_completed() const { return done_.wait_for(std::chrono::seconds(0)) == std::future_status::ready; }
  void wait() const { done_.get(); }  // rethrows the operation's error

 private:
  std::shared_future<void> done_;
};

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  int rank() const { return rank_; }
  int size() const { return size_; }
  virtual std::string backend() const = 0;

  virtual std::shared_ptr<Task> all_reduce(Tensor tensor, ReduceOp op, bool sync) = 0;
  virtual std::shared_ptr<Task> broadcast(Tensor tensor, int src, bool sync) = 0;
  virtual std::shared_ptr<Task> reduce(Tensor tensor, int dst, ReduceOp op, bool sync) = 0;
  // out[i] gets rank i's tensor; every out[i] has the input's shape and dtype.
  virtual std::shared_ptr<Task> all_gather(std::vector<Tensor> out, Tensor tensor, bool sync) = 0;
  // out gets the reduction, over ranks, of inputs[rank].
  virtual std::shared_ptr<Task> reduce_scatter(Tensor out, std::vector<Tensor> inputs, ReduceOp op, bool sync) = 0;
  // out gets src's inputs[rank] (inputs matter on src only).
  virtual std::shared_ptr<Task> scatter(Tensor out, std::vector<Tensor> inputs, int src, bool sync) = 0;
  // On dst, out[i] gets rank i's tensor.
  virtual std::shared_ptr<Task> gather(std::vector<Tensor> out, Tensor tensor, int dst, bool sync) = 0;
  // out[i] gets rank i's inputs[rank].
  virtual std::shared_ptr<Task> all_to_all(std::vector<Tensor> out, std::vector<Tensor> inputs, bool sync) = 0;
  virtual std::shared_ptr<Task> send(Tensor tensor, int dst, bool sync) = 0;
  virtual std::shared_ptr<Task> recv(Tensor tensor, int src, bool sync) = 0;
  virtual std::shared_ptr<Task> barrier(bool sync) = 0;

 protected:
  ProcessGroup(int rank, int size) : rank_(rank), size_(size) {}
  int rank_;
  int size_;
};

}  // namespace oar::distributed
