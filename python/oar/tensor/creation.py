"""Creation functions whose argument handling is Python-shaped (to_tensor, arange, randint, ...)."""
import numbers

import numpy as np

from .. import _C
from ..framework.dtype import convert_dtype, get_default_dtype

Tensor = _C.Tensor


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
        from ..framework.place import placement_key
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
    from ..static.mode import is_symbolic
    if any(isinstance(v, Tensor) and is_symbolic(v) for v in (start, stop)):
        # Program values as ends: the kernel reads them when the program runs (num stays known).
        n = num.item() if isinstance(num, Tensor) else num
        return _C.linspace_tensor(_bound(start), _bound(stop), int(n), convert_dtype(dtype))
    return _C.linspace(start, stop, num, dtype)


def arange(start=0, end=None, step=1, dtype=None, name=None):
    if end is None:
        start, end = 0, start
    from ..static.mode import is_symbolic
    if any(isinstance(v, Tensor) and is_symbolic(v) for v in (start, end, step)):
        # A program value as a bound: the length is decided when the program runs.
        return _C.arange_tensor(_bound(start), _bound(end), _bound(step), convert_dtype(dtype))
    vals = []
    for v in (start, end, step):
        vals.append(v.item() if isinstance(v, Tensor) else v)
    return _C.arange(vals[0], vals[1], vals[2], convert_dtype(dtype))


def randint(low=0, high=None, shape=[1], dtype=None, name=None):
    if high is None:
        low, high = 0, low
    return _C.randint(int(low), int(high), shape, convert_dtype(dtype))


def randint_like(x, low=0, high=None, dtype=None, name=None):
    return randint(low, high, x.shape, dtype or x.dtype)


def normal(mean=0.0, std=1.0, shape=None, name=None):
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        m = mean if isinstance(mean, Tensor) else to_tensor(mean)
        s = std if isinstance(std, Tensor) else to_tensor(std)
        shp = np.broadcast_shapes(tuple(m.shape), tuple(s.shape))
        return _C.gaussian(list(shp), 0.0, 1.0, 0, m.dtype if m.dtype.name.startswith("float") else None) * s + m
    return _C.gaussian([1] if shape is None else shape, float(mean), float(std), 0, None)


def assign(x, output=None):
    t = x if isinstance(x, Tensor) else to_tensor(x)
    r = _C.assign(t)
    if output is not None:
        output.copy_(r)
        return output
    return r
