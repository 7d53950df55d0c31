"""Tensor conversion and construction methods of paddle.Tensor: x.astype(dtype), x.float(),
x.long(), x.float32(), ..., x.type_as(y), x.to(dtype), x.new_zeros(shape), x.cpu(),
x.set_value(v), x.apply(f), x.tolist(), copying and pickling, and the small properties Paddle code
reads (itemsize, requires_grad, mT, strides, device, is_cuda, ...). tensor/methods.py attaches them
to Tensor."""
import numpy as np

from .. import _C
from ..framework.dtype import convert_dtype
from ..framework.place import Place, placement_key
from . import search

Tensor = _C.Tensor

__all__ = ["CASTS", "cast_to", "astype", "type_as", "to", "cpu", "cuda", "pin_memory", "tolist",
           "new_zeros", "new_ones", "new_empty", "new_full", "is_same_shape", "requires_grad_",
           "set_value", "apply", "apply_", "gradient", "repeat", "where", "get_device", "stride",
           "get_strides", "is_dense", "is_sparse", "itemsize", "requires_grad", "set_requires_grad",
           "mT", "strides", "offset", "inplace_version", "device", "is_cuda", "layout",
           "persistable", "set_persistable", "data", "set_data", "no_distribution", "deepcopy",
           "reduce_ex"]


def cast_to(dtype_name):
    """The method x.<name>() of CASTS: x cast to dtype_name."""
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
    """The tensor cast to the dtype of other.

    Args:
        self (Tensor): The tensor.
        other (Tensor): Gives the dtype.

    Returns:
        Tensor: same shape, other's dtype.

    Examples:
        >>> import oar
        >>> print(oar.to_tensor([1, 2]).type_as(oar.to_tensor([1.0])).numpy())
        [1. 2.]
    """
    return _C.cast(self, other.dtype)


def _new(fill):
    def make(self, size, dtype=None, *args, **kwargs):
        """A new tensor of the given size: zeros (new_zeros), ones (new_ones) or uninitialized
        memory (new_empty), with this tensor's dtype by default.

        Args:
            self (Tensor): The tensor.
            size (list|tuple): The shape.
            dtype (str|dtype, optional): The dtype; None keeps self's. Default: None.
            *args, **kwargs: Unused (device, requires_grad, ...); for compatibility.

        Returns:
            Tensor: the new tensor.

        Examples:
            >>> import oar
            >>> x = oar.to_tensor([1.0])
            >>> print(x.new_zeros([2]).numpy(), x.new_ones([2], dtype='int32').numpy())
            [0. 0.] [1 1]
        """
        dt = convert_dtype(dtype) if dtype is not None else self.dtype
        return _C.full(list(size), fill, dt) if fill is not None else _C.empty(list(size), dt)
    return make


new_zeros, new_ones, new_empty = _new(0), _new(1), _new(None)


def new_full(self, size, fill_value, dtype=None, *args, **kwargs):
    """A new tensor of the given size filled with fill_value, with this tensor's dtype by default.

    Args:
        self (Tensor): The tensor.
        size (list|tuple): The shape.
        fill_value (int|float|bool): The value.
        dtype (str|dtype, optional): The dtype; None keeps self's. Default: None.
        *args, **kwargs: Unused (device, requires_grad, ...); for compatibility.

    Returns:
        Tensor: the new tensor.

    Examples:
        >>> import oar
        >>> print(oar.to_tensor([1.0]).new_full([2], 7.0).numpy())
        [7. 7.]
    """
    return _C.full(list(size), fill_value, convert_dtype(dtype) if dtype is not None else self.dtype)


def cpu(self):
    """This tensor on the CPU (itself when it is there); differentiable."""
    return self if _C._place_of(self) == "cpu" else _C._to_place(self, "cpu")


def cuda(self, device_id=None, blocking=True):
    """This tensor on GPU `device_id` (default: the current GPU of set_device, else 0)."""
    if device_id is None:
        current = _C._get_device()
        device_id = int(current.split(":")[1]) if current.startswith("gpu:") else 0
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
    """Whether the tensor has the same shape as y.

    Args:
        self (Tensor): The tensor.
        y (Tensor): The other tensor.

    Returns:
        bool: the answer.

    Examples:
        >>> import oar
        >>> print(oar.ones([2]).is_same_shape(oar.zeros([2])))
        True
    """
    return list(self.shape) == list(y.shape)


def requires_grad_(self, requires_grad=True):
    """Sets whether autograd records operations on the tensor (stop_gradient = not requires_grad).

    Args:
        self (Tensor): The tensor.
        requires_grad (bool, optional): Record gradients. Default: True.

    Returns:
        Tensor: self.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([1.0])
        >>> print(x.requires_grad_().stop_gradient)
        False
    """
    self.stop_gradient = not requires_grad
    return self


def _is_device(a):
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


def get_device(self):
    """The device index of the tensor's place, -1 for the CPU.

    Args:
        self (Tensor): The tensor.

    Returns:
        int: the index.

    Examples:
        >>> import oar
        >>> print(oar.to_tensor([1]).get_device())
        -1
    """
    key = _C._place_of(self)
    return int(key.split(":")[1]) if ":" in key else -1


def set_value(self, value):
    """Overwrites x's values (same shape) without recording autograd history."""
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
    """Replaces the tensor's values in place with func(self), recorded by no gradient.

    Args:
        self (Tensor): The tensor. It must have stop_gradient=True (else RuntimeError).
        func (callable): Maps a tensor to a tensor of the same shape and dtype.

    Returns:
        Tensor: self, holding func's result.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([1.0, 2.0])
        >>> _ = x.apply_(lambda t: t * 10)
        >>> print(x.numpy())
        [10. 20.]
    """
    return set_value(self, apply(self, func))


def gradient(self):
    """The gradient as a NumPy array, or None (Paddle's legacy accessor)."""
    return None if self.grad is None else self.grad.numpy()


def repeat(self, *repeats):
    """The tensor tiled: repeated repeats[i] times along dim i (like tile).

    Args:
        self (Tensor): The tensor.
        *repeats (int|list|tuple): The counts, given separately or as one list.

    Returns:
        Tensor: the tiled tensor.

    Examples:
        >>> import oar
        >>> print(oar.to_tensor([[1, 2]]).repeat(2, 1).numpy())
        [[1 2]
         [1 2]]
    """
    reps = list(repeats[0]) if len(repeats) == 1 and isinstance(repeats[0], (list, tuple)) else list(repeats)
    return _C.tile(self, reps)


def where(self, x=None, y=None, name=None):
    """paddle.where with self as the condition."""
    return search.where(self, x, y)


def astype(self, dtype):
    """The tensor cast to another dtype; cast is the same method.

    Args:
        self (Tensor): The tensor.
        dtype (str|dtype|numpy.dtype): The target dtype.

    Returns:
        Tensor: same shape, the new dtype.

    Examples:
        >>> import oar
        >>> print(oar.to_tensor([1.5, 2.5]).astype('int32').numpy())
        [1 2]
    """
    return _C.cast(self, convert_dtype(dtype))


def tolist(self):
    """The tensor's values as nested Python lists (a Python number for a 0-D tensor).

    Args:
        self (Tensor): The tensor.

    Returns:
        list|int|float|bool: the values.

    Examples:
        >>> import oar
        >>> print(oar.to_tensor([[1, 2]]).tolist())
        [[1, 2]]
    """
    return self.numpy().tolist()


def stride(self, dim=None):
    """The tensor's strides, in elements.

    Args:
        self (Tensor): The tensor.
        dim (int, optional): One dim's stride only. Default: None (all).

    Returns:
        list[int]|int: the strides, or one stride.

    Examples:
        >>> import oar
        >>> print(oar.ones([2, 3]).stride(), oar.ones([2, 3]).stride(0))
        [3, 1] 3
    """
    return list(self._strides) if dim is None else self._strides[dim]


def get_strides(self):
    """The tensor's strides, in elements, one per dim.

    Args:
        self (Tensor): The tensor.

    Returns:
        list[int]: the strides.

    Examples:
        >>> import oar
        >>> print(oar.ones([2, 3]).get_strides())
        [3, 1]
    """
    return list(self._strides)


def is_dense(self):
    """Whether the tensor is a dense tensor; oar tensors always are.

    Args:
        self (Tensor): The tensor.

    Returns:
        bool: True.

    Examples:
        >>> import oar
        >>> print(oar.to_tensor([1]).is_dense())
        True
    """
    return True


def is_sparse(self):  # also is_sparse_coo, is_sparse_csr, is_dist, is_selected_rows
    """Whether the tensor is sparse (COO or CSR), distributed or selected rows; oar has only dense
    tensors, so is_sparse, is_sparse_coo, is_sparse_csr, is_dist and is_selected_rows are all False.

    Args:
        self (Tensor): The tensor.

    Returns:
        bool: False.

    Examples:
        >>> import oar
        >>> print(oar.to_tensor([1]).is_sparse())
        False
    """
    return False


# ---- properties (tensor/methods.py wraps them in property()) ----

def itemsize(self):
    return self.element_size()


def requires_grad(self):
    return not self.stop_gradient


def set_requires_grad(self, v):
    self.stop_gradient = not v


def grad_fn(self):
    """The autograd node that takes this tensor's gradient (paddle.Tensor.grad_fn): its op's backward
    node, or for a leaf that takes gradients its accumulation node; None when it stops gradient.

    Examples:
        >>> import oar
        >>> x = oar.ones([2])
        >>> x.stop_gradient = False
        >>> y = (x * 2).sum()
        >>> print(y.grad_fn.name(), x.grad_fn.name())
        SumGradNode GradNodeAccumulation
    """
    return _C._grad_fn(self)


def mT(self):
    return _C.transpose(self, list(range(self.ndim - 2)) + [self.ndim - 1, self.ndim - 2])


def strides(self):
    return list(self._strides)


def offset(self):
    return self._offset * self.element_size()  # bytes, as Paddle


def inplace_version(self):
    return self._version


def device(self):
    return _C._place_of(self)


def is_cuda(self):
    return _C._place_of(self).startswith("gpu:")


def layout(self):
    return "NCHW"


# Saved with the model (parameters, persistable buffers); a plain tensor is not.
def persistable(self):
    return self.__dict__.get("_persistable", False)


def set_persistable(self, v):
    self.__dict__.__setitem__("_persistable", bool(v))


def data(self):
    return self.detach()


def set_data(self, v):
    set_value(self, v)


def no_distribution(self):  # placements, process_mesh, num_shard: oar tensors are not distributed
    return None


# ---- copies and pickling ----

def deepcopy(self, memo):
    """copy.deepcopy(x) (Tensor.__deepcopy__): a detached copy keeping stop_gradient."""
    c = self.detach().clone()
    c.stop_gradient = self.stop_gradient
    return c


def reduce_ex(self, proto):
    """pickle (Tensor.__reduce_ex__): the data as a NumPy array, stop_gradient and name."""
    return (_rebuild, (self.numpy().copy(), self.stop_gradient, self.name))


def _rebuild(arr, stop_gradient, name):
    t = _C._from_array(arr, True)
    t.stop_gradient = stop_gradient
    t.name = name
    return t


def to_complex(self):
    """complex(x) of a one-element tensor (Python's protocol; written here rather than bound in C++
    because complex() calls it with a null argument vector, which nanobind's bound-method call
    passes on to memcpy)."""
    if self.size != 1:
        raise ValueError(f"only a one-element tensor can be converted to complex, got {self.size} elements")
    return complex(self.numpy().reshape(()).item())
