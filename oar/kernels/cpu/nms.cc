#include "oar/kernels/cpu/nms.h"

#include <algorithm>
#include <vector>

#include "oar/kernels/cpu/dispatch.h"

namespace oar::kernels {

Tensor nms_keep(const Tensor& boxes, double iou_threshold, double offset, double eta) {
  OAR_ENFORCE_ARG(boxes.ndim() == 2 && boxes.shape()[1] == 4, "nms: boxes must be [N, 4], got ",
                  shape_str(boxes.shape()));
  const int64_t n = boxes.shape()[0];
  std::vector<int64_t> keep;
  dispatch_f32_f64(boxes.dtype(), "nms", [&](auto tag) {
    using T = decltype(tag);
    const Tensor bc = boxes.contiguous();
    const T* b = bc.data<T>();
    // In the boxes' dtype, as Paddle computes, so that ties at the threshold decide alike.
    const T off = static_cast<T>(offset);
    std::vector<T> area(n);
    for (int64_t i = 0; i < n; ++i) area[i] = (b[4 * i + 2] - b[4 * i] + off) * (b[4 * i + 3] - b[4 * i + 1] + off);
    // Box i is compared with the boxes kept before it under the threshold in force when i comes
    // up (eta shrinks it after each kept box), as Paddle's adaptive NMS decides.
    auto overlaps = [&](const T* p, const T* q, int64_t ip, int64_t iq, T thr) {
      // Apart boxes overlap by nothing, also when the pixel offset would make them touch.
      if (q[0] > p[2] || q[2] < p[0] || q[1] > p[3] || q[3] < p[1]) return false;
      const T w = std::max(T(0), std::min(p[2], q[2]) - std::max(p[0], q[0]) + off);
      const T h = std::max(T(0), std::min(p[3], q[3]) - std::max(p[1], q[1]) + off);
      const T inter = w * h;
      const T uni = area[ip] + area[iq] - inter;
      return inter / (uni == T(0) ? T(1) : uni) > thr;
    };
    double threshold = iou_threshold;
    for (int64_t i = 0; i < n; ++i) {
      const T thr = static_cast<T>(threshold);
      bool kept = true;
      for (int64_t k : keep)
        if (overlaps(b + 4 * k, b + 4 * i, k, i, thr)) {
          kept = false;
          break;
        }
      if (!kept) continue;
      keep.push_back(i);
      if (eta < 1 && threshold > 0.5) threshold *= eta;
    }
  });
  return Tensor::from_vector(keep, Shape{static_cast<int64_t>(keep.size())});
}

}  // namespace oar::kernels
