// Shape rules and argument checks for the sampling, layout and attention ops (specs/vision.yaml).
#pragma once
#include <string>
#include <vector>

#include "oar/ops/infer_meta/meta.h"

namespace oar::infer_meta {

// The spatial sizes of a channel-first shape [N, C, spatial...].
IntArray spatial_sizes(const Shape& s);

// interp: x [N, C, in...] (1 to 3 spatial dims, float), out_size one positive size per dim.
Meta interp(const char* op, const Tensor& x, const IntArray& out_size, const std::string& mode,
            bool align_corners, int64_t align_mode, double s0, double s1, double s2);
Meta interp_grad(const char* op, const Tensor& out_grad, const IntArray& input_shape,
                 const std::string& mode, bool align_corners, int64_t align_mode, double s0,
                 double s1, double s2);

// grid_sample: x [N, C, H, W] and grid [N, Ho, Wo, 2], or x [N, C, D, H, W] and grid
// [N, Do, Ho, Wo, 3], of x's float dtype.
void grid_sample_check(const char* op, const Tensor& x, const Tensor& grid,
                       const std::string& mode, const std::string& padding_mode);
Meta grid_sample(const char* op, const std::vector<Tensor>& inputs, const std::string& mode,
                 const std::string& padding_mode, bool align_corners);
// affine_grid: theta [N, 2, 3] and out_shape [N, C, H, W], or theta [N, 3, 4] and out_shape
// [N, C, D, H, W].
void affine_grid_check(const char* op, const Tensor& theta, const IntArray& out_shape);
Meta affine_grid_base(const char* op, int64_t depth, int64_t height, int64_t width,
                      bool align_corners, DType dtype);

// pixel_shuffle (kind 0), pixel_unshuffle (1), channel_shuffle (2): checks, returns x's shape.
Shape shuffle_check(const char* op, const Tensor& x, int64_t factor,
                    const std::string& data_format, int kind);

// unfold/fold: Paddle's int-or-list forms resolved to (h, w) pairs and (top, left, bottom,
// right) paddings.
struct FoldArgs {
  IntArray kernel, stride, padding, dilation;
};
FoldArgs fold_args(const char* op, const IntArray& kernel_sizes, const IntArray& strides,
                   const IntArray& paddings, const IntArray& dilations);
IntArray pair_of(const char* op, const char* what, const IntArray& v, int64_t min_value);
Meta unfold_base(const char* op, const Tensor& x, const IntArray& kernel, const IntArray& stride,
                 const IntArray& padding, const IntArray& dilation);
Meta fold_base(const char* op, const Tensor& x, const IntArray& output_size,
               const IntArray& kernel, const IntArray& stride, const IntArray& padding,
               const IntArray& dilation);

// max_unpool: the output shape [N, C, out...] (output_size, its last nd entries, or
// (in - 1) * stride - 2 * padding + kernel).
IntArray max_unpool_shape(const char* op, int64_t nd, const Tensor& x, const Tensor& indices,
                          const IntArray& kernel_size, const IntArray& stride,
                          const IntArray& padding, const std::string& data_format,
                          const IntArray& output_size);

Meta max_unpool_base(const char* op, const Tensor& x, const Tensor& indices,
                     const IntArray& output_shape);

// local_response_norm: x 3-D to 5-D float; returns whether data_format is channel-last.
bool lrn_check(const char* op, const Tensor& x, int64_t size, const std::string& data_format);

// bilinear: x1 [B, I], x2 [B, J], weight [O, I, J], bias [1, O] or [O].
void bilinear_check(const char* op, const Tensor& x1, const Tensor& x2, const Tensor& weight,
                    const Tensor& bias);

struct SdpaDims {
  int64_t B, Sq, Sk, H, Hk, D, Dv;
};
SdpaDims sdpa_check(const char* op, const Tensor& query, const Tensor& key, const Tensor& value,
                    const Tensor& attn_mask, double dropout_p);
// qkv: {query, key, value} or with the mask. {out [B, Sq, H, Dv], probs [B, H, Sq, Sk]}.
std::vector<Meta> sdpa_core(const char* op, const std::vector<Tensor>& qkv, const Tensor& dmask,
                            double scale, bool is_causal);

// Program type of nms_keep: int64 [-1] (how many boxes survive is decided by the data).
Meta nms_keep(const char* op, const Tensor& boxes, double iou_threshold, double offset, double eta);

}  // namespace oar::infer_meta
