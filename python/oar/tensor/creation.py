"""Creating tensors from data and ranges: to_tensor and its relatives (as_tensor, asarray,
from_numpy, clone, assign), ranges (arange, range, linspace, logspace), grids and index sets
(meshgrid, tril_indices, triu_indices) and diagonal matrices (diag, diagflat). Random draws are in
tensor/random.py."""
import numbers

import numpy as np

from .. import _C
from ..framework.dtype import convert_dtype, get_default_dtype
from ..framework.mode import is_symbolic
from ..framework.place import placement_key
from .linalg import diagonal

Tensor = _C.Tensor

__all__ = ["to_tensor", "assign", "as_tensor", "asarray", "from_numpy", "clone", "arange", "range_",
           "linspace", "logspace", "meshgrid", "tril_indices", "triu_indices", "diag", "diagflat"]


def _numpy_of(data):
    """Python data -> (numpy array, came_from_numpy)."""
    if isinstance(data, np.ndarray):
        return data, True
    if isinstance(data, np.generic):
        return np.asarray(data), True
    if isinstance(data, (list, tuple)):
        # Lists may hold tensors (e.g. [t1, t2]): convert each to numpy first.
        def conv(x):
            if isinstance(x, Tensor):
                return x.numpy()
            if isinstance(x, (list, tuple)):
                return [conv(v) for v in x]
            return x
        arr = np.array(conv(data))
        return arr, False
    if isinstance(data, (bool, numbers.Number)):
        return np.array(data), False
    if hasattr(data, "__array__"):
        return np.asarray(data), True
    raise TypeError(f"to_tensor: can't convert data of type {type(data).__name__} to a Tensor; "
                    "expected a scalar, list, tuple, numpy.ndarray or Tensor")


# NumPy dtypes that become a tensor of the same type as they are (the common case, taken first).
_DIRECT_DTYPES = frozenset(np.dtype(d) for d in ("float32", "float64", "int64", "int32", "uint8", "bool",
                                                   "float16", "int8", "int16", "complex64", "complex128"))


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """A new tensor holding a copy of `data` (paddle.to_tensor) on `place` (default: the expected
    place, oar.set_device)."""
    key = _C._get_device() if place is None else None
    if key == "cpu":
        return _host_tensor(data, dtype, stop_gradient)
    if key is None:
        key = placement_key("to_tensor", place)
    t = _host_tensor(data, dtype, stop_gradient)
    return t if key == "cpu" else _moved(t, key, stop_gradient)


def _host_tensor(data, dtype, stop_gradient):
    if dtype is None and type(data) is np.ndarray and data.dtype in _DIRECT_DTYPES \
            and data.flags.c_contiguous:
        t = _C._from_array(data, True)  # fast path: per-sample transforms call this in loops
        if not stop_gradient:
            t.stop_gradient = False
        return t
    dtype = convert_dtype(dtype)
    if isinstance(data, Tensor) and _C._place_of(data) != "cpu":
        data = _C._to_place(data.detach(), "cpu")
    if isinstance(data, Tensor):
        t = data.detach().clone() if dtype is None else _C.cast(data.detach(), dtype)
        if t._is_same(data):
            t = t.clone()
    else:
        arr, from_numpy = _numpy_of(data)
        if arr.dtype == object:
            raise TypeError("to_tensor: nested sequences have inconsistent lengths or types")
        if dtype is None and not from_numpy:
            if arr.dtype.kind == "f":
                arr = arr.astype(get_default_dtype())
            elif arr.dtype.kind == "c":
                arr = arr.astype(np.complex64)
            elif arr.dtype.kind in "iu" and arr.dtype != np.uint8:
                arr = arr.astype(np.int64)
        if arr.dtype.kind == "U" or arr.dtype.kind == "S":
            raise TypeError("to_tensor: string data is not supported")
        if dtype is not None and dtype.name != "bfloat16":
            arr = arr.astype(dtype.name if dtype.name != "bool" else np.bool_, copy=False)
        if not arr.flags.c_contiguous and not arr.flags.f_contiguous:
            arr = np.ascontiguousarray(arr)
        if arr.dtype.kind == "u" and arr.dtype.itemsize > 2 and dtype is None:
            # Paddle has no uint32/uint64 tensors and raises; converting would wrap large values.
            raise ValueError(f"to_tensor: NumPy arrays of dtype {arr.dtype} are not supported (no unsigned "
                             "tensor type wider than uint8); pass dtype='int64' or convert the array")
        if arr.dtype == np.uint16 and dtype is not None and dtype.name != "bfloat16":
            arr = arr.astype(np.int32)  # values, not bfloat16 bits, when a dtype is asked for
        t = _C._from_array(arr, True)
        if dtype is not None and t.dtype != dtype:
            t = _C.cast(t, dtype)
    if not stop_gradient:
        t.stop_gradient = False
    return t


def _moved(t, key, stop_gradient):
    """t copied to the place `key`, as a new leaf (to_tensor's result has no history)."""
    t = _C._to_place(t.detach(), key)
    if not stop_gradient:
        t.stop_gradient = False
    return t


def from_numpy_shared(arr):
    return _C._from_array(arr, False)


def _bound(v):
    """v as a 0-d tensor for the range ops that read their bounds when a program runs (int64 for a
    Python int, else float64)."""
    if isinstance(v, Tensor):
        return v
    return _C.full([], v, convert_dtype("int64" if isinstance(v, numbers.Integral) else "float64"))


def linspace(start, stop, num, dtype=None, name=None):
    """num evenly spaced values from start to stop, both included.

    Args:
        start (int|float|Tensor): First value.
        stop (int|float|Tensor): Last value.
        num (int|Tensor): Number of values.
        dtype (str|dtype, optional): The result's dtype. Default: None (the default float dtype).
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: 1-D, num elements.

    Examples:
        >>> import oar
        >>> print(oar.linspace(0, 1, 5).numpy())
        [0.   0.25 0.5  0.75 1.  ]
    """
    if any(isinstance(v, Tensor) and is_symbolic(v) for v in (start, stop)):
        # Program values as ends: the kernel reads them when the program runs (num stays known).
        n = num.item() if isinstance(num, Tensor) else num
        return _C.linspace_tensor(_bound(start), _bound(stop), int(n), convert_dtype(dtype))
    return _C.linspace(start, stop, num, dtype)


def arange(start=0, end=None, step=1, dtype=None, name=None):
    """Evenly spaced values in [start, end) with the given step; arange(n) gives 0 .. n - 1.

    Args:
        start (int|float|Tensor, optional): First value, or the end when end is None. Default: 0.
        end (int|float|Tensor, optional): Exclusive end. Default: None.
        step (int|float|Tensor, optional): Spacing. Default: 1.
        dtype (str|dtype, optional): The result's dtype. Default: None (int64 for integer bounds,
            else the default float dtype).
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: 1-D, ceil((end - start) / step) elements.

    Examples:
        >>> import oar
        >>> print(oar.arange(5).numpy())
        [0 1 2 3 4]
        >>> print(oar.arange(1, 2, 0.25).numpy())
        [1.   1.25 1.5  1.75]
    """
    if end is None:
        start, end = 0, start
    if any(isinstance(v, Tensor) and is_symbolic(v) for v in (start, end, step)):
        # A program value as a bound: the length is decided when the program runs.
        return _C.arange_tensor(_bound(start), _bound(end), _bound(step), convert_dtype(dtype))
    vals = []
    for v in (start, end, step):
        vals.append(v.item() if isinstance(v, Tensor) else v)
    return _C.arange(vals[0], vals[1], vals[2], convert_dtype(dtype))


def assign(x, output=None):
    """Copies x into a new tensor, or into output when given; lists, numbers and numpy arrays are
    converted first.

    Args:
        x (Tensor|list|tuple|numpy.ndarray|int|float): The data.
        output (Tensor, optional): A tensor to copy the result into. Default: None.

    Returns:
        Tensor: the copy (output itself when given).

    Examples:
        >>> import oar
        >>> out = oar.zeros([2])
        >>> _ = oar.assign(oar.to_tensor([3.0, 4.0]), out)
        >>> print(out.numpy())
        [3. 4.]
    """
    t = x if isinstance(x, Tensor) else to_tensor(x)
    r = _C.assign(t)
    if output is not None:
        output.copy_(r)
        return output
    return r


def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D tensors: the i-th result repeats the i-th input along dim i
    (matrix 'ij' indexing).

    Args:
        *args (Tensor|list of Tensor): k 1-D (or 0-D) tensors, given separately or as one list.
        **kwargs: Unused; for Paddle compatibility (name).

    Returns:
        list[Tensor]: k tensors of shape [len_0, ..., len_{k-1}].

    Examples:
        >>> import oar
        >>> x, y = oar.meshgrid(oar.to_tensor([1, 2]), oar.to_tensor([3, 4, 5]))
        >>> print(x.numpy())
        [[1 1 1]
         [2 2 2]]
        >>> print(y.numpy())
        [[3 4 5]
         [3 4 5]]
    """
    xs = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
    shape = [t.shape[0] if t.ndim else 1 for t in xs]
    out = []
    for i, t in enumerate(xs):
        s = [1] * len(xs)
        s[i] = shape[i]
        out.append(_C.broadcast_to(_C.reshape(t, s), shape))
    return out


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
    fill = _C.full([n, n], padding_value, x.dtype)
    return _C.where(to_tensor(mask), _C.broadcast_to(_C.reshape(v, [1, n]), [n, n]), fill)


def diagflat(x, offset=0, name=None):
    """A 2-D tensor with the flattened x on its offset-th diagonal and zeros elsewhere.

    Args:
        x (Tensor): The input, any shape (flattened first).
        offset (int, optional): Diagonal: 0 the main one, > 0 above it, < 0 below it. Default: 0.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: square, side x.size + |offset|, same dtype as x.

    Examples:
        >>> import oar
        >>> print(oar.diagflat(oar.to_tensor([[1, 2]])).numpy())
        [[1 0]
         [0 2]]
    """
    return diag(_C.reshape(x, [-1]), offset)


def _tri_indices(row, col, offset, dtype, upper):
    r, c = (np.triu_indices if upper else np.tril_indices)(row, offset, col)
    return to_tensor(np.stack([r, c]), dtype=dtype)


def tril_indices(row, col, offset=0, dtype="int64"):
    """Row and column indices of the lower triangle of a row x col matrix.

    Args:
        row (int): Number of rows.
        col (int): Number of columns.
        offset (int, optional): Diagonal bound: 0 includes the main diagonal, > 0 more above, < 0
            less. Default: 0.
        dtype (str|dtype, optional): Index dtype. Default: 'int64'.

    Returns:
        Tensor: shape [2, n], the row indices then the column indices, in row-major order.

    Examples:
        >>> import oar
        >>> print(oar.tril_indices(3, 3).numpy())
        [[0 1 1 2 2 2]
         [0 0 1 0 1 2]]
    """
    return _tri_indices(row, col, offset, dtype, False)


def triu_indices(row, col=None, offset=0, dtype="int64"):
    """Row and column indices of the upper triangle of a row x col matrix.

    Args:
        row (int): Number of rows.
        col (int, optional): Number of columns; None means row. Default: None.
        offset (int, optional): Diagonal bound: 0 includes the main diagonal, > 0 starts above it.
            Default: 0.
        dtype (str|dtype, optional): Index dtype. Default: 'int64'.

    Returns:
        Tensor: shape [2, n], the row indices then the column indices, in row-major order.

    Examples:
        >>> import oar
        >>> print(oar.triu_indices(3, 3, 1).numpy())
        [[0 0 1]
         [1 2 2]]
    """
    return _tri_indices(row, row if col is None else col, offset, dtype, True)


def range_(start=0, end=None, step=1, dtype=None, *, out=None, device=None, requires_grad=False):
    """paddle.range (exported under that name by oar/__init__.py, which would shadow the builtin
    here): like arange, but `end` is included."""
    if end is None:
        start, end = 0, start
    n = int(np.floor((end - start) / step)) + 1
    return arange(start, start + n * step, step, dtype or get_default_dtype())


def logspace(start, stop, num, base=10.0, dtype=None, name=None):
    """num values base ** e, the exponents e evenly spaced from start to stop (both included).

    Args:
        start (int|float): First exponent.
        stop (int|float): Last exponent.
        num (int): Number of values.
        base (float, optional): The base. Default: 10.0.
        dtype (str|dtype, optional): The result's dtype. Default: None (float32).
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: 1-D, num elements.

    Examples:
        >>> import oar
        >>> print(oar.logspace(0, 2, 3).numpy())
        [  1.  10. 100.]
    """
    dt = convert_dtype(dtype) if dtype else None
    exps = _C.linspace(float(start), float(stop), int(num), convert_dtype("float64"))
    out = _C.elementwise_pow(_C.full([], float(base), convert_dtype("float64")), exps)
    return _C.cast(out, dt or convert_dtype("float32"))


def clone(x, name=None):
    """A copy of x that autograd connects to x (the gradient flows back to x).

    Args:
        x (Tensor): The input.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: same shape, dtype and values as x.

    Examples:
        >>> import oar
        >>> print(oar.clone(oar.to_tensor([1, 2])).numpy())
        [1 2]
    """
    return x.clone()


def from_numpy(ndarray):
    """A tensor holding a copy of a numpy array, with the array's dtype.

    Args:
        ndarray (numpy.ndarray): The array.

    Returns:
        Tensor: same shape and dtype as ndarray.

    Examples:
        >>> import oar
        >>> import numpy as np
        >>> t = oar.from_numpy(np.array([1, 2], dtype='int32'))
        >>> print(t.numpy(), t.dtype)
        [1 2] paddle.int32
    """
    return to_tensor(ndarray)


def as_tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """Converts data to a tensor; a tensor already of the requested dtype is returned as is.

    Args:
        data (Tensor|list|tuple|numpy.ndarray|int|float): The data.
        dtype (str|dtype, optional): The dtype; None infers it. Default: None.
        device (str, optional): Unused; for compatibility. Default: None.
        requires_grad (bool, optional): Whether autograd tracks the new tensor. Default: False.
        pin_memory (bool, optional): Unused; for compatibility. Default: False.

    Returns:
        Tensor: the converted data.

    Examples:
        >>> import oar
        >>> t = oar.as_tensor([1, 2])
        >>> print(t.numpy(), t.dtype)
        [1 2] paddle.int64
    """
    if isinstance(data, Tensor) and (dtype is None or convert_dtype(dtype) == data.dtype):
        return data
    t = to_tensor(data, dtype=dtype)
    t.stop_gradient = not requires_grad
    return t


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """Converts obj to a tensor, like as_tensor.

    Args:
        obj (Tensor|list|tuple|numpy.ndarray|int|float): The data.
        dtype (str|dtype, optional): The dtype; None infers it. Default: None.
        device (str, optional): Unused; for compatibility. Default: None.
        copy (bool, optional): Unused; for compatibility. Default: None.
        requires_grad (bool, optional): Whether autograd tracks the new tensor. Default: False.

    Returns:
        Tensor: the converted data.

    Examples:
        >>> import oar
        >>> t = oar.asarray([1.0, 2.0], dtype='float64')
        >>> print(t.numpy(), t.dtype)
        [1. 2.] paddle.float64
    """
    return as_tensor(obj, dtype, device, requires_grad)
