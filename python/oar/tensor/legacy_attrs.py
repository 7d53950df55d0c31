"""Paddle's legacy Tensor attributes: type, value(), grad_, create_parameter, create_tensor.

As measured in Paddle 3.3.1:
- x.type is a property, VarType.DENSE_TENSOR for every dense tensor (not a cast method);
- x.value() returns x itself (the dense tensor behind the variable);
- x.grad_ reads and writes the gradient, like x.grad;
- Tensor.create_parameter is paddle.create_parameter and Tensor.create_tensor is
  paddle.tensor.create_tensor, plain functions stored on the class: called on a tensor, the
  tensor becomes their first argument (x.create_parameter(dtype) makes a parameter of shape x).
values() and indices() are left out: Paddle raises for dense tensors (they belong to sparse ones).
"""
from .. import _C
from ..framework.dtype import convert_dtype
from ..framework.var_type import VarType
from ..utils import unique_name

Tensor = _C.Tensor

__all__ = ["create_tensor", "var_type", "value", "get_grad", "set_grad"]


def create_tensor(dtype, name=None, persistable=False):
    """paddle.tensor.create_tensor: a variable of `dtype` to assign to later. Paddle returns one
    without memory; oar has no uninitialised tensors, so it is an empty tensor of shape [0]."""
    t = _C.empty([0], convert_dtype(dtype))
    t.name = name if name is not None else unique_name.generate("create_tensor")
    t.persistable = bool(persistable)
    return t


def var_type(self):
    """The variable kind: VarType.DENSE_TENSOR."""
    return VarType.DENSE_TENSOR


def value(self):
    """The tensor itself (Paddle's legacy Variable.value()).

    Args:
        self (Tensor): The tensor.

    Returns:
        Tensor: self.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([1])
        >>> print(x.value() is x)
        True
    """
    return self


def get_grad(self):
    """The gradient (same as Tensor.grad)."""
    return self.grad


def set_grad(self, value):
    self.grad = value
