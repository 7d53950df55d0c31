"""Views with explicit strides: as_strided (the C++ view op over a tensor's storage) and
Tensor.unfold (sliding windows along one axis, a view built with as_strided).

as_strided(x, shape, stride, offset) reads x's storage from its start, in elements: Paddle 3.3.1
does the same for the shape and strides but counts `offset` in bytes and reads past the end of the
storage without complaint; oar counts elements and refuses a view that leaves the storage. Both
frameworks agree for offset=0 within the storage.

Tensor.set_(source, shape, stride, offset) makes x a view of source's storage (the same view
as_strided gives, written into x's own TensorImpl), so x and source share memory afterwards.
"""
from .. import _C

Tensor = _C.Tensor

__all__ = ["as_strided", "unfold", "set_", "resize_", "reconstruct_from_"]


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


def _contiguous_strides(shape):
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= max(int(d), 1)
    return strides[::-1]


def set_(x, source=None, shape=None, stride=None, offset=0, name=None):
    """Makes x a view of source's storage with the given shape, stride and offset (Paddle's
    Tensor.set_): afterwards x and source share memory, so a write through either is seen by
    the other. x keeps its identity (the same Python object) and its stop_gradient; its autograd
    history is dropped (no gradient flows from x to source).

    Args:
        x (Tensor): The tensor to reset.
        source (Tensor, optional): The tensor whose storage x views; None gives x an empty
            storage (shape [0], whatever shape, stride and offset say). Its dtype must be x's
            dtype. Default: None.
        shape (list|tuple, optional): The shape of x afterwards; None takes source's shape.
            Default: None.
        stride (list|tuple, optional): x's strides in elements; None takes source's strides when
            shape is None too, else the contiguous strides of shape. Default: None.
        offset (int, optional): Where the view starts, in bytes from the start of source's storage
            (as Paddle counts it; a multiple of the element size). Default: 0.
        name (str, optional): Unused, for Paddle compatibility. Default: None.

    Returns:
        Tensor: x.

    Raises:
        ValueError: source is not a Tensor; x is a leaf that does not stop gradient (as Paddle's
            in-place ops); offset is not a non-negative multiple of the element size; the view
            leaves source's storage (Paddle reads past it without complaint).
        NotImplementedError: source's dtype differs from x's (Paddle reinterprets the bytes).

    Examples:
        >>> import oar
        >>> src = oar.to_tensor([11.0, 22.0, 33.0, 44.0, 55.0, 66.0])
        >>> x = oar.to_tensor([1.0, 2.0, 3.0])
        >>> _ = x.set_(src, shape=[2, 2], stride=[1, 2], offset=4)
        >>> print(x.numpy())
        [[22. 44.]
         [33. 55.]]
        >>> src[1] = 0.0
        >>> print(x.numpy()[0, 0])
        0.0
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"set_: x must be a Tensor, but got {type(x).__name__}")
    if source is not None and not isinstance(source, Tensor):
        raise ValueError(f"set_: argument 'source' should be a Tensor, but received {type(source).__name__}")
    if _C.is_grad_enabled() and not x.stop_gradient and x.is_leaf:
        raise ValueError("set_: Leaf Tensor that doesn't stop gradient can't use inplace strategy. "
                         "Wrap the call in oar.no_grad() or set stop_gradient=True first")
    if isinstance(offset, bool) or not isinstance(offset, int):
        raise TypeError(f"set_: argument 'offset' must be an int, but got {type(offset).__name__}")
    if source is None:  # as Paddle: an empty tensor, whatever shape, stride and offset say
        source, shape, stride, offset = _C.empty([0], x.dtype), None, None, 0
    if source.dtype != x.dtype:
        raise NotImplementedError(
            f"set_: source's dtype {source.dtype.name} differs from x's dtype {x.dtype.name}; viewing "
            f"memory as another dtype is not supported (convert source with source.astype('{x.dtype.name}'))")
    itemsize = _C.empty([0], x.dtype).element_size()
    if offset < 0 or offset % itemsize:
        raise ValueError(f"set_: argument 'offset' must be a non-negative multiple of the element size "
                         f"({itemsize} bytes for {x.dtype.name}), but got {offset}")
    if shape is None:
        shape = list(source.shape)
        stride = list(source.get_strides()) if stride is None else _ints("set_", "stride", stride)
    else:
        shape = _ints("set_", "shape", shape)
        stride = _contiguous_strides(shape) if stride is None else _ints("set_", "stride", stride)
    if len(stride) != len(shape):
        raise ValueError(f"set_: stride {stride} must have one entry per dim of shape {shape}")
    stop_gradient = x.stop_gradient
    with _no_grad():
        try:
            view = _C.as_strided(source.detach(), shape, stride, offset // itemsize)
        except ValueError as e:
            raise ValueError(f"set_: {e}".replace("as_strided: ", "").replace("x's storage", "source's storage")) from None
        _C._assign_view_inplace(x, view)
    x.stop_gradient = stop_gradient
    return x


_RESIZE_DTYPES = ("bool", "float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
                  "complex64", "complex128")


def resize_(x, shape, fill_zero=False, name=None):
    """Resizes x in place to `shape` (Paddle's Tensor.resize_): x keeps its first elements in
    row-major order; when it grows, the new elements are zeros (Paddle leaves them uninitialised
    unless fill_zero; oar always zeroes them). x is the same Python object afterwards, with its
    autograd history dropped.

    Args:
        x (Tensor): The tensor to resize.
        shape (list|tuple): The new shape (non-negative sizes).
        fill_zero (bool, optional): Fill the grown part with zeros. Default: False.
        name (str, optional): Unused, for Paddle compatibility. Default: None.

    Returns:
        Tensor: x.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1., 2., 3.], [4., 5., 6.]])
        >>> _ = x.resize_([2, 2])
        >>> print(x.numpy())
        [[1. 2.]
         [3. 4.]]
        >>> _ = x.resize_([2, 3], fill_zero=True)
        >>> print(x.numpy())
        [[1. 2. 3.]
         [4. 0. 0.]]
    """
    if x.dtype.name not in _RESIZE_DTYPES:
        raise TypeError(f"The data type of 'x' in resize must be one of {list(_RESIZE_DTYPES)}, but received "
                        f"{x.dtype.name}.")
    if not isinstance(shape, (list, tuple)):
        raise ValueError(f"Input (shape) should be list or tuple but received {type(shape)}")
    shape = _ints("resize_", "shape", shape)
    for i, d in enumerate(shape):
        if d < 0:
            raise ValueError(f"(InvalidArgument) Each value of attribute 'shape' is expected to be no less than 0. "
                             f"But received: shape[{i}] = {d}; shape = {shape}.")
    new_size = 1
    for d in shape:
        new_size *= d
    old_size = x.size
    with _no_grad():
        flat = _C.reshape(x.detach().contiguous(), [-1])
        if new_size > old_size:
            flat = _C.concat([flat, _C.zeros([new_size - old_size], x.dtype)], 0)
    return set_(x, flat, shape)


def reconstruct_from_(x, other):
    """Makes x the tensor `other` in place (Paddle's Tensor.reconstruct_from_): x takes other's
    storage (shared, so a write through either is seen by both), shape, dtype, stop_gradient and
    autograd history, and stays the same Python object.

    Args:
        x (Tensor): The tensor to rebuild.
        other (Tensor): The tensor x becomes.

    Returns:
        None

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([1., 2., 3.])
        >>> x.reconstruct_from_(oar.to_tensor([5, 6], dtype='int32'))
        >>> print(x.dtype, x.numpy())
        paddle.int32 [5 6]
    """
    if not isinstance(other, Tensor):
        raise ValueError(f"(InvalidArgument) argument (position 1) must be Tensor, but got {type(other).__name__}")
    _C._assign_view_inplace(x, other)


def _no_grad():
    from ..autograd import no_grad
    return no_grad()
