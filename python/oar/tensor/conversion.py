"""Tensor conversion and construction methods of paddle.Tensor: x.float(), x.long(), x.float32(),
..., x.type_as(y), x.to(dtype), x.new_zeros(shape), x.cpu(), x.set_value(v), x.apply(f), and the
small properties Paddle code reads (itemsize, requires_grad, mT, strides, device, is_cuda, ...)."""
from .. import _C
from ..framework.dtype import convert_dtype

Tensor = _C.Tensor


def _to(dtype_name):
    def convert(self):
        return _C.cast(self, convert_dtype(dtype_name))
    convert.__name__ = dtype_name
    convert.__doc__ = f"x cast to {dtype_name}."
    return convert


# Method name -> dtype, as paddle.Tensor defines them.
CASTS = {"bool": "bool", "byte": "uint8", "char": "int8", "short": "int16", "int": "int32",
         "long": "int64", "half": "float16", "bfloat16": "bfloat16", "float": "float32",
         "double": "float64", "cfloat": "complex64", "cdouble": "complex128"}


# x.<dtype name>() casts too (x.float32(), x.int64(), ...).
CASTS.update({n: n for n in ("uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                             "float32", "float64", "complex64", "complex128")})


def type_as(self, other):
    return _C.cast(self, other.dtype)


def _new(fill):
    def make(self, size, dtype=None, *args, **kwargs):
        dt = convert_dtype(dtype) if dtype is not None else self.dtype
        return _C.full(list(size), fill, dt) if fill is not None else _C.empty(list(size), dt)
    return make


def new_full(self, size, fill_value, dtype=None, *args, **kwargs):
    return _C.full(list(size), fill_value, convert_dtype(dtype) if dtype is not None else self.dtype)


def cpu(self):
    """This tensor on the CPU (itself when it is there); differentiable."""
    return self if _C._place_of(self) == "cpu" else _C._to_place(self, "cpu")


def cuda(self, device_id=None, blocking=True):
    """This tensor on GPU `device_id` (default: the current GPU of set_device, else 0)."""
    if device_id is None:
        current = _C._get_device()
        device_id = int(current.split(":")[1]) if current.startswith("gpu:") else 0
    from ..framework.place import placement_key
    try:
        key = placement_key("cuda", device_id)
    except ValueError as e:  # Paddle's CPU build raises RuntimeError here
        raise RuntimeError(f"{e}; the tensor stays on the CPU") from None
    return self if _C._place_of(self) == key else _C._to_place(self, key)


def pin_memory(self):
    """A copy in page-locked host memory (itself without a GPU backend, as there is none to feed)."""
    if _C._device_count("gpu") == 0:
        return self
    return _C._to_place(self, "gpu_pinned")


def is_same_shape(self, y):
    return list(self.shape) == list(y.shape)


def requires_grad_(self, requires_grad=True):
    self.stop_gradient = not requires_grad
    return self


def _is_device(a):
    from ..framework.place import Place
    if isinstance(a, Place):
        return True
    if not isinstance(a, str):
        return False
    try:  # a dtype name is not a device
        convert_dtype(a)
        return False
    except (TypeError, ValueError):
        return True


def to(self, *args, **kwargs):
    """x.to(dtype), x.to(device), x.to(other_tensor), x.to(device, dtype), x.to(..., blocking):
    a cast and/or a move to another place (differentiable)."""
    from ..framework.place import placement_key
    dtype, device = kwargs.get("dtype"), kwargs.get("device")
    for a in args:
        if isinstance(a, Tensor):
            dtype, device = a.dtype, _C._place_of(a)
        elif isinstance(a, bool):
            continue  # blocking / copy flags
        elif _is_device(a):
            device = a
        else:
            dtype = a
    out = self
    if device is not None:
        key = placement_key("Tensor.to", device)
        if key != _C._place_of(out):
            out = _C._to_place(out, key)
    if dtype is not None:
        dt = convert_dtype(dtype)
        if dt != out.dtype:
            out = _C.cast(out, dt)
    return out


def _device_id(self):
    key = _C._place_of(self)
    return int(key.split(":")[1]) if ":" in key else -1


def set_value(self, value):
    """Overwrites x's values (same shape) without recording autograd history."""
    import numpy as np
    v = value if isinstance(value, Tensor) else _C._from_array(np.asarray(value), True)
    if list(v.shape) != list(self.shape):
        raise ValueError(f"set_value: the value's shape {list(v.shape)} differs from the tensor's "
                         f"shape {self.shape}")
    prev = _C.is_grad_enabled()
    _C._set_grad_enabled(False)
    try:
        self.copy_(_C.cast(v, self.dtype), False)
    finally:
        _C._set_grad_enabled(prev)
    return self


def apply(self, func):
    """func(x) without recording gradients (Paddle requires stop_gradient tensors... as here)."""
    if not self.stop_gradient:
        raise RuntimeError("apply: cannot apply a function to a tensor that requires gradient")
    return func(self)


def apply_(self, func):
    return set_value(self, apply(self, func))


def gradient(self):
    """The gradient as a NumPy array, or None (Paddle's legacy accessor)."""
    return None if self.grad is None else self.grad.numpy()


def repeat(self, *repeats):
    reps = list(repeats[0]) if len(repeats) == 1 and isinstance(repeats[0], (list, tuple)) else list(repeats)
    return _C.tile(self, reps)


def where(self, x=None, y=None, name=None):
    """paddle.where with self as the condition."""
    from .search import where as where_fn
    return where_fn(self, x, y)


def install(tensor_cls):
    """Adds the methods and properties above to the Tensor class (where it lacks them)."""
    methods = {name: _to(dt) for name, dt in CASTS.items()}
    methods.update(type_as=type_as, new_zeros=_new(0), new_ones=_new(1), new_empty=_new(None),
                   new_full=new_full, cpu=cpu, cuda=cuda, pin_memory=pin_memory, is_same_shape=is_same_shape,
                   requires_grad_=requires_grad_, to=to, set_value=set_value, apply=apply,
                   apply_=apply_, gradient=gradient, repeat=repeat, where=where,
                   get_device=_device_id,
                   stride=lambda self, dim=None: list(self._strides) if dim is None else self._strides[dim],
                   get_strides=lambda self: list(self._strides))
    for flag in ("is_sparse", "is_sparse_coo", "is_sparse_csr", "is_dist", "is_selected_rows"):
        methods[flag] = lambda self: False
    methods["is_dense"] = lambda self: True
    props = {
        "itemsize": property(lambda self: self.element_size()),
        "requires_grad": property(lambda self: not self.stop_gradient,
                                  lambda self, v: setattr(self, "stop_gradient", not v)),
        "mT": property(lambda self: _C.transpose(self, list(range(self.ndim - 2)) + [self.ndim - 1, self.ndim - 2])),
        "strides": property(lambda self: list(self._strides)),
        "offset": property(lambda self: self._offset * self.element_size()),  # bytes, as Paddle
        "inplace_version": property(lambda self: self._version),
        "device": property(lambda self: _C._place_of(self)),
        "is_cuda": property(lambda self: _C._place_of(self).startswith("gpu:")),
        "layout": property(lambda self: "NCHW"),
        # Saved with the model (parameters, persistable buffers); a plain tensor is not.
        "persistable": property(lambda self: self.__dict__.get("_persistable", False),
                                lambda self, v: self.__dict__.__setitem__("_persistable", bool(v))),
        "data": property(lambda self: self.detach(), lambda self, v: set_value(self, v)),
        "placements": property(lambda self: None),
        "process_mesh": property(lambda self: None),
        "num_shard": property(lambda self: None),
    }
    for name, f in {**methods, **props}.items():
        if not hasattr(tensor_cls, name):
            setattr(tensor_cls, name, f)
