// Backward formulas of the graph ops too long to read inside oar/ops/specs/geometric.yaml.
// send_uv's are written with other ops (gathers and graph_send_recv as a scatter-add), so
// they differentiate again.
#pragma once
#include <string>

#include "oar/core/tensor.h"

namespace oar {

// d graph_send_uv / d x and d y, given grad [edges, broadcast features].
Tensor graph_send_uv_grad_x(const Tensor& x, const Tensor& y, const Tensor& src_index, const Tensor& dst_index,
                            const std::string& message_op, const Tensor& grad);
Tensor graph_send_uv_grad_y(const Tensor& x, const Tensor& y, const Tensor& src_index, const Tensor& dst_index,
                            const std::string& message_op, const Tensor& grad);

}  // namespace oar
