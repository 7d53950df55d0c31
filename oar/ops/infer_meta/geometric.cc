#include "oar/ops/infer_meta/geometric.h"

#include "oar/ops/infer_meta/index.h"

namespace oar::infer_meta {
namespace {

Shape features(const Tensor& t) { return Shape(t.shape().begin() + 1, t.shape().end()); }

bool known(int64_t a, int64_t b) { return a >= 0 && b >= 0; }

void check_graph_dtype(const char* op, const char* arg, const Tensor& t) {
  const DType d = t.dtype();
  OAR_ENFORCE(is_floating(d) || d == DType::Int32 || d == DType::Int64, TypeMismatch, op, ": argument '", arg,
              "' must be float16, bfloat16, float32, float64, int32 or int64, but received dtype ",
              dtype_name(d));
}

// The edge list (src, dst) and x: x at least 1-D, indices 1-D of one length.
void check_edges(const char* op, const Tensor& x, const Tensor& src, const Tensor& dst) {
  check_graph_dtype(op, "x", x);
  OAR_ENFORCE_ARG(x.ndim() >= 1, op, ": argument 'x' must be at least 1-D (rows of node features), got a 0-D tensor");
  check_index_dtype(op, "dst_index", dst);
  OAR_ENFORCE_ARG(dst.ndim() == 1, op, ": 'dst_index' must be 1-D, got ", shape_str(dst.shape()));
  if (!src.defined()) {  // edge e reads row e
    OAR_ENFORCE_ARG(!known(dst.numel(), x.shape()[0]) || dst.numel() == x.shape()[0], op, ": without src_index ",
                    "dst_index needs one entry per row of x (", x.shape()[0], "), got ", dst.numel());
    return;
  }
  check_index_dtype(op, "src_index", src);
  OAR_ENFORCE_ARG(src.ndim() == 1, op, ": 'src_index' must be 1-D, got ", shape_str(src.shape()));
  OAR_ENFORCE_ARG(!known(src.numel(), dst.numel()) || src.numel() == dst.numel(), op,
                  ": src_index and dst_index should have the same shape, got ", shape_str(src.shape()), " and ",
                  shape_str(dst.shape()));
}

Shape message_features(const char* op, const Tensor& x, const Tensor& y) {
  if (!y.defined()) return features(x);
  check_graph_dtype(op, "y", y);
  OAR_ENFORCE(y.dtype() == x.dtype(), TypeMismatch, op, ": 'y' must have x's dtype (", dtype_name(x.dtype()),
              "), got ", dtype_name(y.dtype()));
  OAR_ENFORCE_ARG(y.ndim() >= 1, op, ": argument 'y' must be at least 1-D, got a 0-D tensor");
  return broadcast_shapes(features(x), features(y), op);
}

}  // namespace

std::vector<Meta> graph_send_recv(const char*, const Tensor& x, const Tensor& y, const Tensor& src_index,
                                  const Tensor& dst_index, const std::string&, const std::string&,
                                  int64_t out_size) {
  const char* name = y.defined() ? "send_ue_recv" : "send_u_recv";
  check_edges(name, x, src_index, dst_index);
  const Shape f = message_features(name, x, y);
  if (y.defined())
    OAR_ENFORCE_ARG(!known(y.shape()[0], dst_index.numel()) || y.shape()[0] == dst_index.numel(), name,
                    ": y must have one row per edge (", dst_index.numel(), "), got ", shape_str(y.shape()));
  Shape shape{out_size > 0 ? out_size : x.shape()[0]};
  shape.insert(shape.end(), f.begin(), f.end());
  return {{shape, x.dtype()}, {Shape{shape[0]}, DType::Int32}};
}

Meta graph_send_recv_grad_x(const char*, const Tensor& x, const Tensor&, const Tensor&, const Tensor&,
                            const Tensor&, const Tensor&, const Tensor&, const std::string&, const std::string&) {
  return {x.shape(), x.dtype()};
}

Meta graph_send_recv_grad_y(const char* op, const Tensor&, const Tensor& y, const Tensor&, const Tensor&,
                            const Tensor&, const Tensor&, const Tensor&, const std::string&, const std::string&) {
  OAR_ENFORCE_ARG(y.defined(), op, ": the gradient of y needs y");
  return {y.shape(), y.dtype()};
}

Meta graph_send_uv(const char*, const Tensor& x, const Tensor& y, const Tensor& src_index,
                   const Tensor& dst_index, const std::string&) {
  const char* name = "send_uv";
  check_edges(name, x, src_index, dst_index);
  OAR_ENFORCE_ARG(y.defined(), name, ": argument 'y' is not an initialised tensor");
  const Shape f = message_features(name, x, y);
  Shape shape{src_index.numel()};
  shape.insert(shape.end(), f.begin(), f.end());
  return {shape, x.dtype()};
}

std::vector<Meta> segment_pool(const char*, const Tensor& data, const Tensor& segment_ids, const std::string&) {
  const char* name = "segment_pool";
  check_graph_dtype(name, "data", data);
  check_index_dtype(name, "segment_ids", segment_ids);
  OAR_ENFORCE_ARG(data.ndim() >= 1, name, ": argument 'data' must be at least 1-D, got a 0-D tensor");
  Shape shape{-1};
  const Shape f = features(data);
  shape.insert(shape.end(), f.begin(), f.end());
  return {{shape, data.dtype()}, {Shape{-1}, DType::Int32}};
}

std::vector<Meta> graph_sample_neighbors(const char*, const Tensor& row, const Tensor&, const Tensor&,
                                         const Tensor& input_nodes, const Tensor& eids, int64_t, bool return_eids) {
  return {{Shape{-1}, row.dtype()},
          {Shape{input_nodes.numel()}, DType::Int32},
          {Shape{return_eids ? -1 : 0}, return_eids && eids.defined() ? eids.dtype() : row.dtype()}};
}

std::vector<Meta> graph_reindex(const char*, const Tensor& x, const std::vector<Tensor>&, const std::vector<Tensor>&) {
  return {{Shape{-1}, x.dtype()}, {Shape{-1}, x.dtype()}, {Shape{-1}, x.dtype()}};
}

}  // namespace oar::infer_meta
