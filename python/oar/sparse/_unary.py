"""Elementwise functions of sparse tensors: applied to the stored values only, the pattern kept
(zero stays zero for each of them: f(0) = 0)."""
from ._lazy import oar

from ._tensor import SparseCooTensor, SparseTensor

__all__ = ["sin", "tan", "asin", "atan", "sinh", "tanh", "asinh", "atanh", "sqrt", "square", "log1p", "abs",
           "neg", "deg2rad", "rad2deg", "expm1", "pow", "cast", "isnan"]


def _check(op, x):
    if not isinstance(x, SparseTensor):
        raise TypeError(f"sparse.{op}: x must be a sparse COO or CSR tensor, got {type(x).__name__} "
                        f"(use oar.{op} for dense tensors)")


def _elementwise(name):
    def op(x, name=None):
        _check(name_, x)
        return x._with_values(getattr(oar, name_)(x.values()))
    name_ = name
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"""{name} of each stored element of a sparse COO or CSR tensor; the pattern is kept.

    Args:
        x (SparseCooTensor|SparseCsrTensor): The input.
        name (str, optional): Unused (Paddle's naming argument).

    Returns:
        SparseCooTensor|SparseCsrTensor: x's format and pattern, the values transformed.

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [0.5, -0.25], [2, 2])
        >>> print(oar.sparse.{name}(x).values().shape)
        [2]
    """
    return op


sin = _elementwise("sin")
tan = _elementwise("tan")
asin = _elementwise("asin")
atan = _elementwise("atan")
sinh = _elementwise("sinh")
tanh = _elementwise("tanh")
asinh = _elementwise("asinh")
atanh = _elementwise("atanh")
sqrt = _elementwise("sqrt")
square = _elementwise("square")
log1p = _elementwise("log1p")
abs = _elementwise("abs")
neg = _elementwise("neg")
deg2rad = _elementwise("deg2rad")
rad2deg = _elementwise("rad2deg")
expm1 = _elementwise("expm1")


def pow(x, factor, name=None):
    """x ** factor for each stored element of a sparse tensor; the pattern is kept.

    Args:
        x (SparseCooTensor|SparseCsrTensor): The input.
        factor (float|int): The exponent.
        name (str, optional): Unused.

    Returns:
        SparseCooTensor|SparseCsrTensor: x's format and pattern.

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
        >>> print(oar.sparse.pow(x, 2).values().numpy())
        [4. 9.]
    """
    _check("pow", x)
    if not isinstance(factor, (int, float)):
        raise TypeError(f"sparse.pow: factor must be an int or float, got {type(factor).__name__}")
    return x._with_values(oar.pow(x.values(), factor))


def isnan(x, name=None):
    """Whether each stored element is NaN (a bool sparse tensor with x's pattern).

    Args:
        x (SparseCooTensor|SparseCsrTensor): The input.
        name (str, optional): Unused.

    Returns:
        SparseCooTensor|SparseCsrTensor: bool values, x's pattern.

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [float("nan"), 1.0], [2, 2])
        >>> print(oar.sparse.isnan(x).values().numpy())
        [ True False]
    """
    _check("isnan", x)
    return x._with_values(oar.isnan(x.values()))


def cast(x, index_dtype=None, value_dtype=None, name=None):
    """Casts a sparse tensor's indices (COO indices, CSR crows and cols) and values.

    Args:
        x (SparseCooTensor|SparseCsrTensor): The input.
        index_dtype (str|paddle.dtype, optional): int32 or int64 for the pattern; None keeps it.
        value_dtype (str|paddle.dtype, optional): The values' dtype; None keeps it.
        name (str, optional): Unused.

    Returns:
        SparseCooTensor|SparseCsrTensor: the cast tensor.

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
        >>> y = oar.sparse.cast(x, "int32", "float64")
        >>> print(y.indices().dtype, y.values().dtype)
        paddle.int32 paddle.float64
    """
    _check("cast", x)
    values = x.values() if value_dtype is None else x.values().astype(value_dtype)
    if index_dtype is not None and oar.framework.dtype.convert_dtype(index_dtype) not in (oar.int32, oar.int64):
        raise TypeError(f"sparse.cast: index_dtype must be int32 or int64, got {index_dtype}")
    if isinstance(x, SparseCooTensor):
        indices = x.indices() if index_dtype is None else x.indices().astype(index_dtype)
        return SparseCooTensor(indices, values, x.shape, x.is_coalesced())
    out = x._with_values(values)
    if index_dtype is not None:
        out._crows, out._cols = x.crows().astype(index_dtype), x.cols().astype(index_dtype)
    return out
