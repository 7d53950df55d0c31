"""Tensor methods and properties that live in Python: op methods, printing, indexing, helpers."""
import numpy as np

from .. import _C
from ..framework.dtype import convert_dtype
from . import indexing, repr as _repr
from ..framework import place as _place

Tensor = _C.Tensor




class _HookHandle:
    def __init__(self, tensor, hook_id):
        self._tensor, self._id = tensor, hook_id

    def remove(self):
        if self._tensor is not None:
            self._tensor._remove_hook(self._id)
            self._tensor = None
        return True


def _backward(self, grad_tensor=None, retain_graph=False):
    self._backward(grad_tensor, retain_graph)


def _register_hook(self, hook):
    return _HookHandle(self, self._register_hook(hook))


def _astype(self, dtype):
    return _C.cast(self, convert_dtype(dtype))


def _tolist(self):
    return self.numpy().tolist()


def _dim(self):
    return self.ndim


def install(namespace):
    """Attach generated op methods (from _C._method_ops) and the Python-side methods."""
    # Generated op methods are bound on Tensor in C++ (bind_ops.cc); Python overrides follow.
    Tensor.__repr__ = _repr.tensor_repr
    Tensor.__str__ = _repr.tensor_repr
    Tensor.__getitem__ = indexing.getitem
    Tensor.__setitem__ = indexing.setitem
    Tensor.__iter__ = lambda self: (self[i] for i in range(len(self)))
    Tensor.backward = _backward
    Tensor.register_hook = _register_hook
    Tensor.astype = _astype
    Tensor.cast = _astype
    Tensor.tolist = _tolist
    Tensor.dim = _dim
    Tensor.ndimension = _dim
    Tensor.place = property(lambda self: _place.from_key(_C._place_of(self)))
    Tensor.T = property(lambda self: _C.transpose(self, list(range(self.ndim))[::-1]))
    Tensor.is_tensor = lambda self: True
    Tensor.__array_priority__ = 100
    Tensor.__deepcopy__ = lambda self, memo: _deepcopy(self)
    Tensor.__reduce_ex__ = lambda self, proto: (_rebuild, (self.numpy().copy(), self.stop_gradient, self.name))
    Tensor.__format__ = lambda self, spec: format(self.item(), spec) if self.ndim == 0 else _repr.tensor_repr(self)


def _deepcopy(t):
    c = t.detach().clone()
    c.stop_gradient = t.stop_gradient
    return c


def _rebuild(arr, stop_gradient, name):
    t = _C._from_array(arr, True)
    t.stop_gradient = stop_gradient
    t.name = name
    return t
