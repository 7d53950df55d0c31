"""Comparisons and predicates: Paddle's short comparison names (eq, ne, gt/greater, ge, lt/less,
le: the C++ ops equal, not_equal, greater_than, ... under other names), isin, is_empty, is_tensor."""
from .. import _C
from ..framework.dtype import convert_dtype

Tensor = _C.Tensor

__all__ = ["eq", "ne", "gt", "greater", "ge", "lt", "less", "le", "isin", "is_empty", "is_tensor",
           "is_tensor_method"]


eq, ne = _C.equal, _C.not_equal
gt = greater = _C.greater_than
ge = _C.greater_equal
lt = less = _C.less_than
le = _C.less_equal


def isin(x, test_x, assume_unique=False, invert=False, name=None):
    """Whether each element of x occurs in test_x.

    Args:
        x (Tensor): The input.
        test_x (Tensor): The values to look for.
        assume_unique (bool, optional): Unused; the result is the same either way. Default: False.
        invert (bool, optional): Return the negation. Default: False.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: bool, x's shape.

    Examples:
        >>> import oar
        >>> print(oar.isin(oar.to_tensor([1, 2, 3, 4]), oar.to_tensor([2, 4])).numpy())
        [False  True False  True]
    """
    flat = _C.reshape(x, [-1, 1])
    hit = _C.any(_C.equal(flat, _C.reshape(test_x, [1, -1])), [1], False)
    hit = _C.reshape(hit, x.shape)
    return _C.logical_not(hit) if invert else hit


def is_empty(x, name=None):
    """Whether x has no elements.

    Args:
        x (Tensor): The input.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: 0-D bool.

    Examples:
        >>> import oar
        >>> print(oar.is_empty(oar.ones([0, 3])).numpy())
        True
    """
    return _C.full([], x.size == 0, convert_dtype("bool"))


def is_tensor(x):
    """Whether x is an oar Tensor.

    Args:
        x (object): Anything.

    Returns:
        bool: the answer.

    Examples:
        >>> import oar
        >>> print(oar.is_tensor(oar.to_tensor([1])), oar.is_tensor([1]))
        True False
    """
    return isinstance(x, Tensor)


def is_tensor_method(self):
    """x.is_tensor(): True."""
    return True
