"""The greedy core of non-maximum suppression, kept private so that a C++ kernel can replace it.

_nms_keep(boxes, iou_threshold) -> int64 Tensor of the indices of the kept boxes, in order.
"""
import numpy as np


def _iou_matrix(boxes, offset=0.0):
    """Pairwise IoU of boxes [N, 4] (x1, y1, x2, y2) by broadcasting: [N, N]. offset is added to
    widths and heights (1 for pixel-unit boxes, 0 for normalized ones)."""
    import oar
    x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    area = (x2 - x1 + offset) * (y2 - y1 + offset)
    iw = oar.clip(oar.minimum(x2.unsqueeze(1), x2.unsqueeze(0))
                  - oar.maximum(x1.unsqueeze(1), x1.unsqueeze(0)) + offset, min=0.0)
    ih = oar.clip(oar.minimum(y2.unsqueeze(1), y2.unsqueeze(0))
                  - oar.maximum(y1.unsqueeze(1), y1.unsqueeze(0)) + offset, min=0.0)
    inter = iw * ih
    union = area.unsqueeze(1) + area.unsqueeze(0) - inter
    return inter / oar.where(union == 0, oar.ones_like(union), union)


def _nms_keep(boxes, iou_threshold):
    """Greedy NMS over boxes [N, 4] already sorted by score, highest first: box i is kept unless a
    kept box before it overlaps it with IoU > iou_threshold. Returns the kept indices (int64)."""
    import oar
    n = boxes.shape[0]
    if n == 0:
        return oar.zeros([0], dtype="int64")
    over = (_iou_matrix(boxes.detach()) > float(iou_threshold)).numpy()
    # replaced by the C++ kernel
    suppressed = np.zeros(n, dtype=bool)
    keep = []
    for i in range(n):
        if suppressed[i]:
            continue
        keep.append(i)
        suppressed |= over[i]
    return oar.to_tensor(np.asarray(keep, dtype=np.int64))
