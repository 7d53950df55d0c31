"""Elementwise arithmetic of two sparse tensors of one shape and format. The result's pattern
is the union of the operands' (coalesced): add and subtract add the stored values, multiply
multiplies them at the union (an element stored in one operand only gives a stored 0, as in
Paddle), and divide gives every position (x / 0 is inf or nan there, as Paddle stores it)."""
from ._lazy import oar

from ._tensor import (SparseCooTensor, SparseCsrTensor, SparseTensor, coalesce, coo_to_csr, csr_to_coo,
                      linear_key, unravel)

__all__ = ["add", "subtract", "multiply", "divide"]


def _operands(op, x, y):
    if not isinstance(x, SparseTensor):
        raise TypeError(f"sparse.{op}: x must be a sparse COO or CSR tensor, got {type(x).__name__}")
    if not isinstance(y, SparseTensor):
        raise NotImplementedError(f"sparse.{op}: y must be a sparse tensor like x; a sparse and a dense operand "
                                  f"are not supported (got {type(y).__name__}; convert with y.to_sparse_coo() or "
                                  f"x.to_dense())")
    if x.shape != y.shape:
        raise ValueError(f"sparse.{op}: x and y must have the same shape, got {x.shape} and {y.shape}")
    if type(x) is not type(y):
        raise TypeError(f"sparse.{op}: x and y must have the same format, got {type(x).__name__} and "
                        f"{type(y).__name__}")
    if x.dtype != y.dtype:
        raise TypeError(f"sparse.{op}: x and y must have the same dtype, got {x.dtype.name} and {y.dtype.name}")
    if isinstance(x, SparseCooTensor) and x.sparse_dim() != y.sparse_dim():
        raise ValueError(f"sparse.{op}: x and y must have the same sparse_dim, got {x.sparse_dim()} and "
                         f"{y.sparse_dim()}")
    return (x, y) if isinstance(x, SparseCooTensor) else (csr_to_coo(x), csr_to_coo(y))


def _union(x, y):
    """The union pattern of two COO tensors and each one's values placed on it."""
    dims = x.shape[:x.sparse_dim()]
    kx, ky = linear_key(x.indices(), dims), linear_key(y.indices(), dims)
    keys, inverse = oar.unique(oar.concat([kx, ky]), return_inverse=True)
    n, tail = int(keys.shape[0]), list(x.values().shape[1:])
    nx = int(kx.shape[0])
    on_union = [oar.index_add(oar.zeros([n] + tail, x.dtype), part, 0, v)
                for part, v in ((inverse[:nx], x.values()), (inverse[nx:], y.values()))]
    return unravel(keys, dims).astype(x.indices().dtype), on_union[0], on_union[1]


def _result(like, indices, values):
    out = SparseCooTensor(indices, values, like.shape, coalesced=True)
    return coo_to_csr(out) if isinstance(like, SparseCsrTensor) else out


def _doc(name, symbol):
    return f"""x {symbol} y for two sparse tensors of one shape and format (both COO or both CSR).

    Args:
        x (SparseCooTensor|SparseCsrTensor): The left operand.
        y (SparseCooTensor|SparseCsrTensor): The right operand, x's shape, format and dtype.
        name (str, optional): Unused.

    Returns:
        SparseCooTensor|SparseCsrTensor: x's format, coalesced.

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
        >>> y = oar.sparse.sparse_coo_tensor([[0, 1], [1, 1]], [4.0, 5.0], [2, 2])
        >>> print(oar.sparse.{name}(x, y).to_dense().numpy().tolist())
    """


def add(x, y, name=None):
    x0 = x
    x, y = _operands("add", x, y)
    indices, xv, yv = _union(x, y)
    return _result(x0, indices, xv + yv)


def subtract(x, y, name=None):
    x0 = x
    x, y = _operands("subtract", x, y)
    indices, xv, yv = _union(x, y)
    return _result(x0, indices, xv - yv)


def multiply(x, y, name=None):
    x0 = x
    x, y = _operands("multiply", x, y)
    indices, xv, yv = _union(x, y)
    return _result(x0, indices, xv * yv)


def divide(x, y, name=None):
    x0 = x
    x, y = _operands("divide", x, y)
    # Every position: x / y is nan or inf where y stores nothing.
    dense = coalesce(x).to_dense() / coalesce(y).to_dense()
    k = x.sparse_dim()
    dims = x.shape[:k]
    total = 1
    for d in dims:
        total *= int(d)
    indices = unravel(oar.arange(total, dtype="int64"), dims)
    values = dense.reshape([total] + list(x.shape[k:]))
    return _result(x0, indices.astype(x.indices().dtype), values)


for _f, _s in ((add, "+"), (subtract, "-"), (multiply, "*"), (divide, "/")):
    _f.__doc__ = _doc(_f.__name__, _s)
add.__doc__ += "        [[0.0, 6.0], [3.0, 5.0]]\n    "
subtract.__doc__ += "        [[0.0, -2.0], [3.0, -5.0]]\n    "
multiply.__doc__ += "        [[0.0, 8.0], [0.0, 0.0]]\n    "
divide.__doc__ = divide.__doc__.replace(".tolist())\n", ".tolist()[0])\n") + "        [nan, 0.5]\n    "
