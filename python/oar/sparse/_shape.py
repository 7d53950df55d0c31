"""Shape functions of sparse tensors: transpose, reshape, sum, slice and mask_as. They move the
pattern (index arithmetic on int64 coordinates) and carry the values along, so gradients
reach the input's values."""
from ._lazy import oar

from ._tensor import (SparseCooTensor, SparseCsrTensor, SparseTensor, coalesce, coo_to_csr, csr_to_coo,
                      linear_key, unravel)

__all__ = ["transpose", "reshape", "sum", "slice", "mask_as"]


def _coo(op, x):
    if isinstance(x, SparseCooTensor):
        return x
    if isinstance(x, SparseCsrTensor):
        return csr_to_coo(x)
    raise TypeError(f"sparse.{op}: x must be a sparse COO or CSR tensor, got {type(x).__name__}")


def _like(x, out):
    """out (COO) in x's format."""
    return coo_to_csr(coalesce(out)) if isinstance(x, SparseCsrTensor) else out


def _axis(op, axis, ndim):
    if not -ndim <= axis < ndim:
        raise IndexError(f"sparse.{op}: axis {axis} is out of range for a {ndim}-D tensor (expected [{-ndim}, "
                         f"{ndim - 1}])")
    return axis % ndim


def transpose(x, perm, name=None):
    """Permutes a sparse tensor's dims (the sparse dims among themselves; dense dims stay last).

    Args:
        x (SparseCooTensor|SparseCsrTensor): The input.
        perm (list|tuple): A permutation of range(x.ndim).
        name (str, optional): Unused.

    Returns:
        SparseCooTensor|SparseCsrTensor: x's format; a COO result keeps x's element order.

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 1], [2, 0]], [1.0, 2.0], [2, 3])
        >>> print(oar.sparse.transpose(x, [1, 0]).indices().numpy().tolist())
        [[2, 0], [0, 1]]
    """
    coo = _coo("transpose", x)
    perm = [_axis("transpose", int(p), x.ndim) for p in perm]
    if sorted(perm) != list(range(x.ndim)):
        raise ValueError(f"sparse.transpose: perm must be a permutation of range({x.ndim}), got {perm}")
    k = coo.sparse_dim()
    if perm[k:] != list(range(k, x.ndim)):
        raise ValueError(f"sparse.transpose: the dense dims ({k}..{x.ndim - 1}) must stay in place, got perm {perm}")
    indices = oar.stack([coo.indices()[p] for p in perm[:k]]) if coo.nnz() else coo.indices()
    out = SparseCooTensor(indices, coo.values(), [x.shape[p] for p in perm])
    return _like(x, out)


def reshape(x, shape, name=None):
    """Reshapes the sparse dims of a sparse tensor (one -1 allowed; the dense dims stay).

    Args:
        x (SparseCooTensor|SparseCsrTensor): The input.
        shape (list|tuple): The new shape: new sparse dims followed by x's dense dims.
        name (str, optional): Unused.

    Returns:
        SparseCooTensor|SparseCsrTensor: x's format, elements in x's order.

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 1], [2, 0]], [1.0, 2.0], [2, 3])
        >>> print(oar.sparse.reshape(x, [3, 2]).indices().numpy().tolist())
        [[1, 1], [0, 1]]
    """
    coo = _coo("reshape", x)
    shape = [int(d) for d in shape]
    dense = coo.shape[coo.sparse_dim():]
    if dense and shape[len(shape) - len(dense):] != dense:
        raise ValueError(f"sparse.reshape: the dense dims {dense} must stay at the end, got shape {shape}")
    new_sparse = shape[:len(shape) - len(dense)]
    total = 1
    for d in coo.shape[:coo.sparse_dim()]:
        total *= d
    if new_sparse.count(-1) > 1:
        raise ValueError(f"sparse.reshape: only one dim may be -1, got {shape}")
    known = 1
    for d in new_sparse:
        if d != -1:
            known *= d
    if -1 in new_sparse:
        if known == 0 or total % known:
            raise ValueError(f"sparse.reshape: cannot reshape {x.shape} into {shape}")
        new_sparse[new_sparse.index(-1)] = total // known
    elif known != total:
        raise ValueError(f"sparse.reshape: cannot reshape {x.shape} ({total} sparse positions) into {shape}")
    key = linear_key(coo.indices(), coo.shape[:coo.sparse_dim()])
    out = SparseCooTensor(unravel(key, new_sparse).astype(coo.indices().dtype), coo.values(), new_sparse + dense)
    return _like(x, out)


def sum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Sums a sparse tensor over one axis or all of them; the result is sparse.

    Args:
        x (SparseCooTensor|SparseCsrTensor): The input.
        axis (int, optional): The axis to reduce; None: all (a [1] tensor, or x's rank of ones with keepdim).
        dtype (str|paddle.dtype, optional): The result's dtype.
        keepdim (bool): Keep the reduced axis with size 1.
        name (str, optional): Unused.

    Returns:
        SparseCooTensor|SparseCsrTensor: the sums.

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [1.0, 2.0, 3.0], [2, 3])
        >>> print(oar.sparse.sum(x, axis=1).to_dense().numpy())
        [1. 5.]
    """
    coo = _coo("sum", x)
    values = coo.values() if dtype is None else coo.values().astype(dtype)
    if axis is None:
        total = oar.sum(values, axis=0, keepdim=True) if coo.nnz() else oar.zeros([1] + coo.shape[coo.sparse_dim():],
                                                                                 values.dtype)
        rank = x.ndim if keepdim else 1
        if coo.dense_dim():
            total = oar.sum(total, axis=list(range(1, total.ndim)))
        out = SparseCooTensor(oar.zeros([rank if keepdim else 1, 1], coo.indices().dtype), total.reshape([1]),
                              [1] * rank, coalesced=True)
        out._flat_indices = not keepdim
        return coo_to_csr(out) if isinstance(x, SparseCsrTensor) and rank in (2, 3) else out
    if isinstance(axis, (list, tuple)):
        if len(axis) != 1:
            raise ValueError(f"sparse.sum: axis must be one int, got {axis}")
        axis = axis[0]
    axis = _axis("sum", int(axis), x.ndim)
    k = coo.sparse_dim()
    if axis >= k:  # a dense dim: sum inside each value
        values = oar.sum(values, axis=axis - k + 1, keepdim=keepdim)
        shape = list(x.shape)
        shape[axis:axis + 1] = [1] if keepdim else []
        return _like(x, SparseCooTensor(coo.indices(), values, shape, coo.is_coalesced()))
    keep = [d for d in range(k) if d != axis]
    shape = list(x.shape)
    if keepdim:
        shape[axis] = 1
        indices = oar.stack([coo.indices()[d] if d != axis else oar.zeros_like(coo.indices()[d]) for d in range(k)]) \
            if coo.nnz() else coo.indices()
    else:
        del shape[axis]
        if not keep:
            return sum(x, None, dtype, False)
        indices = oar.stack([coo.indices()[d] for d in keep]) if coo.nnz() else coo.indices()[:len(keep)]
    out = coalesce(SparseCooTensor(indices, values, shape))
    return _like(x, out) if len(shape) in (2, 3) or not isinstance(x, SparseCsrTensor) else out


def slice(x, axes, starts, ends, name=None):
    """The elements of x inside [starts, ends) along axes (negative bounds count from the end).

    Args:
        x (SparseCooTensor|SparseCsrTensor): The input.
        axes (list|tuple): The axes to slice.
        starts (list|tuple): Where each slice starts.
        ends (list|tuple): Where each slice ends (exclusive).
        name (str, optional): Unused.

    Returns:
        SparseCooTensor|SparseCsrTensor: x's format.

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [1.0, 2.0, 3.0], [2, 3])
        >>> print(oar.sparse.slice(x, [1], [0], [2]).to_dense().numpy())
        [[0. 0.]
         [2. 0.]]
    """
    coo = _coo("slice", x)
    if not len(axes) == len(starts) == len(ends):
        raise ValueError(f"sparse.slice: axes, starts and ends must have one length, got {len(axes)}, {len(starts)} "
                         f"and {len(ends)}")
    shape = list(x.shape)
    k = coo.sparse_dim()
    keep = oar.ones([coo.nnz()], "bool")
    idx = coo.indices().astype("int64")
    shift = [0] * k
    values = coo.values()
    for a, s, e in zip(axes, starts, ends):
        a = _axis("slice", int(a), x.ndim)
        n = shape[a]
        s, e = int(s), int(e)
        s = max(0, min(n, s + n if s < 0 else s))
        e = max(0, min(n, e + n if e < 0 else e))
        e = max(e, s)
        shape[a] = e - s
        if a >= k:  # a dense dim: slice inside each value
            values = oar.slice(values, [a - k + 1], [s], [e])
            continue
        keep = keep & (idx[a] >= s) & (idx[a] < e)
        shift[a] = s
    where = oar.nonzero(keep).reshape([-1])
    indices = oar.index_select(idx, where, axis=1) - oar.to_tensor(shift, dtype="int64").unsqueeze(1)
    out = SparseCooTensor(indices.astype(coo.indices().dtype), oar.index_select(values, where, axis=0), shape,
                          coo.is_coalesced())
    return _like(x, out)


def mask_as(x, mask, name=None):
    """The elements of dense x at mask's pattern, as a sparse tensor of mask's format.

    Args:
        x (Tensor): A dense tensor of mask's shape.
        mask (SparseCooTensor|SparseCsrTensor): The pattern.
        name (str, optional): Unused.

    Returns:
        SparseCooTensor|SparseCsrTensor: mask's pattern with x's values (differentiable in x).

    Examples:
        >>> import oar
        >>> mask = oar.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 1.0], [2, 2])
        >>> print(oar.sparse.mask_as(oar.to_tensor([[1.0, 2.0], [3.0, 4.0]]), mask).values().numpy())
        [2. 3.]
    """
    if not isinstance(mask, SparseTensor):
        raise TypeError(f"sparse.mask_as: mask must be a sparse tensor, got {type(mask).__name__}")
    if not isinstance(x, oar.Tensor):
        raise TypeError(f"sparse.mask_as: x must be a dense Tensor, got {type(x).__name__}")
    if list(x.shape) != mask.shape:
        raise ValueError(f"sparse.mask_as: x must have mask's shape {mask.shape}, got {list(x.shape)}")
    coo = _coo("mask_as", mask)
    values = oar.gather_nd(x, coo.indices().astype("int64").t()) if coo.nnz() else \
        oar.zeros([0] + mask.shape[coo.sparse_dim():], x.dtype)
    if isinstance(mask, SparseCsrTensor):
        return mask._with_values(values)
    return SparseCooTensor(mask.indices(), values, mask.shape, mask.is_coalesced())
