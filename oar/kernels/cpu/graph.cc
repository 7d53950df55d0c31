#include "oar/kernels/cpu/graph.h"

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "oar/core/parallel.h"
#include "oar/kernels/cpu/dispatch.h"

namespace oar::kernels {
namespace {

enum class Message { Copy, Add, Sub, Mul, Div };
enum class Reduce { Sum, Mean, Max, Min };

// The Python function a user called, for error messages.
const char* op_name(const Tensor& src, const Tensor& y) {
  return y.defined() ? "send_ue_recv" : src.defined() ? "send_u_recv" : "segment_pool";
}

Message parse_message(const char* op, const std::string& m, bool has_y) {
  if (!has_y) {
    OAR_ENFORCE_ARG(m == "copy" || m == "add", op, ": without y the message is x's row, got message_op '", m, "'");
    return Message::Copy;
  }
  if (m == "add") return Message::Add;
  if (m == "sub") return Message::Sub;
  if (m == "mul") return Message::Mul;
  if (m == "div") return Message::Div;
  OAR_THROW(InvalidArgument, op, ": message_op should be `add`, `sub`, `mul` or `div`, but received ", m);
}

Reduce parse_reduce(const char* op, const std::string& r) {
  if (r == "sum") return Reduce::Sum;
  if (r == "mean") return Reduce::Mean;
  if (r == "max") return Reduce::Max;
  if (r == "min") return Reduce::Min;
  OAR_THROW(InvalidArgument, op, ": reduce_op should be `sum`, `mean`, `max` or `min`, but received ", r);
}

template <typename F>
decltype(auto) with_message(Message m, F&& f) {
  switch (m) {
    case Message::Copy: return f(std::integral_constant<Message, Message::Copy>{});
    case Message::Add: return f(std::integral_constant<Message, Message::Add>{});
    case Message::Sub: return f(std::integral_constant<Message, Message::Sub>{});
    case Message::Mul: return f(std::integral_constant<Message, Message::Mul>{});
    default: return f(std::integral_constant<Message, Message::Div>{});
  }
}

// The dtypes Paddle's graph kernels take: floating types and int32/int64.
template <typename F>
decltype(auto) dispatch_graph(DType t, const char* op, F&& f) {
  switch (t) {
    case DType::Int32: return f(int32_t{});
    case DType::Int64: return f(int64_t{});
    default: return dispatch_floating(t, op, std::forward<F>(f));
  }
}

// Integer arithmetic wraps around (two's complement) as Paddle's does in practice; done in
// unsigned types, where wrapping is defined behaviour rather than signed overflow.
template <typename C>
inline C wrap(C a, C b, char op) {
  if constexpr (std::is_integral_v<C>) {
    using U = std::make_unsigned_t<C>;
    const U x = static_cast<U>(a), y = static_cast<U>(b);
    return static_cast<C>(op == '+' ? x + y : op == '-' ? x - y : x * y);
  } else {
    return op == '+' ? a + b : op == '-' ? a - b : a * b;
  }
}

template <Message M, typename C>
inline C combine(C a, C b) {
  if constexpr (M == Message::Copy) return a;
  else if constexpr (M == Message::Add) return wrap(a, b, '+');
  else if constexpr (M == Message::Sub) return wrap(a, b, '-');
  else if constexpr (M == Message::Mul) return wrap(a, b, '*');
  else if constexpr (std::is_integral_v<C>) {
    // Integer division traps on 0 (and on MIN / -1): a clear error instead.
    OAR_ENFORCE_ARG(b != 0, "send_ue_recv: integer division by zero in message_op 'div'");
    return b == -1 ? static_cast<C>(0 - static_cast<std::make_unsigned_t<C>>(a)) : a / b;
  } else {
    return a / b;
  }
}

// The ids of an int32/int64 index tensor, each checked to lie in [0, n).
std::vector<int64_t> read_ids(const char* op, const char* arg, const Tensor& t, int64_t n) {
  OAR_ENFORCE(t.dtype() == DType::Int32 || t.dtype() == DType::Int64, TypeMismatch, op, ": argument '", arg,
              "' must be an int32 or int64 tensor, but received dtype ", dtype_name(t.dtype()));
  const Tensor c = t.contiguous();
  std::vector<int64_t> v(c.numel());
  if (c.dtype() == DType::Int32) std::copy_n(c.data<int32_t>(), v.size(), v.begin());
  else std::copy_n(c.data<int64_t>(), v.size(), v.begin());
  for (size_t i = 0; i < v.size(); ++i) {
    OAR_ENFORCE(v[i] >= 0, OutOfRange, op, ": ", arg, "[", i, "] = ", v[i], " is negative");
    OAR_ENFORCE(v[i] < n, OutOfRange, op, ": ", arg, "[", i, "] = ", v[i], " is out of range: ids must lie in [0, ",
                n, ")");
  }
  return v;
}

// Edges grouped by a key (destination or source row): the edges of key k are
// order[ptr[k] .. ptr[k + 1]), in edge order (a stable counting sort).
struct Groups {
  std::vector<int64_t> ptr, order;
};

Groups group_by(const std::vector<int64_t>& key, int64_t n) {
  Groups g;
  g.ptr.assign(n + 1, 0);
  for (int64_t k : key) ++g.ptr[k + 1];
  for (int64_t i = 0; i < n; ++i) g.ptr[i + 1] += g.ptr[i];
  g.order.resize(key.size());
  std::vector<int64_t> next(g.ptr.begin(), g.ptr.end() - 1);
  for (size_t e = 0; e < key.size(); ++e) g.order[next[key[e]]++] = static_cast<int64_t>(e);
  return g;
}

Shape features(const Tensor& t) { return Shape(t.shape().begin() + 1, t.shape().end()); }

// How element f of a message row reads one operand's row: the same position (no
// broadcasting), its one value (a value per edge or node broadcast over the features), or an
// offset table (any other broadcasting).
struct Operand {
  enum Mode { Same, Scalar, Table } mode = Same;
  int64_t row = 1;              // elements in one row of the operand
  std::vector<int64_t> table;  // Table: the offset of element f

  template <typename T, typename C>
  void gather(const T* r, int64_t n, C* out) const {
    if (mode == Same) {
      for (int64_t f = 0; f < n; ++f) out[f] = static_cast<C>(r[f]);
    } else if (mode == Scalar) {
      std::fill(out, out + n, static_cast<C>(r[0]));
    } else {
      for (int64_t f = 0; f < n; ++f) out[f] = static_cast<C>(r[table[f]]);
    }
  }
  // acc (one row of the operand's gradient) += v (a message row), summed where broadcast.
  template <typename C>
  void scatter_add(const C* v, int64_t n, C* acc) const {
    if (mode == Same) {
      for (int64_t f = 0; f < n; ++f) acc[f] += v[f];
    } else if (mode == Scalar) {
      C s = 0;
      for (int64_t f = 0; f < n; ++f) s += v[f];
      acc[0] += s;
    } else {
      for (int64_t f = 0; f < n; ++f) acc[table[f]] += v[f];
    }
  }
};

// Offsets in a row-major `from` (aligned right within `to`, dims of 1 repeated) of every
// element of `to`.
std::vector<int64_t> broadcast_offsets(const Shape& from, const Shape& to) {
  const int64_t r = static_cast<int64_t>(to.size()), pad = r - static_cast<int64_t>(from.size());
  std::vector<int64_t> stride(r, 0);
  int64_t s = 1;
  for (int64_t d = r - 1; d >= pad; --d) {
    stride[d] = from[d - pad] == 1 ? 0 : s;
    s *= from[d - pad];
  }
  std::vector<int64_t> off(numel_of(to)), idx(r, 0);
  for (int64_t& o : off) {
    o = 0;
    for (int64_t d = 0; d < r; ++d) o += idx[d] * stride[d];
    for (int64_t d = r - 1; d >= 0 && ++idx[d] == to[d]; --d) idx[d] = 0;
  }
  return off;
}

Operand operand(const Shape& from, const Shape& to) {
  Operand o;
  o.row = numel_of(from);
  if (from == to) return o;
  if (o.row == 1) {
    o.mode = Operand::Scalar;
    return o;
  }
  o.mode = Operand::Table;
  o.table = broadcast_offsets(from, to);
  return o;
}

// A message row: n elements, reading x's and y's rows as described.
struct FeatureMap {
  int64_t n = 1;
  Operand x, y;
};

FeatureMap feature_map(const char* op, const Tensor& x, const Tensor& y) {
  FeatureMap m;
  const Shape fx = features(x);
  const Shape fo = y.defined() ? broadcast_shapes(fx, features(y), op) : fx;
  m.n = numel_of(fo);
  m.x = operand(fx, fo);
  if (y.defined()) m.y = operand(features(y), fo);
  return m;
}

// Per-thread rows: the operands and the message of one edge.
template <typename C>
struct RowBuffers {
  explicit RowBuffers(int64_t n) : a(n), b(n), msg(n) {}
  std::vector<C> a, b, msg;
};

// msg = message(x row, y row) for one edge (buf.a and buf.b keep the operands).
template <typename T, Message M>
const compute_t<T>* message_row(const T* xr, const T* yr, const FeatureMap& fm, RowBuffers<compute_t<T>>& buf) {
  using C = compute_t<T>;
  fm.x.gather(xr, fm.n, buf.a.data());
  if constexpr (M == Message::Copy) {
    return buf.a.data();
  } else {
    fm.y.gather(yr, fm.n, buf.b.data());
    C* msg = buf.msg.data();
    for (int64_t f = 0; f < fm.n; ++f) msg[f] = combine<M, C>(buf.a[f], buf.b[f]);
    return msg;
  }
}

// Output rows [0, n_out): each reduces the messages of its edges.
template <typename T, Message M>
void reduce_rows(const T* x, const T* y, const std::vector<int64_t>& src, const Groups& g,
                 const FeatureMap& fm, Reduce r, T* out, int32_t* count, int64_t n_out) {
  using C = compute_t<T>;
  const int64_t F = fm.n;
  const int64_t edges = static_cast<int64_t>(g.order.size());
  const int64_t per_row = std::max<int64_t>(1, F * (1 + edges / std::max<int64_t>(n_out, 1)));
  parallel_for(0, n_out, std::max<int64_t>(1, 16384 / per_row), [&](int64_t b, int64_t e) {
    std::vector<C> acc(F);
    RowBuffers<C> buf(F);
    for (int64_t d = b; d < e; ++d) {
      const int64_t lo = g.ptr[d], hi = g.ptr[d + 1];
      count[d] = static_cast<int32_t>(hi - lo);
      T* o = out + d * F;
      if (lo == hi) {
        std::fill(o, o + F, T(0));
        continue;
      }
      for (int64_t k = lo; k < hi; ++k) {
        const int64_t edge = g.order[k];
        const C* msg = message_row<T, M>(x + (src.empty() ? edge : src[edge]) * fm.x.row,
                                         M == Message::Copy ? nullptr : y + edge * fm.y.row, fm, buf);
        if (k == lo) std::copy(msg, msg + F, acc.begin());
        else if (r == Reduce::Sum || r == Reduce::Mean)
          for (int64_t f = 0; f < F; ++f) acc[f] = wrap(acc[f], msg[f], '+');
        else if (r == Reduce::Max)
          for (int64_t f = 0; f < F; ++f) acc[f] = std::max(acc[f], msg[f]);
        else
          for (int64_t f = 0; f < F; ++f) acc[f] = std::min(acc[f], msg[f]);
      }
      if (r == Reduce::Mean)
        for (int64_t f = 0; f < F; ++f) acc[f] /= static_cast<C>(hi - lo);
      for (int64_t f = 0; f < F; ++f) o[f] = static_cast<T>(acc[f]);
    }
  });
}

// What the gradient kernels share: the inputs, and the gradient reaching each message.
template <typename T, Message M>
struct GradInputs {
  using C = compute_t<T>;
  const T *x, *y, *out, *grad;
  const int32_t* count;
  const std::vector<int64_t> &src, &dst;
  const FeatureMap& fm;
  Reduce r;

  const T* x_row(int64_t e) const { return x + (src.empty() ? e : src[e]) * fm.x.row; }
  const T* y_row(int64_t e) const { return M == Message::Copy ? nullptr : y + e * fm.y.row; }

  // ge = the gradient reaching edge e's message: grad of its destination row (divided by the
  // row's edge count for mean; for max and min only where the message is the row's result).
  // Leaves edge e's operands in buf.a (x) and buf.b (y).
  void edge_grad(int64_t e, RowBuffers<C>& buf, C* ge) const {
    const int64_t d = dst[e], n = fm.n;
    const T* g = grad + d * n;
    const C scale = r == Reduce::Mean ? C(1) / static_cast<C>(count[d]) : C(1);
    const C* msg = message_row<T, M>(x_row(e), y_row(e), fm, buf);
    for (int64_t f = 0; f < n; ++f) ge[f] = static_cast<C>(g[f]) * scale;
    if (r == Reduce::Max || r == Reduce::Min) {
      const T* o = out + d * n;
      for (int64_t f = 0; f < n; ++f)
        if (static_cast<C>(static_cast<T>(msg[f])) != static_cast<C>(o[f])) ge[f] = C(0);
    }
  }
};

// dx, one source row per task: the gradients of the messages its edges sent.
template <typename T, Message M>
void grad_x_rows(const GradInputs<T, M>& in, const Groups& by_src, int64_t n_x, T* dx) {
  using C = compute_t<T>;
  const FeatureMap& fm = in.fm;
  const int64_t edges = static_cast<int64_t>(in.dst.size());
  const int64_t per_row = std::max<int64_t>(1, fm.n * (1 + edges / std::max<int64_t>(n_x, 1)));
  parallel_for(0, n_x, std::max<int64_t>(1, 16384 / per_row), [&](int64_t b, int64_t e) {
    std::vector<C> acc(fm.x.row), ge(fm.n);
    RowBuffers<C> buf(fm.n);
    for (int64_t s = b; s < e; ++s) {
      std::fill(acc.begin(), acc.end(), C(0));
      const bool identity = in.src.empty();  // segments: row s sent edge s only
      const int64_t lo = identity ? s : by_src.ptr[s], hi = identity ? s + 1 : by_src.ptr[s + 1];
      for (int64_t k = lo; k < hi; ++k) {
        in.edge_grad(identity ? k : by_src.order[k], buf, ge.data());
        if constexpr (M == Message::Mul)
          for (int64_t f = 0; f < fm.n; ++f) ge[f] *= buf.b[f];
        if constexpr (M == Message::Div)
          for (int64_t f = 0; f < fm.n; ++f) ge[f] /= buf.b[f];
        fm.x.scatter_add(ge.data(), fm.n, acc.data());
      }
      for (int64_t i = 0; i < fm.x.row; ++i) dx[s * fm.x.row + i] = static_cast<T>(acc[i]);
    }
  });
}

// dy, one edge per task.
template <typename T, Message M>
void grad_y_rows(const GradInputs<T, M>& in, T* dy) {
  using C = compute_t<T>;
  const FeatureMap& fm = in.fm;
  const int64_t edges = static_cast<int64_t>(in.dst.size());
  parallel_for(0, edges, std::max<int64_t>(1, 16384 / std::max<int64_t>(fm.n, 1)), [&](int64_t b, int64_t e) {
    std::vector<C> acc(fm.y.row), ge(fm.n);
    RowBuffers<C> buf(fm.n);
    for (int64_t edge = b; edge < e; ++edge) {
      std::fill(acc.begin(), acc.end(), C(0));
      in.edge_grad(edge, buf, ge.data());
      for (int64_t f = 0; f < fm.n; ++f) {
        if constexpr (M == Message::Sub) ge[f] = -ge[f];
        if constexpr (M == Message::Mul) ge[f] *= buf.a[f];
        if constexpr (M == Message::Div) ge[f] = -ge[f] * buf.a[f] / (buf.b[f] * buf.b[f]);
      }
      fm.y.scatter_add(ge.data(), fm.n, acc.data());
      for (int64_t i = 0; i < fm.y.row; ++i) dy[edge * fm.y.row + i] = static_cast<T>(acc[i]);
    }
  });
}

// The kernels read rows by these shapes, whoever calls them (a program file may call the
// gradients with anything): every shape is checked before a row is read.
void check_shapes(const char* op, const Tensor& x, const Tensor& y, const Tensor& src, const Tensor& dst,
                  const Tensor& out, const Tensor& count) {
  OAR_ENFORCE_ARG(x.ndim() >= 1 && dst.ndim() == 1, op, ": x must be at least 1-D and dst_index 1-D");
  const int64_t edges = dst.numel();
  OAR_ENFORCE_ARG(edges <= std::numeric_limits<int32_t>::max(), op, ": at most 2^31 - 1 edges, got ", edges);
  OAR_ENFORCE_ARG(src.defined() ? src.ndim() == 1 && src.numel() == edges : x.shape()[0] == edges, op,
                  ": src_index and dst_index should have the same shape (one entry per edge)");
  OAR_ENFORCE_ARG(!y.defined() || (y.ndim() >= 1 && y.shape()[0] == edges && y.dtype() == x.dtype()), op, ": y must have one row per edge (",
                  edges, ")");
  Shape f = y.defined() ? broadcast_shapes(features(x), features(y), op) : features(x);
  f.insert(f.begin(), out.ndim() >= 1 ? out.shape()[0] : -1);
  OAR_ENFORCE_ARG(out.shape() == f && out.dtype() == x.dtype(), op, ": the result must be ", shape_str(f), " ",
                  dtype_name(x.dtype()), ", got ", shape_str(out.shape()), " ", dtype_name(out.dtype()));
  OAR_ENFORCE_ARG(count.dtype() == DType::Int32 && count.ndim() == 1 && count.numel() == f[0], op,
                  ": the edge counts must be int32 [", f[0], "]");
}

}  // namespace

void graph_send_recv(const Tensor& x, const Tensor& y, const Tensor& src, const Tensor& dst,
                     const std::string& message, const std::string& reduce, const Tensor& out,
                     const Tensor& count) {
  const char* op = op_name(src, y);
  const Message m = parse_message(op, message, y.defined());
  const Reduce r = parse_reduce(op, reduce);
  check_shapes(op, x, y, src, dst, out, count);
  const int64_t n_out = out.shape()[0];
  const std::vector<int64_t> d = read_ids(op, src.defined() ? "dst_index" : "segment_ids", dst, n_out);
  const std::vector<int64_t> s = src.defined() ? read_ids(op, "src_index", src, x.shape()[0]) : std::vector<int64_t>{};
  const FeatureMap fm = feature_map(op, x, y);
  const Groups g = group_by(d, n_out);
  const Tensor xc = x.contiguous(), yc = y.defined() ? y.contiguous() : Tensor();
  dispatch_graph(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    with_message(m, [&](auto mc) {
      reduce_rows<T, decltype(mc)::value>(xc.data<T>(), yc.defined() ? yc.data<T>() : nullptr, s, g, fm, r,
                                          out.data<T>(), count.data<int32_t>(), n_out);
    });
  });
}

void graph_send_recv_grad(const Tensor& x, const Tensor& y, const Tensor& src, const Tensor& dst,
                          const Tensor& out, const Tensor& count, const Tensor& grad,
                          const std::string& message, const std::string& reduce, const Tensor& dx,
                          const Tensor& dy) {
  const char* op = op_name(src, y);
  const Message m = parse_message(op, message, y.defined());
  const Reduce r = parse_reduce(op, reduce);
  check_shapes(op, x, y, src, dst, out, count);
  OAR_ENFORCE_ARG(grad.shape() == out.shape() && grad.dtype() == out.dtype(), op, ": the gradient must be ",
                  shape_str(out.shape()), " ", dtype_name(out.dtype()), ", got ", shape_str(grad.shape()));
  OAR_ENFORCE_ARG(!dx.defined() || (dx.shape() == x.shape() && dx.dtype() == x.dtype()), op, ": bad dx");
  OAR_ENFORCE_ARG(!dy.defined() || (y.defined() && dy.shape() == y.shape() && dy.dtype() == y.dtype()), op,
                  ": bad dy");
  const int64_t n_out = out.shape()[0], n_x = x.shape()[0];
  const std::vector<int64_t> d = read_ids(op, src.defined() ? "dst_index" : "segment_ids", dst, n_out);
  const std::vector<int64_t> s = src.defined() ? read_ids(op, "src_index", src, n_x) : std::vector<int64_t>{};
  const FeatureMap fm = feature_map(op, x, y);
  const Tensor xc = x.contiguous(), yc = y.defined() ? y.contiguous() : Tensor();
  const Tensor oc = out.contiguous(), gc = grad.contiguous(), cc = count.contiguous();
  dispatch_floating(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    with_message(m, [&](auto mc) {
      constexpr Message M = decltype(mc)::value;
      const GradInputs<T, M> in{xc.data<T>(), yc.defined() ? yc.data<T>() : nullptr, oc.data<T>(), gc.data<T>(),
                                cc.data<int32_t>(), s, d, fm, r};
      if (dx.defined()) grad_x_rows<T, M>(in, src.defined() ? group_by(s, n_x) : Groups{}, n_x, dx.data<T>());
      if (dy.defined() && M != Message::Copy) grad_y_rows<T, M>(in, dy.data<T>());
    });
  });
}

std::pair<Tensor, Tensor> segment_pool(const Tensor& data, const Tensor& segment_ids,
                                       const std::string& pooltype) {
  const char* op = "segment_pool";
  OAR_ENFORCE_ARG(data.ndim() >= 1, op, ": argument 'data' must be at least 1-D, got a 0-D tensor");
  OAR_ENFORCE_ARG(segment_ids.ndim() == 1, op, ": argument 'segment_ids' must be 1-D, got shape ",
                  shape_str(segment_ids.shape()));
  OAR_ENFORCE_ARG(segment_ids.numel() == data.shape()[0], op, ": segment_ids should be the same size as ",
                  "dimension 0 of data, got ", segment_ids.numel(), " ids for ", data.shape()[0], " rows");
  const std::vector<int64_t> ids = read_ids(op, "segment_ids", segment_ids, std::numeric_limits<int64_t>::max());
  for (size_t i = 1; i < ids.size(); ++i)
    OAR_ENFORCE_ARG(ids[i] >= ids[i - 1], op, ": the segment ids should be sorted, but got segment_ids[", i - 1,
                    "] = ", ids[i - 1], " > segment_ids[", i, "] = ", ids[i]);
  Shape shape = data.shape();
  shape[0] = ids.empty() ? 0 : ids.back() + 1;
  Tensor out = Tensor::make(shape, data.dtype());
  Tensor count = Tensor::make({shape[0]}, DType::Int32);
  graph_send_recv(data, Tensor(), Tensor(), segment_ids, "copy", pooltype, out, count);
  return {out, count};
}

void graph_send_uv(const Tensor& x, const Tensor& y, const Tensor& src, const Tensor& dst,
                   const std::string& message, const Tensor& out) {
  const char* op = "send_uv";
  const Message m = parse_message(op, message, true);
  OAR_ENFORCE_ARG(x.ndim() >= 1 && y.ndim() >= 1 && y.dtype() == x.dtype() && out.dtype() == x.dtype() &&
                      src.ndim() == 1 && dst.numel() == src.numel() && out.ndim() >= 1 &&
                      out.shape()[0] == src.numel() &&
                      out.numel() == src.numel() * numel_of(broadcast_shapes(features(x), features(y), op)),
                  op, ": x and y must be at least 1-D of one dtype, src_index and dst_index 1-D of one length, ",
                  "the result one row per edge");
  const std::vector<int64_t> s = read_ids(op, "src_index", src, x.shape()[0]);
  const std::vector<int64_t> d = read_ids(op, "dst_index", dst, y.shape()[0]);
  const FeatureMap fm = feature_map(op, x, y);
  const Tensor xc = x.contiguous(), yc = y.contiguous();
  dispatch_graph(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    with_message(m, [&](auto mc) {
      constexpr Message M = decltype(mc)::value;
      const T *xp = xc.data<T>(), *yp = yc.data<T>();
      T* o = out.data<T>();
      parallel_for(0, static_cast<int64_t>(s.size()), std::max<int64_t>(1, 16384 / std::max<int64_t>(fm.n, 1)),
                   [&](int64_t b, int64_t e) {
                     RowBuffers<C> buf(fm.n);
                     for (int64_t edge = b; edge < e; ++edge) {
                       const C* msg = message_row<T, M>(xp + s[edge] * fm.x.row, yp + d[edge] * fm.y.row, fm, buf);
                       for (int64_t f = 0; f < fm.n; ++f) o[edge * fm.n + f] = static_cast<T>(msg[f]);
                     }
                   });
    });
  });
}

}  // namespace oar::kernels
