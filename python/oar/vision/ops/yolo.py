"""The YOLOv3 loss: yolo_loss (as paddle.vision.ops).

Everything that is differentiated is element-wise oar ops over whole tensors: the IoU of every
predicted box with every ground-truth box is one broadcast [M, H, W, B] computation per image,
the matched cells are gathered in one go. Only the small integer bookkeeping of which cell each
ground-truth box lands in (its de-duplication) is done on the host.
"""
import numbers

import numpy as np

from ._common import _oar, check_tensor

_FLOATS = ("float32", "float64")


def _sce(x, label):
    """Sigmoid cross entropy of logits x against label, element-wise:
    max(x, 0) - x * label + log(1 + exp(-|x|)). max(x, 0) is written (x + |x|) / 2 (exact) so
    that the gradient is sigmoid(x) - label at x = 0 too."""
    oar = _oar()
    return (x + oar.abs(x)) * 0.5 - x * label + oar.log1p(oar.exp(-oar.abs(x)))


def _overlap(c1, w1, c2, w2):
    """Length of the overlap of two centred segments (negative when apart)."""
    oar = _oar()
    left = oar.maximum(c1 - w1 / 2.0, c2 - w2 / 2.0)
    right = oar.minimum(c1 + w1 / 2.0, c2 + w2 / 2.0)
    return right - left


def _center_iou(x1, y1, w1, h1, x2, y2, w2, h2):
    """IoU of boxes given as centre and size (broadcasting)."""
    oar = _oar()
    ow = _overlap(x1, w1, x2, w2)
    oh = _overlap(y1, h1, y2, h2)
    inter = oar.where((ow < 0) | (oh < 0), oar.zeros_like(ow), ow * oh)
    return inter / (w1 * h1 + w2 * h2 - inter)


def _int_list(fn, arg, value):
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{fn}: {arg} should be a list or tuple of ints, but got "
                        f"{type(value).__name__}")
    if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value):
        raise TypeError(f"{fn}: {arg} should hold ints, but got {list(value)!r}")
    return [int(v) for v in value]


def yolo_loss(x, gt_box, gt_label, anchors, anchor_mask, class_num, ignore_thresh,
              downsample_ratio, gt_score=None, use_label_smooth=True, name=None, scale_x_y=1.0):
    """The YOLOv3 loss of one detection head, per image.

    ``x`` holds, for each of the ``len(anchor_mask)`` anchors of this head and each cell of the
    H x W grid, (tx, ty, tw, th, objectness, class logits). Each valid ground-truth box (width
    and height at least 1e-6) is matched to the anchor (of all ``anchors``) whose shape overlaps
    it best; when that anchor is one of this head's, the cell holding the box's centre pays

    * the box loss ``(2 - w * h) * score * (sce(tx, x*H - i) + sce(ty, y*H - j)
      + |tw - log(w * S / aw)| + |th - log(h * S / ah)|)`` (S = downsample_ratio * H),
    * the class loss ``score * sum_c sce(class_c, pos if c == label else neg)``,
    * the objectness loss ``score * sce(objectness, 1)``,

    where sce is the sigmoid cross entropy and score the box's ``gt_score`` (1 without).
    Every other prediction pays ``sce(objectness, 0)``, unless its decoded box overlaps a
    ground-truth box with IoU above ``ignore_thresh``. With ``use_label_smooth``,
    neg = min(1 / class_num, 1 / 40) and pos = 1 - neg (else 0 and 1).

    Paddle's gradient is matched, with one exception: where two ground-truth boxes land in the
    same cell and anchor, Paddle's backward keeps only the last box's share (its forward adds
    both); here the gradient is the one of the loss computed.

    Args:
        x (Tensor): [N, len(anchor_mask) * (5 + class_num), H, H], float32 or float64.
        gt_box (Tensor): [N, B, 4] ground-truth boxes (cx, cy, w, h), normalized to [0, 1];
            boxes of no width or height are padding.
        gt_label (Tensor): [N, B] int32 class ids.
        anchors (list|tuple): Anchor sizes in pixels (w0, h0, w1, h1, ...), of all heads.
        anchor_mask (list|tuple): Indices of this head's anchors in ``anchors``.
        class_num (int): Number of classes.
        ignore_thresh (float): Predictions overlapping a ground-truth box with IoU above it
            pay no objectness loss.
        downsample_ratio (int): Network input size / H.
        gt_score (Tensor, optional): [N, B] mixup score of each box. Default: None (all 1).
        use_label_smooth (bool, optional): Smooth the class targets. Default: True.
        name (str, optional): Unused. Default: None.
        scale_x_y (float, optional): Centre scale of YOLOv4 (the decoded centre is
            ``sigmoid(t) * scale_x_y - (scale_x_y - 1) / 2``). Default: 1.0.

    Returns:
        Tensor: [N] loss of each image, of x's dtype.

    Examples:
        >>> import oar
        >>> from oar.vision.ops import yolo_loss
        >>> x = oar.zeros([1, 7, 2, 2])
        >>> gt_box = oar.to_tensor([[[0.25, 0.25, 0.5, 0.5]]])
        >>> gt_label = oar.to_tensor([[1]], dtype="int32")
        >>> loss = yolo_loss(x, gt_box, gt_label, [16, 16], [0], 2, 0.7, 32)
        >>> print(loss)
        Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [9.01091385])
    """
    oar = _oar()
    fn = "yolo_loss"
    check_tensor(fn, "x", x, dtypes=_FLOATS)
    check_tensor(fn, "gt_box", gt_box, dtypes=_FLOATS)
    check_tensor(fn, "gt_label", gt_label)
    anchors = _int_list(fn, "anchors", anchors)
    anchor_mask = _int_list(fn, "anchor_mask", anchor_mask)
    if not isinstance(class_num, numbers.Integral) or isinstance(class_num, bool):
        raise TypeError(f"{fn}: class_num should be an int, but got {class_num!r}")
    if x.ndim != 4:
        raise ValueError(f"{fn}: x should be a 4-D tensor [N, C, H, W], but got shape "
                         f"{list(x.shape)}")
    n, ch, h, w = x.shape
    if h != w:
        raise ValueError(f"{fn}: the height and width of x should be equal, but got shape "
                         f"{list(x.shape)}")
    if len(anchors) % 2:
        raise ValueError(f"{fn}: anchors should hold (w, h) pairs (an even length), but got "
                         f"{len(anchors)} numbers")
    na, m = len(anchors) // 2, len(anchor_mask)
    if ch != m * (5 + class_num):
        raise ValueError(f"{fn}: x.shape[1] should be len(anchor_mask) * (5 + class_num) = "
                         f"{m * (5 + class_num)}, but got {ch}")
    if class_num <= 0:
        raise ValueError(f"{fn}: class_num should be greater than 0, but got {class_num}")
    for a in anchor_mask:
        if not 0 <= a < na:
            raise ValueError(f"{fn}: anchor_mask should index the {na} anchors, but got {a}")
    if gt_box.ndim != 3 or gt_box.shape[2] != 4:
        raise ValueError(f"{fn}: gt_box should have shape [N, B, 4], but got "
                         f"{list(gt_box.shape)}")
    if gt_box.shape[0] != n:
        raise ValueError(f"{fn}: gt_box should hold the boxes of the {n} images of x, but got "
                         f"shape {list(gt_box.shape)}")
    b = gt_box.shape[1]
    if list(gt_label.shape) != [n, b]:
        raise ValueError(f"{fn}: gt_label should have shape [N, B] = {[n, b]}, but got "
                         f"{list(gt_label.shape)}")
    dtype = x.dtype
    if gt_box.dtype != dtype:
        raise ValueError(f"{fn}: gt_box should have the dtype of x ({dtype.name}), but got "
                         f"{gt_box.dtype.name}")
    if gt_label.dtype.name != "int32":
        raise ValueError(f"{fn}: gt_label should be int32, but got {gt_label.dtype.name}")
    if gt_score is not None:
        check_tensor(fn, "gt_score", gt_score)
        if list(gt_score.shape) != [n, b]:
            raise ValueError(f"{fn}: gt_score should have shape [N, B] = {[n, b]}, but got "
                             f"{list(gt_score.shape)}")
        if gt_score.dtype != dtype:
            raise ValueError(f"{fn}: gt_score should have the dtype of x ({dtype.name}), but "
                             f"got {gt_score.dtype.name}")
        score = gt_score.detach()
    else:
        score = oar.ones([n, b], dtype=dtype)

    npt = np.dtype(dtype.name).type
    # Paddle's attributes are float32: the thresholds and scales are rounded to it first
    scale = float(np.float32(scale_x_y))
    bias = float(np.float32(-0.5 * (scale - 1.0)))
    thresh = float(np.float32(ignore_thresh))
    if use_label_smooth:
        neg = npt(min(1.0 / class_num, 1.0 / 40))
        pos = npt(1.0 - float(neg))
    else:
        pos, neg = npt(1.0), npt(0.0)
    input_size = downsample_ratio * h
    sig = oar.nn.functional.sigmoid

    p = x.reshape([n, m, 5 + class_num, h, w])
    gb = gt_box.detach()
    gx, gy, gw, gh = gb[..., 0], gb[..., 1], gb[..., 2], gb[..., 3]  # [N, B]
    valid = (gw >= 1e-6) & (gh >= 1e-6)
    an = np.asarray(anchors, dtype=np.float64).reshape(na, 2)

    # 1. predictions whose box overlaps a ground-truth box by more than ignore_thresh
    ignore = oar.zeros([n, m, h, w], dtype="bool")
    if b > 0:
        pd = p.detach()
        cols = oar.arange(w, dtype=dtype).reshape([1, 1, 1, w])
        rows = oar.arange(h, dtype=dtype).reshape([1, 1, h, 1])
        aw = oar.to_tensor(an[anchor_mask, 0].astype(dtype.name)).reshape([1, m, 1, 1])
        ah = oar.to_tensor(an[anchor_mask, 1].astype(dtype.name)).reshape([1, m, 1, 1])
        px = (cols + sig(pd[:, :, 0]) * scale + bias) / float(h)
        py = (rows + sig(pd[:, :, 1]) * scale + bias) / float(h)
        pw = oar.exp(pd[:, :, 2]) * aw / float(input_size)
        ph = oar.exp(pd[:, :, 3]) * ah / float(input_size)
        best_iou = []
        for i in range(n):  # image by image: [M, H, W, B] pairs at a time
            g = [t[i].reshape([1, 1, 1, b]) for t in (gx, gy, gw, gh)]
            iou = _center_iou(*(t[i].unsqueeze(-1) for t in (px, py, pw, ph)), *g)
            iou = oar.where(valid[i].reshape([1, 1, 1, b]), iou, oar.zeros_like(iou))
            best_iou.append(iou.max(axis=-1))
        ignore = oar.stack(best_iou) > thresh

    # 2. each valid ground-truth box: its best anchor (by shape), and the cell of its centre
    loss = oar.zeros([n], dtype=dtype)
    obj = oar.where(ignore, oar.full([1], -1.0, dtype=dtype), oar.zeros([1], dtype=dtype))
    obj = obj.reshape([-1])
    if b > 0:
        anw = oar.to_tensor(an[:, 0].astype(dtype.name)) / float(input_size)
        anh = oar.to_tensor(an[:, 1].astype(dtype.name)) / float(input_size)
        zero = oar.zeros([1], dtype=dtype)
        shape_iou = _center_iou(zero, zero, anw, anh, zero, zero, gw.unsqueeze(-1),
                                gh.unsqueeze(-1))  # [N, B, A]
        # Paddle keeps this IoU as a float32 and takes the first best anchor
        best = oar.argmax(shape_iou.astype("float32"), axis=-1)  # [N, B]
        table = np.full(na, -1, dtype=np.int64)
        for j, a in reversed(list(enumerate(anchor_mask))):
            table[a] = j
        mask_idx = oar.to_tensor(table)[best]  # [N, B]
        pos_mask = valid & (mask_idx >= 0)
        where = oar.nonzero(pos_mask)  # [K, 2]: (image, box), image-major as Paddle walks them
    if b > 0 and where.shape[0] > 0:
        img, box = where[:, 0], where[:, 1]
        flat = img * b + box
        take = lambda t: t.reshape([-1])[flat]  # noqa: E731
        kx, ky, kw, kh = take(gx), take(gy), take(gw), take(gh)
        ks, kl, km, kb = take(score), take(gt_label), take(mask_idx), take(best)
        # Paddle truncates to the cell; centres outside [0, 1) are clamped to the border cell
        gi = oar.clip(oar.trunc(kx * float(w)), 0, w - 1).astype("int64")
        gj = oar.clip(oar.trunc(ky * float(h)), 0, h - 1).astype("int64")
        cell = ((img * m + km) * h + gj) * w + gi  # [K] into the N * M * H * W predictions
        pred = p.transpose([0, 1, 3, 4, 2]).reshape([-1, 5 + class_num])[cell]  # [K, 5 + C]
        best_w = oar.to_tensor(an[:, 0].astype(dtype.name))[kb]
        best_h = oar.to_tensor(an[:, 1].astype(dtype.name))[kb]
        tx = kx * float(h) - gi.astype(dtype)
        ty = ky * float(h) - gj.astype(dtype)
        tw = oar.log(kw * float(input_size) / best_w)
        th = oar.log(kh * float(input_size) / best_h)
        weight = (2.0 - kw * kh) * ks
        box_loss = (_sce(pred[:, 0], tx) + _sce(pred[:, 1], ty) + oar.abs(pred[:, 2] - tw)
                    + oar.abs(pred[:, 3] - th)) * weight
        onehot = kl.astype("int64").unsqueeze(-1) == oar.arange(class_num, dtype="int64")
        target = oar.where(onehot, oar.full([1], pos, dtype=dtype),
                           oar.full([1], neg, dtype=dtype))
        cls_loss = _sce(pred[:, 5:], target).sum(axis=-1) * ks
        loss = oar.index_add(loss, img, 0, box_loss + cls_loss)
        # the objectness target of a matched cell is the score of the last box matched there
        cells = cell.numpy()
        last = len(cells) - 1 - np.unique(cells[::-1], return_index=True)[1]
        last = oar.to_tensor(np.sort(last).astype(np.int64))
        obj = oar.scatter(obj, cell[last], ks[last], overwrite=True)

    # 3. objectness: positives weighted by their score, negatives plain, ignored ones not at all
    obj = obj.reshape([n, m, h, w])
    logit = p[:, :, 4]
    zeros = oar.zeros_like(logit)
    obj_loss = oar.where(obj > 1e-5, _sce(logit, oar.ones_like(logit)) * obj,
                         oar.where(obj > -0.5, _sce(logit, zeros), zeros))
    return loss + obj_loss.sum(axis=[1, 2, 3])
