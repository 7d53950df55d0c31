"""The greedy core of non-maximum suppression (the C++ kernel nms_keep) and the pairwise IoU.

_nms_keep(boxes, iou_threshold, offset, eta) -> int64 Tensor of the indices of the kept boxes, in order.
"""


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


def _nms_keep(boxes, iou_threshold, offset=0.0, eta=1.0):
    """Greedy NMS over boxes [N, 4] already sorted by score, highest first: box i is kept unless a
    kept box before it overlaps it with IoU > iou_threshold. Returns the kept indices (int64).
    The sweep is the C++ kernel oar/kernels/cpu/nms.cc (O(N) memory)."""
    import oar
    from oar import _C
    if boxes.shape[0] == 0:
        return oar.zeros([0], dtype="int64")
    return _C.nms_keep(boxes.detach(), float(iou_threshold), float(offset), float(eta))
