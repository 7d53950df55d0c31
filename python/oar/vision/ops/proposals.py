"""Region proposals: generate_proposals (RPN) and distribute_fpn_proposals (as paddle.vision.ops).

Box decoding, clipping, filtering and the FPN level formula are element-wise oar ops over all
boxes at once; NMS is the C++ kernel behind _nms_keep, called once per image. Neither operator
has a gradient in Paddle: the outputs do not require one here either.
"""
import math
import numbers

import numpy as np

from ._common import _oar, check_tensor
from ._nms import _nms_keep

_FLOATS = ("float32", "float64")
# the largest log-scale of a decoded box's size (Paddle's bbox clip: 1000 / 16 times the anchor)
_BBOX_CLIP = math.log(1000.0 / 16.0)


def _f32(v):
    """A float attribute as Paddle holds it: rounded to float32."""
    return float(np.float32(v))


def _boxes_of(fn, arg, t, count, dtype):
    """t ([..., 4] laid out as [H, W, A, 4]) as [count, 4] rows; Paddle reads only the first
    count boxes and fails when there are fewer."""
    check_tensor(fn, arg, t)
    if t.dtype != dtype:
        raise ValueError(f"{fn}: {arg} should have the dtype of scores ({dtype.name}), but got "
                         f"{t.dtype.name}")
    numel = int(np.prod(t.shape)) if t.ndim else 1
    if numel % 4 or numel // 4 < count:
        raise IndexError(f"{fn}: {arg} should hold H * W * A = {count} boxes of 4 numbers, but "
                         f"got shape {list(t.shape)}")
    return t.detach().reshape([-1, 4])[:count]


def _proposal_nms(boxes, thresh, eta, off):
    """Paddle's NMS of generate_proposals over boxes [M, 4] sorted by score: box j is kept when
    its IoU with every box kept before it is at most the threshold of its turn, which is
    multiplied by eta after each kept box while it is above 0.5 (the C++ kernel nms_keep).
    Returns the kept positions."""
    return _nms_keep(boxes, float(thresh), off, float(eta))


def generate_proposals(scores, bbox_deltas, img_size, anchors, variances, pre_nms_top_n=6000,
                       post_nms_top_n=1000, nms_thresh=0.5, min_size=0.1, eta=1.0,
                       pixel_offset=False, return_rois_num=False, name=None):
    """Region proposals of an RPN head, per image:

    1. the ``pre_nms_top_n`` anchors of highest score (all when <= 0),
    2. their boxes decoded from ``bbox_deltas``: centre ``anchor_centre + v * delta *
       anchor_size``, size ``anchor_size * exp(min(v * delta, log(1000 / 16)))`` (v: the
       anchor's variances),
    3. clipped to the image (``[0, width - offset]``, ``[0, height - offset]``),
    4. those at least ``max(min_size, 1)`` wide and high kept (with ``pixel_offset`` also their
       centre must lie in the image),
    5. non-maximum suppression at ``nms_thresh`` (adaptive with ``eta`` < 1: the threshold is
       multiplied by eta after each kept box while it is above 0.5; none when ``nms_thresh``
       <= 0), and the first ``post_nms_top_n`` kept (all when <= 0; not applied without NMS).

    An image left with no box gets one box of zeros with score 0. ``offset`` is 1 with
    ``pixel_offset`` (sizes count pixels: x2 - x1 + 1), else 0.

    Args:
        scores (Tensor): [N, A, H, W] objectness of each anchor, float32 or float64.
        bbox_deltas (Tensor): [N, 4 * A, H, W] box deltas (dx, dy, dw, dh) of each anchor.
        img_size (Tensor): [N, 2] (height, width) of each image, of the dtype of scores.
        anchors (Tensor): [H, W, A, 4] anchors (x1, y1, x2, y2) in pixels.
        variances (Tensor): [H, W, A, 4] variances of the anchors.
        pre_nms_top_n (int, optional): Boxes considered per image. Default: 6000.
        post_nms_top_n (int, optional): Boxes kept per image. Default: 1000.
        nms_thresh (float, optional): IoU threshold of the NMS. Default: 0.5.
        min_size (float, optional): Smallest width and height kept. Default: 0.1.
        eta (float, optional): Adaptive NMS factor. Default: 1.0.
        pixel_offset (bool, optional): Sizes count pixels (+1). Default: False.
        return_rois_num (bool, optional): Must be True (as in Paddle's dynamic mode).
            Default: False.
        name (str, optional): Unused. Default: None.

    Returns:
        tuple: (rpn_rois [K, 4], rpn_roi_probs [K, 1], rpn_rois_num [N] int32), the boxes of
        all images one after the other, each image's by score.

    Examples:
        >>> import oar
        >>> from oar.vision.ops import generate_proposals
        >>> scores = oar.to_tensor([[[[0.9]], [[0.8]]]])
        >>> deltas = oar.zeros([1, 8, 1, 1])
        >>> anchors = oar.to_tensor([[[[0.0, 0.0, 10.0, 10.0], [1.0, 1.0, 9.0, 9.0]]]])
        >>> variances = oar.ones([1, 1, 2, 4])
        >>> rois, probs, num = generate_proposals(scores, deltas, oar.to_tensor([[20.0, 20.0]]),
        ...                                       anchors, variances, return_rois_num=True)
        >>> print(rois)
        Tensor(shape=[1, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[0. , 0. , 10., 10.]])
        >>> print(num)
        Tensor(shape=[1], dtype=int32, place=Place(cpu), stop_gradient=True,
               [1])
    """
    oar = _oar()
    fn = "generate_proposals"
    if not return_rois_num:
        raise AssertionError(f"{fn}: return_rois_num should be True in dygraph mode.")
    check_tensor(fn, "scores", scores, ndim=4, dtypes=_FLOATS)
    check_tensor(fn, "bbox_deltas", bbox_deltas, ndim=4, dtypes=_FLOATS)
    check_tensor(fn, "img_size", img_size)
    n, a, h, w = scores.shape
    dtype = scores.dtype
    if list(bbox_deltas.shape) != [n, 4 * a, h, w]:
        raise ValueError(f"{fn}: bbox_deltas should have shape [N, 4 * A, H, W] = "
                         f"{[n, 4 * a, h, w]}, but got {list(bbox_deltas.shape)}")
    if bbox_deltas.dtype != dtype or img_size.dtype != dtype:
        bad = "bbox_deltas" if bbox_deltas.dtype != dtype else "img_size"
        raise ValueError(f"{fn}: {bad} should have the dtype of scores ({dtype.name}), but got "
                         f"{(bbox_deltas if bad == 'bbox_deltas' else img_size).dtype.name}")
    if img_size.ndim != 2 or img_size.shape[0] != n or img_size.shape[1] < 2:
        raise ValueError(f"{fn}: img_size should have shape [N, 2] = {[n, 2]}, but got "
                         f"{list(img_size.shape)}")
    for arg, v in (("pre_nms_top_n", pre_nms_top_n), ("post_nms_top_n", post_nms_top_n)):
        if not isinstance(v, numbers.Integral) or isinstance(v, bool):
            raise TypeError(f"{fn}: {arg} should be an int, but got {v!r}")
    hwa = h * w * a
    anc = _boxes_of(fn, "anchors", anchors, hwa, dtype)
    var = _boxes_of(fn, "variances", variances, hwa, dtype)
    off = 1.0 if pixel_offset else 0.0

    # 1. the best pre_nms_top_n anchors of each image, by score: [N, K]
    s = scores.detach().transpose([0, 2, 3, 1]).reshape([n, hwa])
    d = bbox_deltas.detach().transpose([0, 2, 3, 1]).reshape([n, hwa, 4])
    k = hwa if pre_nms_top_n <= 0 or pre_nms_top_n >= hwa else int(pre_nms_top_n)
    if k > 0:
        top_s, idx = oar.topk(s, k, axis=1)
    else:
        top_s, idx = s, oar.zeros([n, 0], dtype="int64")
    flat = idx.reshape([-1])
    d = oar.take_along_axis(d, idx.unsqueeze(-1).expand([n, k, 4]), axis=1)
    an = anc[flat].reshape([n, k, 4])
    v = var[flat].reshape([n, k, 4])

    # 2. decode on the anchors
    aw = an[..., 2] - an[..., 0] + off
    ah = an[..., 3] - an[..., 1] + off
    acx = an[..., 0] + aw * 0.5
    acy = an[..., 1] + ah * 0.5
    cx = v[..., 0] * d[..., 0] * aw + acx
    cy = v[..., 1] * d[..., 1] * ah + acy
    clip = oar.full([1], _BBOX_CLIP, dtype=dtype)
    bw = oar.exp(oar.minimum(v[..., 2] * d[..., 2], clip)) * aw
    bh = oar.exp(oar.minimum(v[..., 3] * d[..., 3], clip)) * ah

    # 3. clip to the image
    size = img_size.detach()
    im_h, im_w = size[:, 0].reshape([n, 1]), size[:, 1].reshape([n, 1])
    x1 = oar.clip(oar.minimum(cx - bw / 2.0, im_w - off), min=0.0)
    y1 = oar.clip(oar.minimum(cy - bh / 2.0, im_h - off), min=0.0)
    x2 = oar.clip(oar.minimum(cx + bw / 2.0 - off, im_w - off), min=0.0)
    y2 = oar.clip(oar.minimum(cy + bh / 2.0 - off, im_h - off), min=0.0)
    boxes = oar.stack([x1, y1, x2, y2], axis=-1)  # [N, K, 4]

    # 4. drop the small boxes (and, in pixels, those centred outside the image)
    smallest = max(_f32(min_size), 1.0)
    ws, hs = x2 - x1 + off, y2 - y1 + off
    keep = (ws >= smallest) & (hs >= smallest)
    if pixel_offset:
        keep = keep & (x1 + ws / 2.0 <= im_w) & (y1 + hs / 2.0 <= im_h)

    # 5. NMS per image
    rois, probs, counts = [], [], []
    for i in range(n):
        kept = oar.nonzero(keep[i]).reshape([-1])
        if kept.shape[0] == 0:
            rois.append(oar.zeros([1, 4], dtype=dtype))
            probs.append(oar.zeros([1], dtype=dtype))
            counts.append(1)
            continue
        b_i, s_i = boxes[i][kept], top_s[i][kept]
        if nms_thresh > 0:
            sel = _proposal_nms(b_i, _f32(nms_thresh), _f32(eta), off)
            if 0 < post_nms_top_n < sel.shape[0]:
                sel = sel[:post_nms_top_n]
            b_i, s_i = b_i[sel], s_i[sel]
        rois.append(b_i)
        probs.append(s_i)
        counts.append(b_i.shape[0])
    rpn_rois = oar.concat(rois) if n else oar.zeros([0, 4], dtype=dtype)
    rpn_probs = (oar.concat(probs) if n else oar.zeros([0], dtype=dtype)).reshape([-1, 1])
    return rpn_rois, rpn_probs, oar.to_tensor(np.asarray(counts, dtype=np.int32))


def distribute_fpn_proposals(fpn_rois, min_level, max_level, refer_level, refer_scale,
                             pixel_offset=False, rois_num=None, name=None):
    """Sends each RoI to the FPN level that matches its size::

        level = floor(log2(sqrt(area) / refer_scale + 1e-6) + refer_level)

    clamped to [min_level, max_level], where area is (x2 - x1) * (y2 - y1) (with
    ``pixel_offset``, (x2 - x1 + 1) * (y2 - y1 + 1)), 0 for a box with x2 < x1 or y2 < y1.

    Args:
        fpn_rois (Tensor): [R, 4] RoIs (x1, y1, x2, y2), float32 or float64, image after image.
        min_level (int): The lowest FPN level (> 0).
        max_level (int): The highest FPN level (> min_level).
        refer_level (int): The level of RoIs of size refer_scale.
        refer_scale (int): The RoI size that goes to refer_level.
        pixel_offset (bool, optional): Sizes count pixels (+1). Default: False.
        rois_num (Tensor): [B] number of RoIs of each image (int32 or int64); required.
        name (str, optional): Unused. Default: None.

    Returns:
        tuple: (multi_rois, restore_ind, rois_num_per_level): the RoIs of each level (a list of
        max_level - min_level + 1 tensors [M_l, 4], each image's in their order),
        restore_ind [R, 1] int32 (row r of fpn_rois is row restore_ind[r] of the levels' RoIs
        concatenated), and the RoIs of each image on each level (a list of [B] int32 tensors).

    Examples:
        >>> import oar
        >>> from oar.vision.ops import distribute_fpn_proposals
        >>> rois = oar.to_tensor([[0.0, 0.0, 500.0, 500.0], [0.0, 0.0, 20.0, 20.0],
        ...                       [0.0, 0.0, 224.0, 224.0]])
        >>> multi, restore, nums = distribute_fpn_proposals(
        ...     rois, 2, 5, 4, 224, rois_num=oar.to_tensor([2, 1], dtype="int32"))
        >>> print([m.shape[0] for m in multi])
        [1, 0, 1, 1]
        >>> print(restore.reshape([-1]))
        Tensor(shape=[3], dtype=int32, place=Place(cpu), stop_gradient=True,
               [2, 0, 1])
    """
    oar = _oar()
    fn = "distribute_fpn_proposals"
    if not (max_level > 0 and min_level > 0):
        raise AssertionError(f"{fn}: min_level and max_level should be greater than 0")
    num_lvl = max_level - min_level + 1
    if not num_lvl > 1:
        raise AssertionError(f"{fn}: max_level should be greater than min_level")
    if not num_lvl < 100:
        raise AssertionError(f"{fn}: Only support max to 100 levels, "
                             f"(max_level - min_level + 1 < 100)")
    if rois_num is None:
        raise AssertionError(f"{fn}: rois_num should not be None in dygraph mode.")
    check_tensor(fn, "fpn_rois", fpn_rois, ndim=2, dtypes=_FLOATS)
    check_tensor(fn, "rois_num", rois_num, dtypes=("int32", "int64"))
    if fpn_rois.shape[1] != 4:
        raise ValueError(f"{fn}: fpn_rois should have shape [R, 4], but got "
                         f"{list(fpn_rois.shape)}")
    counts = np.asarray(rois_num.numpy(), dtype=np.int64).reshape(-1)
    total = int(counts.sum())
    if (counts < 0).any() or total > fpn_rois.shape[0]:
        raise ValueError(f"{fn}: rois_num {counts.tolist()} asks for {total} RoIs, but fpn_rois "
                         f"holds {fpn_rois.shape[0]}")
    dtype = fpn_rois.dtype
    rois = fpn_rois.detach()[:total]  # as Paddle: only the RoIs rois_num counts
    x1, y1, x2, y2 = rois[:, 0], rois[:, 1], rois[:, 2], rois[:, 3]
    off = 1.0 if pixel_offset else 0.0
    area = (x2 - x1 + off) * (y2 - y1 + off)
    area = oar.where((x2 < x1) | (y2 < y1), oar.zeros_like(area), area)
    eps = oar.full([1], 1e-6, dtype=dtype)
    level = oar.floor(oar.log2(oar.sqrt(area) / float(refer_scale) + eps) + float(refer_level))
    level = oar.clip(level, float(min_level), float(max_level))
    lvl = level.numpy().astype(np.int64) - min_level  # [R] level of each RoI, from 0
    image = np.repeat(np.arange(counts.size, dtype=np.int64), counts)
    # the levels' RoIs one after the other, each level's in their order
    order = np.argsort(lvl, kind="stable")
    per_level = np.bincount(lvl, minlength=num_lvl)
    restore = np.empty(total, dtype=np.int32)
    restore[order] = np.arange(total, dtype=np.int32)
    picked = rois[oar.to_tensor(order)] if total else rois
    bounds = np.concatenate([[0], np.cumsum(per_level)])
    multi_rois = [picked[int(bounds[j]):int(bounds[j + 1])] for j in range(num_lvl)]
    table = np.zeros((num_lvl, counts.size), dtype=np.int32)
    np.add.at(table, (lvl, image), 1)
    rois_num_per_level = [oar.to_tensor(table[j]) for j in range(num_lvl)]
    return multi_rois, oar.to_tensor(restore.reshape(-1, 1)), rois_num_per_level
