"""Tensor conversion and construction methods of paddle.Tensor: x.float(), x.long(), ...,
x.type_as(y), x.new_zeros(shape), x.cpu(), and small properties (itemsize, requires_grad, mT)."""
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
    return self


def cuda(self, device_id=None, blocking=True):
    raise RuntimeError("cuda: oar was built without CUDA support; the tensor stays on the CPU")


def is_same_shape(self, y):
    return list(self.shape) == list(y.shape)


def requires_grad_(self, requires_grad=True):
    self.stop_gradient = not requires_grad
    return self


def install(tensor_cls):
    """Adds the methods and properties above to the Tensor class (where it lacks them)."""
    methods = {name: _to(dt) for name, dt in CASTS.items()}
    methods.update(type_as=type_as, new_zeros=_new(0), new_ones=_new(1), new_empty=_new(None),
                   new_full=new_full, cpu=cpu, cuda=cuda, is_same_shape=is_same_shape,
                   requires_grad_=requires_grad_)
    props = {
        "itemsize": property(lambda self: self.element_size()),
        "requires_grad": property(lambda self: not self.stop_gradient,
                                  lambda self, v: setattr(self, "stop_gradient", not v)),
        "mT": property(lambda self: _C.transpose(self, list(range(self.ndim - 2)) + [self.ndim - 1, self.ndim - 2])),
    }
    for name, f in {**methods, **props}.items():
        if not hasattr(tensor_cls, name):
            setattr(tensor_cls, name, f)
