"""What a tensor is: the kind of its dtype (is_complex, is_floating_point, is_integer), its rank,
shape and element count as tensors (rank, shape, numel), paddle.Size, and check_shape (Paddle's
check of a shape argument); and the Tensor methods dim/ndimension and the property place."""
from .. import _C
from ..framework.dtype import convert_dtype
from ..framework.place import from_key

Tensor = _C.Tensor

__all__ = ["is_complex", "is_floating_point", "is_integer", "rank", "shape", "numel", "Size",
           "check_shape", "dim", "place"]


def is_complex(x):
    """Whether x has a complex dtype.

    Args:
        x (Tensor): The input.

    Returns:
        bool: True for complex64 and complex128.

    Examples:
        >>> import oar
        >>> print(oar.is_complex(oar.to_tensor([1.0])))
        False
    """
    return x.dtype.name.startswith("complex")


def is_floating_point(x):
    """Whether x has a floating-point dtype (float16, bfloat16, float32, float64).

    Args:
        x (Tensor): The input.

    Returns:
        bool: the answer.

    Examples:
        >>> import oar
        >>> print(oar.is_floating_point(oar.to_tensor([1.0])))
        True
    """
    return x.dtype.name in ("float16", "bfloat16", "float32", "float64")


def is_integer(x):
    """Whether x has an integer dtype (signed or unsigned; bool is not).

    Args:
        x (Tensor): The input.

    Returns:
        bool: the answer.

    Examples:
        >>> import oar
        >>> print(oar.is_integer(oar.to_tensor([1])))
        True
    """
    return x.dtype.name.startswith(("int", "uint"))


def rank(input):
    """The number of dims of input, as a tensor.

    Args:
        input (Tensor): The input.

    Returns:
        Tensor: 0-D int32.

    Examples:
        >>> import oar
        >>> print(oar.rank(oar.ones([2, 3])).numpy())
        2
    """
    return _C.full([], input.ndim, convert_dtype("int32"))


def shape(x):
    """x's shape as a 1-D int64 tensor (an op: in a program, -1 dims resolve at run time)."""
    return _C.shape_tensor(x)


def numel(x, name=None):
    """The element count as a 0-D int64 tensor (an op: in a program it is read at run time)."""
    return _C.numel_tensor(x)


class Size(tuple):
    """paddle.Size: a tuple of dims."""
    def __repr__(self):
        return f"paddle.Size({list(self)})"


def check_shape(shape, op_name, expected_shape_type=(list, tuple), expected_element_type=(int,),
                expected_tensor_dtype=("int32", "int64")):
    """Raises TypeError unless shape is a list/tuple of ints (or an int tensor), as Paddle."""
    if isinstance(shape, Tensor):
        if shape.dtype.name not in expected_tensor_dtype:
            raise TypeError(f"{op_name}: the shape tensor must be {' or '.join(expected_tensor_dtype)}, "
                            f"got {shape.dtype.name}")
        return
    if not isinstance(shape, expected_shape_type):
        raise TypeError(f"{op_name}: 'shape' must be a list or tuple, got {type(shape).__name__}")
    for s in shape:
        if not isinstance(s, Tensor) and not isinstance(s, expected_element_type):
            raise TypeError(f"{op_name}: every element of 'shape' must be an int, got {type(s).__name__}")


def dim(self):
    """x.dim(), x.ndimension(): the number of dims."""
    return self.ndim


def place(self):
    """x.place (a property): where x's data is."""
    return from_key(_C._place_of(self))
