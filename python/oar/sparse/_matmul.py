"""Products with sparse operands: matmul, mv, addmm, masked_matmul (and pca_lowrank on them).

A batched CSR tensor [B, M, K] is treated as one block-diagonal [B * M, B * K] matrix (global
crows, columns offset by batch), so every product is one call of the C++ CSR kernels
(oar/kernels/cpu/sparse_matmul.cc): sparse_csr_matmul for A · B, sparse_csr_sampled_dot for
masked_matmul; their gradients are the same kernels (values and dense operands both
differentiable)."""
from ._lazy import oar
from .. import _C

from ._tensor import SparseCooTensor, SparseCsrTensor, SparseTensor, coo_to_csr, dense_to_coo, dense_to_csr

__all__ = ["matmul", "masked_matmul", "mv", "addmm", "pca_lowrank"]


def _global_pattern(x, col_block):
    """(crows, cols) of x's block-diagonal form: int64, columns of batch b offset by b * col_block."""
    crows, cols = x.crows().astype("int64"), x.cols().astype("int64")
    if x.ndim == 2:
        return crows, cols
    batches, m = x.shape[0], x.shape[1]
    per = crows.reshape([batches, m + 1])
    batch_nnz = per[:, -1]
    offsets = oar.cumsum(batch_nnz, axis=0) - batch_nnz
    rows = (per[:, :-1] + offsets.unsqueeze(1)).reshape([-1])
    total = oar.sum(batch_nnz).reshape([1])
    shift = oar.repeat_interleave(oar.arange(batches, dtype="int64") * col_block, batch_nnz)
    return oar.concat([rows, total]), cols + shift


def _as_csr(op, x):
    if isinstance(x, SparseCsrTensor):
        return x
    if isinstance(x, SparseCooTensor):
        if x.ndim not in (2, 3) or x.dense_dim():
            raise ValueError(f"sparse.{op}: the sparse operand must be 2-D or 3-D with no dense dims, got shape "
                             f"{x.shape} with sparse_dim {x.sparse_dim()}")
        return coo_to_csr(x)
    raise TypeError(f"sparse.{op}: x must be a sparse COO or CSR tensor, got {type(x).__name__}")


def _check_dense(op, arg, t, dtype):
    if not isinstance(t, oar.Tensor):
        raise TypeError(f"sparse.{op}: {arg} must be a dense Tensor, got {type(t).__name__}")
    if t.dtype != dtype:
        raise TypeError(f"sparse.{op}: {arg} must have the sparse operand's dtype {dtype.name}, got {t.dtype.name}")


def _sparse_dense(op, x, y):
    """x (sparse [M, K] or [B, M, K]) · y (dense [K, N] or [B, K, N]) as a dense tensor."""
    csr = _as_csr(op, x)
    _check_dense(op, "y", y, x.dtype)
    if y.ndim != x.ndim:
        raise ValueError(f"sparse.{op}: x ({x.ndim}-D) and y ({y.ndim}-D) must have the same rank")
    if y.shape[-2] != x.shape[-1] or (x.ndim == 3 and y.shape[0] != x.shape[0]):
        raise ValueError(f"sparse.{op}: cannot multiply shapes {x.shape} and {list(y.shape)}")
    k = x.shape[-1]
    crows, cols = _global_pattern(csr, k)
    n = int(y.shape[-1])
    out = _C.sparse_csr_matmul(crows, cols, csr.values(), y.reshape([-1, n]))
    return out.reshape(x.shape[:-1] + [n])


def matmul(x, y, name=None):
    """Matrix product with a sparse left operand (2-D, or batched 3-D).

    sparse · dense gives a dense tensor; sparse · sparse gives a sparse tensor of x's format.
    Gradients reach x's values and y.

    Args:
        x (SparseCooTensor|SparseCsrTensor): [M, K] or [B, M, K], float32 or float64.
        y (Tensor|SparseCooTensor|SparseCsrTensor): [K, N] or [B, K, N], x's dtype.
        name (str, optional): Unused.

    Returns:
        Tensor|SparseCooTensor|SparseCsrTensor: [M, N] or [B, M, N].

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_csr_tensor([0, 1, 2], [1, 0], [2.0, 3.0], [2, 2])
        >>> print(oar.sparse.matmul(x, oar.to_tensor([[1.0], [10.0]])).numpy().ravel())
        [20.  3.]
    """
    if isinstance(y, SparseTensor):
        if y.dtype != x.dtype:
            raise TypeError(f"sparse.matmul: y must have x's dtype {x.dtype.name}, got {y.dtype.name}")
        dense = _sparse_dense("matmul", x, y.to_dense())
        return dense_to_csr(dense) if isinstance(x, SparseCsrTensor) else dense_to_coo(dense, dense.ndim)
    return _sparse_dense("matmul", x, y)


def mv(x, vec, name=None):
    """Sparse matrix times dense vector.

    Args:
        x (SparseCooTensor|SparseCsrTensor): [M, N], float32 or float64.
        vec (Tensor): [N], x's dtype.
        name (str, optional): Unused.

    Returns:
        Tensor: [M].

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
        >>> print(oar.sparse.mv(x, oar.to_tensor([1.0, 10.0])).numpy())
        [20.  3.]
    """
    if isinstance(x, SparseTensor) and x.ndim != 2:
        raise ValueError(f"sparse.mv: x must be 2-D, got shape {x.shape}")
    if not isinstance(vec, oar.Tensor) or vec.ndim != 1:
        raise ValueError(f"sparse.mv: vec must be a 1-D dense tensor, got "
                         f"{list(vec.shape) if isinstance(vec, oar.Tensor) else type(vec).__name__}")
    return _sparse_dense("mv", x, vec.unsqueeze(1)).squeeze(1)


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):
    """beta * input + alpha * (x · y) with a sparse x.

    Args:
        input (Tensor|SparseCooTensor|SparseCsrTensor): [M, N] (or batched); the result takes its kind.
        x (SparseCooTensor|SparseCsrTensor): [M, K].
        y (Tensor|SparseCooTensor|SparseCsrTensor): [K, N].
        beta (float): input's coefficient.
        alpha (float): the product's coefficient.
        name (str, optional): Unused.

    Returns:
        Tensor|SparseCooTensor|SparseCsrTensor: input's kind.

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
        >>> out = oar.sparse.addmm(oar.ones([2, 1]), x, oar.to_tensor([[1.0], [10.0]]), beta=0.5, alpha=2.0)
        >>> print(out.numpy().ravel())
        [40.5  6.5]
    """
    product = matmul(x, y)
    if isinstance(product, SparseTensor):
        product = product.to_dense()
    if list(input.shape) != list(product.shape):
        raise ValueError(f"sparse.addmm: input must have the product's shape {list(product.shape)}, got "
                         f"{list(input.shape)}")
    if isinstance(input, SparseTensor):
        dense = beta * input.to_dense() + alpha * product
        return dense_to_csr(dense) if isinstance(input, SparseCsrTensor) else dense_to_coo(dense, dense.ndim)
    return beta * input + alpha * product


def masked_matmul(x, y, mask, name=None):
    """The dense product x · y computed only where mask stores an element.

    Args:
        x (Tensor): [M, K] or [B, M, K], float32 or float64.
        y (Tensor): [K, N] or [B, K, N], x's dtype.
        mask (SparseCsrTensor|SparseCooTensor): [M, N] or [B, M, N]: the pattern to compute.
        name (str, optional): Unused.

    Returns:
        SparseCsrTensor|SparseCooTensor: mask's format and pattern; gradients reach x and y.

    Examples:
        >>> import oar
        >>> mask = oar.sparse.sparse_csr_tensor([0, 1, 1], [1], [1.0], [2, 2])
        >>> x, y = oar.to_tensor([[1.0, 2.0], [0.0, 0.0]]), oar.to_tensor([[0.0, 3.0], [0.0, 4.0]])
        >>> print(oar.sparse.masked_matmul(x, y, mask).values().numpy())
        [11.]
    """
    csr = _as_csr("masked_matmul", mask)
    for arg, t in (("x", x), ("y", y)):
        if not isinstance(t, oar.Tensor):
            raise TypeError(f"sparse.masked_matmul: {arg} must be a dense Tensor, got {type(t).__name__}")
        if t.ndim != mask.ndim:
            raise ValueError(f"sparse.masked_matmul: {arg} must have mask's rank {mask.ndim}, got shape "
                             f"{list(t.shape)}")
    if y.dtype != x.dtype:
        raise TypeError(f"sparse.masked_matmul: x and y must have one dtype, got {x.dtype.name} and {y.dtype.name}")
    if x.shape[-1] != y.shape[-2] or list(x.shape[:-1]) + [y.shape[-1]] != mask.shape:
        raise ValueError(f"sparse.masked_matmul: x {list(x.shape)} · y {list(y.shape)} does not have mask's shape "
                         f"{mask.shape}")
    n = mask.shape[-1]
    crows, cols = _global_pattern(csr, n)
    k = int(x.shape[-1])
    yt = y.transpose(list(range(y.ndim - 2)) + [y.ndim - 1, y.ndim - 2]).reshape([-1, k])
    values = _C.sparse_csr_sampled_dot(crows, cols, x.reshape([-1, k]), yt)
    out = csr._with_values(values)
    # A COO mask's coalesced order is the CSR order: its values line up.
    return out.to_sparse_coo() if isinstance(mask, SparseCooTensor) else out


def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """Principal component analysis of a sparse matrix (U, S, V as paddle.linalg.pca_lowrank).

    The randomized range finder runs on x's products with dense blocks; centring subtracts the
    column means from those products, so x itself is never made dense.

    Args:
        x (SparseCooTensor|SparseCsrTensor): [M, N], float32 or float64.
        q (int, optional): The rank to find; None: min(6, M, N).
        center (bool): Whether to subtract the column means first.
        niter (int): Subspace iterations.
        name (str, optional): Unused.

    Returns:
        tuple: (U [M, q], S [q], V [N, q]).

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 1, 2], [0, 1, 2]], [3.0, 2.0, 1.0], [3, 3])
        >>> U, S, V = oar.sparse.pca_lowrank(x, q=3, center=False)
        >>> print([round(float(s), 4) for s in S.numpy()])
        [3.0, 2.0, 1.0]
    """
    if not isinstance(x, SparseTensor) or x.ndim != 2:
        raise ValueError("sparse.pca_lowrank: x must be a 2-D sparse tensor")
    m, n = x.shape
    q = min(6, m, n) if q is None else int(q)
    if not 0 <= q <= min(m, n):
        raise ValueError(f"sparse.pca_lowrank: q must lie in [0, min(M, N) = {min(m, n)}], got {q}")
    if niter < 0:
        raise ValueError(f"sparse.pca_lowrank: niter must be non-negative, got {niter}")
    xt = transpose_2d(x)
    mean = (oar.sparse.sum(x, axis=0).to_dense() / m).reshape([1, n]) if center else None

    def a_mul(b):  # (x - 1 mean) · b
        out = matmul(x, b)
        return out - oar.matmul(oar.ones([m, 1], x.dtype), oar.matmul(mean, b)) if center else out

    def at_mul(b):  # (x - 1 mean)ᵀ · b
        out = matmul(xt, b)
        return out - oar.matmul(mean.t(), oar.sum(b, axis=0, keepdim=True)) if center else out

    g = oar.randn([n, q], dtype=x.dtype)
    basis = oar.linalg.qr(a_mul(g))[0]
    for _ in range(niter):
        basis = oar.linalg.qr(at_mul(basis))[0]
        basis = oar.linalg.qr(a_mul(basis))[0]
    b = at_mul(basis).t()  # [q, N] = basisᵀ · (x - 1 mean)
    u, s, vh = oar.linalg.svd(b, full_matrices=False)
    return oar.matmul(basis, u), s, vh.t()


def transpose_2d(x):
    from ._shape import transpose
    return transpose(x, [1, 0])
