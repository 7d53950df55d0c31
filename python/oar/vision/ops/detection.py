"""Box coding and anchor generation: box_coder, prior_box, yolo_box (as paddle.vision.ops).

All arithmetic is element-wise oar ops on whole tensors; only the prior shapes of prior_box (a few
numbers from the arguments) are worked out on the host.
"""
import math
import numbers

import numpy as np

from ._common import _oar, check_tensor

_FLOATS = ("float32", "float64")


def _corners_to_center(b, off):
    w = b[..., 2] - b[..., 0] + off
    h = b[..., 3] - b[..., 1] + off
    return b[..., 0] + w * 0.5, b[..., 1] + h * 0.5, w, h


def box_coder(prior_box, prior_box_var, target_box, code_type="encode_center_size",
              box_normalized=True, axis=0, name=None):
    """Encodes boxes as offsets from prior boxes, or decodes such offsets back into boxes.

    Encoding (``encode_center_size``), for target box i and prior j::

        out[i, j] = ((tx - px) / pw / v0, (ty - py) / ph / v1, log(tw / pw) / v2, log(th / ph) / v3)

    with centres (x, y) and sizes (w, h) of the boxes and v the prior's variance. Decoding
    (``decode_center_size``) inverts it; target_box is then [N, M, 4] and the priors run along
    ``axis`` (0: prior j for target [i, j]; 1: prior i).

    Args:
        prior_box (Tensor): Priors [M, 4] as (x1, y1, x2, y2).
        prior_box_var (Tensor|list|tuple): Variances: an [M, 4] tensor or 4 numbers.
        target_box (Tensor): [N, 4] to encode, or [N, M, 4] to decode.
        code_type (str, optional): 'encode_center_size' or 'decode_center_size'.
            Default: 'encode_center_size'.
        box_normalized (bool, optional): Boxes are normalized; otherwise sizes get +1 (pixel
            boxes). Default: True.
        axis (int, optional): 0 or 1, the axis of target_box the priors run along (decoding).
            Default: 0.
        name (str, optional): Unused. Default: None.

    Returns:
        Tensor: [N, M, 4].

    Examples:
        >>> import oar
        >>> from oar.vision.ops import box_coder
        >>> prior = oar.to_tensor([[0.0, 0.0, 2.0, 2.0]])
        >>> target = oar.to_tensor([[1.0, 1.0, 3.0, 3.0]])
        >>> print(box_coder(prior, [1.0, 1.0, 1.0, 1.0], target))
        Tensor(shape=[1, 1, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[0.50000000, 0.50000000, 0.        , 0.        ]]])
    """
    oar = _oar()
    fn = "box_coder"
    check_tensor(fn, "prior_box", prior_box, ndim=2, dtypes=_FLOATS)
    check_tensor(fn, "target_box", target_box, dtypes=_FLOATS)
    if not isinstance(prior_box_var, (oar.Tensor, list, tuple)):
        raise TypeError(f"box_coder: Input prior_box_var must be Variable or list|tuple, but got "
                        f"{type(prior_box_var).__name__}")
    if code_type not in ("encode_center_size", "decode_center_size"):
        raise ValueError(f"box_coder: code_type should be 'encode_center_size' or "
                         f"'decode_center_size', but got {code_type!r}")
    if axis not in (0, 1):
        raise ValueError(f"box_coder: axis should be 0 or 1, but got {axis}")
    dtype = target_box.dtype
    off = 0.0 if box_normalized else 1.0
    m = prior_box.shape[0]
    if isinstance(prior_box_var, oar.Tensor):
        var = prior_box_var.astype(dtype)
        if list(var.shape) != [m, 4]:
            raise ValueError(f"box_coder: prior_box_var should have shape [{m}, 4], but got "
                             f"{list(var.shape)}")
    else:
        if len(prior_box_var) != 4:
            raise ValueError(f"box_coder: prior_box_var should hold 4 numbers, but got "
                             f"{len(prior_box_var)}")
        var = oar.to_tensor(np.asarray(prior_box_var, dtype=dtype.name).reshape(1, 4))
    pcx, pcy, pw, ph = _corners_to_center(prior_box.astype(dtype), off)
    if code_type == "encode_center_size":
        if target_box.ndim != 2:
            raise ValueError(f"box_coder: the rank of target_box should be 2 for encoding, but "
                             f"got {target_box.ndim}")
        # as Paddle: the target's centre is the plain midpoint, its size gets the pixel +1
        t = target_box
        tcx, tcy = (t[:, 0] + t[:, 2]) * 0.5, (t[:, 1] + t[:, 3]) * 0.5
        tw, th = t[:, 2] - t[:, 0] + off, t[:, 3] - t[:, 1] + off
        tcx, tcy, tw, th = (v.unsqueeze(1) for v in (tcx, tcy, tw, th))  # [N, 1]
        var = var.unsqueeze(0)  # [1, M|1, 4]
        out = oar.stack([(tcx - pcx) / pw / var[..., 0], (tcy - pcy) / ph / var[..., 1],
                         oar.log(oar.abs(tw / pw)) / var[..., 2],
                         oar.log(oar.abs(th / ph)) / var[..., 3]], axis=-1)
        return out
    if target_box.ndim != 3:
        raise ValueError(f"box_coder: the rank of target_box should be 3 for decoding, but got "
                         f"{target_box.ndim}")
    if target_box.shape[1 - axis] != m and not (axis == 1 and target_box.shape[0] == m):
        raise ValueError(f"box_coder: target_box.shape[{1 - axis}] should equal the number of "
                         f"priors ({m}), but got {list(target_box.shape)}")
    # priors run along axis 1 of target (axis=0) or axis 0 (axis=1)
    expand = (lambda t: t.unsqueeze(0)) if axis == 0 else (lambda t: t.unsqueeze(1))
    pcx, pcy, pw, ph = (expand(v) for v in (pcx, pcy, pw, ph))
    v = expand(var) if var.shape[0] == m else var.unsqueeze(0)
    t = target_box
    cx = v[..., 0] * t[..., 0] * pw + pcx
    cy = v[..., 1] * t[..., 1] * ph + pcy
    w = oar.exp(v[..., 2] * t[..., 2]) * pw
    h = oar.exp(v[..., 3] * t[..., 3]) * ph
    return oar.stack([cx - w * 0.5, cy - h * 0.5, cx + w * 0.5 - off, cy + h * 0.5 - off],
                     axis=-1)


def _as_list(fn, arg, value):
    if isinstance(value, numbers.Number):
        return [float(value)]
    if isinstance(value, (list, tuple)):
        return [float(v) for v in value]
    raise TypeError(f"{fn}: {arg} should be a number or a list of numbers, but got {value!r}")


def prior_box(input, image, min_sizes, max_sizes=None, aspect_ratios=[1.0],  # noqa: B006
              variance=[0.1, 0.1, 0.2, 0.2], flip=False, clip=False, steps=[0.0, 0.0],  # noqa: B006
              offset=0.5, min_max_aspect_ratios_order=False, name=None):
    """Prior (anchor) boxes of SSD: at the centre of every cell of the feature map, boxes of each
    min size and aspect ratio (and sqrt(min * max) squares), normalized by the image size.

    Args:
        input (Tensor): Feature map [N, C, H, W].
        image (Tensor): Image [N, C, IH, IW].
        min_sizes (list|float): Minimum box sizes (pixels).
        max_sizes (list|float, optional): Maximum sizes, one per min size. Default: None.
        aspect_ratios (list|float, optional): Aspect ratios (w / h). Default: [1.0].
        variance (list, optional): The 4 variances written for every box.
            Default: [0.1, 0.1, 0.2, 0.2].
        flip (bool, optional): Add the reciprocal of each aspect ratio. Default: False.
        clip (bool, optional): Clip the boxes to [0, 1]. Default: False.
        steps (list, optional): Cell size (w, h) in pixels; 0 means image / feature size.
            Default: [0.0, 0.0].
        offset (float, optional): Centre offset within a cell. Default: 0.5.
        min_max_aspect_ratios_order (bool, optional): Order each min size's boxes as min square,
            max square, then the other ratios (Caffe's order). Default: False.
        name (str, optional): Unused. Default: None.

    Returns:
        tuple: (boxes, variances), each [H, W, num_priors, 4].

    Examples:
        >>> import oar
        >>> from oar.vision.ops import prior_box
        >>> boxes, var = prior_box(oar.ones([1, 3, 2, 2]), oar.ones([1, 3, 4, 4]), [2.0])
        >>> print(boxes[0, 0])
        Tensor(shape=[1, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[0.        , 0.        , 0.50000000, 0.50000000]])
    """
    oar = _oar()
    fn = "prior_box"
    check_tensor(fn, "input", input, ndim=4)
    check_tensor(fn, "image", image, ndim=4)
    mins = _as_list(fn, "min_sizes", min_sizes)
    maxs = _as_list(fn, "max_sizes", max_sizes) if max_sizes is not None else []
    if maxs and len(maxs) != len(mins):
        raise ValueError(f"{fn}: max_sizes should have as many sizes as min_sizes ({len(mins)}), "
                         f"but got {len(maxs)}")
    ratios = [1.0]
    for ar in _as_list(fn, "aspect_ratios", aspect_ratios):
        if any(abs(ar - r) < 1e-6 for r in ratios):
            continue
        ratios.append(ar)
        if flip:
            ratios.append(1.0 / ar)
    variance = _as_list(fn, "variance", variance)
    if len(variance) != 4:
        raise ValueError(f"{fn}: variance should hold 4 numbers, but got {len(variance)}")
    steps = _as_list(fn, "steps", steps)
    h, w = input.shape[2], input.shape[3]
    ih, iw = image.shape[2], image.shape[3]
    step_w = steps[0] if steps[0] != 0 else iw / w
    step_h = steps[1] if steps[1] != 0 else ih / h
    f32 = np.float32
    half = []  # (half width, half height) of each prior at a cell, in order
    for k, s in enumerate(mins):
        if min_max_aspect_ratios_order:
            half.append((s / 2.0, s / 2.0))
            if maxs:
                m = math.sqrt(s * maxs[k]) / 2.0
                half.append((m, m))
            for ar in ratios:
                if abs(ar - 1.0) < 1e-6:
                    continue
                half.append((s * math.sqrt(ar) / 2.0, s / math.sqrt(ar) / 2.0))
        else:
            for ar in ratios:
                half.append((s * math.sqrt(ar) / 2.0, s / math.sqrt(ar) / 2.0))
            if maxs:
                m = math.sqrt(s * maxs[k]) / 2.0
                half.append((m, m))
    hw = oar.to_tensor(np.asarray(half, dtype=f32))  # [P, 2]
    cx = (oar.arange(w, dtype="float32") + f32(offset)) * f32(step_w)
    cy = (oar.arange(h, dtype="float32") + f32(offset)) * f32(step_h)
    cx = cx.reshape([1, w, 1]).expand([h, w, len(half)])
    cy = cy.reshape([h, 1, 1]).expand([h, w, len(half)])
    bw, bh = hw[:, 0].reshape([1, 1, -1]), hw[:, 1].reshape([1, 1, -1])
    boxes = oar.stack([(cx - bw) / f32(iw), (cy - bh) / f32(ih), (cx + bw) / f32(iw),
                       (cy + bh) / f32(ih)], axis=-1)
    if clip:
        boxes = oar.clip(boxes, 0.0, 1.0)
    var = oar.to_tensor(np.asarray(variance, dtype=f32)).expand(boxes.shape)
    dtype = input.dtype if input.dtype.name in _FLOATS else "float32"
    return boxes.astype(dtype), var.astype(dtype)


def yolo_box(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox=True,
             name=None, scale_x_y=1.0, iou_aware=False, iou_aware_factor=0.5):
    """Decodes the output of a YOLOv3 head into boxes (in image pixels) and class scores.

    For anchor a at cell (i, j): centre ((j + s(tx)) / W, (i + s(ty)) / H) times the image size,
    size anchor * exp(tw, th) scaled from the network input (downsample_ratio * (H, W)) to the
    image; scores are s(objectness) * s(class logits), and boxes and scores are 0 where
    s(objectness) < conf_thresh (s is the sigmoid).

    Args:
        x (Tensor): [N, A * (5 + class_num), H, W] (with iou_aware, A more channels in front).
        img_size (Tensor): [N, 2] (height, width) of each image, int32.
        anchors (list): Anchor sizes (w0, h0, w1, h1, ...).
        class_num (int): Number of classes.
        conf_thresh (float): Objectness threshold.
        downsample_ratio (int): Input size / feature size.
        clip_bbox (bool, optional): Clip boxes to the image. Default: True.
        name (str, optional): Unused. Default: None.
        scale_x_y (float, optional): Centre scale of YOLOv4. Default: 1.0.
        iou_aware (bool, optional): x carries IoU predictions first. Default: False.
        iou_aware_factor (float, optional): Weight of the IoU prediction. Default: 0.5.

    Returns:
        tuple: (boxes [N, A * H * W, 4], scores [N, A * H * W, class_num]).

    Examples:
        >>> import oar
        >>> from oar.vision.ops import yolo_box
        >>> x = oar.zeros([1, 7, 1, 1])
        >>> boxes, scores = yolo_box(x, oar.to_tensor([[32, 32]], dtype="int32"), [16, 16], 2,
        ...                          0.1, 32)
        >>> print(boxes)
        Tensor(shape=[1, 1, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[8. , 8. , 24., 24.]]])
    """
    oar = _oar()
    fn = "yolo_box"
    check_tensor(fn, "x", x, ndim=4, dtypes=_FLOATS)
    check_tensor(fn, "img_size", img_size, ndim=2, dtypes=("int32", "int64"))
    if not isinstance(anchors, (list, tuple)) or len(anchors) % 2:
        raise ValueError(f"{fn}: anchors should be a list of (w, h) pairs, but got {anchors!r}")
    na = len(anchors) // 2
    n, ch, h, w = x.shape
    per = 5 + class_num + (1 if iou_aware else 0)
    if ch != na * per:
        raise ValueError(f"{fn}: x should have {na * per} channels for {na} anchors and "
                         f"{class_num} classes, but got {ch}")
    dtype = x.dtype
    if iou_aware:
        iou = oar.nn.functional.sigmoid(x[:, :na])  # [N, A, H, W]
        x = x[:, na:]
    p = x.reshape([n, na, 5 + class_num, h, w])
    sig = oar.nn.functional.sigmoid
    conf = sig(p[:, :, 4])
    if iou_aware:
        conf = oar.pow(conf, 1.0 - iou_aware_factor) * oar.pow(iou, float(iou_aware_factor))
    size = img_size.astype(dtype)
    img_h = size[:, 0].reshape([n, 1, 1, 1])
    img_w = size[:, 1].reshape([n, 1, 1, 1])
    an = oar.to_tensor(np.asarray(anchors, dtype=dtype.name).reshape(na, 2))
    aw = an[:, 0].reshape([1, na, 1, 1])
    ah = an[:, 1].reshape([1, na, 1, 1])
    gx = oar.arange(w, dtype=dtype).reshape([1, 1, 1, w])
    gy = oar.arange(h, dtype=dtype).reshape([1, 1, h, 1])
    bias = -0.5 * (scale_x_y - 1.0)
    cx = (gx + sig(p[:, :, 0]) * scale_x_y + bias) * img_w / float(w)
    cy = (gy + sig(p[:, :, 1]) * scale_x_y + bias) * img_h / float(h)
    bw = oar.exp(p[:, :, 2]) * aw * img_w / float(downsample_ratio * w)
    bh = oar.exp(p[:, :, 3]) * ah * img_h / float(downsample_ratio * h)
    x1, y1, x2, y2 = cx - bw * 0.5, cy - bh * 0.5, cx + bw * 0.5, cy + bh * 0.5
    if clip_bbox:
        x1 = oar.clip(x1, min=0.0)
        y1 = oar.clip(y1, min=0.0)
        x2 = oar.minimum(x2, (img_w - 1.0).expand(x2.shape))
        y2 = oar.minimum(y2, (img_h - 1.0).expand(y2.shape))
    keep = (conf >= float(conf_thresh)).astype(dtype)  # [N, A, H, W]
    boxes = oar.stack([x1, y1, x2, y2], axis=-1) * keep.unsqueeze(-1)
    scores = sig(p[:, :, 5:]) * (conf * keep).unsqueeze(2)  # [N, A, C, H, W]
    boxes = boxes.reshape([n, na * h * w, 4])
    scores = scores.transpose([0, 1, 3, 4, 2]).reshape([n, na * h * w, class_num])
    return boxes, scores
