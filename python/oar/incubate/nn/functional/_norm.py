"""The one norm-with-residual computation of oar.incubate: fused_rms_norm, fused_layer_norm and
the norms inside the fused transformer functions all route through fused_norm, so that a fused
C++ kernel can replace it in one place."""
from __future__ import annotations

from .... import _C

KINDS = ("rms", "layer")


def norm_axis(x, begin_norm_axis):
    """begin_norm_axis made non-negative, checked against x's rank."""
    axis = begin_norm_axis + x.ndim if begin_norm_axis < 0 else begin_norm_axis
    if not 0 <= axis < x.ndim:
        raise ValueError(f"begin_norm_axis should be in [-{x.ndim}, {x.ndim}), got {begin_norm_axis}")
    return axis


def fused_norm(x, norm_weight, norm_bias, epsilon, begin_norm_axis, bias=None, residual=None,
               residual_alpha=1.0, kind="rms", stats=False):
    """(out, residual_out), and with stats the rows' mean and 1 / sqrt(var + eps) (1-D, without
    gradient) after them.

    With residual: h = x + bias + residual_alpha * residual and residual_out = h; without it,
    h = x (bias is then unused, as Paddle's kernels) and residual_out is None. out normalises h
    over the dims from begin_norm_axis on (their product = the size of the 1-D norm_weight /
    norm_bias): rms: h / sqrt(mean(h^2) + eps); layer: (h - mean) / sqrt(var + eps); then
    * norm_weight + norm_bias where given. A layer norm with neither norm_weight nor norm_bias
    returns h itself as out (Paddle's fused_layer_norm does so)."""
    if kind not in KINDS:
        raise ValueError(f"fused_norm: kind should be 'rms' or 'layer', got {kind!r}")
    axis = norm_axis(x, begin_norm_axis)
    bias = bias if residual is not None else None  # without a residual, bias is unused (Paddle)
    cols = 1
    for s in x.shape[axis:]:
        cols *= s
    for what, t in (("norm_weight", norm_weight), ("norm_bias", norm_bias)):
        if t is not None and t.size != cols:
            raise ValueError(f"The normalized size of Input(X) must equal to be the size of {what}, but "
                             f"received normalized size of Input(X) is [{cols}], received size of "
                             f"{what} is [{t.size}]")
    plain_layer = kind == "layer" and norm_weight is None and norm_bias is None
    same = [t for t in (bias, residual, norm_weight, norm_bias) if t is not None]
    if not plain_layer and x.dtype.name in ("float32", "float64") and all(t.dtype == x.dtype for t in same):
        # The fused kernel: h and its norm in one pass per row (oar/kernels/cpu/norm.h).
        out, h, mean, rstd = _C.fused_norm(x, bias, residual, norm_weight, norm_bias, float(epsilon), axis,
                                           float(residual_alpha), kind == "rms")
        return (out, h if residual is not None else None) + ((mean.detach(), rstd.detach()) if stats else ())
    # The composition: half-precision inputs, mixed dtypes, and the plain layer norm case.
    residual_out = None
    h = x
    if residual is not None:
        h = x if bias is None else x + bias
        h = h + (residual if residual_alpha == 1.0 else residual * residual_alpha)
        residual_out = h
    if plain_layer:
        return (h, residual_out) + (_stats(h, axis, epsilon) if stats else ())
    rows_shape = list(x.shape)
    flat = _C.reshape(h, [-1, cols])
    if kind == "layer":
        centred = flat - _C.mean(flat, [1], True)
        out = centred * _C.rsqrt(_C.mean(_C.square(centred), [1], True) + epsilon)
    else:
        out = flat * _C.rsqrt(_C.mean(_C.square(flat), [1], True) + epsilon)
    if norm_weight is not None:
        out = out * _C.reshape(_C.cast(norm_weight, out.dtype), [cols])
    if norm_bias is not None:
        out = out + _C.reshape(_C.cast(norm_bias, out.dtype), [cols])
    return (_C.reshape(out, rows_shape), residual_out) + (_stats(h, axis, epsilon) if stats else ())


def _stats(h, axis, epsilon):
    """The mean and 1 / sqrt(var + epsilon) of each normalised row of h (no gradient)."""
    cols = 1
    for s in h.shape[axis:]:
        cols *= s
    flat = _C.reshape(h.detach(), [-1, cols])
    if flat.dtype.name not in ("float32", "float64"):
        flat = _C.cast(flat, "float32")
    mean = _C.mean(flat, [1], False)
    var = _C.mean(_C.square(flat - _C.unsqueeze(mean, [1])), [1], False)
    return mean, _C.rsqrt(var + epsilon)
