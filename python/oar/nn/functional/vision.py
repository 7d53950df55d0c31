"""Sampling and layout ops (paddle.nn.functional): interpolate/upsample, grid_sample,
affine_grid, pixel_shuffle, pixel_unshuffle, channel_shuffle, unfold, fold, zeropad2d,
max_unpool1d/2d/3d, local_response_norm and bilinear.

The C++ ops (oar/ops/specs/vision.yaml) check their arguments and do the work; this layer turns
Paddle's Python-only forms (size/scale_factor as ints, lists or tensors, data formats for
interpolate, None for defaults) into the ops' arguments, with Paddle's error messages for them.
"""
from ... import _C
from .common import pad as _pad

__all__ = ["interpolate", "upsample", "grid_sample", "affine_grid", "pixel_shuffle",
           "pixel_unshuffle", "channel_shuffle", "unfold", "fold", "zeropad2d", "max_unpool1d",
           "max_unpool2d", "max_unpool3d", "local_response_norm", "bilinear"]

_FORMATS = {3: ("NCW", "NWC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}
_MODES = ("nearest", "linear", "bilinear", "trilinear", "bicubic", "area")


def _ints(v):
    if hasattr(v, "tolist"):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        return [int(e.item()) if hasattr(e, "item") else int(e) for e in v]
    return [int(v)]


def _floats(v):
    if hasattr(v, "tolist"):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        return [float(e.item()) if hasattr(e, "item") else float(e) for e in v]
    return None


def interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
                align_mode=0, data_format=None, recompute_scale_factor=None, antialias=False,
                name=None):
    """paddle.nn.functional.interpolate: resizes the spatial dims of a 3-D (linear, area), 4-D
    (nearest, bilinear, bicubic, area) or 5-D (nearest, trilinear, area) input."""
    if not isinstance(mode, str) or mode.lower() not in _MODES:
        raise ValueError("The 'resample' of image_resize can only be 'area', 'linear', "
                         "'bilinear', 'trilinear',  'bicubic' or 'nearest' currently.")
    mode = mode.lower()
    nd = x.ndim
    if nd not in _FORMATS:
        raise ValueError(f"interpolate: x should be a 3-D, 4-D or 5-D tensor, got shape {x.shape}")
    if data_format is None:
        data_format = _FORMATS[nd][0]
    if data_format not in _FORMATS[nd]:
        raise ValueError(f"Got wrong value for param `data_format`: {data_format} received but "
                         f"only `{_FORMATS[nd][0]}` or `{_FORMATS[nd][1]}` supported for "
                         f"{nd}-D input.")
    if mode == "linear" and nd != 3:
        raise ValueError("'linear' only support 3-D tensor.")
    if mode in ("bilinear", "bicubic") and nd != 4:
        raise ValueError("'bilinear' and 'bicubic' only support 4-D tensor.")
    if mode == "trilinear" and nd != 5:
        raise ValueError("'trilinear'only support 5-D tensor.")
    if mode == "nearest" and nd == 3:
        raise ValueError("'NEAREST' only support 4-D  or 5-D tensor.")
    if align_corners and mode in ("nearest", "area"):
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if align_mode not in (0, 1):
        raise ValueError("align_mode can only be 0 or 1")
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported by oar")
    if size is None and scale_factor is None:
        raise ValueError("One of size and scale_factor must not be None.")
    if size is not None and scale_factor is not None:
        raise ValueError("Only one of size or scale_factor should be defined.")
    sp = nd - 2
    last = data_format[-1] == "C"
    in_sizes = list(x.shape[1:-1]) if last else list(x.shape[2:])
    scales = [0.0, 0.0, 0.0]
    if size is not None:
        if not isinstance(size, (list, tuple)) and not hasattr(size, "tolist"):
            raise TypeError(f"interpolate: size should be a list, tuple or Tensor, got "
                            f"{type(size).__name__}")  # as Paddle, which can't iterate an int
        sizes = _ints(size)
        if len(sizes) != sp:
            raise ValueError("The x and size should satisfy rank(x) - 2 == len(size).")
        if any(s <= 0 for s in sizes):
            raise ValueError(f"interpolate: the output sizes should be greater than 0, got {sizes}")
    else:
        fs = _floats(scale_factor)
        if fs is None:
            fs = [float(scale_factor)] * sp
        if len(fs) != sp:
            raise ValueError("The x and scale_factor should satisfy rank(x) - 2 == "
                             "len(scale_factor).")
        if any(f <= 0 for f in fs):
            raise ValueError("Attr(scale_shape) should be greater than 0.")
        sizes = [int(i * f) for i, f in zip(in_sizes, fs)]
        if not recompute_scale_factor:
            scales[:sp] = fs
    if last:  # the kernels are channel-first
        x = _C.transpose(x, [0, nd - 1] + list(range(1, nd - 1)))
    if mode == "area":
        from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d
        pool = (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[sp - 1]
        out = pool(x, sizes)
    else:
        out = _C.interp(x, sizes, mode, bool(align_corners), int(align_mode), *scales)
    if last:
        out = _C.transpose(out, [0] + list(range(2, nd)) + [1])
    return out


def upsample(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
             align_mode=0, data_format=None, name=None):
    """paddle.nn.functional.upsample: interpolate under its older name."""
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format)


def grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True, name=None):
    """Samples x at the normalized coordinates of grid (e.g. from affine_grid).

    Args:
        x (Tensor): The input, shape [N, C, H, W] (or [N, C, D, H, W]), float32 or float64.
        grid (Tensor): Shape [N, H_out, W_out, 2] (or [N, D_out, H_out, W_out, 3]); each entry is an
            (x, y[, z]) position with -1 and 1 at the input's borders.
        mode (str, optional): 'bilinear' or 'nearest'. Default: 'bilinear'.
        padding_mode (str, optional): Values outside the input: 'zeros', 'border' or 'reflection'.
            Default: 'zeros'.
        align_corners (bool, optional): When True, -1 and 1 are the centers of the corner pixels;
            otherwise their outer edges. Default: True.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [N, C, H_out, W_out] (or [N, C, D_out, H_out, W_out]), same dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.arange(4, dtype='float32').reshape([1, 1, 2, 2])
        >>> theta = oar.to_tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        >>> grid = oar.nn.functional.affine_grid(theta, [1, 1, 2, 2])
        >>> print(oar.nn.functional.grid_sample(x, grid).numpy())
        [[[[0. 1.]
           [2. 3.]]]]
    """
    return _C.grid_sample(x, grid, mode, padding_mode, bool(align_corners))


def affine_grid(theta, out_shape, align_corners=True, name=None):
    """Sampling grid of an affine transform, for grid_sample.

    Args:
        theta (Tensor): Affine matrices, shape [N, 2, 3] (2-D) or [N, 3, 4] (3-D), float32 or
            float64.
        out_shape (list|tuple|Tensor): The output size, [N, C, H, W] or [N, C, D, H, W].
        align_corners (bool, optional): When True, -1 and 1 are the centers of the corner pixels;
            otherwise their outer edges. Default: True.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [N, H, W, 2] (or [N, D, H, W, 3]), normalized (x, y[, z]) coordinates in [-1,
        1].

    Examples:
        >>> import oar
        >>> theta = oar.to_tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        >>> grid = oar.nn.functional.affine_grid(theta, [1, 1, 2, 2])
        >>> print(grid.shape)
        [1, 2, 2, 2]
        >>> print(grid.numpy()[0, 0])
        [[-1. -1.]
         [ 1. -1.]]
    """
    return _C.affine_grid(theta, _ints(out_shape), bool(align_corners))


def pixel_shuffle(x, upscale_factor, data_format="NCHW", name=None):
    """Rearranges [N, C * r * r, H, W] into [N, C, H * r, W * r] (sub-pixel upsampling).

    Args:
        x (Tensor): The input, 4-D; its channel count must divide by upscale_factor ** 2.
        upscale_factor (int): The factor r.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the rearranged tensor, same dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.arange(4, dtype='float32').reshape([1, 4, 1, 1])
        >>> print(oar.nn.functional.pixel_shuffle(x, 2).numpy())
        [[[[0. 1.]
           [2. 3.]]]]
    """
    if not isinstance(upscale_factor, int):
        raise TypeError("upscale factor must be int type")
    return _C.pixel_shuffle(x, upscale_factor, data_format)


def pixel_unshuffle(x, downscale_factor, data_format="NCHW", name=None):
    """Rearranges [N, C, H * r, W * r] into [N, C * r * r, H, W], the inverse of pixel_shuffle.

    Args:
        x (Tensor): The input, 4-D; its height and width must divide by downscale_factor.
        downscale_factor (int): The factor r.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the rearranged tensor, same dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.arange(4, dtype='float32').reshape([1, 1, 2, 2])
        >>> print(oar.nn.functional.pixel_unshuffle(x, 2).shape)
        [1, 4, 1, 1]
    """
    if not isinstance(downscale_factor, int):
        raise TypeError("Downscale factor must be int type")
    return _C.pixel_unshuffle(x, downscale_factor, data_format)


def channel_shuffle(x, groups, data_format="NCHW", name=None):
    """Shuffles channels across groups: [N, g * c, H, W] is viewed as [N, g, c, H, W],
    transposed to [N, c, g, H, W] and flattened back.

    Args:
        x (Tensor): The input, 4-D; its channel count must divide by groups.
        groups (int): The number of groups g.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: same shape and dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.arange(4, dtype='float32').reshape([1, 4, 1, 1])
        >>> print(oar.nn.functional.channel_shuffle(x, 2).numpy().reshape([-1]))
        [0. 2. 1. 3.]
    """
    if not isinstance(groups, int):
        raise TypeError("groups must be int type")
    return _C.channel_shuffle(x, groups, data_format)


def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """Extracts sliding blocks (im2col): each kernel-size patch of x becomes one column.

    Args:
        x (Tensor): The input, shape [N, C, H, W].
        kernel_sizes (int|list): Block size [kh, kw], or one int for both.
        strides (int|list, optional): Block step. Default: 1.
        paddings (int|list, optional): Zero padding: one int, [ph, pw], or [top, left, bottom,
            right].
            Default: 0.
        dilations (int|list, optional): Spacing between block elements. Default: 1.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [N, C * kh * kw, L], L being the number of blocks.

    Examples:
        >>> import oar
        >>> x = oar.arange(16, dtype='float32').reshape([1, 1, 4, 4])
        >>> print(oar.nn.functional.unfold(x, [2, 2], strides=2).numpy())
        [[[ 0.  2.  8. 10.]
          [ 1.  3.  9. 11.]
          [ 4.  6. 12. 14.]
          [ 5.  7. 13. 15.]]]
    """
    return _C.unfold(x, _ints(kernel_sizes), _ints(strides), _ints(paddings), _ints(dilations))


def fold(x, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """Combines sliding blocks into a tensor (col2im), the inverse layout of unfold; overlapping
    values are summed.

    Args:
        x (Tensor): The blocks, shape [N, C * kh * kw, L].
        output_sizes (int|list): The output size [H, W], or one int for both.
        kernel_sizes (int|list): Block size [kh, kw], or one int for both.
        strides (int|list, optional): Block step. Default: 1.
        paddings (int|list, optional): Padding: one int, [ph, pw], or [top, left, bottom, right].
            Default: 0.
        dilations (int|list, optional): Spacing between block elements. Default: 1.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [N, C, H, W], same dtype as x.

    Examples:
        >>> import oar
        >>> cols = oar.ones([1, 4, 9])
        >>> print(oar.nn.functional.fold(cols, [4, 4], 2).numpy())
        [[[[1. 2. 2. 1.]
           [2. 4. 4. 2.]
           [2. 4. 4. 2.]
           [1. 2. 2. 1.]]]]
    """
    return _C.fold(x, _ints(output_sizes), _ints(kernel_sizes), _ints(strides), _ints(paddings),
                   _ints(dilations))


def zeropad2d(x, padding, data_format="NCHW", name=None):
    """Zero padding of the H and W dims; padding: an int or [left, right, top, bottom]."""
    padding = _ints(padding)
    if len(padding) == 1:
        padding = padding * 4
    return _pad(x, padding, mode="constant", value=0.0, data_format=data_format)


def _unpool(nd, x, indices, kernel_size, stride, padding, data_format, output_size):
    op = getattr(_C, f"max_unpool{nd}d")
    return op(x, indices, _ints(kernel_size), [] if stride is None else _ints(stride),
              _ints(padding), data_format, [] if output_size is None else _ints(output_size))


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, data_format="NCL",
                 output_size=None, name=None):
    """1-D max unpooling, a partial inverse of max_pool1d: each value of x is written at the
    position its index gives in a zero output.

    Args:
        x (Tensor): The pooled values, shape [N, C, L], float32 or float64.
        indices (Tensor): The mask returned by max_pool1d(..., return_mask=True), x's shape, int32
            or int64: flat positions within each output plane.
        kernel_size (int|list|tuple): The pooling window size.
        stride (int|list|tuple, optional): The pooling step; None means kernel_size. Default: None.
        padding (int|list|tuple, optional): The pooling padding. Default: 0.
        data_format (str, optional): Only 'NCL'. Default: 'NCL'.
        output_size (list|tuple, optional): The output spatial size; None computes it from
            kernel_size,
            stride and padding. Default: None.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [N, C, ...] with the unpooled spatial size, same dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[[1.0, 3.0, 2.0, 4.0]]])
        >>> out, mask = oar.nn.functional.max_pool1d(x, 2, return_mask=True)
        >>> print(oar.nn.functional.max_unpool1d(out, mask, 2).numpy())
        [[[0. 3. 0. 4.]]]
    """
    return _unpool(1, x, indices, kernel_size, stride, padding, data_format, output_size)


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, data_format="NCHW",
                 output_size=None, name=None):
    """2-D max unpooling, a partial inverse of max_pool2d: each value of x is written at the
    position its index gives in a zero output.

    Args:
        x (Tensor): The pooled values, shape [N, C, H, W], float32 or float64.
        indices (Tensor): The mask returned by max_pool2d(..., return_mask=True), x's shape, int32
            or int64: flat positions within each output plane.
        kernel_size (int|list|tuple): The pooling window size.
        stride (int|list|tuple, optional): The pooling step; None means kernel_size. Default: None.
        padding (int|list|tuple, optional): The pooling padding. Default: 0.
        data_format (str, optional): Only 'NCHW'. Default: 'NCHW'.
        output_size (list|tuple, optional): The output spatial size; None computes it from
            kernel_size,
            stride and padding. Default: None.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [N, C, ...] with the unpooled spatial size, same dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[[[1.0, 2.0], [4.0, 3.0]]]])
        >>> out, mask = oar.nn.functional.max_pool2d(x, 2, return_mask=True)
        >>> print(oar.nn.functional.max_unpool2d(out, mask, 2).numpy())
        [[[[0. 0.]
           [4. 0.]]]]
    """
    return _unpool(2, x, indices, kernel_size, stride, padding, data_format, output_size)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, data_format="NCDHW",
                 output_size=None, name=None):
    """3-D max unpooling, a partial inverse of max_pool3d: each value of x is written at the
    position its index gives in a zero output.

    Args:
        x (Tensor): The pooled values, shape [N, C, D, H, W], float32 or float64.
        indices (Tensor): The mask returned by max_pool3d(..., return_mask=True), x's shape, int32
            or int64: flat positions within each output plane.
        kernel_size (int|list|tuple): The pooling window size.
        stride (int|list|tuple, optional): The pooling step; None means kernel_size. Default: None.
        padding (int|list|tuple, optional): The pooling padding. Default: 0.
        data_format (str, optional): Only 'NCDHW'. Default: 'NCDHW'.
        output_size (list|tuple, optional): The output spatial size; None computes it from
            kernel_size,
            stride and padding. Default: None.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [N, C, ...] with the unpooled spatial size, same dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.arange(8, dtype='float32').reshape([1, 1, 2, 2, 2])
        >>> out, mask = oar.nn.functional.max_pool3d(x, 2, return_mask=True)
        >>> print(oar.nn.functional.max_unpool3d(out, mask, 2).numpy().reshape([-1]))
        [0. 0. 0. 0. 0. 0. 0. 7.]
    """
    return _unpool(3, x, indices, kernel_size, stride, padding, data_format, output_size)


def local_response_norm(x, size, alpha=1e-4, beta=0.75, k=1.0, data_format="NCHW", name=None):
    """Local response normalization across channels:
    x / (k + alpha / size * sum of x ** 2 over `size` neighbouring channels) ** beta.

    Args:
        x (Tensor): The input, 3-D, 4-D or 5-D, float32 or float64.
        size (int): Number of channels summed over.
        alpha (float, optional): Scale. Default: 1e-4.
        beta (float, optional): Exponent. Default: 0.75.
        k (float, optional): Additive constant. Default: 1.0.
        data_format (str, optional): Channels first ('NCL', 'NCHW', 'NCDHW') or last ('NLC', 'NHWC',
            'NDHWC'). Default: 'NCHW'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: same shape and dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.ones([1, 3, 1, 1])
        >>> print(oar.nn.functional.local_response_norm(x, size=3).numpy().reshape([-1]))
        [0.99995005 0.999925   0.99995005]
    """
    return _C.local_response_norm(x, size, float(alpha), float(beta), float(k), data_format)


def bilinear(x1, x2, weight, bias=None, name=None):
    """Bilinear transform: out[n, o] = x1[n] @ weight[o] @ x2[n] + bias[o].

    Args:
        x1 (Tensor): Shape [N, in1], float32 or float64.
        x2 (Tensor): Shape [N, in2].
        weight (Tensor): Shape [out, in1, in2].
        bias (Tensor, optional): Shape [1, out]. Default: None.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [N, out].

    Examples:
        >>> import oar
        >>> x1, x2 = oar.ones([2, 3]), oar.ones([2, 4])
        >>> out = oar.nn.functional.bilinear(x1, x2, oar.ones([5, 3, 4]))
        >>> print(out.shape)
        [2, 5]
    """
    return _C.bilinear(x1, x2, weight, bias)
