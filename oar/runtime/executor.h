// Executor: runs a program on the kernels. Each spec op runs through its registry ExecFn (the
// generated C++ API call, resolved once per op when the executor is built); the built-in ops
// (data, parameter, cond, while_loop, yield) run here. Every intermediate is dropped right after
// its last reader (liveness computed once per block), so the caching allocator hands its memory
// to the next op; the peak of live bytes between ops is reported.
//
// `run` does not modify the executor: one executor can serve several threads at once.
#pragma once
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "oar/core/tensor.h"
#include "oar/ir/program.h"

namespace oar::runtime {

using NamedTensors = std::unordered_map<std::string, Tensor>;

struct RunStats {
  int64_t peak_bytes = 0;  // most bytes the run held at once (allocator's live bytes between ops)
  int64_t ops_run = 0;
};

class Executor {
 public:
  explicit Executor(std::shared_ptr<const ir::Program> program);
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

 private:
  struct Plan;
  class Run;
  std::shared_ptr<const ir::Program> program_;
  std::unique_ptr<Plan> plan_;
};

// "float32[-1, 3]" style description of a tensor, for error messages.
std::string describe(const Tensor& t);

}  // namespace oar::runtime
