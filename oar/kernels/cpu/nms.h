// Greedy non-maximum suppression (paddle.vision.ops.nms, and the per-level proposals of
// generate_proposals): boxes [N, 4] (x1, y1, x2, y2), already sorted by score, highest first;
// box i is kept unless a box kept before it overlaps it with IoU > threshold. offset is added to
// widths and heights (1 for pixel boxes, 0 for normalized ones; boxes apart overlap by nothing
// either way); eta < 1 lowers the threshold by that factor after each kept box while it is
// above 0.5, and each box is judged under the threshold in force when it comes up (Paddle's
// adaptive NMS). O(N) memory: overlaps are computed as the sweep needs them, never as an
// N x N matrix.
#pragma once
#include "oar/core/tensor.h"

namespace oar::kernels {

// The kept indices, int64, in the boxes' order.
Tensor nms_keep(const Tensor& boxes, double iou_threshold, double offset, double eta);

}  // namespace oar::kernels
