#include "oar/autograd/engine.h"

#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "oar/autograd/grad_mode.h"
#include "oar/ops/amp.h"
#include "oar/ops/generated/api/creation.h"
#include "oar/ops/generated/api/elementwise.h"

namespace oar::autograd {

namespace {

// The start of every backward pass: hands the initial gradients to the roots' nodes.
class GraphRoot : public Node {
 public:
  explicit GraphRoot(TensorList grads) : grads_(std::move(grads)) {}
  TensorList apply(TensorList&&) override { return grads_; }
  const char* name() const override { return "GraphRoot"; }
 private:
  TensorList grads_;
};

struct Capture {
  Node* node;
  uint32_t slot;
  size_t index;  // position in the `inputs` list
};

struct NodeState {
  int dependencies = 0;
  TensorList buffer;
};

void accumulate(TensorList& buffer, uint32_t slot, Tensor g) {
  if (buffer[slot].defined()) {
    buffer[slot] = add(buffer[slot], g);
  } else {
    buffer[slot] = std::move(g);
  }
}

// Runs the graph under `root`. With `captures`, gradients at those (node, slot) pairs are stored
// into *captured and only nodes on a path to a capture run (leaves are not accumulated).
void execute(const std::shared_ptr<GraphRoot>& root, bool keep_graph, bool create_graph,
             const std::vector<Capture>* captures, TensorList* captured) {
  GradModeGuard grad_mode(create_graph);
  // Gradients keep the dtypes of the forward: auto_cast casts forward inputs, never a backward.
  const amp::Suspend amp_off;
  std::unordered_map<Node*, NodeState> state;
  // Count dependencies with an explicit DFS (graphs can be deep: no recursion).
  {
    std::vector<Node*> stack{root.get()};
    std::unordered_set<Node*> seen{root.get()};
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      for (const Edge& e : n->next_edges) {
        if (!e.valid()) continue;
        ++state[e.node.get()].dependencies;
        if (seen.insert(e.node.get()).second) stack.push_back(e.node.get());
      }
    }
  }
  // With captures, a node must run only if some capture lies below it.
  std::unordered_set<Node*> needed;
  std::unordered_map<Node*, std::vector<const Capture*>> captures_at;
  if (captures) {
    for (const Capture& c : *captures) captures_at[c.node].push_back(&c);
    // Post-order: a node is needed when it holds a capture or any child is needed.
    std::unordered_map<Node*, bool> memo;
    std::vector<std::pair<Node*, size_t>> stack{{root.get(), 0}};
    while (!stack.empty()) {
      auto& [n, i] = stack.back();
      if (i < n->next_edges.size()) {
        Node* child = n->next_edges[i++].node.get();
        if (child && !memo.count(child)) {
          memo[child] = false;
          stack.emplace_back(child, 0);
        }
        continue;
      }
      bool need = captures_at.count(n) > 0;
      for (const Edge& e : n->next_edges)
        if (e.valid() && needed.count(e.node.get())) need = true;
      if (need) needed.insert(n);
      memo[n] = need;
      stack.pop_back();
    }
  }

  auto cmp = [](const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b) {
    return a->sequence_nr < b->sequence_nr;  // latest-created first
  };
  std::priority_queue<std::shared_ptr<Node>, std::vector<std::shared_ptr<Node>>, decltype(cmp)>
      ready(cmp);
  ready.push(root);
  while (!ready.empty()) {
    std::shared_ptr<Node> node = ready.top();
    ready.pop();
    NodeState& st = state[node.get()];
    TensorList grads = std::move(st.buffer);
    grads.resize(node->output_meta.size());
    // Hooks registered on non-leaf tensors see (and may replace) their gradient.
    for (auto& [slot, id_hook] : node->output_hooks) {
      if (slot < grads.size() && grads[slot].defined()) {
        Tensor r = id_hook.second(grads[slot]);
        if (r.defined()) grads[slot] = r;
      }
    }
    if (captures) {
      auto it = captures_at.find(node.get());
      if (it != captures_at.end())
        for (const Capture* c : it->second) (*captured)[c->index] = grads[c->slot];
      if (!needed.count(node.get())) continue;
      if (dynamic_cast<AccumulateGrad*>(node.get())) continue;
    }
    bool any = node.get() == root.get();
    for (size_t k = 0; k < grads.size(); ++k) {
      if (grads[k].defined()) {
        any = true;
      } else {
        const OutputMeta& m = node->output_meta[k];
        if (m.place.is_host()) {
          grads[k] = zeros(m.shape, m.dtype);
        } else {  // on the output's device
          ExpectedPlaceGuard on_device(m.place);
          grads[k] = zeros(m.shape, m.dtype);
        }
      }
    }
    TensorList in_grads;
    if (any) in_grads = node->apply(std::move(grads));
    if (!keep_graph) node->release_saved();
    for (size_t i = 0; i < node->next_edges.size(); ++i) {
      const Edge& e = node->next_edges[i];
      if (!e.valid()) continue;
      NodeState& next = state[e.node.get()];
      if (i < in_grads.size() && in_grads[i].defined()) {
        if (next.buffer.size() < e.node->output_meta.size())
          next.buffer.resize(e.node->output_meta.size());
        accumulate(next.buffer, e.input_nr, in_grads[i]);
      }
      if (--next.dependencies == 0) ready.push(e.node);
    }
  }
}

std::shared_ptr<GraphRoot> make_root(const TensorList& outputs, const TensorList& grad_outputs,
                                     const char* api) {
  OAR_ENFORCE_ARG(grad_outputs.empty() || grad_outputs.size() == outputs.size(), api,
                  ": grad_tensors must have one entry per tensor (", outputs.size(), "), got ",
                  grad_outputs.size());
  TensorList grads;
  std::vector<Edge> edges;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    OAR_ENFORCE(!out.stop_gradient(), PreconditionNotMet, api, ": tensor ", i, " ",
                out.name().empty() ? "" : "(" + out.name() + ") ",
                "has stop_gradient=True, so there is no graph to run backward through");
    Tensor g = i < grad_outputs.size() ? grad_outputs[i] : Tensor();
    if (!g.defined()) {
      g = ones(out.shape(), out.dtype());
    } else {
      OAR_ENFORCE_ARG(g.shape() == out.shape(), api, ": grad_tensor ", i, " has shape ",
                      shape_str(g.shape()), " but the tensor has shape ", shape_str(out.shape()));
    }
    grads.push_back(g);
    edges.push_back(edge_of(out));
  }
  auto root = std::make_shared<GraphRoot>(std::move(grads));
  root->next_edges = std::move(edges);
  return root;
}

}  // namespace

namespace {
thread_local std::vector<std::function<void()>>* t_callbacks = nullptr;  // of the running backward
}  // namespace

void queue_callback(std::function<void()> fn) {
  OAR_ENFORCE(t_callbacks != nullptr, PreconditionNotMet,
              "queue_callback: no backward pass is running on this thread (call it from a gradient hook)");
  t_callbacks->push_back(std::move(fn));
}

void backward(const TensorList& outputs, const TensorList& grad_outputs, bool retain_graph) {
  auto root = make_root(outputs, grad_outputs, "backward");
  std::vector<std::function<void()>> callbacks;
  struct Scope {  // a backward inside a hook keeps its own list; the outer one comes back after
    std::vector<std::function<void()>>* outer = t_callbacks;
    ~Scope() { t_callbacks = outer; }
  } scope;
  t_callbacks = &callbacks;
  execute(root, retain_graph, false, nullptr, nullptr);
  for (size_t i = 0; i < callbacks.size(); ++i) {
    auto fn = std::move(callbacks[i]);  // a callback may queue another (appended, run after)
    fn();
  }
}

TensorList grad(const TensorList& outputs, const TensorList& inputs,
                const TensorList& grad_outputs, bool retain_graph, bool create_graph,
                bool allow_unused) {
  auto root = make_root(outputs, grad_outputs, "grad");
  std::vector<Capture> captures;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& in = inputs[i];
    OAR_ENFORCE_ARG(!in.stop_gradient(), "grad: input ", i,
                    " has stop_gradient=True; set stop_gradient=False on it before the forward");
    Edge e = edge_of(in);
    captures.push_back({e.node.get(), e.input_nr, i});
  }
  TensorList result(inputs.size());
  execute(root, retain_graph || create_graph, create_graph, &captures, &result);
  for (size_t i = 0; i < result.size(); ++i) {
    OAR_ENFORCE_ARG(result[i].defined() || allow_unused, "grad: input ", i,
                    " is not reachable from the outputs (unused in the graph); pass "
                    "allow_unused=True to get None for it");
    if (result[i].defined() && !create_graph) result[i] = result[i].detach();
  }
  return result;
}

}  // namespace oar::autograd
