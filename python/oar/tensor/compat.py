"""Paddle 3.x's alias and convenience functions (cat, clamp, div, permute, atleast_1d, diag, ...),
written over oar's C++ ops so that autograd sees through them. Each mirrors the Paddle function of
the same name: arguments, defaults, output dtype and shape."""
import builtins
import math

import numpy as np

from .. import _C
from ..framework.dtype import convert_dtype

Tensor = _C.Tensor

# Constants paddle exposes at top level.
e, pi, inf, nan, newaxis = math.e, math.pi, math.inf, math.nan, None


def _axes(rank, axis):
    return [a + rank if a < 0 else a for a in ([axis] if isinstance(axis, int) else list(axis))]


# ---- aliases of existing ops ----

def cat(x, axis=0, name=None, *, out=None):
    return _C.concat(list(x), axis)


concatenate = cat


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
eq, ne = _C.equal, _C.not_equal
gt = greater = _C.greater_than
ge = _C.greater_equal
lt = less = _C.less_than
le = _C.less_equal


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


def isin(x, test_x, assume_unique=False, invert=False, name=None):
    flat = _C.reshape(x, [-1, 1])
    hit = _C.any(_C.equal(flat, _C.reshape(test_x, [1, -1])), [1], False)
    hit = _C.reshape(hit, x.shape)
    return _C.logical_not(hit) if invert else hit


# ---- shape and layout ----

def permute(input, dims):
    return _C.transpose(input, list(dims))


def swapaxes(x, axis0, axis1, name=None):
    """x with axes axis0 and axis1 exchanged."""
    p = list(range(x.ndim))
    a, b = _axes(x.ndim, axis0)[0], _axes(x.ndim, axis1)[0]
    p[a], p[b] = p[b], p[a]
    return _C.transpose(x, p)


swapdims = swapaxes


def moveaxis(x, source, destination, name=None):
    src, dst = _axes(x.ndim, source), _axes(x.ndim, destination)
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: 'source' and 'destination' must have the same number of axes, "
                         f"got {len(src)} and {len(dst)}")
    order = [d for d in range(x.ndim) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _C.transpose(x, order)


def matrix_transpose(x, name=None):
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose: argument 'x' must have at least 2 dims, got shape {x.shape}")
    p = list(range(x.ndim))
    p[-1], p[-2] = p[-2], p[-1]
    return _C.transpose(x, p)


def ravel(input):
    return _C.reshape(input, [-1])


def narrow(input, dim, start, length):
    d = _axes(input.ndim, dim)[0]
    start = int(start) + (input.shape[d] if int(start) < 0 else 0)
    return _C.slice(input, [d], [start], [start + length])


def view(x, shape_or_dtype, name=None):
    if isinstance(shape_or_dtype, (list, tuple)):
        return _C.reshape(x, list(shape_or_dtype))
    raise NotImplementedError("view: reinterpreting a tensor as another dtype is not supported yet")


def view_as(x, other, name=None):
    return _C.reshape(x, other.shape)


def _known_sizes(shape, op):
    """A shape argument (list/tuple of ints or 1-element tensors, or an int tensor) as ints. Sizes
    held by a static program's values are unknown until it runs: refused by name."""
    from ..static.mode import is_symbolic
    items = [shape] if isinstance(shape, _C.Tensor) else list(shape)
    if any(isinstance(v, _C.Tensor) and is_symbolic(v) for v in items):
        raise ValueError(f"{op}: argument 'shape' must be known while a static program is built, but it "
                         "holds a value of the program (its data exists only when the program runs); "
                         "pass a list of ints")
    if isinstance(shape, _C.Tensor):
        return [int(v) for v in shape.tolist()]
    return [int(v.item()) if isinstance(v, _C.Tensor) else v for v in items]


def unflatten(x, axis, shape, name=None):
    a = _axes(x.ndim, axis)[0]
    return _C.reshape(x, x.shape[:a] + _known_sizes(shape, "unflatten") + x.shape[a + 1:])


def unstack(x, axis=0, num=None):
    return _C.unbind(x, axis)


def reverse(x, axis, name=None):
    return _C.flip(x, [axis] if isinstance(axis, int) else list(axis))


def atleast_1d(*inputs, name=None):
    outs = [t if t.ndim >= 1 else _C.reshape(t, [1]) for t in inputs]
    return outs[0] if len(outs) == 1 else outs


def atleast_2d(*inputs, name=None):
    outs = [t if t.ndim >= 2 else _C.reshape(t, [1, -1] if t.ndim == 1 else [1, 1]) for t in inputs]
    return outs[0] if len(outs) == 1 else outs


def atleast_3d(*inputs, name=None):
    def lift(t):
        if t.ndim >= 3:
            return t
        if t.ndim == 2:
            return _C.unsqueeze(t, [2])
        return _C.reshape(t, [1, -1, 1] if t.ndim == 1 else [1, 1, 1])
    outs = [lift(t) for t in inputs]
    return outs[0] if len(outs) == 1 else outs


def hstack(x, name=None):
    x = [atleast_1d(t) for t in x]
    return _C.concat(x, 0 if x[0].ndim == 1 else 1)


def vstack(x, name=None):
    return _C.concat([atleast_2d(t) for t in x], 0)


row_stack = vstack


def dstack(x, name=None):
    return _C.concat([atleast_3d(t) for t in x], 2)


def column_stack(x, name=None):
    return _C.concat([_C.reshape(t, [-1, 1]) if t.ndim < 2 else t for t in x], 1)


def tensor_split(x, num_or_indices, axis=0, name=None):
    """Splits into num parts (the first size % num parts one longer) or at the given indices."""
    a = _axes(x.ndim, axis)[0]
    n = x.shape[a]
    if isinstance(num_or_indices, int):
        k = num_or_indices
        if k <= 0:
            raise ValueError(f"tensor_split: the number of sections must be positive, got {k}")
        sizes = [n // k + (1 if i < n % k else 0) for i in range(k)]
        bounds = np.cumsum([0] + sizes).tolist()
    else:
        bounds = [0] + [builtins.min(builtins.max(int(i) + (n if int(i) < 0 else 0), 0), n)
                        for i in num_or_indices] + [n]
    return [_C.slice(x, [a], [bounds[i]], [builtins.max(bounds[i], bounds[i + 1])])
            for i in range(len(bounds) - 1)]


def _split_at(x, num_or_indices, axis, what, min_rank):
    if x.ndim < min_rank:
        raise ValueError(f"{what}: argument 'x' must have at least {min_rank} dims, got shape {x.shape}")
    if isinstance(num_or_indices, int) and x.shape[axis] % num_or_indices != 0:
        raise ValueError(f"{what}: dimension {axis} of size {x.shape[axis]} is not divisible by "
                         f"{num_or_indices}")
    return tensor_split(x, num_or_indices, axis)


def hsplit(x, num_or_indices, name=None):
    return _split_at(x, num_or_indices, 0 if x.ndim == 1 else 1, "hsplit", 1)


def vsplit(x, num_or_indices, name=None):
    return _split_at(x, num_or_indices, 0, "vsplit", 2)


def dsplit(x, num_or_indices, name=None):
    return _split_at(x, num_or_indices, 2, "dsplit", 3)


def broadcast_shape(x_shape, y_shape):
    return list(np.broadcast_shapes(tuple(x_shape), tuple(y_shape)))


def broadcast_shapes(*shapes):
    return list(np.broadcast_shapes(*[tuple(s) for s in shapes]))


def broadcast_tensors(input, name=None):
    shape = broadcast_shapes(*[t.shape for t in input])
    return [_C.broadcast_to(t, shape) for t in input]


def meshgrid(*args, **kwargs):
    xs = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
    shape = [t.shape[0] if t.ndim else 1 for t in xs]
    out = []
    for i, t in enumerate(xs):
        s = [1] * len(xs)
        s[i] = shape[i]
        out.append(_C.broadcast_to(_C.reshape(t, s), shape))
    return out


# ---- small linear algebra ----

def inner(x, y, name=None):
    if x.ndim == 0 or y.ndim == 0:
        return x * y
    return _C.matmul(x, y, False, True)


def ger(x, y, name=None, *, out=None):
    return _C.outer(x, y)


def mv(x, vec, name=None):
    return _C.matmul(x, vec, False, False)


def kron(x, y, name=None):
    """The Kronecker product: block (i, j) of the result is x[i, j] * y (any matching rank)."""
    r = builtins.max(x.ndim, y.ndim)
    xs = [1] * (r - x.ndim) + list(x.shape)
    ys = [1] * (r - y.ndim) + list(y.shape)
    xe = _C.reshape(x, [d for s in xs for d in (s, 1)])
    ye = _C.reshape(y, [d for s in ys for d in (1, s)])
    return _C.reshape(xe * ye, [a * b for a, b in zip(xs, ys)])


def diagonal(x, offset=0, axis1=0, axis2=1, name=None):
    """The diagonal of the (axis1, axis2) matrices, as the last dim: the two dims flattened and
    every (cols + 1)-th element taken (shape-only ops, so programs record it too)."""
    a1, a2 = _axes(x.ndim, axis1)[0], _axes(x.ndim, axis2)[0]
    if a1 == a2:
        raise ValueError(f"diagonal: 'axis1' and 'axis2' must differ, got {axis1} and {axis2}")
    rest = [d for d in range(x.ndim) if d not in (a1, a2)]
    rows, cols = x.shape[a1], x.shape[a2]
    if rows < 0 or cols < 0:
        raise ValueError(f"diagonal: the sizes of axis1 and axis2 must be known, x has shape {x.shape}")
    if offset >= 0:
        length, start = builtins.max(0, builtins.min(rows, cols - offset)), offset
    else:
        length, start = builtins.max(0, builtins.min(cols, rows + offset)), -offset * cols
    flat = _C.flatten(_C.transpose(x, rest + [a1, a2]), len(rest), -1)
    if length == 0:
        return _C.strided_slice(flat, [len(rest)], [0], [0], [1])
    return _C.strided_slice(flat, [len(rest)], [start], [start + (length - 1) * (cols + 1) + 1], [cols + 1])


def diag(x, offset=0, padding_value=0, name=None):
    """A 1-D x becomes a square matrix with x on diagonal `offset`; a 2-D x gives that diagonal."""
    if x.ndim == 2:
        return diagonal(x, offset, 0, 1)
    if x.ndim != 1:
        raise ValueError(f"diag: argument 'x' must be 1-D or 2-D, got shape {x.shape}")
    k, n = abs(offset), x.shape[0] + abs(offset)
    pad = _C.zeros([k], x.dtype)
    v = _C.concat([pad, x] if offset > 0 else [x, pad], 0)
    mask = np.eye(n, k=offset, dtype=bool)
    from .creation import to_tensor
    fill = _C.full([n, n], padding_value, x.dtype)
    return _C.where(to_tensor(mask), _C.broadcast_to(_C.reshape(v, [1, n]), [n, n]), fill)


def trace(x, offset=0, axis1=0, axis2=1, name=None):
    return _C.sum(diagonal(x, offset, axis1, axis2), [-1], None, False)


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


def repeat_interleave(x, repeats, axis=None, name=None, *, output_size=None):
    """Each element (or slice along axis) repeated `repeats` times (an int or a tensor of counts)."""
    if not isinstance(repeats, Tensor):
        r = int(repeats)
        src = _C.reshape(x, [-1]) if axis is None else x
        a = 0 if axis is None else (axis + src.ndim if axis < 0 else axis)
        if r > 0 and 0 <= a < src.ndim and all(d > 0 for d in src.shape[a:]):
            # A known count over known, non-empty dims: every slice copied r times by unsqueeze,
            # expand and reshape, so programs keep the sizes they know (the count op would make
            # the length -1). Reshape's 0 keeps the dims before axis, which may be unknown.
            shape = [-1] * (src.ndim + 1)
            shape[a + 1] = r
            merged = [0] * a + [src.shape[a] * r] + list(src.shape[a + 1:])
            return _C.reshape(_C.expand(_C.unsqueeze(src, [a + 1]), shape), merged)
        repeats = _C.full([], r, convert_dtype("int64"))
    return _C.repeat_interleave(x, repeats, axis)


def take_along_dim(arr, indices, axis, broadcast=True, *, out=None):
    return _C.take_along_axis(arr, indices, axis, broadcast)


def rot90(x, k=1, axes=(0, 1), name=None):
    """x rotated by 90 degrees k times in the plane of `axes` (from the first towards the second)."""
    a0, a1 = _axes(x.ndim, list(axes))
    if a0 == a1 or len(axes) != 2:
        raise ValueError(f"rot90: 'axes' must name two different dims, got {list(axes)}")
    k %= 4
    if k == 0:
        return x
    if k == 2:
        return _C.flip(x, [a0, a1])
    p = list(range(x.ndim))
    p[a0], p[a1] = p[a1], p[a0]
    return _C.transpose(_C.flip(x, [a1]), p) if k == 1 else _C.flip(_C.transpose(x, p), [a1])


def _tri_indices(row, col, offset, dtype, upper):
    import numpy as _np
    r, c = (_np.triu_indices if upper else _np.tril_indices)(row, offset, col)
    from .creation import to_tensor
    return to_tensor(_np.stack([r, c]), dtype=dtype)


def tril_indices(row, col, offset=0, dtype="int64"):
    return _tri_indices(row, col, offset, dtype, False)


def triu_indices(row, col=None, offset=0, dtype="int64"):
    return _tri_indices(row, row if col is None else col, offset, dtype, True)


def range_(start=0, end=None, step=1, dtype=None, *, out=None, device=None, requires_grad=False):
    """paddle.range (exported under that name by oar/__init__.py, which would shadow the builtin
    here): like arange, but `end` is included."""
    if end is None:
        start, end = 0, start
    from .creation import arange
    from ..framework.dtype import get_default_dtype
    import numpy as _np
    n = int(_np.floor((end - start) / step)) + 1
    return arange(start, start + n * step, step, dtype or get_default_dtype())


def clone(x, name=None):
    return x.clone()


def from_numpy(ndarray):
    from .creation import to_tensor
    return to_tensor(ndarray)


def as_tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    from .creation import to_tensor
    if isinstance(data, Tensor) and (dtype is None or convert_dtype(dtype) == data.dtype):
        return data
    t = to_tensor(data, dtype=dtype)
    t.stop_gradient = not requires_grad
    return t


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    return as_tensor(obj, dtype, device, requires_grad)


def diagflat(x, offset=0, name=None):
    return diag(_C.reshape(x, [-1]), offset)


def reduce_as(x, target, name=None):
    """x summed over the dims along which target was broadcast to x's shape."""
    lead = x.ndim - target.ndim
    axes = [d for d in builtins.range(x.ndim)
            if d < lead or (target.shape[d - lead] == 1 and x.shape[d] != 1)]
    out = _C.sum(x, axes, None, True) if axes else x
    return _C.reshape(out, target.shape)


def slice_scatter(x, value, axes, starts, ends, strides, name=None):
    """x with the strided slice (axes, starts, ends, strides) replaced by value."""
    mask = np.zeros(x.shape, bool)
    sel = [slice(None)] * x.ndim
    for a, st, en, sp in zip(axes, starts, ends, strides):
        sel[_axes(x.ndim, a)[0]] = slice(st, en, sp)
    mask[tuple(sel)] = True
    # Spread value over the masked positions: index_put with the masked coordinates.
    coords = [_C.reshape(c, [-1]) for c in _C.unbind(_C.nonzero_coords(_from_np(mask)), 1)]
    return _C.index_put(x, coords, _C.reshape(_C.cast(value, x.dtype), [-1]), False)


def _from_np(a):
    from .creation import to_tensor
    return to_tensor(a)


def diagonal_scatter(x, y, offset=0, axis1=0, axis2=1, name=None):
    """x with its (axis1, axis2) diagonal `offset` replaced by y."""
    a1, a2 = _axes(x.ndim, axis1)[0], _axes(x.ndim, axis2)[0]
    rows, cols = x.shape[a1], x.shape[a2]
    mask2 = np.eye(rows, cols, k=offset, dtype=bool)
    if a1 > a2:
        mask2 = mask2.T  # the reshape below lays the two axes out in increasing axis order
    shape = [1] * x.ndim
    shape[a1], shape[a2] = rows, cols
    mask = np.broadcast_to(mask2.reshape(shape), x.shape)
    coords = [_C.reshape(c, [-1]) for c in _C.unbind(_C.nonzero_coords(_from_np(np.ascontiguousarray(mask))), 1)]
    # nonzero lists positions in row-major order of x; y's diagonal dim is last, so move it to
    # the place the diagonal occupies in that order.
    rest = [d for d in builtins.range(x.ndim) if d not in (a1, a2)]
    order = sorted(rest + [builtins.min(a1, a2)])
    pos = order.index(builtins.min(a1, a2))
    ym = moveaxis(_C.cast(y, x.dtype), -1, pos)
    return _C.index_put(x, coords, _C.reshape(ym, [-1]), False)


def crop(x, shape=None, offsets=None, name=None):
    shape = list(x.shape) if shape is None else [x.shape[i] if s == -1 else s for i, s in enumerate(list(shape))]
    offsets = [0] * x.ndim if offsets is None else list(offsets)
    for d in builtins.range(x.ndim):
        if offsets[d] + shape[d] > x.shape[d]:
            raise ValueError(f"crop: offsets {offsets} + shape {shape} exceed x's shape {x.shape} in dim {d}")
    return _C.slice(x, list(builtins.range(x.ndim)), offsets, [o + s for o, s in zip(offsets, shape)])


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


def shard_index(input, index_num, nshards, shard_id, ignore_value=-1):
    """Labels of shard shard_id relabelled to start at 0; others become ignore_value."""
    size = (index_num + nshards - 1) // nshards
    lo = shard_id * size
    inside = _C.logical_and(_C.greater_equal(input, _C.full([], lo, input.dtype)),
                            _C.less_than(input, _C.full([], lo + size, input.dtype)))
    return _C.where(inside, input - lo, _C.full([], ignore_value, input.dtype))


def batch(reader, batch_size, drop_last=False):
    """paddle.batch: a reader of lists of batch_size samples from a reader of samples."""
    def batched():
        buf = []
        for item in reader():
            buf.append(item)
            if len(buf) == batch_size:
                yield buf
                buf = []
        if buf and not drop_last:
            yield buf
    return batched


# ---- framework plumbing Paddle exposes at top level ----

_FLAGS = {"FLAGS_check_nan_inf": False, "FLAGS_use_mkldnn": True, "FLAGS_cudnn_deterministic": False}


def get_flags(flags):
    """Values of global flags (oar keeps Paddle's names; unknown ones raise ValueError)."""
    names = [flags] if isinstance(flags, str) else list(flags)
    for n in names:
        if n not in _FLAGS:
            raise ValueError(f"get_flags: unknown flag {n!r}; known: {sorted(_FLAGS)}")
    return {n: _FLAGS[n] for n in names}


def set_flags(flags):
    for n, v in dict(flags).items():
        if n not in _FLAGS:
            raise ValueError(f"set_flags: unknown flag {n!r}; known: {sorted(_FLAGS)}")
        _FLAGS[n] = v


def disable_signal_handler():
    """Paddle installs C++ signal handlers and lets users remove them; oar installs none."""
    return None


def set_cuda_rng_state(state_list):
    if list(state_list):
        raise RuntimeError("set_cuda_rng_state: oar was built without CUDA; only an empty state list is accepted")


def check_shape(shape, op_name, expected_shape_type=(list, tuple), expected_element_type=(int,),
                expected_tensor_dtype=("int32", "int64")):
    """Raises TypeError unless shape is a list/tuple of ints (or an int tensor), as Paddle."""
    if isinstance(shape, Tensor):
        if shape.dtype.name not in expected_tensor_dtype:
            raise TypeError(f"{op_name}: the shape tensor must be {' or '.join(expected_tensor_dtype)}, "
                            f"got {shape.dtype.name}")
        return
    if not isinstance(shape, expected_shape_type):
        raise TypeError(f"{op_name}: 'shape' must be a list or tuple, got {type(shape).__name__}")
    for s in shape:
        if not isinstance(s, Tensor) and not isinstance(s, expected_element_type):
            raise TypeError(f"{op_name}: every element of 'shape' must be an int, got {type(s).__name__}")


class Size(tuple):
    """paddle.Size: a tuple of dims."""
    def __repr__(self):
        return f"paddle.Size({list(self)})"


# ---- predicates and queries ----

def is_complex(x):
    return x.dtype.name.startswith("complex")


def is_floating_point(x):
    return x.dtype.name in ("float16", "bfloat16", "float32", "float64")


def is_integer(x):
    return x.dtype.name.startswith(("int", "uint"))


def is_empty(x, name=None):
    return _C.full([], x.size == 0, convert_dtype("bool"))


def rank(input):
    return _C.full([], input.ndim, convert_dtype("int32"))


def manual_seed(seed):
    _C.seed(seed)


def tolist(x):
    return x.tolist()


def rand_like(input, name=None, *, dtype=None, device=None, requires_grad=False):
    t = _C.uniform(input.shape, convert_dtype(dtype) if dtype else input.dtype, 0.0, 1.0, 0)
    t.stop_gradient = not requires_grad
    return t


def randn_like(x, dtype=None, name=None, *, device=None, requires_grad=False):
    t = _C.gaussian(x.shape, 0.0, 1.0, 0, convert_dtype(dtype) if dtype else x.dtype)
    t.stop_gradient = not requires_grad
    return t


def logspace(start, stop, num, base=10.0, dtype=None, name=None):
    dt = convert_dtype(dtype) if dtype else None
    exps = _C.linspace(float(start), float(stop), int(num), convert_dtype("float64"))
    out = _C.elementwise_pow(_C.full([], float(base), convert_dtype("float64")), exps)
    return _C.cast(out, dt or convert_dtype("float32"))


__all__ = [n for n in list(globals()) if not n.startswith("_") and n not in
           ("builtins", "math", "np", "convert_dtype", "Tensor")]

# Tensor methods Paddle has under these names.
METHODS = ["clamp", "clamp_", "div", "mul", "sub", "eq", "ne", "gt", "ge", "lt", "le", "greater",
           "less", "negative", "permute", "swapaxes", "swapdims", "moveaxis", "ravel", "narrow",
           "is_complex", "is_floating_point", "is_integer", "is_empty", "rank", "floor_mod", "mod",
           "true_divide", "matrix_transpose", "view", "view_as", "deg2rad", "rad2deg", "atleast_1d",
           "hsplit", "vsplit", "dsplit", "tensor_split", "unflatten", "unstack", "inner", "mv", "diag",
           "diagonal", "trace", "frac", "sgn", "signbit", "reverse", "nansum", "nanmean",
           "count_nonzero", "logit", "logaddexp", "hypot", "sinc", "isin", "diff", "repeat_interleave",
           "kron", "take_along_dim", "rot90", "diagflat", "reduce_as", "slice_scatter",
           "diagonal_scatter", "crop", "increment"]
