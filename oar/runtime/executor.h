// Executor: runs a program on the kernels. Each spec op runs through its registry ExecFn (the
// generated C++ API call, resolved once per op when the executor is built); the built-in ops
// (data, parameter, cond, while_loop, yield, fetch, grad) run here. Values live in a table
// indexed by dense ids computed once; every intermediate is dropped right after its last reader
// (liveness computed once per block), so the caching allocator hands its memory to the next op;
// the peak of live bytes between ops is reported. With inter_op_threads > 1, independent ops of
// the top block run at once on a small pool (dependency counts; reference counts free values);
// an error in any worker stops the run and is rethrown in the caller with the op's context.
//
// `run` does not modify the executor: one executor can serve several threads at once.
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "oar/core/tensor.h"
#include "oar/ir/program.h"

namespace oar::runtime {

using NamedTensors = std::unordered_map<std::string, Tensor>;

struct ExecutorOptions {
  // Ops of the top block whose inputs are ready run on this many threads at once (1: one after
  // another). Used for programs without grad ops or random ops (their results must not depend on
  // the order); each worker's kernels then get cores / threads OpenMP threads.
  int inter_op_threads = 1;
  // Where the program runs: feeds and parameters elsewhere are copied here (differentiably),
  // ops without tensor inputs create their results here, and fetches come back from here.
  Place place = CPUPlace();
};

struct RunStats {
  int64_t peak_bytes = 0;  // most bytes the run held at once (allocator's live bytes between ops)
  int64_t ops_run = 0;
  int64_t ops_in_place = 0;  // steps that wrote their result over a dying operand's memory
};

class Executor {
 public:
  explicit Executor(std::shared_ptr<const ir::Program> program, ExecutorOptions options = {});
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Runs the program with its inputs by data name and its parameters by parameter name;
  // returns the tensors of `fetch` (values of the top block), in order. Autograd records the
  // run when the program has a grad op, or when `autograd` is set and grad mode is on (a
  // to_static layer inside eager training: backward then flows through the program's ops).
  std::vector<Tensor> run(const NamedTensors& feeds, const NamedTensors& params,
                          const std::vector<const ir::Value*>& fetch, RunStats* stats = nullptr,
                          bool autograd = false) const;

  const ir::Program& program() const { return *program_; }
  // The program's values in Program::values() order (computed once, with the plan).
  const std::vector<const ir::Value*>& values() const;

 private:
  struct Plan;
  class Run;
  std::shared_ptr<const ir::Program> program_;
  ExecutorOptions options_;
  std::unique_ptr<Plan> plan_;
};

// "float32[-1, 3]" style description of a tensor, for error messages.
std::string describe(const Tensor& t);

}  // namespace oar::runtime
