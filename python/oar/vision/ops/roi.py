"""RoI pooling: roi_align, roi_pool, psroi_pool and their layers (as paddle.vision.ops).

No loop runs over boxes or pixels. Each box's bins are described along each axis by a matrix
[K, bins, length] (how much every row / column of the feature map counts towards each bin); the
pooled values are then matrix products (align, average) or masked maxima (max) over the feature
map rows of each box's image, all oar ops, so gradients w.r.t. x come from autograd.
"""
import numpy as np

from ._common import _oar, batch_index, check_tensor, one_hot_rows, pair, round_half_away

_FLOATS = ("float16", "bfloat16", "float32", "float64")


def _check_inputs(fn, x, boxes, boxes_num, output_size):
    check_tensor(fn, "x", x, ndim=4, dtypes=_FLOATS)
    check_tensor(fn, "boxes", boxes, ndim=2, dtypes=_FLOATS)
    if boxes.shape[1] != 4:
        raise ValueError(f"{fn}: boxes should have shape [K, 4], but got {list(boxes.shape)}")
    check_tensor(fn, "boxes_num", boxes_num)
    ph, pw = pair(fn, "output_size", output_size)
    if ph <= 0 or pw <= 0:
        raise ValueError(f"{fn}: output_size should be positive, but got {output_size!r}")
    return batch_index(fn, boxes, boxes_num, x.shape[0]), ph, pw


def _per_image(x, bidx, wy, wx):
    """out[k, c] = wy[k] @ x[bidx[k], c] @ wx[k]^T: [K, C, PH, PW]."""
    oar = _oar()
    xk = oar.index_select(x, bidx, axis=0)
    return oar.matmul(oar.matmul(wy.unsqueeze(1), xk), wx.unsqueeze(1).transpose([0, 1, 3, 2]))


def _align_axis(start, size, pooled, grid, grid_max, length, dtype):
    """Bilinear sampling weights of one axis of roi_align: [K, pooled, length].

    start, size: [K] (box start and extent in feature-map units); grid: [K] samples per bin."""
    oar = _oar()
    p = oar.arange(pooled, dtype=dtype).reshape([1, -1, 1])
    g = oar.arange(grid_max, dtype=dtype).reshape([1, 1, -1])
    bin_size = (size / pooled).reshape([-1, 1, 1])
    gk = grid.astype(dtype).reshape([-1, 1, 1])
    pos = start.reshape([-1, 1, 1]) + p * bin_size + (g + 0.5) * bin_size / oar.clip(gk, min=1.0)
    valid = ((g < gk) & (pos >= -1.0) & (pos <= float(length))).astype(dtype)
    pos = oar.clip(pos, min=0.0)
    low = oar.floor(pos)
    edge = low >= float(length - 1)
    low = oar.clip(low, max=float(length - 1))
    high = oar.clip(low + 1.0, max=float(length - 1))
    frac = oar.where(edge, oar.zeros_like(pos), pos - low)
    w = (one_hot_rows(low.astype("int64"), length, dtype) * (1.0 - frac).unsqueeze(-1)
         + one_hot_rows(high.astype("int64"), length, dtype) * frac.unsqueeze(-1))
    w = (w * valid.unsqueeze(-1)).sum(axis=2)
    # As Paddle, a box with no samples (zero size, adaptive ratio) averages 0 / 0 = nan.
    return w / gk


def roi_align(x, boxes, boxes_num, output_size, spatial_scale=1.0, sampling_ratio=-1, aligned=True,
              name=None):
    """RoI Align: bilinear samples averaged over each bin of each box (Mask R-CNN).

    Args:
        x (Tensor): Feature map [N, C, H, W], float32 or float64.
        boxes (Tensor): Boxes [K, 4] as (x1, y1, x2, y2) in input-image units.
        boxes_num (Tensor): Number of boxes of each image, [N] int32.
        output_size (int|tuple): (PH, PW) of the pooled map, or one int for both.
        spatial_scale (float, optional): Scale from box units to feature-map units. Default: 1.0.
        sampling_ratio (int, optional): Samples per bin along each axis; -1 means
            ceil(box size / output size). Default: -1.
        aligned (bool, optional): Shift the boxes by -0.5 pixel (pixel centres). Default: True.
        name (str, optional): Unused. Default: None.

    Returns:
        Tensor: [K, C, PH, PW].

    Examples:
        >>> import oar
        >>> from oar.vision.ops import roi_align
        >>> x = oar.arange(16, dtype="float32").reshape([1, 1, 4, 4])
        >>> boxes = oar.to_tensor([[0.0, 0.0, 2.0, 2.0]])
        >>> out = roi_align(x, boxes, oar.to_tensor([1], dtype="int32"), output_size=1)
        >>> print(out.flatten())
        Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [2.50000000])
    """
    oar = _oar()
    bidx, ph, pw = _check_inputs("roi_align", x, boxes, boxes_num, output_size)
    dtype = x.dtype
    h, w = x.shape[2], x.shape[3]
    b = boxes.detach().astype(dtype) * float(spatial_scale) - (0.5 if aligned else 0.0)
    x1, y1, x2, y2 = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    rw, rh = x2 - x1, y2 - y1
    if not aligned:
        rw, rh = oar.clip(rw, min=1.0), oar.clip(rh, min=1.0)
    if sampling_ratio > 0:
        gy = oar.full([boxes.shape[0]], sampling_ratio, dtype="int64")
        gx = gy
    else:
        gy = oar.ceil(rh / ph).astype("int64")
        gx = oar.ceil(rw / pw).astype("int64")
    gmax = lambda g: max(int(g.max().item()), 1) if g.shape[0] else 1  # noqa: E731
    wy = _align_axis(y1, rh, ph, gy, gmax(gy), h, dtype)
    wx = _align_axis(x1, rw, pw, gx, gmax(gx), w, dtype)
    return _per_image(x, bidx, wy, wx)


def _range_masks(start, end, length):
    """mask[k, p, i] = start[k, p] <= i < end[k, p] (bool)."""
    oar = _oar()
    i = oar.arange(length, dtype=start.dtype).reshape([1, 1, -1])
    return (i >= start.unsqueeze(-1)) & (i < end.unsqueeze(-1))


def _pool_bounds(start, size, pooled, length, offset_start=True):
    """Integer bin bounds of roi_pool (start, size: [K] float): ([K, P], [K, P]) clipped to [0, length]."""
    oar = _oar()
    p = oar.arange(pooled, dtype=start.dtype).reshape([1, -1])
    bin_size = (size / pooled).unsqueeze(-1)
    lo = oar.floor(p * bin_size) + start.unsqueeze(-1)
    hi = oar.ceil((p + 1.0) * bin_size) + start.unsqueeze(-1)
    return oar.clip(lo, 0.0, float(length)), oar.clip(hi, 0.0, float(length))


def roi_pool(x, boxes, boxes_num, output_size, spatial_scale=1.0, name=None):
    """RoI max pooling (Fast R-CNN): the maximum of each bin of each box.

    Args:
        x (Tensor): Feature map [N, C, H, W], float32 or float64.
        boxes (Tensor): Boxes [K, 4] as (x1, y1, x2, y2) in input-image units.
        boxes_num (Tensor): Number of boxes of each image, [N] int32.
        output_size (int|tuple): (PH, PW) of the pooled map, or one int for both.
        spatial_scale (float, optional): Scale from box units to feature-map units. Default: 1.0.
        name (str, optional): Unused. Default: None.

    Returns:
        Tensor: [K, C, PH, PW]; empty bins are 0.

    Examples:
        >>> import oar
        >>> from oar.vision.ops import roi_pool
        >>> x = oar.arange(16, dtype="float32").reshape([1, 1, 4, 4])
        >>> boxes = oar.to_tensor([[0.0, 0.0, 3.0, 3.0]])
        >>> print(roi_pool(x, boxes, oar.to_tensor([1], dtype="int32"), output_size=2).flatten())
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [5. , 7. , 13., 15.])
    """
    oar = _oar()
    bidx, ph, pw = _check_inputs("roi_pool", x, boxes, boxes_num, output_size)
    dtype = x.dtype
    h, w = x.shape[2], x.shape[3]
    b = round_half_away(boxes.detach().astype("float64") * float(spatial_scale))
    x1, y1, x2, y2 = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    rh = oar.clip(y2 - y1 + 1.0, min=1.0)
    rw = oar.clip(x2 - x1 + 1.0, min=1.0)
    hs, he = _pool_bounds(y1, rh.astype(dtype).astype("float64"), ph, h)
    ws, we = _pool_bounds(x1, rw.astype(dtype).astype("float64"), pw, w)
    mh = _range_masks(hs, he, h)  # [K, PH, H]
    mw = _range_masks(ws, we, w)  # [K, PW, W]
    xk = oar.index_select(x, bidx, axis=0)  # [K, C, H, W]
    low = float(np.finfo(np.dtype(dtype.name if dtype.name != "bfloat16" else "float32")).min)
    neg = oar.full([1], low, dtype=dtype)
    # rows first: [K, C, PH, H, W] -> max over H -> [K, C, PH, W]
    rows = oar.where(mh.unsqueeze(1).unsqueeze(-1), xk.unsqueeze(2), neg).max(axis=3)
    # then columns: [K, C, PH, PW, W] -> max over W
    out = oar.where(mw.unsqueeze(1).unsqueeze(2), rows.unsqueeze(3), neg).max(axis=4)
    empty = ((he <= hs).unsqueeze(-1) | (we <= ws).unsqueeze(1)).unsqueeze(1)  # [K, 1, PH, PW]
    return oar.where(empty, oar.zeros([1], dtype=dtype), out)


def psroi_pool(x, boxes, boxes_num, output_size, spatial_scale=1.0, name=None):
    """Position-sensitive RoI average pooling (R-FCN): bin (i, j) of output channel c averages
    input channel (c * PH + i) * PW + j.

    Args:
        x (Tensor): Feature map [N, C, H, W], float32 or float64, C divisible by PH * PW.
        boxes (Tensor): Boxes [K, 4] as (x1, y1, x2, y2) in input-image units.
        boxes_num (Tensor): Number of boxes of each image, [N] int32.
        output_size (int|tuple): (PH, PW) of the pooled map, or one int for both.
        spatial_scale (float, optional): Scale from box units to feature-map units. Default: 1.0.
        name (str, optional): Unused. Default: None.

    Returns:
        Tensor: [K, C / (PH * PW), PH, PW]; empty bins are 0.

    Examples:
        >>> import oar
        >>> from oar.vision.ops import psroi_pool
        >>> x = oar.ones([1, 4, 4, 4])
        >>> boxes = oar.to_tensor([[0.0, 0.0, 3.0, 3.0]])
        >>> print(psroi_pool(x, boxes, oar.to_tensor([1], dtype="int32"), 2).shape)
        [1, 1, 2, 2]
    """
    oar = _oar()
    bidx, ph, pw = _check_inputs("psroi_pool", x, boxes, boxes_num, output_size)
    n, c, h, w = x.shape
    if c % (ph * pw) != 0:
        raise ValueError(f"psroi_pool: the channels of x ({c}) should be divisible by "
                         f"output_size[0] * output_size[1] ({ph * pw})")
    oc = c // (ph * pw)
    dtype = x.dtype
    s = float(spatial_scale)
    r = round_half_away(boxes.detach().astype("float64"))
    b = r.astype(dtype).astype("float64")
    x1, y1 = b[:, 0] * s, b[:, 1] * s
    x2, y2 = (b[:, 2] + 1.0) * s, (b[:, 3] + 1.0) * s
    rh = oar.clip(y2 - y1, min=0.1)
    rw = oar.clip(x2 - x1, min=0.1)

    def bounds(start, size, pooled, length):
        p = oar.arange(pooled, dtype="float64").reshape([1, -1])
        bs = (size / pooled).unsqueeze(-1)
        lo = oar.floor(bs * p + start.unsqueeze(-1))
        hi = oar.ceil(bs * (p + 1.0) + start.unsqueeze(-1))
        return oar.clip(lo, 0.0, float(length)), oar.clip(hi, 0.0, float(length))

    hs, he = bounds(y1, rh, ph, h)
    ws, we = bounds(x1, rw, pw, w)
    mh = _range_masks(hs, he, h).astype(dtype)  # [K, PH, H]
    mw = _range_masks(ws, we, w).astype(dtype)  # [K, PW, W]
    sums = _per_image(x, bidx, mh, mw)  # [K, C, PH, PW]: every channel pooled over every bin
    area = ((he - hs).unsqueeze(-1) * (we - ws).unsqueeze(1)).astype(dtype)  # [K, PH, PW]
    # keep, for output channel o and bin (i, j), input channel (o * PH + i) * PW + j
    k = sums.shape[0]
    sums = sums.reshape([k, oc, ph * pw, ph * pw])
    diag = oar.arange(ph * pw, dtype="int64").reshape([1, 1, -1, 1]).expand([k, oc, ph * pw, 1])
    picked = oar.take_along_axis(sums, diag, axis=3).reshape([k, oc, ph, pw])
    empty = (area <= 0).unsqueeze(1)
    return oar.where(empty, oar.zeros([1], dtype=dtype),
                     picked / oar.where(empty, oar.ones([1], dtype=dtype), area.unsqueeze(1)))


from oar.nn import Layer  # noqa: E402  (oar.nn is loaded before oar.vision)


class _RoILayer(Layer):
    """A layer holding output_size and spatial_scale that calls its pooling function `_pool`."""
    _pool = None

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size = output_size
        self._spatial_scale = spatial_scale

    def forward(self, x, boxes, boxes_num):
        return self._pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)


class RoIAlign(_RoILayer):
    """The layer of :func:`roi_align`.

    Args:
        output_size (int|tuple): (PH, PW) of the pooled map, or one int for both.
        spatial_scale (float, optional): Scale from box units to feature-map units. Default: 1.0.

    Examples:
        >>> import oar
        >>> from oar.vision.ops import RoIAlign
        >>> layer = RoIAlign(output_size=(2, 2))
        >>> out = layer(oar.ones([1, 3, 8, 8]), oar.to_tensor([[0.0, 0.0, 4.0, 4.0]]),
        ...             oar.to_tensor([1], dtype="int32"))
        >>> print(out.shape)
        [1, 3, 2, 2]
    """

    def forward(self, x, boxes, boxes_num, aligned=True):
        return roi_align(x, boxes, boxes_num, self._output_size, self._spatial_scale,
                         aligned=aligned)


class RoIPool(_RoILayer):
    """The layer of :func:`roi_pool`.

    Args:
        output_size (int|tuple): (PH, PW) of the pooled map, or one int for both.
        spatial_scale (float, optional): Scale from box units to feature-map units. Default: 1.0.

    Examples:
        >>> import oar
        >>> from oar.vision.ops import RoIPool
        >>> layer = RoIPool(output_size=2)
        >>> out = layer(oar.ones([1, 3, 8, 8]), oar.to_tensor([[0.0, 0.0, 4.0, 4.0]]),
        ...             oar.to_tensor([1], dtype="int32"))
        >>> print(out.shape)
        [1, 3, 2, 2]
    """

    _pool = staticmethod(roi_pool)

    def extra_repr(self):
        return f"output_size={self._output_size}, spatial_scale={self._spatial_scale}"


class PSRoIPool(_RoILayer):
    """The layer of :func:`psroi_pool`.

    Args:
        output_size (int|tuple): (PH, PW) of the pooled map, or one int for both.
        spatial_scale (float, optional): Scale from box units to feature-map units. Default: 1.0.

    Examples:
        >>> import oar
        >>> from oar.vision.ops import PSRoIPool
        >>> layer = PSRoIPool(output_size=2)
        >>> out = layer(oar.ones([1, 8, 8, 8]), oar.to_tensor([[0.0, 0.0, 4.0, 4.0]]),
        ...             oar.to_tensor([1], dtype="int32"))
        >>> print(out.shape)
        [1, 2, 2, 2]
    """

    _pool = staticmethod(psroi_pool)
