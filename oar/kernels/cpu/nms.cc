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
    std::vector<char> suppressed(n, 0);
    double threshold = iou_threshold;
    for (int64_t i = 0; i < n; ++i) {
      if (suppressed[i]) continue;
      keep.push_back(i);
      const T* bi = b + 4 * i;
      for (int64_t j = i + 1; j < n; ++j) {
        if (suppressed[j]) continue;
        const T* bj = b + 4 * j;
        const T w = std::max(T(0), std::min(bi[2], bj[2]) - std::max(bi[0], bj[0]) + off);
        const T h = std::max(T(0), std::min(bi[3], bj[3]) - std::max(bi[1], bj[1]) + off);
        const T inter = w * h;
        const T uni = area[i] + area[j] - inter;
        if (inter / (uni == T(0) ? T(1) : uni) > static_cast<T>(threshold)) suppressed[j] = 1;
      }
      if (eta < 1 && threshold > 0.5) threshold *= eta;
    }
  });
  return Tensor::from_vector(keep, Shape{static_cast<int64_t>(keep.size())});
}

}  // namespace oar::kernels
