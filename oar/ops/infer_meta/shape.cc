#include "oar/ops/infer_meta/shape.h"

#include <algorithm>

namespace oar::infer_meta {

Meta shape_tensor(const char*, const Tensor& x) { return {Shape{x.ndim()}, DType::Int64}; }
Meta numel_tensor(const char*, const Tensor&) { return {Shape{}, DType::Int64}; }


// ---------------------------------------------------------------------------------------------
// reshape family

// Paddle's target shape: -1 is inferred, 0 copies the input dim at that index. A zero-size input
// (Paddle 3.x) reads 0 as a literal zero instead and, when 'shape' holds one, infers -1 from the
// non-zero dims of both sides ([0, 5] -> [-1, 0] is [5, 0]; [0, 3] -> [-1, 3] is [0, 3]).
Shape reshape_target(const char* op, const Shape& in, const IntArray& shape) {
  const int64_t numel = numel_of(in);
  const bool zero_size = numel == 0;
  Shape out(shape.size());
  int64_t unknown = -1, capacity = 1, nonzero_capacity = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    const int64_t v = shape[i];
    if (v == -1) {
      OAR_ENFORCE_ARG(unknown < 0, op, ": Only one dimension value of 'shape' can be -1. But ",
                      "received shape = ", shape_str(shape), ", shape[", unknown, "] and shape[", i,
                      "] are both -1.");
      unknown = static_cast<int64_t>(i);
      continue;
    }
    if (v == 0 && !zero_size) {
      OAR_ENFORCE_ARG(i < in.size(), op, ": The index of 0 in 'shape' must be less than the input ",
                      "tensor X's dimensions (0 copies the input dim at that index). But received ",
                      "shape = ", shape_str(shape), ", shape[", i, "] = 0, X's shape = ",
                      shape_str(in), ".");
      out[i] = in[i];
    } else {
      OAR_ENFORCE_ARG(v >= 0, op, ": Each dimension value of 'shape' must not be negative except ",
                      "one unknown dimension (-1). But received shape = ", shape_str(shape),
                      ", shape[", i, "] = ", v, ".");
      out[i] = v;
    }
    capacity *= out[i];
    if (out[i] != 0) nonzero_capacity *= out[i];
  }
  if (unknown >= 0) {
    // A zero-size input with a literal 0 in 'shape': the non-zero dims of both sides decide -1.
    int64_t known = capacity, size = numel;
    if (zero_size && capacity == 0) {
      known = nonzero_capacity;
      size = 1;
      for (int64_t d : in)
        if (d != 0) size *= d;
    }
    OAR_ENFORCE_ARG(known != 0 && size % known == 0, op, ": The 'shape' is invalid. The ",
                    "input tensor X's size must be divisible by known capacity of 'shape'. But ",
                    "received X's shape = ", shape_str(in), ", X's size = ", numel, ", 'shape' is ",
                    shape_str(shape), ", known capacity of 'shape' is ", capacity, ".");
    out[unknown] = size / known;
  } else {
    OAR_ENFORCE_ARG(capacity == numel, op, ": The 'shape' is invalid. The input tensor X's size ",
                    "must be equal to the capacity of 'shape'. But received X's shape = ",
                    shape_str(in), ", X's size = ", numel, ", 'shape' is ", shape_str(shape),
                    ", the capacity of 'shape' is ", capacity, ".");
  }
  return out;
}

Meta reshape(const char* op, const Tensor& x, const IntArray& shape) {
  return {reshape_target(op, x.shape(), shape), x.dtype()};
}

Meta reshape_exact(const char* op, const Tensor& x, const IntArray& shape) {
  int64_t capacity = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    OAR_ENFORCE_ARG(shape[i] >= 0, op, ": every dimension of 'shape' must be >= 0, but received ",
                    "shape = ", shape_str(shape), ", shape[", i, "] = ", shape[i], ".");
    capacity *= shape[i];
  }
  OAR_ENFORCE_ARG(capacity == x.numel(), op, ": The 'shape' is invalid. The input tensor X's size ",
                  "must be equal to the capacity of 'shape'. But received X's shape = ",
                  shape_str(x.shape()), ", X's size = ", x.numel(), ", 'shape' is ",
                  shape_str(shape), ", the capacity of 'shape' is ", capacity, ".");
  return {Shape(shape.begin(), shape.end()), x.dtype()};
}

Meta squeeze(const char* op, const Tensor& x, const IntArray& axis) {
  const int64_t rank = x.ndim();
  std::vector<bool> drop(rank, false);
  if (axis.empty()) {
    for (int64_t d = 0; d < rank; ++d) drop[d] = x.shape()[d] == 1;
  } else {
    for (int64_t a : axis) {
      const int64_t d = normalize_axis(a, rank, op, "axis");
      if (rank > 0 && x.shape()[d] == 1) drop[d] = true;  // non-1 dims are left alone (Paddle)
    }
  }
  Shape out;
  for (int64_t d = 0; d < rank; ++d)
    if (!drop[d]) out.push_back(x.shape()[d]);
  return {out, x.dtype()};
}

Meta unsqueeze(const char* op, const Tensor& x, const IntArray& axis) {
  Shape out = x.shape();
  for (size_t i = 0; i < axis.size(); ++i) {
    const int64_t cur = static_cast<int64_t>(out.size());
    const int64_t a = axis[i];
    OAR_ENFORCE_ARG(a >= -(cur + 1) && a <= cur, op, ": argument 'axis' should be in the range [",
                    -(cur + 1), ", ", cur + 1, ") when inserting into a tensor of rank ", cur,
                    ", but received axis[", i, "] = ", a, " (x's shape = ", shape_str(x.shape()),
                    ", axis = ", shape_str(axis), ").");
    const int64_t pos = a < 0 ? a + cur + 1 : a;
    out.insert(out.begin() + pos, 1);
  }
  return {out, x.dtype()};
}

IntArray unsqueeze_grad_shape(const Shape& out_shape, const IntArray& axis) {
  // Replay the insertions (already validated by the forward) to find where the new dims went.
  const int64_t rank = static_cast<int64_t>(out_shape.size());
  std::vector<bool> inserted(std::max<int64_t>(rank - static_cast<int64_t>(axis.size()), 0), false);
  for (int64_t a : axis) {
    const int64_t cur = static_cast<int64_t>(inserted.size());
    inserted.insert(inserted.begin() + (a < 0 ? a + cur + 1 : a), true);
  }
  IntArray out;
  for (int64_t d = 0; d < rank; ++d)
    if (!inserted[d]) out.push_back(out_shape[d]);
  return out;
}

Meta flatten(const char* op, const Tensor& x, int64_t start_axis, int64_t stop_axis) {
  const int64_t rank = x.ndim();
  const int64_t s = normalize_axis(start_axis, rank, op, "start_axis");
  const int64_t e = normalize_axis(stop_axis, rank, op, "stop_axis");
  if (rank == 0) return {Shape{1}, x.dtype()};
  OAR_ENFORCE_ARG(s <= e, op, ": The stop_axis should be greater than or equal to start_axis. ",
                  "But received start_axis = ", start_axis, ", stop_axis = ", stop_axis,
                  " for x's shape = ", shape_str(x.shape()), ".");
  Shape out(x.shape().begin(), x.shape().begin() + s);
  int64_t merged = 1;
  for (int64_t d = s; d <= e; ++d) merged *= x.shape()[d];
  out.push_back(merged);
  out.insert(out.end(), x.shape().begin() + e + 1, x.shape().end());
  return {out, x.dtype()};
}

// ---------------------------------------------------------------------------------------------
// transpose

std::vector<int64_t> transpose_perm(const char* op, const Tensor& x, const IntArray& perm) {
  const int64_t rank = x.ndim();
  OAR_ENFORCE_ARG(static_cast<int64_t>(perm.size()) == rank, op, ": The input tensor's dimension ",
                  "should be equal to the length of 'perm' (axis). But received x's shape = ",
                  shape_str(x.shape()), " (dimension ", rank, "), perm = ", shape_str(perm),
                  " (length ", perm.size(), ").");
  std::vector<int64_t> out(rank);
  std::vector<bool> seen(rank, false);
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t p = perm[i];
    OAR_ENFORCE_ARG(p >= -rank && p < rank, op, ": Each element of 'perm' (axis) should be in the ",
                    "range [", -rank, ", ", rank, "). But received perm[", i, "] = ", p,
                    " (perm = ", shape_str(perm), ", x's shape = ", shape_str(x.shape()), ").");
    const int64_t n = p < 0 ? p + rank : p;
    OAR_ENFORCE_ARG(!seen[n], op, ": Each element of 'perm' (axis) should be unique, but ",
                    "received perm = ", shape_str(perm), " which names dimension ", n, " twice.");
    seen[n] = true;
    out[i] = n;
  }
  return out;
}

IntArray inverse_perm(const IntArray& perm) {
  const int64_t rank = static_cast<int64_t>(perm.size());
  IntArray inv(std::vector<int64_t>(rank, 0));
  for (int64_t i = 0; i < rank; ++i) inv[perm[i] < 0 ? perm[i] + rank : perm[i]] = i;
  return inv;
}

// ---------------------------------------------------------------------------------------------
// expand

Meta expand(const char* op, const Tensor& x, const IntArray& shape) {
  const int64_t rank = x.ndim(), n = static_cast<int64_t>(shape.size());
  OAR_ENFORCE_ARG(n >= rank, op, ": The number of elements (", n, ") of 'shape' must be greater ",
                  "than or equal to the rank (", rank, ") of the input 'x'. But received x's ",
                  "shape = ", shape_str(x.shape()), ", shape = ", shape_str(shape), ".");
  const int64_t lead = n - rank;
  Shape out(n);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = shape[i];
    OAR_ENFORCE_ARG(v >= -1, op, ": The expanded size cannot be less than -1, but received shape[",
                    i, "] = ", v, " (shape = ", shape_str(shape), ").");
    if (i < lead) {
      OAR_ENFORCE_ARG(v >= 0, op, ": The expanded size (", v, ") for a new leading dimension must ",
                      "be non-negative, but received shape = ", shape_str(shape), " for x's shape = ",
                      shape_str(x.shape()), ".");
      out[i] = v;
      continue;
    }
    const int64_t xd = x.shape()[i - lead];
    if (v == -1) {
      out[i] = xd;
    } else {
      OAR_ENFORCE_ARG(xd == 1 || xd == v, op, ": The value (", xd, ") of the non-singleton ",
                      "dimension does not match the corresponding value (", v, ") in shape. ",
                      "But received x's shape = ", shape_str(x.shape()), ", shape = ",
                      shape_str(shape), ".");
      out[i] = v;
    }
  }
  return {out, x.dtype()};
}

// ---------------------------------------------------------------------------------------------
// slicing

namespace {

SlicePlan full_plan(const Shape& in) {
  SlicePlan plan;
  plan.shape = in;
  plan.start.assign(in.size(), 0);
  plan.step.assign(in.size(), 1);
  return plan;
}

// The normalised axes of a slice (checked for range and repeats) and the length check.
std::vector<int64_t> slice_axes(const char* op, const Shape& in, const IntArray& axes,
                                const IntArray& starts, const IntArray& ends,
                                const IntArray* strides) {
  OAR_ENFORCE_ARG(starts.size() == axes.size() && ends.size() == axes.size() &&
                      (!strides || strides->size() == axes.size()),
                  op, ": the lengths of 'axes', 'starts', 'ends'", strides ? " and 'strides'" : "",
                  " must be equal. But received axes = ", shape_str(axes), ", starts = ",
                  shape_str(starts), ", ends = ", shape_str(ends),
                  strides ? ", strides = " : "", strides ? shape_str(*strides) : "", ".");
  const int64_t rank = static_cast<int64_t>(in.size());
  OAR_ENFORCE_ARG(rank > 0 || axes.empty(), op, ": cannot slice a 0-D tensor (axes = ",
                  shape_str(axes), ").");
  std::vector<int64_t> out;
  for (int64_t a : axes) {
    const int64_t d = normalize_axis(a, rank, op, "axes");
    OAR_ENFORCE_ARG(std::find(out.begin(), out.end(), d) == out.end(), op,
                    ": argument 'axes' names dimension ", d, " more than once (axes = ",
                    shape_str(axes), ").");
    out.push_back(d);
  }
  return out;
}

}  // namespace

SlicePlan slice(const char* op, const Shape& in, const IntArray& axes,
                         const IntArray& starts, const IntArray& ends) {
  const std::vector<int64_t> ax = slice_axes(op, in, axes, starts, ends, nullptr);
  SlicePlan plan = full_plan(in);
  for (size_t i = 0; i < ax.size(); ++i) {
    const int64_t n = in[ax[i]];
    int64_t s = starts[i] < 0 ? starts[i] + n : starts[i];
    int64_t e = ends[i] < 0 ? ends[i] + n : ends[i];
    s = std::clamp<int64_t>(s, 0, n);
    e = std::clamp<int64_t>(e, 0, n);
    plan.start[ax[i]] = s;
    plan.shape[ax[i]] = std::max<int64_t>(e - s, 0);
  }
  return plan;
}

SlicePlan strided_slice(const char* op, const Shape& in, const IntArray& axes,
                                 const IntArray& starts, const IntArray& ends,
                                 const IntArray& strides) {
  const std::vector<int64_t> ax = slice_axes(op, in, axes, starts, ends, &strides);
  SlicePlan plan = full_plan(in);
  for (size_t i = 0; i < ax.size(); ++i) {
    const int64_t n = in[ax[i]], step = strides[i];
    OAR_ENFORCE_ARG(step != 0, op, ": 'strides' must not contain 0, but received strides = ",
                    shape_str(strides), ".");
    int64_t s = starts[i], e = ends[i], size = 0;
    if (step > 0) {
      s = std::clamp<int64_t>(s < 0 ? s + n : s, 0, n);
      e = std::clamp<int64_t>(e < 0 ? e + n : e, 0, n);
      size = e > s ? (e - s - 1) / step + 1 : 0;
    } else {
      // Walks down from s (at most n - 1) to just above e; e == -1 means "through index 0".
      s = std::clamp<int64_t>(s < 0 ? s + n : s, -1, n - 1);
      if (e != -1) e = std::clamp<int64_t>(e < 0 ? e + n : e, -1, n - 1);
      size = s > e ? (s - e - 1) / (-step) + 1 : 0;
    }
    plan.start[ax[i]] = size > 0 ? s : 0;
    plan.step[ax[i]] = step;
    plan.shape[ax[i]] = size;
  }
  return plan;
}

namespace {
Meta scatter_meta(const char* op, const Tensor& out_grad, const IntArray& input_shape,
                  const SlicePlan& plan) {
  OAR_ENFORCE_ARG(out_grad.shape() == plan.shape, op, ": the gradient has shape ",
                  shape_str(out_grad.shape()), " but the slice of an input of shape ",
                  shape_str(input_shape), " has shape ", shape_str(plan.shape), ".");
  return {Shape(input_shape.begin(), input_shape.end()), out_grad.dtype()};
}
}  // namespace

Meta slice_grad(const char* op, const Tensor& out_grad, const IntArray& input_shape,
                const IntArray& axes, const IntArray& starts, const IntArray& ends) {
  return scatter_meta(op, out_grad, input_shape, slice(op, input_shape, axes, starts, ends));
}

Meta strided_slice_grad(const char* op, const Tensor& out_grad, const IntArray& input_shape,
                        const IntArray& axes, const IntArray& starts, const IntArray& ends,
                        const IntArray& strides) {
  return scatter_meta(op, out_grad, input_shape,
                      strided_slice(op, input_shape, axes, starts, ends, strides));
}

// ---------------------------------------------------------------------------------------------
// as_strided

StridedPlan as_strided(const char* op, const Tensor& x, const IntArray& shape,
                                const IntArray& stride, int64_t offset) {
  OAR_ENFORCE_ARG(shape.size() == stride.size(), op, ": 'shape' and 'stride' must have the same "
                  "length, but got shape ", shape_str(Shape(shape.begin(), shape.end())), " and ",
                  stride.size(), " strides.");
  OAR_ENFORCE_ARG(offset >= 0, op, ": 'offset' must be non-negative, but got ", offset, ".");
  int64_t last = offset;  // the storage position of the last element
  for (size_t d = 0; d < shape.size(); ++d) {
    OAR_ENFORCE_ARG(shape[d] >= 0, op, ": every dim of 'shape' must be >= 0, but got ",
                    shape_str(Shape(shape.begin(), shape.end())), ".");
    OAR_ENFORCE_ARG(stride[d] >= 0, op, ": every entry of 'stride' must be >= 0, but stride[", d,
                    "] is ", stride[d], ".");
    if (shape[d] > 0) last = checked_add(last, checked_mul(shape[d] - 1, stride[d], op, "the view's extent"), op,
                                         "the view's extent");
  }
  // A shape-only placeholder (IR type inference) has no memory: its storage is its own elements.
  const int64_t storage = x.storage()->data() != nullptr
                              ? static_cast<int64_t>(x.storage()->nbytes() / x.element_size())
                              : x.offset() + x.numel();
  const bool empty = numel_of(Shape(shape.begin(), shape.end())) == 0;
  OAR_ENFORCE_ARG(empty || last < storage, op, ": the view (shape ",
                  shape_str(Shape(shape.begin(), shape.end())), ", offset ", offset,
                  ") reaches storage element ", last, ", but x's storage holds ", storage,
                  " elements.");
  return {Shape(shape.begin(), shape.end()), Strides(stride.begin(), stride.end()), offset};
}

Meta as_strided_grad(const char* op, const Tensor& out_grad, const Tensor& x, const IntArray& shape,
                     const IntArray& stride, int64_t offset) {
  const StridedPlan plan = as_strided(op, x, shape, stride, offset);
  OAR_ENFORCE_ARG(out_grad.shape() == plan.shape, op, ": the gradient has shape ",
                  shape_str(out_grad.shape()), " but the view has shape ", shape_str(plan.shape), ".");
  return {x.shape(), out_grad.dtype()};
}

Meta as_strided_grad_adjoint(const char* op, const Tensor& x_grad, const Tensor& x,
                             const IntArray& shape, const IntArray& stride, int64_t offset) {
  const StridedPlan plan = as_strided(op, x, shape, stride, offset);
  OAR_ENFORCE_ARG(x_grad.shape() == x.shape(), op, ": the gradient has shape ", shape_str(x_grad.shape()),
                  " but x has shape ", shape_str(x.shape()), ".");
  return {plan.shape, x_grad.dtype()};
}

// ---------------------------------------------------------------------------------------------
// split / unbind

namespace {
int64_t split_axis(const char* op, const Tensor& x, int64_t axis) {
  OAR_ENFORCE_ARG(x.ndim() > 0, op, ": cannot split a 0-D tensor (argument 'x' has shape []).");
  return normalize_axis(axis, x.ndim(), op, "axis");
}
}  // namespace

std::vector<int64_t> split_sections(const char* op, const Tensor& x, const IntArray& sections,
                                    int64_t axis) {
  const int64_t a = split_axis(op, x, axis);
  const int64_t dim = x.shape()[a];
  OAR_ENFORCE_ARG(!sections.empty(), op, ": 'num_or_sections' must not be empty.");
  int64_t unknown = -1, known = 0;
  for (size_t i = 0; i < sections.size(); ++i) {
    if (sections[i] == -1) {
      OAR_ENFORCE_ARG(unknown < 0, op, ": only one value of 'num_or_sections' can be -1, but ",
                      "received num_or_sections = ", shape_str(sections), ".");
      unknown = static_cast<int64_t>(i);
      continue;
    }
    OAR_ENFORCE_ARG(sections[i] >= 0, op, ": each value of 'num_or_sections' must be >= 0 ",
                    "(or a single -1), but received num_or_sections = ", shape_str(sections), ".");
    known += sections[i];
  }
  std::vector<int64_t> out(sections.begin(), sections.end());
  if (unknown >= 0) {
    OAR_ENFORCE_ARG(known <= dim, op, ": the sum of the known sizes in 'num_or_sections' (",
                    known, ") exceeds the size of x along axis ", a, ". But received ",
                    "num_or_sections = ", shape_str(sections), ", x's shape = ",
                    shape_str(x.shape()), ", axis = ", axis, ".");
    out[unknown] = dim - known;
  } else {
    OAR_ENFORCE_ARG(known == dim, op, ": The sum of 'num_or_sections' must be equal to the size ",
                    "of x along the split dimension. But received num_or_sections = ",
                    shape_str(sections), " (sum ", known, "), x's shape = ", shape_str(x.shape()),
                    ", axis = ", axis, ".");
  }
  return out;
}

IntArray split_num(const char* op, const Tensor& x, int64_t num, int64_t axis) {
  const int64_t a = split_axis(op, x, axis);
  const int64_t dim = x.shape()[a];
  OAR_ENFORCE_ARG(num > 0, op, ": the number of sections 'num_or_sections' must be a positive ",
                  "integer, but received ", num, ".");
  OAR_ENFORCE_ARG(dim % num == 0, op, ": The input's size along the split dimension must be ",
                  "evenly divisible by 'num_or_sections'. But received num_or_sections = ", num,
                  ", x's shape = ", shape_str(x.shape()), ", axis = ", axis, ".");
  // Only an empty dim splits into more parts than it has elements; each part is a tensor.
  OAR_ENFORCE(num <= std::max<int64_t>(dim, 1 << 20), ResourceExhausted, op, ": ", num,
              " sections of an empty dim are too many (at most ", 1 << 20, ")");
  return IntArray(std::vector<int64_t>(num, dim / num));
}

int64_t unbind_axis(const char* op, const Tensor& input, int64_t axis) {
  OAR_ENFORCE_ARG(input.ndim() > 0, op, ": cannot unbind a 0-D tensor (argument 'input' has ",
                  "shape []).");
  return normalize_axis(axis, input.ndim(), op, "axis");
}

// ---------------------------------------------------------------------------------------------
// concat / stack

namespace {

// Whether input i takes part in the concat: zero-size inputs are skipped when any input has
// elements (Paddle drops them before concatenating).
std::vector<bool> concat_used(const std::vector<Tensor>& x) {
  bool any = false;
  for (const Tensor& t : x) any |= t.numel() > 0;
  std::vector<bool> used(x.size());
  for (size_t i = 0; i < x.size(); ++i) used[i] = !any || x[i].numel() > 0;
  return used;
}

// Index of the first used input (after checking the list).
size_t concat_ref(const char* op, const std::vector<Tensor>& x, const std::vector<bool>& used) {
  OAR_ENFORCE_ARG(!x.empty(), op, ": argument 'x' must be a non-empty list of tensors.");
  for (size_t i = 0; i < x.size(); ++i)
    OAR_ENFORCE_ARG(x[i].defined(), op, ": input[", i, "] is not an initialised tensor.");
  const size_t ref = static_cast<size_t>(std::find(used.begin(), used.end(), true) - used.begin());
  OAR_ENFORCE_ARG(x[ref].ndim() > 0, op, ": 0-D tensors cannot be concatenated (input[", ref,
                  "] has shape []); use stack, or unsqueeze them first.");
  return ref;
}

}  // namespace

int64_t concat_axis(const char* op, const std::vector<Tensor>& x, int64_t axis) {
  const std::vector<bool> used = concat_used(x);
  const size_t ref = concat_ref(op, x, used);
  return normalize_axis(axis, x[ref].ndim(), op, "axis");
}

Meta concat(const char* op, const std::vector<Tensor>& x, int64_t axis) {
  const std::vector<bool> used = concat_used(x);
  const size_t ref = concat_ref(op, x, used);
  const Shape& rs = x[ref].shape();
  const int64_t rank = x[ref].ndim();
  const int64_t a = normalize_axis(axis, rank, op, "axis");
  Shape out = rs;
  DType dtype = x[0].dtype();
  for (size_t i = 1; i < x.size(); ++i) dtype = promote_types(dtype, x[i].dtype(), op);
  for (size_t i = 0; i < x.size(); ++i) {
    if (!used[i] || i == ref) continue;
    const Shape& s = x[i].shape();
    OAR_ENFORCE_ARG(x[i].ndim() == rank, op, ": The shape of input[", ref, "] and input[", i,
                    "] is expected to be equal. But received input[", ref, "]'s shape = ",
                    shape_str(rs), ", input[", i, "]'s shape = ", shape_str(s));
    for (int64_t d = 0; d < rank; ++d) {
      if (d == a) continue;
      OAR_ENFORCE_ARG(s[d] == rs[d], op, ": The ", d, "-th dimension of input[", ref,
                      "] and input[", i, "] is expected to be equal. But received input[", ref,
                      "]'s shape = ", shape_str(rs), ", input[", i, "]'s shape = ", shape_str(s));
    }
    out[a] += s[a];
  }
  return {out, dtype};
}

std::vector<int64_t> concat_sizes(const char* op, const std::vector<Tensor>& x, int64_t axis) {
  const std::vector<bool> used = concat_used(x);
  const size_t ref = concat_ref(op, x, used);
  const int64_t a = normalize_axis(axis, x[ref].ndim(), op, "axis");
  std::vector<int64_t> sizes(x.size(), -1);
  for (size_t i = 0; i < x.size(); ++i)
    if (used[i]) sizes[i] = x[i].shape()[a];
  return sizes;
}

int64_t stack_axis(const char* op, const std::vector<Tensor>& x, int64_t axis) {
  OAR_ENFORCE_ARG(!x.empty(), op, ": argument 'x' must be a non-empty list of tensors.");
  for (size_t i = 0; i < x.size(); ++i) {
    OAR_ENFORCE_ARG(x[i].defined(), op, ": input[", i, "] is not an initialised tensor.");
    OAR_ENFORCE_ARG(x[i].shape() == x[0].shape(), op, ": all the input tensors must have the ",
                    "same shape. But received x[0]'s shape = ", shape_str(x[0].shape()), ", x[", i,
                    "]'s shape = ", shape_str(x[i].shape()), ".");
  }
  return normalize_axis(axis, x[0].ndim() + 1, op, "axis");
}

// ---------------------------------------------------------------------------------------------
// tile

Meta tile(const char* op, const Tensor& x, const IntArray& repeat_times) {
  for (size_t i = 0; i < repeat_times.size(); ++i)
    OAR_ENFORCE_ARG(repeat_times[i] >= 0, op, ": every element of 'repeat_times' must be a ",
                    "non-negative integer, but received repeat_times = ", shape_str(repeat_times),
                    ".");
  const int64_t rank = std::max<int64_t>(x.ndim(), repeat_times.size());
  Shape out(rank);
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t xi = d - (rank - x.ndim()), ri = d - (rank - static_cast<int64_t>(repeat_times.size()));
    const int64_t xd = xi >= 0 ? x.shape()[xi] : 1, rd = ri >= 0 ? repeat_times[ri] : 1;
    out[d] = checked_mul(xd, rd, op, "the tiled size");
  }
  return {out, x.dtype()};
}

std::pair<IntArray, IntArray> tile_grad_plan(const Shape& x_shape, const IntArray& repeat_times) {
  const int64_t xr = static_cast<int64_t>(x_shape.size()), rr = static_cast<int64_t>(repeat_times.size());
  const int64_t rank = std::max(xr, rr);
  IntArray shape, axes;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t xi = d - (rank - xr), ri = d - (rank - rr);
    axes.push_back(static_cast<int64_t>(shape.size()));
    shape.push_back(ri >= 0 ? repeat_times[ri] : 1);
    shape.push_back(xi >= 0 ? x_shape[xi] : 1);
  }
  return {shape, axes};
}

// ---------------------------------------------------------------------------------------------
// flip / roll / tril / triu

std::vector<int64_t> flip_axes(const char* op, const Tensor& x, const IntArray& axis) {
  std::vector<int64_t> out;
  for (int64_t a : axis) {
    const int64_t d = normalize_axis(a, x.ndim(), op, "axis");
    OAR_ENFORCE_ARG(std::find(out.begin(), out.end(), d) == out.end(), op,
                    ": argument 'axis' names dimension ", d, " more than once (axis = ",
                    shape_str(axis), ").");
    out.push_back(d);
  }
  if (x.ndim() == 0) out.clear();  // a 0-D tensor has nothing to reverse
  return out;
}

Meta flip(const char* op, const Tensor& x, const IntArray& axis) {
  flip_axes(op, x, axis);
  return {x.shape(), x.dtype()};
}

Meta roll(const char* op, const Tensor& x, const IntArray& shifts, const IntArray& axis) {
  if (axis.empty()) {
    OAR_ENFORCE_ARG(shifts.size() == 1, op, ": when 'axis' is not given the tensor is rolled ",
                    "flattened and 'shifts' must hold exactly one value, but received shifts = ",
                    shape_str(shifts), ".");
  } else {
    OAR_ENFORCE_ARG(shifts.size() == axis.size(), op, ": 'shifts' and 'axis' must have the same ",
                    "length, but received shifts = ", shape_str(shifts), ", axis = ",
                    shape_str(axis), ".");
    for (int64_t a : axis) normalize_axis(a, x.ndim(), op, "axis");
  }
  return {x.shape(), x.dtype()};
}

Meta tril_triu(const char* op, const Tensor& x, int64_t) {
  OAR_ENFORCE_ARG(x.ndim() >= 2, op, ": argument 'x' must be at least 2-D, but received x's ",
                  "shape = ", shape_str(x.shape()), ".");
  return {x.shape(), x.dtype()};
}

Meta keep_if_all(const char* op, const Tensor& x, const Tensor& ok) {
  OAR_ENFORCE(ok.dtype() == DType::Bool, TypeMismatch, op, ": argument 'ok' must be a bool tensor, ",
              "but received dtype ", dtype_name(ok.dtype()), ".");
  return {Shape(std::max<int64_t>(x.ndim(), 1), -1), x.dtype()};
}

}  // namespace oar::infer_meta
