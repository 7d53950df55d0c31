"""Deformable convolution v1 / v2: deform_conv2d and DeformConv2D (as paddle.vision.ops).

Every kernel tap of every output position reads the input at its regular position plus a learned
offset. The reads are one bilinear grid_sample per (image, deformable group) over all taps at once
(zeros outside the image, as Paddle's im2col), the optional mask scales them (v2), and the
convolution is then a batched matmul of the weights with that column tensor. All oar ops, so the
gradients w.r.t. x, offset, mask, weight and bias come from autograd.
"""
import math

from ._common import _oar, check_tensor, pair

_FLOATS = ("float16", "bfloat16", "float32", "float64")


def _fits(shape, want):
    """shape is want, where a -1 (a dim a static program knows only when it runs) matches any."""
    return len(shape) == len(want) and all(a == b or a < 0 or b < 0 for a, b in zip(shape, want))


def deform_conv2d(x, offset, weight, bias=None, stride=1, padding=0, dilation=1,
                  deformable_groups=1, groups=1, mask=None, name=None):
    """Deformable 2-D convolution (v1; v2 when ``mask`` is given).

    Args:
        x (Tensor): Input [N, C, H, W], float32 or float64.
        offset (Tensor): Offsets [N, 2 * deformable_groups * kh * kw, Ho, Wo]; for group g and
            tap k = i * kw + j, channel g * 2 * kh * kw + 2 * k is the row (y) offset and the next
            one the column (x) offset.
        weight (Tensor): Filters [M, C / groups, kh, kw].
        bias (Tensor, optional): [M]. Default: None.
        stride (int|list|tuple, optional): Default: 1.
        padding (int|list|tuple, optional): Default: 0.
        dilation (int|list|tuple, optional): Default: 1.
        deformable_groups (int, optional): Groups of input channels sharing offsets. Default: 1.
        groups (int, optional): Convolution groups. Default: 1.
        mask (Tensor, optional): Modulation [N, deformable_groups * kh * kw, Ho, Wo]. Default: None.
        name (str, optional): Unused. Default: None.

    Returns:
        Tensor: [N, M, Ho, Wo].

    Examples:
        >>> import oar
        >>> from oar.vision.ops import deform_conv2d
        >>> x = oar.ones([1, 1, 3, 3])
        >>> offset = oar.zeros([1, 8, 2, 2])
        >>> out = deform_conv2d(x, offset, oar.ones([1, 1, 2, 2]))
        >>> print(out)
        Tensor(shape=[1, 1, 2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[[4., 4.],
                  [4., 4.]]]])
    """
    oar = _oar()
    fn = "deform_conv2d"
    check_tensor(fn, "x", x, ndim=4, dtypes=_FLOATS)
    check_tensor(fn, "offset", offset, ndim=4, dtypes=_FLOATS)
    check_tensor(fn, "weight", weight, ndim=4, dtypes=_FLOATS)
    sh, sw = pair(fn, "stride", stride)
    ph, pw = pair(fn, "padding", padding)
    dh, dw = pair(fn, "dilation", dilation)
    n, c, h, w = x.shape
    m, cg, kh, kw = weight.shape
    if groups <= 0 or deformable_groups <= 0:
        raise ValueError(f"{fn}: groups and deformable_groups should be positive, but got "
                         f"{groups} and {deformable_groups}")
    if c % groups or m % groups or cg * groups != c:
        raise ValueError(f"{fn}: the channels of x ({c}) should equal weight.shape[1] ({cg}) * "
                         f"groups ({groups}), and weight.shape[0] ({m}) be divisible by groups")
    if c % deformable_groups:
        raise ValueError(f"{fn}: the channels of x ({c}) should be divisible by "
                         f"deformable_groups ({deformable_groups})")
    ho = (h + 2 * ph - (dh * (kh - 1) + 1)) // sh + 1
    wo = (w + 2 * pw - (dw * (kw - 1) + 1)) // sw + 1
    if ho <= 0 or wo <= 0:
        raise ValueError(f"{fn}: the output size ({ho}, {wo}) should be positive; the input "
                         f"({h}, {w}) is too small for the kernel")
    taps = kh * kw
    dg = deformable_groups
    want = [n, 2 * dg * taps, ho, wo]
    if not _fits(offset.shape, want):
        raise ValueError(f"{fn}: offset should have shape {want}, but got {list(offset.shape)}")
    if mask is not None:
        check_tensor(fn, "mask", mask, ndim=4, dtypes=_FLOATS)
        want = [n, dg * taps, ho, wo]
        if not _fits(mask.shape, want):
            raise ValueError(f"{fn}: mask should have shape {want}, but got {list(mask.shape)}")
    dtype = x.dtype
    # The leading (batch) dim is -1 in the reshapes: in a static program it may be unknown.
    off = offset.astype(dtype).reshape([-1, dg, taps, 2, ho, wo])
    # regular positions of each tap at each output position
    ki = oar.arange(kh, dtype=dtype).reshape([kh, 1]).expand([kh, kw]).reshape([taps, 1, 1])
    kj = oar.arange(kw, dtype=dtype).reshape([1, kw]).expand([kh, kw]).reshape([taps, 1, 1])
    oy = oar.arange(ho, dtype=dtype).reshape([1, ho, 1])
    ox = oar.arange(wo, dtype=dtype).reshape([1, 1, wo])
    py = oy * float(sh) - float(ph) + ki * float(dh) + off[:, :, :, 0]  # [N, dg, taps, Ho, Wo]
    px = ox * float(sw) - float(pw) + kj * float(dw) + off[:, :, :, 1]
    # grid_sample's normalised coordinates (align_corners=False): pixel p -> (2p + 1) / size - 1
    gx = (px * 2.0 + 1.0) / float(w) - 1.0
    gy = (py * 2.0 + 1.0) / float(h) - 1.0
    grid = oar.stack([gx, gy], axis=-1).reshape([-1, taps * ho, wo, 2])
    src = x.reshape([-1, c // dg, h, w])
    cols = oar.nn.functional.grid_sample(src, grid, mode="bilinear", padding_mode="zeros",
                                         align_corners=False)  # [N*dg, C/dg, taps*Ho, Wo]
    cols = cols.reshape([-1, dg, c // dg, taps, ho * wo])
    if mask is not None:
        cols = cols * mask.astype(dtype).reshape([-1, dg, 1, taps, ho * wo])
    cols = cols.reshape([-1, groups, (c // groups) * taps, ho * wo])
    wmat = weight.reshape([1, groups, m // groups, cg * taps])
    out = oar.matmul(wmat, cols).reshape([-1, m, ho, wo])
    if bias is not None:
        out = out + bias.reshape([1, m, 1, 1])
    return out


from oar.nn import Layer  # noqa: E402  (oar.nn is loaded before oar.vision)


class DeformConv2D(Layer):
    """Deformable 2-D convolution layer (see :func:`deform_conv2d`).

    Args:
        in_channels (int): Channels of the input.
        out_channels (int): Channels of the output.
        kernel_size (int|list|tuple): Kernel size.
        stride (int|list|tuple, optional): Default: 1.
        padding (int|list|tuple, optional): Default: 0.
        dilation (int|list|tuple, optional): Default: 1.
        deformable_groups (int, optional): Default: 1.
        groups (int, optional): Default: 1.
        weight_attr (ParamAttr, optional): Weight attribute. Default: None.
        bias_attr (ParamAttr|bool, optional): Bias attribute; False means no bias. Default: None.

    Examples:
        >>> import oar
        >>> from oar.vision.ops import DeformConv2D
        >>> conv = DeformConv2D(2, 4, kernel_size=3)
        >>> out = conv(oar.ones([1, 2, 5, 5]), oar.zeros([1, 18, 3, 3]))
        >>> print(out.shape)
        [1, 4, 3, 3]
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 deformable_groups=1, groups=1, weight_attr=None, bias_attr=None):
        super().__init__()
        from oar.nn.initializer import Normal
        fn = "DeformConv2D"
        if groups <= 0 or in_channels % groups:
            raise ValueError(f"{fn}: in_channels ({in_channels}) must be divisible by groups "
                             f"({groups})")
        self._in_channels, self._out_channels = in_channels, out_channels
        self._kernel_size = pair(fn, "kernel_size", kernel_size)
        self._stride = pair(fn, "stride", stride)
        self._padding = pair(fn, "padding", padding)
        self._dilation = pair(fn, "dilation", dilation)
        self._deformable_groups, self._groups = deformable_groups, groups
        fan_in = in_channels * self._kernel_size[0] * self._kernel_size[1]
        self.weight = self.create_parameter(
            [out_channels, in_channels // groups] + self._kernel_size, attr=weight_attr,
            default_initializer=Normal(0.0, math.sqrt(2.0 / fan_in)))
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x, offset, mask=None):
        return deform_conv2d(x, offset, self.weight, self.bias, self._stride, self._padding,
                             self._dilation, self._deformable_groups, self._groups, mask)
