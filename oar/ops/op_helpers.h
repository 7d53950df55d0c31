// Pieces shared by generated op code, infer_meta functions and backward formulas.
#pragma once
#include <string>
#include <vector>

#include "oar/core/int_array.h"
#include "oar/core/tensor.h"
#include "oar/ops/infer_meta/meta.h"

namespace oar {

// Sums `grad` over the dimensions that were broadcast to reach it, giving `shape`. Backward
// formulas pass an input's shape(), so the node keeps only that shape, not the input.
Tensor reduce_to_shape(const Tensor& grad, const Shape& shape);

// Writes `result` into `self`'s memory (same shape), bumps the version counter and makes
// `result`'s history the history of `self`.
void assign_inplace(Tensor& self, const Tensor& result);
// Makes `self` the tensor `view` (its dtype, shape/strides/offset, storage and history) for the
// in-place ops that change geometry or dtype (reshape_, squeeze_, cast_, equal_, ...); bumps the
// version so that anything saved from the old tensor for backward refuses to run.
void assign_view_inplace(Tensor& self, const Tensor& view);

// True when `t` is the only handle on its memory (one Tensor, one TensorImpl on a Storage the
// allocator owns, contiguous) and autograd does not record it: writing it in place cannot be seen
// by anyone else. Composites use it for temporaries, the executor for values that die at an op.
bool is_exclusive_temporary(const Tensor& t);
// fused_activation(t, activation) for a temporary the caller owns and will not read again: the
// activation overwrites t when it is exclusive (no second buffer), else a new tensor.
Tensor activate_temporary(Tensor t, const std::string& activation);

// act(op(x) @ op(y) + bias) in one output buffer, for float32 operands, a 1-D bias of the
// result's last dim and no gradient to record: the rows start as the bias, the GEMM accumulates
// onto them, the activation runs in place. Undefined when that does not apply (the caller then
// composes the ops).
Tensor matmul_bias_act_direct(const Tensor& x, const Tensor& y, const Tensor& bias, bool transpose_x,
                              bool transpose_y, const std::string& activation);

// Normalises a list of axes against rank (negatives counted from the end); empty means all
// when `empty_is_all`. Throws on out-of-range or repeated axes.
std::vector<int64_t> normalize_axes(const IntArray& axes, int64_t rank, const char* op,
                                    bool empty_is_all = true);

// Scalar as a 0-D tensor of the given dtype.
Tensor scalar_tensor(const Scalar& s, DType dtype);
// Paddle's tensor-scalar promotion: the tensor's dtype, unless an int/bool tensor meets a
// float scalar (-> default float dtype), a bool tensor an int (-> int64) or a non-complex tensor
// a complex scalar.
DType scalar_result_dtype(DType tensor_dtype, const Scalar& s);

// where(cond, grad, 0): routes a gradient through the positions where cond holds.
Tensor mask_grad(const Tensor& grad, const Tensor& cond);
// x with its last two dims swapped (a view): the batched matrix transpose.
Tensor mT(const Tensor& x);
// conj(t) for complex t, t itself otherwise: the chain rule for complex inputs multiplies the
// incoming gradient by the conjugate derivative (Paddle's convention: dL/dRe + i dL/dIm).
Tensor conj_if_complex(const Tensor& t);
Tensor scale_grad(const Tensor& grad, const Scalar& scale);

// Arithmetic operators (differentiable; tensor-scalar follows Paddle's promotion).
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor operator+(const Tensor& a, const Scalar& b);
Tensor operator-(const Tensor& a, const Scalar& b);
Tensor operator*(const Tensor& a, const Scalar& b);
Tensor operator/(const Tensor& a, const Scalar& b);
Tensor operator+(const Scalar& a, const Tensor& b);
Tensor operator-(const Scalar& a, const Tensor& b);
Tensor operator*(const Scalar& a, const Tensor& b);
Tensor operator/(const Scalar& a, const Tensor& b);

namespace autograd {
bool any_requires_grad_list(const std::vector<Tensor>& ts);
}

}  // namespace oar
