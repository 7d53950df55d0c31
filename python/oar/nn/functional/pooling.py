"""Pooling (paddle.nn.functional): Paddle's names, argument order and padding forms.

The C++ ops (oar/ops/specs/pool.yaml) check the arguments and do the work; this layer turns the
forms C++ cannot take (string and pair-list paddings, None sizes) into lists, and picks the
*_with_index op when the mask is asked for.
"""
from ... import _C
from .conv import _padding

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "lp_pool1d", "lp_pool2d"]

_LAST = {"NLC", "NHWC", "NDHWC"}


def _stride(stride):
    return [] if stride is None else stride


def _max_pool(nd, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format):
    if return_mask and data_format in _LAST:
        raise ValueError("When setting return_mask to true, data_format must be set to "
                         f"{'NCHW' if nd == 2 else 'NCDHW' if nd == 3 else 'NCL'} in API:"
                         f"max_pool{nd}d")
    padding, algorithm = _padding(padding, nd)
    if return_mask:
        op = getattr(_C, f"max_pool{nd}d_with_index")
        return tuple(op(x, kernel_size, _stride(stride), padding, ceil_mode, data_format,
                        algorithm))
    return getattr(_C, f"max_pool{nd}d")(x, kernel_size, _stride(stride), padding, ceil_mode,
                                         data_format, algorithm)


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               name=None):
    """1-D max pooling: the maximum of each kernel window.

    Args:
        x (Tensor): The input, shape [N, C, L], float32 or float64.
        kernel_size (int|list|tuple): Window size.
        stride (int|list|tuple, optional): Window step; None means kernel_size. Default: None.
        padding (int|list|tuple|str, optional): Zero padding: an int, one int per spatial dim, a
            [before, after] pair per dim (batch and channel pairs zero), 'SAME' or 'VALID'.
            Default: 0.
        return_mask (bool, optional): Also return the flat index of each maximum within its
            input plane (channels-first layouts only). Default: False.
        ceil_mode (bool, optional): Round the output size up instead of down. Default: False.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the pooled tensor, same dtype as x; with return_mask, a tuple (out, mask) where
        mask is int32 with out's shape.

    Examples:
        >>> import oar
        >>> x = oar.arange(8, dtype='float32').reshape([1, 1, 8])
        >>> print(oar.nn.functional.max_pool1d(x, kernel_size=2).numpy())
        [[[1. 3. 5. 7.]]]
    """
    return _max_pool(1, x, kernel_size, stride, padding, return_mask, ceil_mode, "NCL")


def max_pool2d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               data_format="NCHW", name=None):
    """2-D max pooling: the maximum of each kernel window.

    Args:
        x (Tensor): The input, shape [N, C, H, W] (channels last for 'NHWC'), float32 or float64.
        kernel_size (int|list|tuple): Window size, one int for all spatial dims or one per dim.
        stride (int|list|tuple, optional): Window step; None means kernel_size. Default: None.
        padding (int|list|tuple|str, optional): Zero padding: an int, one int per spatial dim, a
            [before, after] pair per dim (batch and channel pairs zero), 'SAME' or 'VALID'.
            Default: 0.
        return_mask (bool, optional): Also return the flat index of each maximum within its
            input plane (channels-first layouts only). Default: False.
        ceil_mode (bool, optional): Round the output size up instead of down. Default: False.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the pooled tensor, same dtype as x; with return_mask, a tuple (out, mask) where
        mask is int32 with out's shape.

    Examples:
        >>> import oar
        >>> x = oar.arange(16, dtype='float32').reshape([1, 1, 4, 4])
        >>> print(oar.nn.functional.max_pool2d(x, kernel_size=2).numpy())
        [[[[ 5.  7.]
           [13. 15.]]]]
    """
    return _max_pool(2, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format)


def max_pool3d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               data_format="NCDHW", name=None):
    """3-D max pooling: the maximum of each kernel window.

    Args:
        x (Tensor): The input, shape [N, C, D, H, W] (channels last for 'NDHWC'), float32 or
            float64.
        kernel_size (int|list|tuple): Window size, one int for all spatial dims or one per dim.
        stride (int|list|tuple, optional): Window step; None means kernel_size. Default: None.
        padding (int|list|tuple|str, optional): Zero padding: an int, one int per spatial dim, a
            [before, after] pair per dim (batch and channel pairs zero), 'SAME' or 'VALID'.
            Default: 0.
        return_mask (bool, optional): Also return the flat index of each maximum within its
            input plane (channels-first layouts only). Default: False.
        ceil_mode (bool, optional): Round the output size up instead of down. Default: False.
        data_format (str, optional): 'NCDHW' or 'NDHWC'. Default: 'NCDHW'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the pooled tensor, same dtype as x; with return_mask, a tuple (out, mask) where
        mask is int32 with out's shape.

    Examples:
        >>> import oar
        >>> x = oar.arange(8, dtype='float32').reshape([1, 1, 2, 2, 2])
        >>> print(oar.nn.functional.max_pool3d(x, kernel_size=2).numpy())
        [[[[[7.]]]]]
    """
    return _max_pool(3, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format)


def _divisor(divisor_override):
    if divisor_override is not None and not isinstance(divisor_override, (int, float)):
        raise ValueError(f"Excepted {(int, float)} type for divisor_override but received type: "
                         f"{type(divisor_override)}. ")
    return divisor_override


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
               name=None):
    """1-D average pooling: the mean of each kernel window.

    Args:
        x (Tensor): The input, shape [N, C, L], float32 or float64.
        kernel_size (int|list|tuple): Window size.
        stride (int|list|tuple, optional): Window step; None means kernel_size. Default: None.
        padding (int|list|tuple|str, optional): Zero padding: an int, one int per spatial dim, a
            [before, after] pair per dim (batch and channel pairs zero), 'SAME' or 'VALID'.
            Default: 0.
        exclusive (bool, optional): Leave padding out of the divisor. Default: True.
        ceil_mode (bool, optional): Round the output size up instead of down. Default: False.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the pooled tensor, same dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.arange(8, dtype='float32').reshape([1, 1, 8])
        >>> print(oar.nn.functional.avg_pool1d(x, kernel_size=2).numpy())
        [[[0.5 2.5 4.5 6.5]]]
    """
    padding, algorithm = _padding(padding, 1)
    return _C.avg_pool1d(x, kernel_size, _stride(stride), padding, exclusive, ceil_mode, "NCL",
                         algorithm)


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCHW", name=None):
    """2-D average pooling: the mean of each kernel window.

    Args:
        x (Tensor): The input, shape [N, C, H, W] (channels last for 'NHWC'), float32 or float64.
        kernel_size (int|list|tuple): Window size, one int for all spatial dims or one per dim.
        stride (int|list|tuple, optional): Window step; None means kernel_size. Default: None.
        padding (int|list|tuple|str, optional): Zero padding: an int, one int per spatial dim, a
            [before, after] pair per dim (batch and channel pairs zero), 'SAME' or 'VALID'.
            Default: 0.
        ceil_mode (bool, optional): Round the output size up instead of down. Default: False.
        exclusive (bool, optional): Leave padding out of the divisor. Default: True.
        divisor_override (int, optional): Divide every window sum by this instead. Default: None.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the pooled tensor, same dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.arange(16, dtype='float32').reshape([1, 1, 4, 4])
        >>> print(oar.nn.functional.avg_pool2d(x, kernel_size=2).numpy())
        [[[[ 2.5  4.5]
           [10.5 12.5]]]]
    """
    padding, algorithm = _padding(padding, 2)
    return _C.avg_pool2d(x, kernel_size, _stride(stride), padding, ceil_mode, exclusive,
                         _divisor(divisor_override), data_format, algorithm)


def avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCDHW", name=None):
    """3-D average pooling: the mean of each kernel window.

    Args:
        x (Tensor): The input, shape [N, C, D, H, W] (channels last for 'NDHWC'), float32 or
            float64.
        kernel_size (int|list|tuple): Window size, one int for all spatial dims or one per dim.
        stride (int|list|tuple, optional): Window step; None means kernel_size. Default: None.
        padding (int|list|tuple|str, optional): Zero padding: an int, one int per spatial dim, a
            [before, after] pair per dim (batch and channel pairs zero), 'SAME' or 'VALID'.
            Default: 0.
        ceil_mode (bool, optional): Round the output size up instead of down. Default: False.
        exclusive (bool, optional): Leave padding out of the divisor. Default: True.
        divisor_override (int, optional): Divide every window sum by this instead. Default: None.
        data_format (str, optional): 'NCDHW' or 'NDHWC'. Default: 'NCDHW'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the pooled tensor, same dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.arange(8, dtype='float32').reshape([1, 1, 2, 2, 2])
        >>> print(oar.nn.functional.avg_pool3d(x, kernel_size=2).numpy())
        [[[[[3.5]]]]]
    """
    padding, algorithm = _padding(padding, 3)
    return _C.avg_pool3d(x, kernel_size, _stride(stride), padding, ceil_mode, exclusive,
                         _divisor(divisor_override), data_format, algorithm)


def _output_size(x, output_size, nd, channel_last=False):
    """None entries keep the input's size along that dim."""
    if isinstance(output_size, int):
        return [output_size] * nd
    sizes = list(output_size)
    first = 1 if channel_last else 2
    known = x.ndim == nd + 2  # otherwise C++ reports the bad rank
    return [(x.shape[first + i] if known else 1) if s is None else int(s)
            for i, s in enumerate(sizes)]


def adaptive_avg_pool1d(x, output_size, name=None):
    """1-D adaptive average pooling: splits the spatial dims into output_size
    nearly equal windows and averages each.

    Args:
        x (Tensor): The input, shape [N, C, L], float32 or float64.
        output_size (int): Output size of the spatial dims (L); one int for all.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [N, C, out_L], same dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.arange(8, dtype='float32').reshape([1, 1, 8])
        >>> print(oar.nn.functional.adaptive_avg_pool1d(x, 2).numpy())
        [[[1.5 5.5]]]
    """
    return _C.adaptive_avg_pool1d(x, _output_size(x, output_size, 1), "NCL")


def adaptive_avg_pool2d(x, output_size, data_format="NCHW", name=None):
    """2-D adaptive average pooling: splits the spatial dims into output_size
    nearly equal windows and averages each.

    Args:
        x (Tensor): The input, shape [N, C, H, W] (channels last for 'NHWC'), float32 or float64.
        output_size (int|list|tuple): Output size of the spatial dims (H, W); one int for all, or a
            list where None keeps that dim.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [N, C, out_H, out_W], same dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.arange(16, dtype='float32').reshape([1, 1, 4, 4])
        >>> print(oar.nn.functional.adaptive_avg_pool2d(x, 1).numpy())
        [[[[7.5]]]]
    """
    return _C.adaptive_avg_pool2d(x, _output_size(x, output_size, 2, data_format == "NHWC"),
                                  data_format)


def adaptive_avg_pool3d(x, output_size, data_format="NCDHW", name=None):
    """3-D adaptive average pooling: splits the spatial dims into output_size
    nearly equal windows and averages each.

    Args:
        x (Tensor): The input, shape [N, C, D, H, W] (channels last for 'NDHWC'), float32 or
            float64.
        output_size (int|list|tuple): Output size of the spatial dims (D, H, W); one int for all,
            or a list where None keeps that dim.
        data_format (str, optional): 'NCDHW' or 'NDHWC'. Default: 'NCDHW'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [N, C, out_D, out_H, out_W], same dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.arange(8, dtype='float32').reshape([1, 1, 2, 2, 2])
        >>> print(oar.nn.functional.adaptive_avg_pool3d(x, 1).numpy())
        [[[[[3.5]]]]]
    """
    return _C.adaptive_avg_pool3d(x, _output_size(x, output_size, 3, data_format == "NDHWC"),
                                  data_format)


def adaptive_max_pool1d(x, output_size, return_mask=False, name=None):
    """1-D adaptive max pooling: splits the spatial dims into output_size
    nearly equal windows and takes the maximum of each.

    Args:
        x (Tensor): The input, shape [N, C, L], float32 or float64.
        output_size (int): Output size of the spatial dims (L); one int for all.
        return_mask (bool, optional): Also return the flat index of each maximum within its
            input plane. Default: False.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [N, C, out_L], same dtype as x; with return_mask,
        a tuple (out, mask) where mask is int32 with out's shape.

    Examples:
        >>> import oar
        >>> x = oar.arange(8, dtype='float32').reshape([1, 1, 8])
        >>> print(oar.nn.functional.adaptive_max_pool1d(x, 2).numpy())
        [[[3. 7.]]]
    """
    out, mask = _C.adaptive_max_pool1d(x, _output_size(x, output_size, 1))
    return (out, mask) if return_mask else out


def adaptive_max_pool2d(x, output_size, return_mask=False, name=None):
    """2-D adaptive max pooling: splits the spatial dims into output_size
    nearly equal windows and takes the maximum of each.

    Args:
        x (Tensor): The input, shape [N, C, H, W], float32 or float64.
        output_size (int|list|tuple): Output size of the spatial dims (H, W); one int for all, or a
            list where None keeps that dim.
        return_mask (bool, optional): Also return the flat index of each maximum within its
            input plane. Default: False.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [N, C, out_H, out_W], same dtype as x; with return_mask,
        a tuple (out, mask) where mask is int32 with out's shape.

    Examples:
        >>> import oar
        >>> x = oar.arange(16, dtype='float32').reshape([1, 1, 4, 4])
        >>> print(oar.nn.functional.adaptive_max_pool2d(x, 2).numpy())
        [[[[ 5.  7.]
           [13. 15.]]]]
    """
    out, mask = _C.adaptive_max_pool2d(x, _output_size(x, output_size, 2))
    return (out, mask) if return_mask else out


def adaptive_max_pool3d(x, output_size, return_mask=False, name=None):
    """3-D adaptive max pooling: splits the spatial dims into output_size
    nearly equal windows and takes the maximum of each.

    Args:
        x (Tensor): The input, shape [N, C, D, H, W], float32 or float64.
        output_size (int|list|tuple): Output size of the spatial dims (D, H, W); one int for all,
            or a list where None keeps that dim.
        return_mask (bool, optional): Also return the flat index of each maximum within its
            input plane. Default: False.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [N, C, out_D, out_H, out_W], same dtype as x; with return_mask,
        a tuple (out, mask) where mask is int32 with out's shape.

    Examples:
        >>> import oar
        >>> x = oar.arange(8, dtype='float32').reshape([1, 1, 2, 2, 2])
        >>> print(oar.nn.functional.adaptive_max_pool3d(x, 1).numpy())
        [[[[[7.]]]]]
    """
    out, mask = _C.adaptive_max_pool3d(x, _output_size(x, output_size, 3))
    return (out, mask) if return_mask else out


def lp_pool2d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NCHW",
              name=None):
    """(sum of x ** p over each window) ** (1 / p), as paddle: a sum pool (average pool with divisor 1,
    so padding adds zeros) of x ** p. p = inf is max pooling."""
    p = float(norm_type)
    if p == float("inf"):
        return max_pool2d(x, kernel_size, stride, padding, False, ceil_mode, data_format)
    if p <= 0:
        raise ValueError(f"lp_pool: 'norm_type' must be positive, but got {norm_type}")
    sums = avg_pool2d(_C.pow(x, p), kernel_size, stride, padding, ceil_mode, False, 1, data_format)
    return _C.pow(sums, 1.0 / p)


def _as_2d(value, fill):
    """A 1-D pooling size/stride as the 2-D one over a height-1 image."""
    if isinstance(value, (list, tuple)):
        return [fill] + list(value)
    return [fill, value]


def lp_pool1d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NCL",
              name=None):
    """lp_pool2d over x viewed as [N, C, 1, L] (or [N, 1, L, C] for NLC)."""
    if data_format not in ("NCL", "NLC"):
        raise ValueError(f"lp_pool1d: data_format must be 'NCL' or 'NLC', but got {data_format!r}")
    if isinstance(padding, str):
        padding_2d = padding
    elif isinstance(padding, (list, tuple)):
        padding_2d = [0, 0] + list(padding) if len(padding) == 2 else [0] + list(padding)
    else:
        padding_2d = [0, padding]
    axis = 2 if data_format == "NCL" else 1
    out = lp_pool2d(_C.unsqueeze(x, [axis]), norm_type, _as_2d(kernel_size, 1),
                    None if stride is None else _as_2d(stride, 1), padding_2d, ceil_mode,
                    "NCHW" if data_format == "NCL" else "NHWC")
    return _C.squeeze(out, [axis])
