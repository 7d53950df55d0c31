"""fast_ln, fast_rms_norm and fused_rms_norm_ext (paddle.incubate.nn.functional): norms over the
last dim that also return the per-row statistics their backward kernels reuse. The normalised
output runs on oar's fused norm (_norm.fused_norm, the C++ fused_norm kernel for float32/64);
the statistics are returned without gradient, float32 for half-precision inputs."""
from __future__ import annotations

from .... import _C
from ._norm import fused_norm

__all__ = ["fast_ln", "fast_rms_norm", "fused_rms_norm_ext"]


def _check(op, x, scale, bias=None):
    for arg, t in (("x", x), ("scale", scale)):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"{op}: argument '{arg}' should be a Tensor, got {type(t).__name__}")
    if x.ndim < 1:
        raise ValueError(f"{op}: argument 'x' should be at least 1-D, got a 0-D tensor")
    cols = x.shape[-1]
    for arg, t in (("scale", scale), ("bias", bias)):
        if t is not None and t.size != cols:
            raise ValueError(f"{op}: argument '{arg}' should have {cols} elements (x's last dim), got "
                             f"shape {list(t.shape)}")


def _rows(x):
    h = _C.reshape(x.detach(), [-1, x.shape[-1]])
    return h if h.dtype.name in ("float32", "float64") else _C.cast(h, "float32")


def fast_ln(x, scale, bias, epsilon=1e-5):
    r"""Layer norm over the last dim: y = (x - mean) / sqrt(var + epsilon) * scale + bias.

    Args:
        x (Tensor): The input, [..., cols].
        scale (Tensor): [cols], the weight.
        bias (Tensor): [cols], the shift.
        epsilon (float, optional): Added to the variance. Default: 1e-5.

    Returns:
        tuple: (y, mean, invvar): y x's shape and dtype; mean and invvar = 1 / sqrt(var + epsilon)
        per row ([prod of x's leading dims]), without gradient.

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import fast_ln
        >>> x = oar.to_tensor([[1.0, 3.0]])
        >>> y, mean, invvar = fast_ln(x, oar.ones([2]), oar.zeros([2]), 0.0)
        >>> print(y.numpy().tolist(), mean.numpy().tolist(), invvar.numpy().tolist())
        [[-1.0, 1.0]] [2.0] [1.0]
    """
    _check("fast_ln", x, scale, bias)
    y, _ = fused_norm(x, scale, bias, epsilon, x.ndim - 1, kind="layer")
    rows = _rows(x)
    mean = _C.mean(rows, [1], False)
    var = _C.mean(_C.square(rows - _C.unsqueeze(mean, [1])), [1], False)
    return y, mean, _C.rsqrt(var + float(epsilon))


def fast_rms_norm(x, scale, epsilon=1e-5):
    r"""RMS norm over the last dim: y = x / sqrt(mean(x^2) + epsilon) * scale.

    Args:
        x (Tensor): The input, [..., cols].
        scale (Tensor): [cols], the weight.
        epsilon (float, optional): Added to the mean square. Default: 1e-5.

    Returns:
        tuple: (y, invvar): y x's shape and dtype; invvar = 1 / sqrt(mean(x^2) + epsilon) per row,
        without gradient.

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import fast_rms_norm
        >>> y, invvar = fast_rms_norm(oar.to_tensor([[3.0, 4.0]]), oar.ones([2]), 0.0)
        >>> print(y.numpy().round(4), invvar.numpy().round(4))
        [[0.8485 1.1314]] [0.2828]
    """
    _check("fast_rms_norm", x, scale)
    return _rms("fast_rms_norm", x, scale, epsilon)


def _rms(op, x, scale, epsilon):
    y, _ = fused_norm(x, scale, None, epsilon, x.ndim - 1, kind="rms")
    rows = _rows(x)
    return y, _C.rsqrt(_C.mean(_C.square(rows), [1], False) + float(epsilon))


def fused_rms_norm_ext(x, scale, epsilon=1e-5, name=None):
    r"""RMS norm over the last dim, y = x / sqrt(mean(x^2) + epsilon) * scale, returning the rows'
    inverse RMS too (as fast_rms_norm).

    Args:
        x (Tensor): The input, [..., cols] (flattened to [rows, cols]).
        scale (Tensor): [cols], the weight.
        epsilon (float, optional): Added to the mean square. Default: 1e-5.
        name (str, optional): Unused.

    Returns:
        tuple: (y, invvar): y x's shape and dtype; invvar [rows] without gradient.

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import fused_rms_norm_ext
        >>> y, invvar = fused_rms_norm_ext(oar.to_tensor([[1.0, 1.0], [2.0, 2.0]]), oar.ones([2]), 0.0)
        >>> print(y.numpy().tolist(), invvar.numpy().tolist())
        [[1.0, 1.0], [1.0, 1.0]] [1.0, 0.5]
    """
    _check("fused_rms_norm_ext", x, scale)
    return _rms("fused_rms_norm_ext", x, scale, epsilon)
