"""Common layers of paddle.nn.functional: linear, dropout and its 2-D/3-D forms, pad."""
from ... import _C

__all__ = ["linear", "dropout", "dropout2d", "dropout3d", "pad"]


def linear(x, weight, bias=None, name=None):
    """x @ weight + bias, with weight [in_features, out_features] (Paddle's layout)."""
    return _C.linear(x, weight, bias)


def dropout(x, p=0.5, axis=None, training=True, inplace=False, mode="upscale_in_train",
            name=None):
    """Zeroes elements with probability p (draws from oar's global Philox generator, so
    oar.seed(s) fixes the mask). axis: the dims the mask varies along (int or list)."""
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise TypeError(f"dropout: argument 'p' must be a float, got {type(p).__name__}")
    if axis is not None and not isinstance(axis, (list, tuple)):
        axis = [axis]
    if axis is not None:
        axis = [a + x.ndim if isinstance(a, int) and a < 0 else a for a in axis]
    if training and p == 0 and mode in ("upscale_in_train", "downscale_in_infer"):
        return x  # the input object itself, as Paddle
    out = _C.dropout(x, float(p), axis, training, mode)
    if inplace and out is not x:  # written into x's memory (no gradient through x then)
        x.copy_(out)
        return x
    return out


def _dropout_nd(x, p, training, data_format, nd, name):
    formats = ("NCHW", "NHWC") if nd == 2 else ("NCDHW", "NDHWC")
    if data_format not in formats:
        raise ValueError(f"dropout{nd}d: argument 'data_format' must be one of {formats}, "
                         f"got '{data_format}'")
    if x.ndim != nd + 2:
        raise ValueError(f"dropout{nd}d: argument 'x' must be {nd + 2}-D, got shape {x.shape}")
    axis = [0, 1] if data_format[1] == "C" else [0, nd + 1]
    return dropout(x, p, axis, training, False, "upscale_in_train")


def dropout2d(x, p=0.5, training=True, data_format="NCHW", name=None):
    """Channel dropout for 4-D input: while training, zeroes each whole channel of each sample with
    probability p and scales the kept ones by 1 / (1 - p).

    Args:
        x (Tensor): The input, shape [N, C, H, W] (or [N, H, W, C] for 'NHWC').
        p (float, optional): Probability of zeroing a channel. Default: 0.5.
        training (bool, optional): Apply dropout; when False x is returned unchanged. Default: True.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: same shape and dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.ones([2, 4, 3, 3])
        >>> print(oar.nn.functional.dropout2d(x, p=0.5, training=False).shape)
        [2, 4, 3, 3]
    """
    return _dropout_nd(x, p, training, data_format, 2, name)


def dropout3d(x, p=0.5, training=True, data_format="NCDHW", name=None):
    """Channel dropout for 5-D input: while training, zeroes each whole channel of each sample with
    probability p and scales the kept ones by 1 / (1 - p).

    Args:
        x (Tensor): The input, shape [N, C, D, H, W] (or [N, D, H, W, C] for 'NDHWC').
        p (float, optional): Probability of zeroing a channel. Default: 0.5.
        training (bool, optional): Apply dropout; when False x is returned unchanged. Default: True.
        data_format (str, optional): 'NCDHW' or 'NDHWC'. Default: 'NCDHW'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: same shape and dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.ones([1, 2, 2, 2, 2])
        >>> print(oar.nn.functional.dropout3d(x, training=False).shape)
        [1, 2, 2, 2, 2]
    """
    return _dropout_nd(x, p, training, data_format, 3, name)


_SPATIAL = {3: ("NCL", "NLC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


def pad(x, pad, mode="constant", value=0.0, data_format=None, pad_from_left_axis=True,
        name=None):
    """paddle.nn.functional.pad. A pad list of 2 * x.ndim (constant mode) pads every dim; a
    list of 2 * (x.ndim - 2) pads the spatial dims of data_format, starting from the last one
    ([left, right, top, bottom, front, back])."""
    if hasattr(pad, "tolist"):
        pad = pad.tolist()
    pad = [int(p) for p in pad]
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise ValueError("pad: argument 'mode' must be one of 'constant', 'reflect', "
                         f"'replicate', 'circular', got '{mode}'")
    nd = x.ndim
    full = [0] * (2 * nd)
    if len(pad) == 2 * nd and mode == "constant":
        for i in range(nd):
            d = i if pad_from_left_axis else nd - 1 - i
            full[2 * d], full[2 * d + 1] = pad[2 * i], pad[2 * i + 1]
    else:
        if nd not in _SPATIAL:
            raise ValueError(f"pad: mode '{mode}' needs a 3-D, 4-D or 5-D input, got shape {x.shape}")
        if data_format is None:
            data_format = _SPATIAL[nd][0]
        if data_format not in _SPATIAL[nd]:
            raise ValueError(f"pad: argument 'data_format' must be one of {_SPATIAL[nd]} for a "
                             f"{nd}-D input, got '{data_format}'")
        if len(pad) != 2 * (nd - 2):
            raise ValueError(f"pad: expected {2 * (nd - 2)} padding amounts for a {nd}-D input "
                             f"(or {2 * nd} in constant mode), got {len(pad)}")
        last = data_format[-1] == "C"
        spatial = list(range(1, nd - 1)) if last else list(range(2, nd))
        for i, d in enumerate(reversed(spatial)):
            full[2 * d], full[2 * d + 1] = pad[2 * i], pad[2 * i + 1]
    return _C.pad_nd(x, full, mode, float(value))
