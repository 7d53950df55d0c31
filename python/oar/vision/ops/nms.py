"""Non-maximum suppression: nms and matrix_nms (as paddle.vision.ops)."""
import numpy as np

from ._common import _oar, check_tensor
from ._nms import _iou_matrix, _nms_keep

_FLOATS = ("float16", "bfloat16", "float32", "float64")


def nms(boxes, iou_threshold=0.3, scores=None, category_idxs=None, categories=None, top_k=None):
    """Non-maximum suppression: greedily keeps the best box and drops the boxes that overlap a kept
    one with IoU above ``iou_threshold``.

    Without ``scores`` the boxes are taken in their given order. With ``scores`` they are taken by
    score, highest first; with ``category_idxs`` too, suppression runs within each category of
    ``categories`` and the kept boxes of all of them are returned by score, at most ``top_k``.

    Args:
        boxes (Tensor): Boxes [N, 4] as (x1, y1, x2, y2).
        iou_threshold (float, optional): Boxes overlapping a kept box by more are dropped.
            Default: 0.3.
        scores (Tensor, optional): Scores [N]. Default: None.
        category_idxs (Tensor, optional): Category of each box, [N] int64. Default: None.
        categories (list, optional): The category ids; needed with category_idxs. Default: None.
        top_k (int, optional): Keep at most this many boxes (with category_idxs). Default: None.

    Returns:
        Tensor: int64 indices of the kept boxes into ``boxes``.

    Examples:
        >>> import oar
        >>> from oar.vision.ops import nms
        >>> boxes = oar.to_tensor([[0.0, 0.0, 2.0, 2.0], [0.1, 0.0, 2.1, 2.0], [3.0, 3.0, 4.0, 4.0]])
        >>> print(nms(boxes, 0.5))
        Tensor(shape=[2], dtype=int64, place=Place(cpu), stop_gradient=True,
               [0, 2])
        >>> print(nms(boxes, 0.5, scores=oar.to_tensor([0.2, 0.9, 0.5])))
        Tensor(shape=[2], dtype=int64, place=Place(cpu), stop_gradient=True,
               [1, 2])
    """
    oar = _oar()
    check_tensor("nms", "boxes", boxes, ndim=2, dtypes=_FLOATS)
    if boxes.shape[1] != 4:
        raise ValueError(f"nms: the shape {list(boxes.shape)} of boxes must be (N, 4)")
    if scores is None:
        return _nms_keep(boxes, iou_threshold)
    check_tensor("nms", "scores", scores, ndim=1)
    if scores.shape[0] != boxes.shape[0]:
        raise ValueError(f"nms: scores should have one score per box ({boxes.shape[0]}), but got "
                         f"shape {list(scores.shape)}")
    if category_idxs is None:
        order = oar.argsort(scores, descending=True)
        return order[_nms_keep(boxes[order], iou_threshold)]
    if top_k is not None and top_k > scores.shape[0]:
        raise AssertionError("nms: top_k should be smaller equal than the number of boxes, but got "
                             f"top_k={top_k} for {scores.shape[0]} boxes")
    if categories is None:
        raise AssertionError("nms: if category_idxs is given, categories which is a list of unique "
                             "id of all categories is necessary")
    cats = category_idxs.numpy().reshape(-1)
    kept = []
    for cat in categories:  # one greedy pass per category
        idx = np.nonzero(cats == cat)[0]
        if idx.size == 0:
            continue
        idx_t = oar.to_tensor(idx.astype(np.int64))
        if idx.size == 1:
            kept.append(idx_t)
            continue
        order = idx_t[oar.argsort(scores[idx_t], descending=True)]
        kept.append(order[_nms_keep(boxes[order], iou_threshold)])
    if not kept:
        if top_k is not None:  # as Paddle, whose topk of 0 boxes raises
            raise ValueError("nms: no box of the given categories was kept, so top_k boxes "
                             "cannot be taken (the top k must be >= 1)")
        return oar.zeros([0], dtype="int64")
    # Paddle returns the kept boxes by score, from the boxes in index order
    keep = oar.sort(oar.concat(kept))
    if top_k is None:
        return keep[oar.argsort(scores[keep], descending=True)]
    _, top = oar.topk(scores[keep], min(top_k, keep.shape[0]))
    return keep[top]


def matrix_nms(bboxes, scores, score_threshold, post_threshold, nms_top_k, keep_top_k,
               use_gaussian=False, gaussian_sigma=2.0, background_label=0, normalized=True,
               return_index=False, return_rois_num=True, name=None):
    """Matrix NMS (SOLOv2): instead of dropping overlapping boxes, decays each box's score by its
    overlap with higher-scored boxes of its class, all pairs at once; boxes whose decayed score
    stays above ``post_threshold`` are kept.

    Args:
        bboxes (Tensor): Boxes [N, M, 4] as (x1, y1, x2, y2), float32 or float64.
        scores (Tensor): Scores [N, C, M].
        score_threshold (float): Boxes scoring no more than this are not considered.
        post_threshold (float): Boxes whose decayed score is no more than this are dropped.
        nms_top_k (int): Boxes considered per class, by score (-1: all).
        keep_top_k (int): Boxes kept per image after decay, by decayed score (-1: all).
        use_gaussian (bool, optional): Gaussian decay exp((max_iou^2 - iou^2) * sigma) instead
            of the linear (1 - iou) / (1 - max_iou). Default: False.
        gaussian_sigma (float, optional): Sigma of the Gaussian decay. Default: 2.0.
        background_label (int, optional): Class skipped (-1: none). Default: 0.
        normalized (bool, optional): Boxes are normalized (else widths get +1). Default: True.
        return_index (bool, optional): Also return the kept boxes' indices. Default: False.
        return_rois_num (bool, optional): Also return the number of boxes per image.
            Default: True.
        name (str, optional): Unused. Default: None.

    Returns:
        tuple: (out, rois_num, index): out [K, 6] rows (label, score, x1, y1, x2, y2), rois_num
        [N] int32 (or None), index [K, 1] int32 into the N * M boxes (or None).

    Examples:
        >>> import oar
        >>> from oar.vision.ops import matrix_nms
        >>> boxes = oar.to_tensor([[[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 0.9]]])
        >>> scores = oar.to_tensor([[[0.0, 0.0], [0.9, 0.8]]])
        >>> out, num, _ = matrix_nms(boxes, scores, 0.1, 0.5, -1, -1)
        >>> print(out[:, :2])
        Tensor(shape=[1, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[1.        , 0.89999998]])
    """
    oar = _oar()
    fn = "matrix_nms"
    check_tensor(fn, "bboxes", bboxes, ndim=3, dtypes=("float32", "float64"))
    check_tensor(fn, "scores", scores, ndim=3, dtypes=("float32", "float64"))
    n, m, four = bboxes.shape
    if four != 4:
        raise ValueError(f"{fn}: bboxes should have shape [N, M, 4], but got {list(bboxes.shape)}")
    if scores.shape[0] != n or scores.shape[2] != m:
        raise ValueError(f"{fn}: scores should have shape [N, C, M] = [{n}, C, {m}], but got "
                         f"{list(scores.shape)}")
    c = scores.shape[1]
    dtype = bboxes.dtype
    k = m if nms_top_k is None or nms_top_k < 0 else min(int(nms_top_k), m)
    sc = scores.detach().astype(dtype)
    top_scores, order = oar.topk(sc, k, axis=2) if k > 0 else (sc[:, :, :0], None)
    if k == 0:
        return _matrix_nms_result(oar, n, dtype, None, None, None, None, return_index,
                                  return_rois_num)
    # candidate boxes of each (image, class), best first: [N, C, K, 4]
    boxes_b = bboxes.detach().unsqueeze(1).expand([n, c, m, 4])
    cand = oar.take_along_axis(boxes_b, order.unsqueeze(-1).expand([n, c, k, 4]), axis=2)
    valid = top_scores > float(score_threshold)
    if 0 <= background_label < c:
        valid = valid & (oar.arange(c).reshape([1, -1, 1]) != background_label)
    # IoU of each candidate i with each earlier candidate j < i of its class
    off = 0.0 if normalized else 1.0
    iou = _batched_iou(cand, off)  # [N, C, K, K]
    lower = oar.tril(oar.ones([k, k], dtype="bool"), diagonal=-1)
    iou = oar.where(lower, iou, oar.zeros([1], dtype=dtype))
    iou_max = iou.max(axis=3)  # [N, C, K]: each candidate's largest overlap with a better one
    mx = iou_max.unsqueeze(2)  # [N, C, 1, K] (indexed by j)
    if use_gaussian:
        decay = oar.exp((mx * mx - iou * iou) * float(gaussian_sigma))
    else:
        decay = (1.0 - iou) / (1.0 - mx)
    decay = oar.where(lower, decay, oar.ones([1], dtype=dtype)).min(axis=3)
    decayed = top_scores * oar.clip(decay, max=1.0)
    keep = valid & (decayed > float(post_threshold))
    labels = oar.arange(c, dtype=dtype).reshape([1, -1, 1]).expand([n, c, k])
    index = order + oar.arange(n, dtype=order.dtype).reshape([-1, 1, 1]) * m
    return _matrix_nms_result(oar, n, dtype, keep, decayed, cand, (labels, index), return_index,
                              return_rois_num, keep_top_k)


def _batched_iou(b, off):
    """IoU of all pairs within the last-but-one axis: b [..., K, 4] -> [..., K, K]."""
    oar = _oar()
    x1, y1, x2, y2 = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    area = (x2 - x1 + off) * (y2 - y1 + off)
    iw = oar.minimum(x2.unsqueeze(-1), x2.unsqueeze(-2)) - oar.maximum(x1.unsqueeze(-1), x1.unsqueeze(-2))
    ih = oar.minimum(y2.unsqueeze(-1), y2.unsqueeze(-2)) - oar.maximum(y1.unsqueeze(-1), y1.unsqueeze(-2))
    # boxes apart (even by less than the +1 of pixel boxes) do not overlap at all
    apart = (iw < 0) | (ih < 0)
    inter = oar.where(apart, oar.zeros_like(iw), (iw + off) * (ih + off))
    union = area.unsqueeze(-1) + area.unsqueeze(-2) - inter
    return inter / oar.where(union == 0, oar.ones_like(union), union)


def _matrix_nms_result(oar, n, dtype, keep, decayed, cand, extra, return_index, return_rois_num,
                       keep_top_k=-1):
    """Per image: the kept candidates of all classes by decayed score, at most keep_top_k."""
    if keep is None:
        out = oar.zeros([0, 6], dtype=dtype)
        index = oar.zeros([0, 1], dtype="int32")
        counts = np.zeros(n, dtype=np.int32)
    else:
        labels, index_all = extra
        kflat = keep.reshape([n, -1])
        s = oar.where(kflat, decayed.reshape([n, -1]), oar.full([1], -np.inf, dtype=dtype))
        ranked = oar.argsort(s, axis=1, descending=True, stable=True)
        counts = kflat.astype("int64").sum(axis=1).numpy()
        if keep_top_k is not None and keep_top_k > -1:
            counts = np.minimum(counts, keep_top_k)
        counts = counts.astype(np.int32)
        rows = np.concatenate([np.arange(int(cnt)) + i * kflat.shape[1]
                               for i, cnt in enumerate(counts)]).astype(np.int64)
        pick = (ranked + oar.arange(n, dtype="int64").reshape([-1, 1]) * kflat.shape[1])
        pick = pick.reshape([-1])[oar.to_tensor(rows)]
        table = oar.concat([labels.reshape([-1, 1]), decayed.reshape([-1, 1]),
                            cand.reshape([-1, 4]).astype(dtype)], axis=1)
        out = table[pick]
        index = index_all.reshape([-1])[pick].astype("int32").reshape([-1, 1])
    rois_num = oar.to_tensor(counts.astype(np.int32)) if return_rois_num else None
    return out, rois_num, (index if return_index else None)
