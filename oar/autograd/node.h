// The autograd graph: each differentiable op result points at a Node that turns the gradient of
// its outputs into gradients of its inputs, and at the next nodes along the inputs' histories.
#pragma once
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "oar/core/tensor.h"

namespace oar::autograd {

class Node;
// What backward needs to know of an output that got no gradient: zeros of this kind stand in.
struct OutputMeta {
  Shape shape;
  DType dtype;
  Place place;
};
using TensorList = std::vector<Tensor>;
using GradHook = std::function<Tensor(const Tensor&)>;

struct Edge {
  std::shared_ptr<Node> node;
  uint32_t input_nr = 0;  // which output slot of `node` this gradient feeds
  bool valid() const { return node != nullptr; }
};

class Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  virtual ~Node() = default;
  // grads[k] is the gradient of output k (zeros filled in for outputs that got none);
  // returns one gradient per next edge (undefined where an input needs none).
  virtual TensorList apply(TensorList&& grads) = 0;
  virtual const char* name() const = 0;
  // Frees saved tensors once backward ran without retain_graph.
  virtual void release_saved() { released_ = true; }
  bool released() const { return released_; }
  bool needs_input_grad(size_t i) const { return i < next_edges.size() && next_edges[i].valid(); }

  std::vector<Edge> next_edges;
  std::vector<OutputMeta> output_meta;  // one per output
  uint64_t sequence_nr;
  // Hooks on the gradient of output k (register_hook on a non-leaf tensor).
  std::vector<std::pair<uint32_t, std::pair<int64_t, GradHook>>> output_hooks;

 protected:
  bool released_ = false;
};

// The sink for a leaf tensor: adds incoming gradients into leaf.grad.
class AccumulateGrad : public Node {
 public:
  explicit AccumulateGrad(const std::shared_ptr<TensorImpl>& leaf);
  TensorList apply(TensorList&& grads) override;
  const char* name() const override { return "AccumulateGrad"; }
  std::shared_ptr<TensorImpl> leaf() const { return leaf_.lock(); }
 private:
  std::weak_ptr<TensorImpl> leaf_;
};

struct AutogradMeta {
  bool stop_gradient = true;
  Tensor grad;
  std::shared_ptr<Node> grad_fn;  // null for leaves
  uint32_t output_nr = 0;
  std::weak_ptr<Node> grad_accumulator;
  std::vector<std::pair<int64_t, GradHook>> leaf_hooks;  // run before accumulation
  bool retain_grads = false;
};

// A tensor kept for backward: checks on use that nobody modified it in place meanwhile.
class SavedTensor {
 public:
  SavedTensor() = default;
  // is_output: t is an output of `node` itself; stored without its history to avoid a cycle.
  SavedTensor(const Tensor& t, bool is_output);
  Tensor unpack(const std::shared_ptr<Node>& node, const char* op) const;
  void reset() { data_ = Tensor(); }
  bool defined() const { return data_.defined(); }
 private:
  Tensor data_;
  uint32_t version_ = 0;
  bool is_output_ = false;
  uint32_t output_nr_ = 0;
  bool requires_grad_ = false;
};

// Helpers used by the generated op wrappers.
bool any_requires_grad(std::initializer_list<const Tensor*> inputs);
Edge edge_of(const Tensor& t);  // where gradients for t go (invalid if t stops gradient)
void set_history(const Tensor& out, const std::shared_ptr<Node>& node, uint32_t output_nr);
// Records `node` as the creator of `outputs` with edges to `inputs`; skips non-float outputs.
void record(const std::shared_ptr<Node>& node, const std::vector<const Tensor*>& inputs,
            const std::vector<const Tensor*>& outputs);
// Raises the Paddle error for an in-place write to a leaf that requires grad.
void check_inplace(const Tensor& self, const char* op);

}  // namespace oar::autograd
