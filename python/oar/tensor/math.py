"""Elementwise math and reductions written over the C++ ops (so autograd sees through them):
Paddle's arithmetic names (clamp, div, true_divide, mul, sub, floor_mod/mod, pow with a tensor or a
number exponent), signs and angles (negative, positive, sgn, signbit, frac, deg2rad, rad2deg), lerp
with a number weight, logit, logaddexp, hypot, sinc, NaN-skipping and counting reductions (nansum,
nanmean, count_nonzero), diff, reduce_as, multiplex, increment, and the constants e, pi, inf, nan."""
import builtins
import math

from .. import _C
from ..framework.dtype import convert_dtype
from .axis import normalize_axes as _axes

Tensor = _C.Tensor

__all__ = ["e", "pi", "inf", "nan", "clamp", "clamp_", "div", "true_divide", "mul", "sub",
           "floor_mod", "mod", "pow", "negative", "positive", "sgn", "signbit", "frac", "deg2rad",
           "rad2deg", "lerp", "logit", "logaddexp", "hypot", "sinc", "nansum", "nanmean",
           "count_nonzero", "diff", "reduce_as", "multiplex", "increment"]

# Constants paddle exposes at top level.
e, pi, inf, nan = math.e, math.pi, math.inf, math.nan


def _bounds(min, max):
    return {k: v for k, v in (("min", min), ("max", max)) if v is not None}


def clamp(x, min=None, max=None, name=None, *, out=None):
    return _C.clip(x, **_bounds(min, max))


def clamp_(x, min=None, max=None, name=None):
    return x.clip_(**_bounds(min, max))


def div(x, y, name=None, *, rounding_mode=None, out=None):
    """x / y; rounding_mode 'trunc' or 'floor' rounds the quotient (keeping integer dtypes)."""
    if rounding_mode is None:
        return _C.divide(x, y)
    if rounding_mode == "floor":
        return _C.floor_divide(x, y)
    if rounding_mode == "trunc":
        if x.dtype.name.startswith(("int", "uint")):
            q = _C.floor_divide(x, y)
            r = _C.remainder(x, y)
            # floor and trunc differ by one where the remainder is nonzero and the signs differ.
            fix = _C.logical_and(_C.not_equal(r, _C.zeros_like(r)),
                                 _C.not_equal(_C.less_than(x, _C.zeros_like(x)), _C.less_than(y, _C.zeros_like(y))))
            return _C.where(fix, q + 1, q)
        return _C.trunc(_C.divide(x, y))
    raise ValueError(f"div: argument 'rounding_mode' must be None, 'trunc' or 'floor', got {rounding_mode!r}")


def true_divide(input, other, *, out=None):
    return _C.divide(input, other)


def mul(x, y, name=None, *, out=None):
    return _C.multiply(x, y)


def sub(x, y, name=None, *, alpha=1, out=None):
    return _C.subtract(x, y if alpha == 1 else y * alpha)


def floor_mod(x, y, name=None, *, out=None):
    return _C.remainder(x, y)


mod = floor_mod


def pow(x, y, name=None):
    """x ** y with y a Python number or a tensor (paddle.pow)."""
    if isinstance(y, Tensor):
        return _C.elementwise_pow(x, y)
    return x.__pow__(y)


def negative(x, name=None):
    return _C.neg(x)


def positive(x, name=None):
    if x.dtype.name == "bool":
        raise TypeError("positive: argument 'x' must be a numeric tensor, got bool")
    return x


def sgn(x, name=None):
    """sign for real tensors; x / |x| (0 at 0) for complex ones."""
    if x.dtype.name.startswith("complex"):
        mag = _C.abs(x)
        safe = _C.where(_C.equal(mag, _C.zeros_like(mag)), _C.ones_like(mag), mag)
        return _C.divide(x, _C.cast(safe, x.dtype))
    return _C.sign(x)


def signbit(x, name=None):
    """True where the sign bit is set: negative numbers, -0.0 (seen as 1/x = -inf) and -inf.
    NaNs count as positive (their sign bit is not observable through arithmetic)."""
    zero = _C.zeros_like(x)
    if x.dtype.name.startswith(("int", "uint", "bool")):
        return _C.less_than(x, zero)
    at_zero = _C.less_than(_C.reciprocal(_C.where(_C.equal(x, zero), x, _C.ones_like(x))), zero)
    return _C.where(_C.equal(x, zero), at_zero, _C.less_than(x, zero))


def frac(x, name=None, *, out=None):
    return _C.subtract(x, _C.trunc(x))


def deg2rad(x, name=None):
    if x.dtype.name.startswith(("int", "uint", "bool")):
        x = _C.cast(x, convert_dtype("float32"))
    return x * (math.pi / 180.0)


def rad2deg(x, name=None):
    if x.dtype.name.startswith(("int", "uint", "bool")):
        x = _C.cast(x, convert_dtype("float32"))
    return x * (180.0 / math.pi)


def lerp(x, y, weight, name=None):
    """paddle.lerp: x + weight * (y - x); weight may be a Python number."""
    if not isinstance(weight, Tensor):
        weight = _C.full([], float(weight), x.dtype)
    return _C.lerp(x, y, weight)


def logit(x, eps=None, name=None):
    """log(x / (1 - x)), x first clipped to [eps, 1 - eps] when eps is given."""
    if eps is not None:
        x = _C.clip(x, eps, 1.0 - eps)
    return _C.log(_C.divide(x, 1.0 - x))


def logaddexp(x, y, name=None):
    m = _C.maximum(x, y)
    return m + _C.log1p(_C.exp(-_C.abs(x - y)))


def hypot(x, y, name=None):
    return _C.sqrt(x * x + y * y)


def sinc(x, name=None):
    """sin(pi x) / (pi x), 1 at 0."""
    px = x * math.pi
    zero = _C.equal(x, _C.zeros_like(x))
    safe = _C.where(zero, _C.ones_like(px), px)
    return _C.where(zero, _C.ones_like(px), _C.divide(_C.sin(safe), safe))


def nansum(x, axis=None, dtype=None, keepdim=False, name=None):
    return _C.sum(_C.where(_C.isnan(x), _C.zeros_like(x), x), [] if axis is None else axis, dtype, keepdim)


def nanmean(x, axis=None, keepdim=False, name=None):
    keep = _C.logical_not(_C.isnan(x))
    total = nansum(x, axis, None, keepdim)
    count = _C.sum(_C.cast(keep, x.dtype), [] if axis is None else axis, None, keepdim)
    return _C.divide(total, count)


def count_nonzero(x, axis=None, keepdim=False, name=None):
    return _C.sum(_C.cast(_C.not_equal(x, _C.zeros_like(x)), convert_dtype("int64")),
                  [] if axis is None else axis, None, keepdim)


def diff(x, n=1, axis=-1, prepend=None, append=None, name=None, *, out=None):
    a = _axes(x.ndim, axis)[0]
    parts = [t for t in (prepend, x, append) if t is not None]
    if len(parts) > 1:
        x = _C.concat(parts, a)
    for _ in range(n):
        size = x.shape[a]
        hi = _C.slice(x, [a], [1], [size])
        lo = _C.slice(x, [a], [0], [size - 1])
        x = _C.logical_xor(hi, lo) if x.dtype.name == "bool" else _C.subtract(hi, lo)
    return x


def reduce_as(x, target, name=None):
    """x summed over the dims along which target was broadcast to x's shape."""
    lead = x.ndim - target.ndim
    axes = [d for d in builtins.range(x.ndim)
            if d < lead or (target.shape[d - lead] == 1 and x.shape[d] != 1)]
    out = _C.sum(x, axes, None, True) if axes else x
    return _C.reshape(out, target.shape)


def multiplex(inputs, index, name=None):
    """Row i of the result is row i of inputs[index[i]]."""
    stacked = _C.stack(list(inputs), 0)
    idx = _C.reshape(index, [1, -1] + [1] * (stacked.ndim - 2))
    idx = _C.broadcast_to(_C.cast(idx, convert_dtype("int64")), [1] + list(stacked.shape[1:]))
    return _C.squeeze(_C.take_along_axis(stacked, idx, 0, False), [0])


def increment(x, value=1.0, name=None):
    if x.size != 1:
        raise ValueError(f"increment: argument 'x' must hold one element, got shape {x.shape}")
    return x + value
