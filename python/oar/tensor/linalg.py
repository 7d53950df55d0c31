"""Small linear algebra over matmul and shape ops: inner, ger, mv, kron, matrix_transpose,
diagonal, trace and paddle.norm. oar/linalg.py (the paddle.linalg namespace) holds the
decompositions and solvers."""
import builtins

from .. import _C
from .axis import normalize_axes as _axes

__all__ = ["inner", "ger", "mv", "kron", "matrix_transpose", "diagonal", "trace", "norm"]


def inner(x, y, name=None):
    """Inner product over the last dim: x @ y.T for tensors, x * y when one is 0-D.

    Args:
        x (Tensor): Shape [..., K].
        y (Tensor): Shape [..., K].
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape x.shape[:-1] + y.shape[:-1].

    Examples:
        >>> import oar
        >>> print(oar.inner(oar.to_tensor([1, 2, 3]), oar.to_tensor([4, 5, 6])).numpy())
        32
    """
    if x.ndim == 0 or y.ndim == 0:
        return x * y
    return _C.matmul(x, y, False, True)


def ger(x, y, name=None, *, out=None):
    """Outer product of two 1-D tensors: out[i, j] = x[i] * y[j].

    Args:
        x (Tensor): 1-D, size M.
        y (Tensor): 1-D, size N.
        name (str, optional): Unused; for Paddle compatibility. Default: None.
        out (Tensor, optional): Ignored (use the return value); for compatibility. Default: None.

    Returns:
        Tensor: shape [M, N].

    Examples:
        >>> import oar
        >>> print(oar.ger(oar.to_tensor([1, 2]), oar.to_tensor([3, 4, 5])).numpy())
        [[ 3  4  5]
         [ 6  8 10]]
    """
    return _C.outer(x, y)


def mv(x, vec, name=None):
    """Matrix-vector product x @ vec.

    Args:
        x (Tensor): Shape [M, N].
        vec (Tensor): Shape [N].
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [M].

    Examples:
        >>> import oar
        >>> print(oar.mv(oar.to_tensor([[1, 2], [3, 4]]), oar.to_tensor([1, 1])).numpy())
        [3 7]
    """
    return _C.matmul(x, vec, False, False)


def kron(x, y, name=None):
    """The Kronecker product: block (i, j) of the result is x[i, j] * y (any matching rank)."""
    r = builtins.max(x.ndim, y.ndim)
    xs = [1] * (r - x.ndim) + list(x.shape)
    ys = [1] * (r - y.ndim) + list(y.shape)
    xe = _C.reshape(x, [d for s in xs for d in (s, 1)])
    ye = _C.reshape(y, [d for s in ys for d in (1, s)])
    return _C.reshape(xe * ye, [a * b for a, b in zip(xs, ys)])


def matrix_transpose(x, name=None):
    """Swaps the last two dims of x.

    Args:
        x (Tensor): Input with at least 2 dims.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [..., N, M] for x of shape [..., M, N].

    Examples:
        >>> import oar
        >>> print(oar.matrix_transpose(oar.ones([2, 3, 4])).shape)
        [2, 4, 3]
    """
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose: argument 'x' must have at least 2 dims, got shape {x.shape}")
    p = list(range(x.ndim))
    p[-1], p[-2] = p[-2], p[-1]
    return _C.transpose(x, p)


def diagonal(x, offset=0, axis1=0, axis2=1, name=None):
    """The diagonal of the (axis1, axis2) matrices, as the last dim: the two dims flattened and
    every (cols + 1)-th element taken (shape-only ops, so programs record it too)."""
    a1, a2 = _axes(x.ndim, axis1)[0], _axes(x.ndim, axis2)[0]
    if a1 == a2:
        raise ValueError(f"diagonal: 'axis1' and 'axis2' must differ, got {axis1} and {axis2}")
    rest = [d for d in range(x.ndim) if d not in (a1, a2)]
    rows, cols = x.shape[a1], x.shape[a2]
    if rows < 0 or cols < 0:
        raise ValueError(f"diagonal: the sizes of axis1 and axis2 must be known, x has shape {x.shape}")
    if offset >= 0:
        length, start = builtins.max(0, builtins.min(rows, cols - offset)), offset
    else:
        length, start = builtins.max(0, builtins.min(cols, rows + offset)), -offset * cols
    flat = _C.flatten(_C.transpose(x, rest + [a1, a2]), len(rest), -1)
    if length == 0:
        return _C.strided_slice(flat, [len(rest)], [0], [0], [1])
    return _C.strided_slice(flat, [len(rest)], [start], [start + (length - 1) * (cols + 1) + 1], [cols + 1])


def trace(x, offset=0, axis1=0, axis2=1, name=None):
    """Sum of a diagonal of x (over axis1 and axis2).

    Args:
        x (Tensor): Input with at least 2 dims.
        offset (int, optional): Diagonal: > 0 above the main one, < 0 below. Default: 0.
        axis1 (int, optional): First dim of the matrices. Default: 0.
        axis2 (int, optional): Second dim. Default: 1.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x's shape without axis1 and axis2 (0-D for a matrix).

    Examples:
        >>> import oar
        >>> print(oar.trace(oar.to_tensor([[1, 2], [3, 4]])).numpy())
        5
    """
    return _C.sum(diagonal(x, offset, axis1, axis2), [-1], None, False)


def norm(x, p=None, axis=None, keepdim=False, name=None):
    """paddle.norm: p in {'fro', 1, 2, inf, -inf, float}; 'fro' is the 2-norm over axis."""
    if p is None or p == "fro":
        p = 2.0
    elif p in ("inf", "-inf"):
        p = builtins.float(p)
    elif isinstance(p, str):
        raise ValueError(f"norm: unsupported p='{p}', expected 'fro' or a number")
    if axis is None:
        axis = []
    return _C.p_norm(x, builtins.float(p), axis, keepdim)
