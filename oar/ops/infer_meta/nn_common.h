// Shape/dtype rules and argument checks for linear, dropout, embedding, one_hot and pad.
#pragma once
#include <optional>
#include <string>

#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

// x [..., in], weight [in, out], bias [out] (or undefined), one floating dtype.
void linear(const Tensor& x, const Tensor& weight, const Tensor& bias);
// Checks p in [0, 1], mode, axes; returns the mask shape (x's dims in `axis`, 1 elsewhere; x's
// shape when axis is empty).
Shape dropout(const Tensor& x, double p, const IntArray& axis, const std::string& mode);
// Checks ids/weight and returns padding_idx in [0, rows) (negative counted from the end), or -1.
int64_t embedding_padding(const Tensor& x, const Tensor& weight,
                          const std::optional<int64_t>& padding_idx, bool sparse);
Meta embedding(const char* op, const Tensor& x, const Tensor& weight, int64_t padding_idx);
Meta embedding_grad(const char* op, const Tensor& x, const Tensor& out_grad, int64_t num_weights,
                    int64_t padding_idx);
Meta one_hot(const char* op, const Tensor& x, int64_t num_classes);
Meta pad_nd(const char* op, const Tensor& x, const IntArray& pads, const std::string& mode,
            double value);
Meta pad_nd_grad(const char* op, const Tensor& out_grad, const IntArray& input_shape,
                 const IntArray& pads, const std::string& mode);

}  // namespace oar::infer_meta
