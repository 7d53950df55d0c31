"""The legacy typed tensor constructors: FloatTensor, DoubleTensor, HalfTensor, BFloat16Tensor,
IntTensor, LongTensor, ShortTensor, CharTensor, ByteTensor, BoolTensor.

As in Paddle 3.3 they are factories, not tensor subclasses: calling one returns an ordinary Tensor,
and isinstance(t, FloatTensor) is False for every tensor. What the call gives depends on its
arguments (measured from Paddle):
  FloatTensor()                  an empty float32 tensor of shape [0]
  FloatTensor([1, 2])            the data converted to float32 (keyword arguments are ignored)
  FloatTensor(2, 3)              an uninitialised float32 tensor of shape [2, 3]
  FloatTensor(ndarray or Tensor, place=None, persistable=False, zero_copy=False, name=None,
              stop_gradient=True, ...)
                                 Paddle's Tensor constructor: the array's own dtype is kept (the
                                 factory's dtype is not applied); a Tensor is shared, not copied.
"""
import numpy as np

from .. import _C
from ..framework.dtype import convert_dtype
from ..framework.place import Place, placement_key
from .creation import to_tensor

Tensor = _C.Tensor

# Paddle's Tensor(value, place, persistable, zero_copy, name, stop_gradient, dims, dtype, type,
# process_mesh, placements), in order.
_CTOR_ARGS = ("value", "place", "persistable", "zero_copy", "name", "stop_gradient", "dims", "dtype",
              "type", "process_mesh", "placements")


def _construct(factory, dtype, args, kwargs):
    """The Tensor(value, ...) form: value must be a NumPy array or a Tensor."""
    if len(args) > len(_CTOR_ARGS):
        raise TypeError(f"{factory}: takes at most {len(_CTOR_ARGS)} positional arguments "
                        f"({', '.join(_CTOR_ARGS)}), but {len(args)} were given")
    given = dict(zip(_CTOR_ARGS, args))
    for k, v in kwargs.items():
        if k not in _CTOR_ARGS:
            raise TypeError(f"{factory}: unexpected keyword argument '{k}'; the arguments are "
                            f"({', '.join(_CTOR_ARGS)})")
        if k in given:
            raise TypeError(f"{factory}: got multiple values for argument '{k}'")
        given[k] = v
    value = given["value"]
    if not isinstance(value, (np.ndarray, Tensor)):
        raise ValueError(f"{factory}: the data must be a list or tuple, ints (a shape), a NumPy array or "
                         f"a Tensor, but got {type(value).__name__}")
    place = given.get("place")
    if place is not None and not isinstance(place, Place):
        raise TypeError(f"{factory}: argument 'place' must be a Place (CPUPlace(), ...), but got "
                        f"{type(place).__name__}")
    if place is not None:
        placement_key(factory, place)
    if given.get("process_mesh") is not None or given.get("placements") is not None:
        raise NotImplementedError(f"{factory}: distributed tensors (process_mesh, placements) are not "
                                  "supported by oar")
    if isinstance(value, Tensor):
        t = value.detach()  # Paddle shares the tensor's memory (a new handle, no history)
    else:
        t = to_tensor(value)  # keeps the array's dtype, as Paddle's constructor does
    if place is not None and placement_key(factory, place) != _C._place_of(t):
        t = _C._to_place(t, placement_key(factory, place))
    t.stop_gradient = bool(given.get("stop_gradient", True))
    t.persistable = bool(given.get("persistable", False))
    if given.get("name") is not None:
        t.name = given["name"]
    return t


def _typed_factory(class_name, dtype_name):
    """A class whose call builds a `dtype_name` tensor from data, from a shape or from an array."""

    def __new__(cls, *args, **kwargs):
        dtype = convert_dtype(dtype_name)
        if not args:
            return _C.empty([0], dtype)
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            return to_tensor(list(args[0]) if isinstance(args[0], tuple) else args[0], dtype=dtype)
        if all(isinstance(a, int) for a in args):
            if any(isinstance(a, bool) for a in args):
                raise TypeError(f"{class_name}: a shape must be given as ints, but got "
                                f"{[type(a).__name__ for a in args]}")
            if any(a < 0 for a in args):
                raise ValueError(f"{class_name}: every dim of the shape must be >= 0, but got {list(args)}")
            return _C.empty(list(args), dtype)
        return _construct(class_name, dtype, args, kwargs)

    doc = (f"paddle.{class_name}: builds a {dtype_name} tensor ({class_name}(data), {class_name}(*shape), "
           f"{class_name}() or {class_name}(ndarray_or_tensor, ...)); not a Tensor subclass.")
    return type(class_name, (), {"__new__": __new__, "__doc__": doc, "__module__": __name__,
                                 "dtype_name": dtype_name})


FloatTensor = _typed_factory("FloatTensor", "float32")
DoubleTensor = _typed_factory("DoubleTensor", "float64")
HalfTensor = _typed_factory("HalfTensor", "float16")
BFloat16Tensor = _typed_factory("BFloat16Tensor", "bfloat16")
ByteTensor = _typed_factory("ByteTensor", "uint8")
CharTensor = _typed_factory("CharTensor", "int8")
ShortTensor = _typed_factory("ShortTensor", "int16")
IntTensor = _typed_factory("IntTensor", "int32")
LongTensor = _typed_factory("LongTensor", "int64")
BoolTensor = _typed_factory("BoolTensor", "bool")

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor", "CharTensor",
           "ShortTensor", "IntTensor", "LongTensor", "BoolTensor"]
