"""In-place variants (x.op_(...) and oar.op_(x, ...)) for ops whose C++ spec has none: the result is
computed out of place and written into x's memory, which bumps x's version counter and moves x's
autograd history onto the result (as the generated C++ in-place ops do)."""
from .. import _C
from ..framework.dtype import convert_dtype
from . import contraction, math, statistics
from .creation import to_tensor

Tensor = _C.Tensor


def _check_leaf(x, name):
    if _C.is_grad_enabled() and not x.stop_gradient and x.is_leaf:
        raise ValueError(f"{name}: Leaf Tensor that doesn't stop gradient can't use inplace strategy. "
                         "Wrap the update in oar.no_grad() or set stop_gradient=True first")


def _write(x, result, name):
    if list(result.shape) != list(x.shape):
        raise ValueError(f"{name}: the result shape {result.shape} differs from the shape of x "
                         f"{x.shape}; in-place ops cannot broadcast x")
    if result.dtype != x.dtype:
        raise TypeError(f"{name}: the result dtype {result.dtype.name} differs from x's dtype "
                        f"{x.dtype.name}; in-place ops keep x's dtype")
    _C._assign_inplace(x, result)
    return x


def _recording(*tensors):
    return _C.is_grad_enabled() and any(isinstance(t, Tensor) and not t.stop_gradient for t in tensors)


def _inplace_of(fn, name):
    def op_(x, *args, **kwargs):
        _check_leaf(x, name)
        # fn may save x for its backward, and x is about to be overwritten: when recording, give
        # it a (differentiable) copy to save instead.
        src = x.clone() if _recording(x, *args, *kwargs.values()) else x
        return _write(x, fn(src, *args, **kwargs), name)
    op_.__name__ = name
    op_.__doc__ = f"In-place {fn.__name__}: x is overwritten with the result and returned."
    return op_


# Out-of-place op -> in-place name, for ops (generated or Python) without a C++ in-place variant.
_SOURCES = {
    "acos": _C.acos, "asin": _C.asin, "atan": _C.atan, "cosh": _C.cosh, "sinh": _C.sinh,
    "tan": _C.tan, "expm1": _C.expm1, "erf": _C.erf, "log10": _C.log10, "log1p": _C.log1p, "log2": _C.log2, "sigmoid": _C.sigmoid,
    "lerp": _C.lerp, "cumsum": _C.cumsum, "cumprod": _C.cumprod, "logit": math.logit,
    "frac": math.frac, "hypot": math.hypot, "sinc": math.sinc, "mul": math.mul,
    "sub": math.sub, "div": math.div, "mod": math.mod, "floor_mod": math.floor_mod,
    "renorm": statistics.renorm, "addmm": contraction.addmm, "baddbmm": contraction.baddbmm,
    "scatter": _C.scatter, "scatter_add": _C.scatter_add,
    "logical_and": _C.logical_and, "logical_or": _C.logical_or, "logical_xor": _C.logical_xor,
    "logical_not": _C.logical_not, "bitwise_and": _C.bitwise_and, "bitwise_or": _C.bitwise_or,
    "bitwise_xor": _C.bitwise_xor, "bitwise_not": _C.bitwise_not,
}
_ops = {f"{n}_": _inplace_of(f, f"{n}_") for n, f in _SOURCES.items() if not hasattr(_C, f"{n}_")}


def pow_(x, y, name=None):
    """x ** y in place; y must be a Python number (as Paddle, whose pow_ takes no tensor y)."""
    if isinstance(y, Tensor) or not isinstance(y, (int, float)):
        raise TypeError(f"pow_: argument 'y' must be a Python int or float, got {type(y).__name__}")
    _check_leaf(x, "pow_")
    return _write(x, x ** y, "pow_")


def where_(condition, x=None, y=None, name=None):
    """x with the positions where condition is false taken from y (x is written in place)."""
    _check_leaf(x, "where_")
    yv = y if isinstance(y, Tensor) else _C.full([], y, x.dtype)
    src = x.clone() if _recording(x, yv) else x
    return _write(x, _C.where(condition, src, yv), "where_")


def fill_diagonal_(x, value, offset=0, wrap=False, name=None):
    """The main diagonal (shifted by offset) of x set to value; with wrap, a tall matrix restarts
    its diagonal every cols + 1 rows (as NumPy's fill_diagonal)."""
    import numpy as np
    _check_leaf(x, "fill_diagonal_")
    if x.ndim < 2:
        raise ValueError(f"fill_diagonal_: argument 'x' must be at least 2-D, got shape {x.shape}")
    if x.ndim > 2 and len(set(x.shape)) != 1:
        raise ValueError(f"fill_diagonal_: an N-D x (N > 2) must have equal dims, got {x.shape}")
    mask = np.zeros(x.shape, bool)
    if x.ndim == 2:
        rows, cols = x.shape
        r = np.arange(rows)
        c = r + offset
        if wrap and rows > cols:
            c = (r % (cols + 1)) + offset
        ok = (c >= 0) & (c < cols) & ((r % (cols + 1) < cols) if wrap and rows > cols else True)
        mask[r[ok], c[ok]] = True
    else:
        idx = np.arange(x.shape[0])
        mask[tuple([idx] * x.ndim)] = True
    return _write(x, _C.where(to_tensor(mask), _C.full([], value, x.dtype), x), "fill_diagonal_")


def detach_(x):
    """x cut from its autograd history, in place."""
    _C._assign_view_inplace(x, x.detach())
    x.stop_gradient = True
    return x


def random_(x, from_=0, to=None, *, generator=None):
    """x filled with integers drawn uniformly from [from_, to) (to: the dtype's max when None)."""
    _check_leaf(x, "random_")
    if to is None:
        to = {"float16": 2 ** 11, "bfloat16": 2 ** 8, "float32": 2 ** 24, "float64": 2 ** 53,
              "bool": 2}.get(x.dtype.name, None)
        if to is None:
            import numpy as np
            to = int(np.iinfo(x.dtype.name).max)
    if to <= from_:
        raise ValueError(f"random_: 'to' ({to}) must be greater than 'from_' ({from_})")
    r = _C.randint(int(from_), int(to), x.shape, convert_dtype("int64"))
    return _write(x, _C.cast(r, x.dtype), "random_")


def fill_(x, value):
    """Every element of x set to value."""
    _check_leaf(x, "fill_")
    return _write(x, _C.full(x.shape, value, x.dtype), "fill_")


def zero_(x):
    """Fills x with zeros in place.

    Args:
        x (Tensor): The tensor; it is overwritten.

    Returns:
        Tensor: x.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([1.0, 2.0])
        >>> _ = x.zero_()
        >>> print(x.numpy())
        [0. 0.]
    """
    return fill_(x, 0)


def uniform_(x, min=-1.0, max=1.0, seed=0, name=None):
    """x filled from U[min, max) (oar's generator; a nonzero seed gives a fixed draw)."""
    _check_leaf(x, "uniform_")
    return _write(x, _C.uniform(x.shape, x.dtype, float(min), float(max), int(seed)), "uniform_")


def normal_(x, mean=0.0, std=1.0, name=None):
    """Fills x in place with samples of a normal distribution.

    Args:
        x (Tensor): The tensor to fill; it is overwritten (a leaf that requires grad raises
            ValueError
     unless under oar.no_grad()).
        mean (float, optional): The mean. Default: 0.0.
        std (float, optional): The standard deviation. Default: 1.0.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x, holding the samples.

    Examples:
        >>> import oar
        >>> x = oar.zeros([2, 2])
        >>> _ = oar.normal_(x, mean=1.0, std=0.0)
        >>> print(x.numpy())
        [[1. 1.]
         [1. 1.]]
    """
    _check_leaf(x, "normal_")
    return _write(x, _C.gaussian(x.shape, float(mean), float(std), 0, x.dtype), "normal_")


def _view_inplace_of(fn, name, keep_shape=False):
    """x.reshape_(...) and friends: x itself takes the result's shape, dtype and history. With
    keep_shape (the in-place casts and comparisons), x cannot broadcast to another shape."""
    def op_(x, *args, **kwargs):
        _check_leaf(x, name)
        r = fn(x, *args, **kwargs)
        if keep_shape and list(r.shape) != list(x.shape):
            raise ValueError(f"{name}: the result shape {r.shape} differs from the shape of x "
                             f"{x.shape}; in-place ops cannot broadcast x")
        _C._assign_view_inplace(x, r)
        return x
    op_.__name__ = name
    op_.__doc__ = f"In-place {fn.__name__}: x takes the result's shape and is returned."
    return op_


_view_ops = {f"{n}_": _view_inplace_of(f, f"{n}_") for n, f in {
    "reshape": lambda x, shape, name=None: _C.reshape(x, shape),
    "squeeze": lambda x, axis=None, name=None: _C.squeeze(x, [] if axis is None else axis),
    "unsqueeze": lambda x, axis, name=None: _C.unsqueeze(x, axis),
    "flatten": lambda x, start_axis=0, stop_axis=-1, name=None: _C.flatten(x, start_axis, stop_axis),
    "transpose": lambda x, perm, name=None: _C.transpose(x, perm),
    "t": lambda x, name=None: _C.t(x),
}.items()}
_ops.update(_view_ops)
# In-place ops whose result has another dtype (or comes from a computation rather than a view):
# x becomes the result tensor, as in Paddle (x.equal_(y) turns x into a bool tensor).
_rebind_ops = {f"{n}_": _view_inplace_of(f, f"{n}_", keep_shape=True) for n, f in {
    "cast": lambda x, dtype: _C.cast(x, convert_dtype(dtype)),
    "equal": lambda x, y, name=None: _C.equal(x, y),
    "not_equal": lambda x, y, name=None: _C.not_equal(x, y),
    "less_than": lambda x, y, name=None: _C.less_than(x, y),
    "less": lambda x, y, name=None: _C.less_than(x, y),
    "less_equal": lambda x, y, name=None: _C.less_equal(x, y),
    "greater_than": lambda x, y, name=None: _C.greater_than(x, y),
    "greater_equal": lambda x, y, name=None: _C.greater_equal(x, y),
}.items()}
_ops.update(_rebind_ops)


def abs_(x, name=None):
    """In-place |x|. A complex x becomes the real tensor of its magnitudes (float32 for complex64),
    as Paddle's abs_ turns x into float32; a real x is overwritten in its own storage."""
    if x.dtype.name.startswith("complex"):
        _check_leaf(x, "abs_")
        _C._assign_view_inplace(x, _C.abs(x))
        return x
    return _C.abs_(x)


_ops["abs_"] = abs_

globals().update(_ops)
__all__ = sorted(_ops) + ["pow_", "fill_", "zero_", "uniform_", "normal_", "where_",
                          "fill_diagonal_", "detach_", "random_"]
# Paddle has each of these as a Tensor method (tensor/methods.py attaches them); these ones also
# at top level (paddle.acos_ ...).
TOP_LEVEL = [n for n in __all__ if n not in ("lerp_", "mul_", "sigmoid_", "fill_", "zero_", "uniform_",
                                              "fill_diagonal_", "detach_", "random_")]
