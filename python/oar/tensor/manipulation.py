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
    """Concatenates tensors along an existing axis; concatenate is the same function.

    Args:
        x (list|tuple of Tensor): The tensors; they match in every dim but axis.
        axis (int|Tensor, optional): The axis, negative counting from the end. Default: 0.
        name (str, optional): Unused; for Paddle compatibility. Default: None.
        out (Tensor, optional): Ignored (use the return value); for compatibility. Default: None.

    Returns:
        Tensor: the concatenation.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1, 2]])
        >>> y = oar.to_tensor([[3, 4]])
        >>> print(oar.cat([x, y]).numpy())
        [[1 2]
         [3 4]]
        >>> print(oar.concatenate([x, y], axis=1).numpy())
        [[1 2 3 4]]
    """
    return _C.concat(list(x), axis)


concatenate = cat


def split(x, num_or_sections, axis=0, name=None):
    """paddle.split: an int is a number of equal parts; a list or tuple holds section sizes."""
    if isinstance(num_or_sections, (list, tuple)):
        return _C.split_with_sizes(x, list(num_or_sections), axis)
    return _C.split(x, num_or_sections, axis)


def permute(input, dims):
    """Permutes the dims of input: dim i of the result is dim dims[i] of input (like transpose).

    Args:
        input (Tensor): The input.
        dims (list|tuple): A permutation of 0 .. ndim - 1.

    Returns:
        Tensor: the permuted tensor.

    Examples:
        >>> import oar
        >>> print(oar.permute(oar.ones([2, 3, 4]), [2, 0, 1]).shape)
        [4, 2, 3]
    """
    return _C.transpose(input, list(dims))


def swapaxes(x, axis0, axis1, name=None):
    """x with axes axis0 and axis1 exchanged."""
    p = list(range(x.ndim))
    a, b = _axes(x.ndim, axis0)[0], _axes(x.ndim, axis1)[0]
    p[a], p[b] = p[b], p[a]
    return _C.transpose(x, p)


swapdims = swapaxes


def moveaxis(x, source, destination, name=None):
    """Moves the axes source to the positions destination, keeping the order of the others.

    Args:
        x (Tensor): The input.
        source (int|list|tuple): Axes to move.
        destination (int|list|tuple): Their new positions, as many as source.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x with its axes permuted.

    Examples:
        >>> import oar
        >>> print(oar.moveaxis(oar.ones([2, 3, 4]), 0, -1).shape)
        [3, 4, 2]
    """
    src, dst = _axes(x.ndim, source), _axes(x.ndim, destination)
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: 'source' and 'destination' must have the same number of axes, "
                         f"got {len(src)} and {len(dst)}")
    order = [d for d in range(x.ndim) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _C.transpose(x, order)


def ravel(input):
    """input flattened to 1-D.

    Args:
        input (Tensor): The input.

    Returns:
        Tensor: shape [input.size].

    Examples:
        >>> import oar
        >>> print(oar.ravel(oar.ones([2, 3])).shape)
        [6]
    """
    return _C.reshape(input, [-1])


def narrow(input, dim, start, length):
    """length elements of input along dim, starting at start.

    Args:
        input (Tensor): The input.
        dim (int): The dim.
        start (int|Tensor): First index; negative counts from the end.
        length (int): Number of elements.

    Returns:
        Tensor: input with size length along dim.

    Examples:
        >>> import oar
        >>> print(oar.narrow(oar.arange(6), 0, 2, 3).numpy())
        [2 3 4]
    """
    d = _axes(input.ndim, dim)[0]
    start = int(start) + (input.shape[d] if int(start) < 0 else 0)
    return _C.slice(input, [d], [start], [start + length])


def view(x, shape_or_dtype, name=None):
    """x with a new shape (like reshape); viewing as another dtype is not supported.

    Args:
        x (Tensor): The input.
        shape_or_dtype (list|tuple): The new shape (one entry may be -1).
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x reshaped.

    Examples:
        >>> import oar
        >>> print(oar.view(oar.arange(6), [2, 3]).numpy())
        [[0 1 2]
         [3 4 5]]
    """
    if isinstance(shape_or_dtype, (list, tuple)):
        return _C.reshape(x, list(shape_or_dtype))
    raise NotImplementedError("view: reinterpreting a tensor as another dtype is not supported yet")


def view_as(x, other, name=None):
    """x reshaped to the shape of other.

    Args:
        x (Tensor): The input.
        other (Tensor): A tensor with as many elements as x.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x with other's shape.

    Examples:
        >>> import oar
        >>> print(oar.view_as(oar.arange(6), oar.ones([3, 2])).shape)
        [3, 2]
    """
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
    """Splits dim axis of x into several dims of the given shape.

    Args:
        x (Tensor): The input.
        axis (int): The dim to split.
        shape (list|tuple|Tensor): The new sizes; their product is x.shape[axis] (one may be -1).
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x reshaped.

    Examples:
        >>> import oar
        >>> print(oar.unflatten(oar.ones([2, 6]), 1, [2, 3]).shape)
        [2, 2, 3]
    """
    a = _axes(x.ndim, axis)[0]
    return _C.reshape(x, x.shape[:a] + _known_sizes(shape, "unflatten") + x.shape[a + 1:])


def unstack(x, axis=0, num=None):
    """Splits x along axis into its slices, removing that dim (like unbind).

    Args:
        x (Tensor): The input.
        axis (int, optional): The axis. Default: 0.
        num (int, optional): Unused; the count is x.shape[axis]. Default: None.

    Returns:
        list[Tensor]: x.shape[axis] tensors.

    Examples:
        >>> import oar
        >>> print([t.numpy().tolist() for t in oar.unstack(oar.to_tensor([[1, 2], [3, 4]]))])
        [[1, 2], [3, 4]]
    """
    return _C.unbind(x, axis)


def reverse(x, axis, name=None):
    """Reverses x along the given axes (like flip).

    Args:
        x (Tensor): The input.
        axis (int|list|tuple): The axes to reverse.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: same shape and dtype as x.

    Examples:
        >>> import oar
        >>> print(oar.reverse(oar.to_tensor([[1, 2], [3, 4]]), 0).numpy())
        [[3 4]
         [1 2]]
    """
    return _C.flip(x, [axis] if isinstance(axis, int) else list(axis))


def atleast_1d(*inputs, name=None):
    """Views each input with at least 1 dims: 0-D tensors become shape [1]; inputs with 1 or more
    dims are returned as is.

    Args:
        *inputs (Tensor): One or more tensors.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor|list[Tensor]: the reshaped tensor for one input, else a list.

    Examples:
        >>> import oar
        >>> print(oar.atleast_1d(oar.to_tensor(1.0)).shape)
        [1]
    """
    outs = [t if t.ndim >= 1 else _C.reshape(t, [1]) for t in inputs]
    return outs[0] if len(outs) == 1 else outs


def atleast_2d(*inputs, name=None):
    """Views each input with at least 2 dims: 0-D becomes [1, 1] and 1-D [n] becomes [1, n]; inputs
    with 2 or more dims are returned as is.

    Args:
        *inputs (Tensor): One or more tensors.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor|list[Tensor]: the reshaped tensor for one input, else a list.

    Examples:
        >>> import oar
        >>> print(oar.atleast_2d(oar.to_tensor([1.0, 2.0])).shape)
        [1, 2]
    """
    outs = [t if t.ndim >= 2 else _C.reshape(t, [1, -1] if t.ndim == 1 else [1, 1]) for t in inputs]
    return outs[0] if len(outs) == 1 else outs


def atleast_3d(*inputs, name=None):
    """Views each input with at least 3 dims: 0-D becomes [1, 1, 1], 1-D [n] becomes [1, n, 1] and
    2-D [m, n] becomes [m, n, 1]; inputs with 3 or more dims are returned as is.

    Args:
        *inputs (Tensor): One or more tensors.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor|list[Tensor]: the reshaped tensor for one input, else a list.

    Examples:
        >>> import oar
        >>> a, b = oar.atleast_3d(oar.to_tensor(1.0), oar.ones([2, 3]))
        >>> print(a.shape, b.shape)
        [1, 1, 1] [2, 3, 1]
    """
    def lift(t):
        if t.ndim >= 3:
            return t
        if t.ndim == 2:
            return _C.unsqueeze(t, [2])
        return _C.reshape(t, [1, -1, 1] if t.ndim == 1 else [1, 1, 1])
    outs = [lift(t) for t in inputs]
    return outs[0] if len(outs) == 1 else outs


def hstack(x, name=None):
    """Stacks tensors horizontally: along axis 0 for 1-D inputs, else along axis 1 (0-D inputs
    become 1-D).

    Args:
        x (list|tuple of Tensor): The tensors, of one dtype.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the concatenation.

    Examples:
        >>> import oar
        >>> print(oar.hstack([oar.to_tensor([1, 2]), oar.to_tensor([3])]).numpy())
        [1 2 3]
    """
    x = [atleast_1d(t) for t in x]
    return _C.concat(x, 0 if x[0].ndim == 1 else 1)


def vstack(x, name=None):
    """Stacks tensors vertically: each input is made at least 2-D (a 1-D [n] becomes [1, n]), then
    all are concatenated along axis 0; row_stack is the same function.

    Args:
        x (list|tuple of Tensor): The tensors, of one dtype.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the concatenation.

    Examples:
        >>> import oar
        >>> print(oar.vstack([oar.to_tensor([1, 2]), oar.to_tensor([3, 4])]).numpy())
        [[1 2]
         [3 4]]
    """
    return _C.concat([atleast_2d(t) for t in x], 0)


row_stack = vstack


def dstack(x, name=None):
    """Stacks tensors depth-wise: each input is made at least 3-D (see atleast_3d), then all are
    concatenated along axis 2.

    Args:
        x (list|tuple of Tensor): The tensors, of one dtype.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the concatenation.

    Examples:
        >>> import oar
        >>> print(oar.dstack([oar.to_tensor([1, 2]), oar.to_tensor([3, 4])]).shape)
        [1, 2, 2]
    """
    return _C.concat([atleast_3d(t) for t in x], 2)


def column_stack(x, name=None):
    """Stacks tensors as columns: 1-D (and 0-D) inputs become columns [n, 1], then all are
    concatenated along axis 1.

    Args:
        x (list|tuple of Tensor): The tensors, of one dtype.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: 2-D (or more) concatenation.

    Examples:
        >>> import oar
        >>> print(oar.column_stack([oar.to_tensor([1, 2]), oar.to_tensor([3, 4])]).numpy())
        [[1 3]
         [2 4]]
    """
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
    """Splits x along axis 1 (axis 0 for a 1-D x); x needs at least 1 dim.

    Args:
        x (Tensor): The input.
        num_or_indices (int|list|tuple): A number of equal parts (it must divide the size), or the
            indices at which to split.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        list[Tensor]: the parts.

    Examples:
        >>> import oar
        >>> parts = oar.hsplit(oar.arange(6), 3)
        >>> print([p.numpy().tolist() for p in parts])
        [[0, 1], [2, 3], [4, 5]]
    """
    return _split_at(x, num_or_indices, 0 if x.ndim == 1 else 1, "hsplit", 1)


def vsplit(x, num_or_indices, name=None):
    """Splits x along axis 0; x needs at least 2 dims.

    Args:
        x (Tensor): The input.
        num_or_indices (int|list|tuple): A number of equal parts (it must divide the size), or the
            indices at which to split.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        list[Tensor]: the parts.

    Examples:
        >>> import oar
        >>> parts = oar.vsplit(oar.ones([4, 2]), [1])
        >>> print([p.shape for p in parts])
        [[1, 2], [3, 2]]
    """
    return _split_at(x, num_or_indices, 0, "vsplit", 2)


def dsplit(x, num_or_indices, name=None):
    """Splits x along axis 2; x needs at least 3 dims.

    Args:
        x (Tensor): The input.
        num_or_indices (int|list|tuple): A number of equal parts (it must divide the size), or the
            indices at which to split.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        list[Tensor]: the parts.

    Examples:
        >>> import oar
        >>> parts = oar.dsplit(oar.ones([2, 2, 4]), 2)
        >>> print([p.shape for p in parts])
        [[2, 2, 2], [2, 2, 2]]
    """
    return _split_at(x, num_or_indices, 2, "dsplit", 3)


def broadcast_shape(x_shape, y_shape):
    """The shape two shapes broadcast to (numpy rules); raises ValueError if they do not.

    Args:
        x_shape (list|tuple): The first shape.
        y_shape (list|tuple): The second shape.

    Returns:
        list[int]: the broadcast shape.

    Examples:
        >>> import oar
        >>> print(oar.broadcast_shape([2, 1, 3], [4, 1]))
        [2, 4, 3]
    """
    return list(np.broadcast_shapes(tuple(x_shape), tuple(y_shape)))


def broadcast_shapes(*shapes):
    """The shape any number of shapes broadcast to (numpy rules); raises ValueError if they do not.

    Args:
        *shapes (list|tuple): The shapes.

    Returns:
        list[int]: the broadcast shape.

    Examples:
        >>> import oar
        >>> print(oar.broadcast_shapes([2, 1], [1, 3], [3]))
        [2, 3]
    """
    return list(np.broadcast_shapes(*[tuple(s) for s in shapes]))


def broadcast_tensors(input, name=None):
    """Broadcasts tensors to their common shape.

    Args:
        input (list|tuple of Tensor): The tensors.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        list[Tensor]: the tensors, each with the common shape.

    Examples:
        >>> import oar
        >>> a, b = oar.broadcast_tensors([oar.ones([2, 1]), oar.ones([3])])
        >>> print(a.shape, b.shape)
        [2, 3] [2, 3]
    """
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
            # the length -1). Reshape's 0 keeps the dims before axis a program does not know; the
            # known ones are written out (a zero-size tensor reads 0 as a literal zero).
            shape = [-1] * (src.ndim + 1)
            shape[a + 1] = r
            merged = [d if d >= 0 else 0 for d in src.shape[:a]] + [src.shape[a] * r] + list(src.shape[a + 1:])
            return _C.reshape(_C.expand(_C.unsqueeze(src, [a + 1]), shape), merged)
        repeats = _C.full([], r, convert_dtype("int64"))
    return _C.repeat_interleave(x, repeats, axis)


def take_along_dim(arr, indices, axis, broadcast=True, *, out=None):
    """Picks values of arr at the indices along axis (like take_along_axis).

    Args:
        arr (Tensor): The input.
        indices (Tensor): Integer indices, with arr's rank.
        axis (int): The axis.
        broadcast (bool, optional): Broadcast indices and arr against each other in the other dims.
            Default: True.
        out (Tensor, optional): Ignored (use the return value); for compatibility. Default: None.

    Returns:
        Tensor: the picked values, shaped like indices (after broadcasting).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[10, 30, 20]])
        >>> print(oar.take_along_dim(x, oar.to_tensor([[1, 0]]), 1).numpy())
        [[30 10]]
    """
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
    """A block of x: shape[d] elements starting at offsets[d] in each dim d.

    Args:
        x (Tensor): The input.
        shape (list|tuple, optional): The block's shape; -1 keeps x's size. Default: None (x's
            shape).
        offsets (list|tuple, optional): Start of the block in each dim. Default: None (zeros).
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the block, same dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.arange(9).reshape([3, 3])
        >>> print(oar.crop(x, shape=[2, 2], offsets=[1, 1]).numpy())
        [[4 5]
         [7 8]]
    """
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
    """The values of x as nested Python lists (a Python number for a 0-D x).

    Args:
        x (Tensor): The input.

    Returns:
        list|int|float|bool: the values.

    Examples:
        >>> import oar
        >>> print(oar.tolist(oar.to_tensor([[1, 2], [3, 4]])))
        [[1, 2], [3, 4]]
    """
    return x.tolist()


def reverse_axes(self):
    """x.T (a property): x with the order of its axes reversed."""
    return _C.transpose(self, list(range(self.ndim))[::-1])
