// Message passing over a graph given as an edge list (paddle.geometric): edge e carries a
// message from row src[e] of x (combined with row e of y, when y is given) to row dst[e] of the
// output, and the messages meeting at a row are reduced (sum, mean, max or min; a row no edge
// reaches is 0). Segment pooling is the case where edge e reads row e of x (src undefined) and
// dst holds sorted segment ids.
//
// Rows are tensors' leading dim; the rest are feature dims, which broadcast between x and y
// (NumPy's rule, aligned on the right): messages and output rows have the broadcast feature shape.
// Node ids must lie in [0, rows): out-of-range ids raise OutOfRange naming the op, the argument
// and the position.
//
// Work is split by destination row (forward) and by source row (the gradient of x): edges are
// grouped by a stable counting sort, so each row reduces its edges in edge order whatever the
// thread count, and results are the same on every run.
#pragma once
#include <string>
#include <utility>

#include "oar/core/tensor.h"

namespace oar::kernels {

// out[d] = reduce over edges e with dst[e] == d of message(x[src[e]], y[e]); count[d] (int32) is
// the number of those edges. message: "add", "sub", "mul", "div" (with y) or "copy" (y
// undefined); reduce: "sum", "mean", "max", "min". out has the broadcast feature shape.
void graph_send_recv(const Tensor& x, const Tensor& y, const Tensor& src, const Tensor& dst,
                     const std::string& message, const std::string& reduce, const Tensor& out,
                     const Tensor& count);

// The gradients of graph_send_recv given grad (out's shape), into dx (x's shape) and dy (y's);
// either may be undefined (not wanted). max and min send the gradient to every message equal to
// the result (ties all receive it).
void graph_send_recv_grad(const Tensor& x, const Tensor& y, const Tensor& src, const Tensor& dst,
                          const Tensor& out, const Tensor& count, const Tensor& grad,
                          const std::string& message, const std::string& reduce, const Tensor& dx,
                          const Tensor& dy);

// Segment pooling: rows of data with equal (sorted, non-negative) segment ids reduced into
// (out, count), out having last id + 1 rows. pooltype: "sum", "mean", "max", "min".
std::pair<Tensor, Tensor> segment_pool(const Tensor& data, const Tensor& segment_ids,
                                       const std::string& pooltype);

// out[e] = message(x[src[e]], y[dst[e]]) for every edge (message: "add", "sub", "mul", "div").
void graph_send_uv(const Tensor& x, const Tensor& y, const Tensor& src, const Tensor& dst,
                   const std::string& message, const Tensor& out);

}  // namespace oar::kernels
