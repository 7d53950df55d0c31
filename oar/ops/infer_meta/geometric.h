// Shape rules of the graph ops (paddle.geometric; kernels in oar/kernels/cpu/graph.h and
// graph_sampling.h). Rows are the leading dim, the rest are feature dims that broadcast
// between x and y. Segment pooling, sampling and reindexing have data-dependent sizes: their
// kernels allocate the results and programs see those dims as -1.
#pragma once
#include <string>
#include <vector>

#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

// out [out_size > 0 ? out_size : x rows, broadcast features] (x's dtype) and count [rows] int32.
std::vector<Meta> graph_send_recv(const char* op, const Tensor& x, const Tensor& y, const Tensor& src_index,
                                  const Tensor& dst_index, const std::string& message_op,
                                  const std::string& reduce_op, int64_t out_size);
// x's shape and dtype (the gradient of graph_send_recv with respect to x).
Meta graph_send_recv_grad_x(const char* op, const Tensor& x, const Tensor& y, const Tensor& src_index,
                            const Tensor& dst_index, const Tensor& out, const Tensor& count, const Tensor& grad,
                            const std::string& message_op, const std::string& reduce_op);
// y's shape and dtype.
Meta graph_send_recv_grad_y(const char* op, const Tensor& x, const Tensor& y, const Tensor& src_index,
                            const Tensor& dst_index, const Tensor& out, const Tensor& count, const Tensor& grad,
                            const std::string& message_op, const std::string& reduce_op);
// [edges, broadcast features], x's dtype.
Meta graph_send_uv(const char* op, const Tensor& x, const Tensor& y, const Tensor& src_index,
                   const Tensor& dst_index, const std::string& message_op);
// Program types of segment_pool: [-1, data's features] and count [-1] int32.
std::vector<Meta> segment_pool(const char* op, const Tensor& data, const Tensor& segment_ids,
                               const std::string& pooltype);
// Program types of graph_sample_neighbors: neighbours [-1], counts [input nodes] int32, edge ids [-1].
std::vector<Meta> graph_sample_neighbors(const char* op, const Tensor& row, const Tensor& colptr,
                                         const Tensor& edge_weight, const Tensor& input_nodes,
                                         const Tensor& eids, int64_t sample_size, bool return_eids);
// Program types of graph_reindex: three [-1] tensors of x's dtype.
std::vector<Meta> graph_reindex(const char* op, const Tensor& x, const std::vector<Tensor>& neighbors,
                                const std::vector<Tensor>& count);

}  // namespace oar::infer_meta
