"""Tensor.fill_diagonal_tensor(y, offset, dim1, dim2) and its in-place form: x with the diagonal
`offset` of the (dim1, dim2) planes replaced by y.

y holds the diagonals in the order Tensor.diagonal(offset, dim1, dim2) returns them: x's other dims
first, the diagonal last. Gradients flow to x (zero on the diagonal) and to y; Paddle 3.3.1 records
none for y (paddle.grad gives None), so oar's is checked against finite differences in the tests.
"""
from .. import _C
from .manipulation import diagonal_scatter
from .inplace import _inplace_of

Tensor = _C.Tensor

__all__ = ["fill_diagonal_tensor", "fill_diagonal_tensor_"]


def _diagonal_shape(x, offset, d1, d2):
    rows, cols = x.shape[d1], x.shape[d2]
    length = min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols)
    return [s for i, s in enumerate(x.shape) if i not in (d1, d2)] + [length]


def fill_diagonal_tensor(x, y, offset=0, dim1=0, dim2=1, name=None):
    """A copy of x with y written along a diagonal of the (dim1, dim2) planes.

    Args:
        x (Tensor): The input, at least 2-D.
        y (Tensor): The values, x's dtype; shape: x's other dims, then the diagonal length.
        offset (int, optional): Diagonal: > 0 above the main one, < 0 below. Default: 0.
        dim1 (int, optional): First dim of the planes. Default: 0.
        dim2 (int, optional): Second dim. Default: 1.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: same shape and dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.zeros([2, 3])
        >>> print(x.fill_diagonal_tensor(oar.to_tensor([1.0, 2.0]), offset=1).numpy())
        [[0. 1. 0.]
         [0. 0. 2.]]
    """
    fn = "fill_diagonal_tensor"
    if not isinstance(y, Tensor):
        raise TypeError(f"{fn}: argument 'y' must be a Tensor, but got {type(y).__name__}")
    for arg, v in (("offset", offset), ("dim1", dim1), ("dim2", dim2)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"{fn}: argument '{arg}' must be an int, but got {type(v).__name__}")
    rank = x.ndim
    for arg, d in (("dim1", dim1), ("dim2", dim2)):
        if not -rank <= d < rank:
            raise ValueError(f"{fn}: argument '{arg}' must be in [{-rank}, {rank}) for x of shape "
                             f"{list(x.shape)}, but got {d}")
    d1, d2 = dim1 % rank, dim2 % rank
    if d1 == d2:
        raise ValueError(f"{fn}: 'dim1' and 'dim2' must name different dims, but both are {d1}")
    if y.dtype != x.dtype:  # Paddle reads y's bytes as x's dtype here; oar refuses
        raise TypeError(f"{fn}: y's dtype {y.dtype.name} differs from x's dtype {x.dtype.name}")
    if d1 > d2:  # the same diagonal seen from the other dim: offset changes sign, order stays
        d1, d2, offset = d2, d1, -offset
    expected = _diagonal_shape(x, offset, d1, d2)
    if expected[-1] < 0:
        raise ValueError(f"{fn}: offset {offset if dim1 % rank < dim2 % rank else -offset} lies outside "
                         f"the ({dim1}, {dim2}) planes of x with shape {list(x.shape)}")
    if list(y.shape) != expected:
        raise ValueError(f"{fn}: argument 'y' must have shape {expected} (x's other dims, then the "
                         f"diagonal), but got {list(y.shape)}")
    return diagonal_scatter(x, y, offset, d1, d2)


fill_diagonal_tensor_ = _inplace_of(fill_diagonal_tensor, "fill_diagonal_tensor_")
