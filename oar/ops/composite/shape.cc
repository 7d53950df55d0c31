// Composite ops of the shape family (oar/ops/specs/shape.yaml): ops written with other ops.
// Compiled twice, eager and shape-only: see oar/ops/composite/composite.h.
#include "oar/ops/composite/composite.h"

#include "oar/ops/infer_meta/shape.h"

namespace OAR_COMPOSITE_NAMESPACE {

Tensor t(const Tensor& input) {
  OAR_ENFORCE_ARG(input.ndim() <= 2, "t: Input(input) only supports N-D (N <= 2) tensors, but ",
                  "received a tensor of shape ", shape_str(input.shape()), " (", input.ndim(),
                  "-D). Use transpose for more dimensions.");
  if (input.ndim() == 2) return transpose(input, IntArray{1, 0});
  // 0-D and 1-D tensors come back unchanged (as a view).
  return transpose(input, input.ndim() == 1 ? IntArray{0} : IntArray());
}

std::vector<Tensor> split(const Tensor& x, const IntArray& num_or_sections, int64_t axis) {
  // One value: the number of equal parts (Paddle's int form); several: section sizes.
  if (num_or_sections.size() == 1)
    return split_with_sizes(x, infer_meta::split_num("split", x, num_or_sections[0], axis), axis);
  return split_with_sizes(x, num_or_sections, axis);
}

std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t axis) {
  return split_with_sizes(x, infer_meta::split_num("chunk", x, chunks, axis), axis);
}

Tensor stack(const TensorList& x, int64_t axis) {
  const int64_t ax = infer_meta::stack_axis("stack", x, axis);
  std::vector<Tensor> parts;
  parts.reserve(x.size());
  for (const Tensor& xi : x) parts.push_back(unsqueeze(xi, IntArray{ax}));
  return concat(parts, ax);
}

}  // namespace OAR_COMPOSITE_NAMESPACE
