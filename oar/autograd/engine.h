// The backward engine: runs the graph from the roots in reverse creation order.
#pragma once
#include <functional>

#include "oar/autograd/node.h"

namespace oar::autograd {

// Tensor.backward: accumulates into the .grad of every leaf that requires grad.
void backward(const TensorList& outputs, const TensorList& grad_outputs, bool retain_graph);

// oar.grad: returns d(outputs)/d(inputs) without touching any .grad. Missing entries
// (input not reached) are undefined tensors when allow_unused, else an error.
TensorList grad(const TensorList& outputs, const TensorList& inputs,
                const TensorList& grad_outputs, bool retain_graph, bool create_graph,
                bool allow_unused);

// Runs `fn` on this thread when the Tensor.backward pass now running has finished, after every
// leaf gradient is accumulated (callbacks run in the order they were queued). Called from a
// gradient hook; data parallelism uses it to wait for its all-reduces. Outside a backward pass
// it raises PreconditionNotMet.
void queue_callback(std::function<void()> fn);

}  // namespace oar::autograd
