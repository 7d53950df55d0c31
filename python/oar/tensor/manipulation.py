"""Shape and layout, written over the C++ view and copy ops: joining and splitting (cat, split,
hstack, tensor_split, hsplit, ...), axis order (permute, swapaxes, moveaxis), reshaping (ravel,
narrow, view, unflatten, unstack, atleast_*), broadcasting, repetition and rotation
(repeat_interleave, rot90), writes into slices (slice_scatter, diagonal_scatter), crop,
shard_index and tolist."""
import builtins

import numpy as np

from .. import _C
from ..framework.dtype import convert_dtype
from ..framework.mode import is_symbolic
from .axis import normalize_axes as _axes
from .creation import to_tensor

Tensor = _C.Tensor

__all__ = ["cat", "concatenate", "split", "permute", "swapaxes", "swapdims", "moveaxis", "ravel",
           "narrow", "view", "view_as", "unflatten", "unstack", "reverse", "atleast_1d",
           "atleast_2d", "atleast_3d", "hstack", "vstack", "row_stack", "dstack", "column_stack",
           "tensor_split", "hsplit", "vsplit", "dsplit", "broadcast_shape", "broadcast_shapes",
           "broadcast_tensors", "repeat_interleave", "take_along_dim", "rot90", "slice_scatter",
           "diagonal_scatter", "crop", "shard_index", "tolist", "reverse_axes"]


def cat(x, axis=0, name=None, *, out=None):
    return _C.concat(list(x), axis)


concatenate = cat


def split(x, num_or_sections, axis=0, name=None):
    """paddle.split: an int is a number of equal parts; a list or tuple holds section sizes."""
    if isinstance(num_or_sections, (list, tuple)):
        return _C.split_with_sizes(x, list(num_or_sections), axis)
    return _C.split(x, num_or_sections, axis)


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


def shard_index(input, index_num, nshards, shard_id, ignore_value=-1):
    """Labels of shard shard_id relabelled to start at 0; others become ignore_value."""
    size = (index_num + nshards - 1) // nshards
    lo = shard_id * size
    inside = _C.logical_and(_C.greater_equal(input, _C.full([], lo, input.dtype)),
                            _C.less_than(input, _C.full([], lo + size, input.dtype)))
    return _C.where(inside, input - lo, _C.full([], ignore_value, input.dtype))


def tolist(x):
    return x.tolist()


def reverse_axes(self):
    """x.T (a property): x with the order of its axes reversed."""
    return _C.transpose(self, list(range(self.ndim))[::-1])
