#include "oar/ops/backward/geometric.h"

#include "oar/ops/generated/api/elementwise.h"
#include "oar/ops/generated/api/geometric.h"
#include "oar/ops/generated/api/index.h"
#include "oar/ops/generated/api/shape.h"
#include "oar/ops/op_helpers.h"

namespace oar {
namespace {

// t [rows, f...] reshaped to [rows, 1, ..., f...] with `rank` feature dims, so that it
// broadcasts against another edge tensor feature by feature (rows stay aligned).
Tensor pad_features(const Tensor& t, int64_t rank) {
  Shape s{t.shape()[0]};
  s.insert(s.end(), rank - (t.ndim() - 1), 1);
  s.insert(s.end(), t.shape().begin() + 1, t.shape().end());
  return reshape_exact(t, IntArray(s));
}

// The rows of an edge gradient g [edges, F] added into the node each edge came from (`index`,
// of n rows), then summed over the feature dims that `like` (n rows) broadcast.
Tensor scatter_to(const Tensor& g, const Tensor& index, const Tensor& like) {
  const Tensor rows = std::get<0>(graph_send_recv(g, Tensor(), Tensor(), index, "copy", "sum", like.shape()[0]));
  Shape padded = pad_features(like, g.ndim() - 1).shape();
  padded[0] = rows.shape()[0];
  return reshape_exact(reduce_to_shape(rows, padded), IntArray(like.shape()));
}

Tensor gathered(const Tensor& t, const Tensor& index, int64_t rank) {
  return pad_features(index_select(t, index, 0), rank);
}

}  // namespace

Tensor graph_send_uv_grad_x(const Tensor& x, const Tensor& y, const Tensor& src_index, const Tensor& dst_index,
                            const std::string& message_op, const Tensor& grad) {
  const int64_t rank = grad.ndim() - 1;
  Tensor g = grad;
  if (message_op == "mul") g = multiply(grad, gathered(y, dst_index, rank));
  else if (message_op == "div") g = divide(grad, gathered(y, dst_index, rank));
  return scatter_to(g, src_index, x);
}

Tensor graph_send_uv_grad_y(const Tensor& x, const Tensor& y, const Tensor& src_index, const Tensor& dst_index,
                            const std::string& message_op, const Tensor& grad) {
  const int64_t rank = grad.ndim() - 1;
  Tensor g = grad;
  if (message_op == "sub") {
    g = neg(grad);
  } else if (message_op == "mul") {
    g = multiply(grad, gathered(x, src_index, rank));
  } else if (message_op == "div") {
    const Tensor yd = gathered(y, dst_index, rank);
    g = neg(divide(multiply(grad, gathered(x, src_index, rank)), square(yd)));
  }
  return scatter_to(g, dst_index, y);
}

}  // namespace oar
