"""Views with explicit strides: as_strided (the C++ view op over a tensor's storage) and
Tensor.unfold (sliding windows along one axis, a view built with as_strided).

as_strided(x, shape, stride, offset) reads x's storage from its start, in elements: Paddle 3.3.1
does the same for the shape and strides but counts `offset` in bytes and reads past the end of the
storage without complaint; oar counts elements and refuses a view that leaves the storage. Both
frameworks agree for offset=0 within the storage.
"""
from .. import _C

Tensor = _C.Tensor

__all__ = ["as_strided", "unfold"]


def _ints(fn, arg, values):
    if isinstance(values, Tensor) or not isinstance(values, (list, tuple)):
        raise TypeError(f"{fn}: argument '{arg}' must be a list or tuple of ints, but got "
                        f"{type(values).__name__}")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"{fn}: argument '{arg}' must hold ints, but got {type(v).__name__} in {values}")
    return [int(v) for v in values]


def as_strided(x, shape, stride, offset=0, name=None):
    """A view of x's storage with the given shape, stride and offset (elements from the start of
    the storage); writing through it writes x. The gradient sums over storage positions the view
    reads more than once."""
    if isinstance(offset, bool) or not isinstance(offset, int):
        raise TypeError(f"as_strided: argument 'offset' must be an int, but got {type(offset).__name__}")
    return _C.as_strided(x, _ints("as_strided", "shape", shape), _ints("as_strided", "stride", stride), offset)


def unfold(x, axis, size, step, name=None):
    """Tensor.unfold: the windows of `size` elements taken every `step` along `axis`, as a view of
    shape x.shape with that axis holding the window count and a new last axis of length `size`."""
    for arg, v in (("axis", axis), ("size", size), ("step", step)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"unfold: argument '{arg}' must be an int, but got {type(v).__name__}")
    if step <= 0:
        raise ValueError(f"unfold: argument 'step' must be greater than 0, but got {step}")
    if x.ndim == 0:  # Paddle: a 0-D tensor gives shape [size] (size 0 or 1), whatever the axis
        if not 0 <= size <= 1:
            raise ValueError(f"unfold: argument 'size' must be 0 or 1 for a 0-D tensor, but got {size}")
        return _C.as_strided(x, [size], [1], x._offset)
    shape, strides = list(x.shape), list(x._strides)
    rank = len(shape)
    if not -rank <= axis < rank:
        raise ValueError(f"unfold: argument 'axis' must be in [{-rank}, {rank}) for a tensor of shape "
                         f"{list(x.shape)}, but got {axis}")
    axis %= rank
    if not 0 <= size <= shape[axis]:
        raise ValueError(f"unfold: argument 'size' must be in [0, {shape[axis]}] (the length of axis "
                         f"{axis}), but got {size}")
    count = (shape[axis] - size) // step + 1
    out_shape = shape[:axis] + [count] + shape[axis + 1:] + [size]
    out_strides = strides[:axis] + [strides[axis] * step] + strides[axis + 1:] + [strides[axis]]
    return _C.as_strided(x, out_shape, out_strides, x._offset)
