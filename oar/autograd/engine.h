// The backward engine: runs the graph from the roots in reverse creation order.
#pragma once
#include "oar/autograd/node.h"

namespace oar::autograd {

// Tensor.backward: accumulates into the .grad of every leaf that requires grad.
void backward(const TensorList& outputs, const TensorList& grad_outputs, bool retain_graph);

// oar.grad: returns d(outputs)/d(inputs) without touching any .grad. Missing entries
// (input not reached) are undefined tensors when allow_unused, else an error.
TensorList grad(const TensorList& outputs, const TensorList& inputs,
                const TensorList& grad_outputs, bool retain_graph, bool create_graph,
                bool allow_unused);

}  // namespace oar::autograd
