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
    """Clips x elementwise to [min, max]; an alias of clip.

    Args:
        x (Tensor): The input, a numeric tensor.
        min (float|int|Tensor, optional): Lower bound; None for none. Default: None.
        max (float|int|Tensor, optional): Upper bound; None for none. Default: None.
        name (str, optional): Unused; for Paddle compatibility. Default: None.
        out (Tensor, optional): Ignored (use the return value); for compatibility. Default: None.

    Returns:
        Tensor: same shape and dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, 0.5, 3.0])
        >>> print(oar.clamp(x, min=0.0, max=1.0).numpy())
        [0.  0.5 1. ]
    """
    return _C.clip(x, **_bounds(min, max))


def clamp_(x, min=None, max=None, name=None):
    """In-place clamp: clips x to [min, max] and writes the result into x.

    Args:
        x (Tensor): The input, a numeric tensor; it is overwritten.
        min (float|int|Tensor, optional): Lower bound; None for none. Default: None.
        max (float|int|Tensor, optional): Upper bound; None for none. Default: None.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x, holding the result.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, 0.5, 3.0])
        >>> _ = oar.clamp_(x, min=0.0, max=1.0)
        >>> print(x.numpy())
        [0.  0.5 1. ]
    """
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
    """True division input / other, elementwise with broadcasting; integer inputs give a float
    result.

    Args:
        input (Tensor): The dividend.
        other (Tensor): The divisor, broadcastable with input.
        out (Tensor, optional): Ignored (use the return value); for compatibility. Default: None.

    Returns:
        Tensor: the broadcast quotient.

    Examples:
        >>> import oar
        >>> print(oar.true_divide(oar.to_tensor([1, 3]), oar.to_tensor([2, 2])).numpy())
        [0.5 1.5]
    """
    return _C.divide(input, other)


def mul(x, y, name=None, *, out=None):
    """Elementwise product x * y with broadcasting; an alias of multiply.

    Args:
        x (Tensor): The first factor.
        y (Tensor): The second factor, broadcastable with x.
        name (str, optional): Unused; for Paddle compatibility. Default: None.
        out (Tensor, optional): Ignored (use the return value); for compatibility. Default: None.

    Returns:
        Tensor: the broadcast product.

    Examples:
        >>> import oar
        >>> print(oar.mul(oar.to_tensor([1, 2, 3]), oar.to_tensor([4, 5, 6])).numpy())
        [ 4 10 18]
    """
    return _C.multiply(x, y)


def sub(x, y, name=None, *, alpha=1, out=None):
    """Elementwise difference x - alpha * y with broadcasting; an alias of subtract.

    Args:
        x (Tensor): The minuend.
        y (Tensor): The subtrahend, broadcastable with x.
        name (str, optional): Unused; for Paddle compatibility. Default: None.
        alpha (int|float, optional): Multiplier of y. Default: 1.
        out (Tensor, optional): Ignored (use the return value); for compatibility. Default: None.

    Returns:
        Tensor: the broadcast difference.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([5, 7])
        >>> y = oar.to_tensor([1, 2])
        >>> print(oar.sub(x, y).numpy(), oar.sub(x, y, alpha=2).numpy())
        [4 5] [3 3]
    """
    return _C.subtract(x, y if alpha == 1 else y * alpha)


def floor_mod(x, y, name=None, *, out=None):
    """Elementwise remainder of x / y with the sign of y (Python's %); mod is the same function.

    Args:
        x (Tensor): The dividend.
        y (Tensor): The divisor, broadcastable with x.
        name (str, optional): Unused; for Paddle compatibility. Default: None.
        out (Tensor, optional): Ignored (use the return value); for compatibility. Default: None.

    Returns:
        Tensor: the broadcast remainder.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([5, -5, 7])
        >>> y = oar.to_tensor([3, 3, -4])
        >>> print(oar.floor_mod(x, y).numpy())
        [ 2  1 -1]
    """
    return _C.remainder(x, y)


mod = floor_mod


def pow(x, y, name=None):
    """x ** y with y a Python number or a tensor (paddle.pow)."""
    if isinstance(y, Tensor):
        return _C.elementwise_pow(x, y)
    if x.dtype.name == "bool":  # Paddle's pow has no bool kernel (only x ** 2 promotes it to int64)
        return _C.pow(x, y)
    return x.__pow__(y)


def negative(x, name=None):
    """Elementwise negation, -x.

    Args:
        x (Tensor): The input.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: same shape and dtype as x.

    Examples:
        >>> import oar
        >>> print(oar.negative(oar.to_tensor([1, -2])).numpy())
        [-1  2]
    """
    return _C.neg(x)


def positive(x, name=None):
    """Returns x unchanged (unary plus); a bool x raises TypeError.

    Args:
        x (Tensor): The input, a numeric tensor.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x itself.

    Examples:
        >>> import oar
        >>> print(oar.positive(oar.to_tensor([1, -2])).numpy())
        [ 1 -2]
    """
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
    """Fractional part, x - trunc(x), elementwise; it keeps the sign of x.

    Args:
        x (Tensor): The input, a floating-point tensor.
        name (str, optional): Unused; for Paddle compatibility. Default: None.
        out (Tensor, optional): Ignored (use the return value); for compatibility. Default: None.

    Returns:
        Tensor: same shape and dtype as x.

    Examples:
        >>> import oar
        >>> print(oar.frac(oar.to_tensor([1.5, -2.25])).numpy())
        [ 0.5  -0.25]
    """
    return _C.subtract(x, _C.trunc(x))


def deg2rad(x, name=None):
    """Converts degrees to radians, x * pi / 180; integer and bool inputs are cast to float32 first.

    Args:
        x (Tensor): The input.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: same shape as x, floating point.

    Examples:
        >>> import oar
        >>> print(oar.deg2rad(oar.to_tensor([180.0, 90.0])).numpy())
        [3.1415927 1.5707964]
    """
    if x.dtype.name.startswith(("int", "uint", "bool")):
        x = _C.cast(x, convert_dtype("float32"))
    return x * (math.pi / 180.0)


def rad2deg(x, name=None):
    """Converts radians to degrees, x * 180 / pi; integer and bool inputs are cast to float32 first.

    Args:
        x (Tensor): The input.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: same shape as x, floating point.

    Examples:
        >>> import oar
        >>> print(oar.rad2deg(oar.to_tensor([3.1415927, 1.0])).numpy())
        [180.       57.29578]
    """
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
    """log(exp(x) + exp(y)) elementwise, computed stably as max(x, y) + log1p(exp(-|x - y|)).

    Args:
        x (Tensor): The first input, floating point.
        y (Tensor): The second input, broadcastable with x.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the broadcast result.

    Examples:
        >>> import oar
        >>> print(oar.logaddexp(oar.to_tensor([0.0, 1.0]), oar.to_tensor([0.0, 2.0])).numpy())
        [0.6931472 2.3132617]
    """
    m = _C.maximum(x, y)
    return m + _C.log1p(_C.exp(-_C.abs(x - y)))


def hypot(x, y, name=None):
    """Hypotenuse sqrt(x ** 2 + y ** 2), elementwise with broadcasting.

    Args:
        x (Tensor): The first leg, floating point.
        y (Tensor): The second leg, broadcastable with x.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the broadcast result.

    Examples:
        >>> import oar
        >>> print(oar.hypot(oar.to_tensor([3.0, 5.0]), oar.to_tensor([4.0, 12.0])).numpy())
        [ 5. 13.]
    """
    return _C.sqrt(x * x + y * y)


def sinc(x, name=None):
    """sin(pi x) / (pi x), 1 at 0."""
    px = x * math.pi
    zero = _C.equal(x, _C.zeros_like(x))
    safe = _C.where(zero, _C.ones_like(px), px)
    return _C.where(zero, _C.ones_like(px), _C.divide(_C.sin(safe), safe))


def nansum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Sum over the given axes, treating NaN as zero.

    Args:
        x (Tensor): The input.
        axis (int|list|tuple, optional): Axes to reduce; None reduces all. Default: None.
        dtype (str|dtype, optional): The dtype of the result. Default: None (as sum).
        keepdim (bool, optional): Keep the reduced axes with size 1. Default: False.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the sums.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1.0, float('nan')], [3.0, 4.0]])
        >>> print(oar.nansum(x).numpy(), oar.nansum(x, axis=1).numpy())
        8.0 [1. 7.]
    """
    return _C.sum(_C.where(_C.isnan(x), _C.zeros_like(x), x), [] if axis is None else axis, dtype, keepdim)


def nanmean(x, axis=None, keepdim=False, name=None):
    """Mean over the given axes of the non-NaN elements.

    Args:
        x (Tensor): The input, floating point.
        axis (int|list|tuple, optional): Axes to reduce; None reduces all. Default: None.
        keepdim (bool, optional): Keep the reduced axes with size 1. Default: False.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the means, same dtype as x (NaN where all elements are NaN).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1.0, float('nan')], [3.0, 4.0]])
        >>> print(oar.nanmean(x).numpy(), oar.nanmean(x, axis=0).numpy())
        2.6666667 [2. 4.]
    """
    keep = _C.logical_not(_C.isnan(x))
    total = nansum(x, axis, None, keepdim)
    count = _C.sum(_C.cast(keep, x.dtype), [] if axis is None else axis, None, keepdim)
    return _C.divide(total, count)


def count_nonzero(x, axis=None, keepdim=False, name=None):
    """Counts the nonzero elements over the given axes.

    Args:
        x (Tensor): The input.
        axis (int|list|tuple, optional): Axes to reduce; None counts over all. Default: None.
        keepdim (bool, optional): Keep the reduced axes with size 1. Default: False.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: int64 counts.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0, 1, 2], [0, 0, 3]])
        >>> print(oar.count_nonzero(x).numpy(), oar.count_nonzero(x, axis=1).numpy())
        3 [2 1]
    """
    return _C.sum(_C.cast(_C.not_equal(x, _C.zeros_like(x)), convert_dtype("int64")),
                  [] if axis is None else axis, None, keepdim)


def diff(x, n=1, axis=-1, prepend=None, append=None, name=None, *, out=None):
    """n-th forward difference along an axis: out[i] = x[i + 1] - x[i], applied n times (logical
    xor for bool).

    Args:
        x (Tensor): The input.
        n (int, optional): How many times to difference. Default: 1.
        axis (int, optional): The axis. Default: -1.
        prepend (Tensor, optional): Concatenated before x along axis first. Default: None.
        append (Tensor, optional): Concatenated after x along axis first. Default: None.
        name (str, optional): Unused; for Paddle compatibility. Default: None.
        out (Tensor, optional): Ignored (use the return value); for compatibility. Default: None.

    Returns:
        Tensor: like x with n fewer elements along axis (after prepend/append).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([1, 3, 6, 10])
        >>> print(oar.diff(x).numpy(), oar.diff(x, n=2).numpy())
        [2 3 4] [1 1]
    """
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
    """Adds value to a one-element tensor; out of place here, the result is a new tensor.

    Args:
        x (Tensor): The input, holding exactly one element.
        value (float, optional): The amount added. Default: 1.0.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x + value, same shape as x.

    Examples:
        >>> import oar
        >>> print(oar.increment(oar.to_tensor([1.0])).numpy())
        [2.]
    """
    if x.size != 1:
        raise ValueError(f"increment: argument 'x' must hold one element, got shape {x.shape}")
    return x + value
