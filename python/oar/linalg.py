"""oar.linalg, as paddle.linalg: the LAPACK-backed C++ ops (inv, det, slogdet, solve, cholesky,
triangular_solve, eigh, svd, qr, lu) under Paddle's names and return conventions, and the
functions Paddle builds from them (pinv, matrix_rank, cond, norms, ...), written over those ops
so that autograd sees through them."""
import math

from . import _C
from .framework.dtype import convert_dtype
from .tensor.creation import to_tensor
from .tensor.linalg import diagonal, matrix_transpose

Tensor = _C.Tensor

inv = _C.inv
det = _C.det
slogdet = _C.slogdet
cholesky = _C.cholesky
triangular_solve = _C.triangular_solve
matmul = _C.matmul


def _mT(x):
    return matrix_transpose(x)


def solve(x, y, left=True, name=None, *, out=None):
    """Solves the linear system ``x @ X = y`` (or ``X @ x = y`` with ``left=False``) for X.

    Args:
        x (Tensor): Square matrices [*, n, n], float32 or float64.
        y (Tensor): Right-hand sides [*, n, k], or [*, n] (one vector per matrix).
        left (bool, optional): Solve ``x @ X = y`` (True) or ``X @ x = y`` (False). Default: True.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        Tensor: X, shaped like y.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[2.0, 0.0], [0.0, 4.0]])
        >>> print(oar.linalg.solve(x, oar.to_tensor([2.0, 2.0])))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.        , 0.50000000])
    """
    vector = y.ndim == x.ndim - 1
    if vector:
        y = _C.unsqueeze(y, [-1])
    if left:
        res = _C.solve_base(x, y)
    else:
        res = _mT(_C.solve_base(_mT(x), _mT(y)))
    return _C.squeeze(res, [-1]) if vector else res


def cholesky_solve(x, y, upper=False, name=None):
    """Solves ``A @ X = x`` given the Cholesky factor ``y`` of A (``A = y @ y^T``, or ``y^T @ y``
    with ``upper``).

    Args:
        x (Tensor): Right-hand sides [*, n, k].
        y (Tensor): The triangular Cholesky factor [*, n, n], e.g. from ``oar.linalg.cholesky``.
        upper (bool, optional): y is upper triangular. Default: False.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        Tensor: X, [*, n, k].

    Examples:
        >>> import oar
        >>> a = oar.to_tensor([[4.0, 0.0], [0.0, 9.0]])
        >>> factor = oar.linalg.cholesky(a)
        >>> print(oar.linalg.cholesky_solve(oar.to_tensor([[4.0], [9.0]]), factor))
        Tensor(shape=[2, 1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[1.],
                [1.]])
    """
    if upper:
        z = _C.triangular_solve(y, x, True, True, False)
        return _C.triangular_solve(y, z, True, False, False)
    z = _C.triangular_solve(y, x, False, False, False)
    return _C.triangular_solve(y, z, False, True, False)


def cholesky_inverse(x, upper=False, name=None):
    """The inverse of a matrix from its Cholesky factor: ``(x @ x^T)^-1`` (``(x^T @ x)^-1`` with
    ``upper``). As in Paddle, every entry of x is used (x is not masked to a triangle).

    Args:
        x (Tensor): The Cholesky factor [*, n, n].
        upper (bool, optional): x is upper triangular. Default: False.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        Tensor: [*, n, n].

    Examples:
        >>> import oar
        >>> factor = oar.to_tensor([[1.0, 0.0], [1.0, 1.0]])  # of [[1, 1], [1, 2]]
        >>> print(oar.linalg.cholesky_inverse(factor))
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[ 2., -1.],
                [-1.,  1.]])
    """
    return inv(_C.matmul(x, x, upper, not upper))


def eigh(x, UPLO="L", name=None):
    """Eigenvalues and eigenvectors of symmetric (Hermitian) matrices.

    Args:
        x (Tensor): Symmetric matrices [*, n, n].
        UPLO (str, optional): Read the lower ('L') or upper ('U') triangle of x. Default: 'L'.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        tuple: (eigenvalues [*, n] in ascending order, eigenvectors [*, n, n] as columns).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[2.0, 1.0], [1.0, 2.0]])
        >>> values, vectors = oar.linalg.eigh(x)
        >>> print(values)
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1., 3.])
        >>> print(vectors.shape)
        [2, 2]
    """
    return tuple(_C.eigh(x, UPLO))


def eig(x, name=None):
    """Eigenvalues and eigenvectors of general square matrices (LAPACK's ?geev).

    Args:
        x (Tensor): Square matrices [*, n, n], float32, float64, complex64 or complex128.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        tuple: (eigenvalues [*, n], eigenvectors [*, n, n] as unit columns), complex64 for single
        precision input, complex128 for double; differentiable (not for defective matrices).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[2.0, 0.0], [0.0, 3.0]])
        >>> values, vectors = oar.linalg.eig(x)
        >>> print(values.numpy())
        [2.+0.j 3.+0.j]
    """
    return tuple(_C.eig(x))


def eigvals(x, name=None):
    """Eigenvalues of general square matrices (LAPACK's ?geev), in LAPACK's order.

    Args:
        x (Tensor): Square matrices [*, n, n], float32, float64, complex64 or complex128.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        Tensor: [*, n], complex64 for single precision input, complex128 for double.

    Examples:
        >>> import oar
        >>> print(oar.linalg.eigvals(oar.to_tensor([[0.0, -1.0], [1.0, 0.0]])).numpy())
        [0.+1.j 0.-1.j]
    """
    return _C.eigvals(x)


def eigvalsh(x, UPLO="L", name=None):
    """Eigenvalues of symmetric (Hermitian) matrices, in ascending order.

    Args:
        x (Tensor): Symmetric matrices [*, n, n].
        UPLO (str, optional): Read the lower ('L') or upper ('U') triangle. Default: 'L'.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        Tensor: [*, n].

    Examples:
        >>> import oar
        >>> print(oar.linalg.eigvalsh(oar.to_tensor([[2.0, 1.0], [1.0, 2.0]])))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1., 3.])
    """
    return _C.eigh(x, UPLO)[0]


def svd(x, full_matrices=False, name=None, *, out=None):
    """Singular value decomposition ``x = U @ diag(S) @ VH``.

    Args:
        x (Tensor): Matrices [*, m, n].
        full_matrices (bool, optional): Return square U [*, m, m] and VH [*, n, n] instead of the
            reduced [*, m, k] and [*, k, n], k = min(m, n). Default: False.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        tuple: (U, S, VH), S [*, k] in descending order.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[3.0, 0.0], [0.0, -2.0], [0.0, 0.0]])
        >>> u, s, vh = oar.linalg.svd(x)
        >>> print(u.shape, vh.shape)
        [3, 2] [2, 2]
        >>> print(s)
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [3., 2.])
    """
    return tuple(_C.svd(x, full_matrices))


def svdvals(x, name=None):
    """The singular values of matrices, in descending order.

    Args:
        x (Tensor): Matrices [*, m, n].
        name (str, optional): Usually left unset. Default: None.

    Returns:
        Tensor: [*, min(m, n)].

    Examples:
        >>> import oar
        >>> print(oar.linalg.svdvals(oar.to_tensor([[3.0, 0.0], [0.0, -2.0]])))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [3., 2.])
    """
    return _C.svd(x, False)[1]


def qr(x, mode="reduced", name=None):
    """QR decomposition ``x = Q @ R``, Q with orthonormal columns and R upper triangular.

    Args:
        x (Tensor): Matrices [*, m, n].
        mode (str, optional): 'reduced' (Q [*, m, k], R [*, k, n], k = min(m, n)), 'complete'
            (Q [*, m, m], R [*, m, n]) or 'r' (R only). Default: 'reduced'.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        tuple|Tensor: (Q, R), or R with mode 'r'.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[3.0, 1.0], [4.0, 2.0]])
        >>> q, r = oar.linalg.qr(x)
        >>> print(q.shape, r.shape, bool(oar.allclose(q @ r, x, atol=1e-5)))
        [2, 2] [2, 2] True
    """
    q, r = _C.qr(x, mode)
    return r if mode == "r" else (q, r)


def lu(x, pivot=True, get_infos=False, name=None):
    """LU decomposition with partial pivoting, ``x = P @ L @ U``, in LAPACK's packed form.

    Args:
        x (Tensor): Matrices [*, m, n].
        pivot (bool, optional): Must be True (LU without pivoting is not supported on the CPU,
            as in Paddle). Default: True.
        get_infos (bool, optional): Also return LAPACK's info per matrix (0 on success).
            Default: False.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        tuple: (LU, pivots) or (LU, pivots, infos): L (unit diagonal, below) and U (on and above
        the diagonal) packed in one [*, m, n] tensor, and the 1-based int32 pivots
        [*, min(m, n)]. ``lu_unpack`` splits them.

    Examples:
        >>> import oar
        >>> lu, pivots = oar.linalg.lu(oar.to_tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> print(pivots)
        Tensor(shape=[2], dtype=int32, place=Place(cpu), stop_gradient=True,
               [2, 2])
    """
    if not pivot:
        raise NotImplementedError("lu: pivot=False is not supported on the CPU (as Paddle)")
    lu_, piv, infos = _C.lu_base(x)
    return (lu_, piv, infos) if get_infos else (lu_, piv)


def lu_unpack(x, y, unpack_ludata=True, unpack_pivots=True, name=None):
    """Unpacks the result of ``oar.linalg.lu`` into the permutation, lower and upper factors, with
    ``x = P @ L @ U``.

    Args:
        x (Tensor): The packed LU factors [*, m, n].
        y (Tensor): The 1-based pivots [*, min(m, n)].
        unpack_ludata (bool, optional): Return L and U (else None). Default: True.
        unpack_pivots (bool, optional): Return P (else None). Default: True.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        tuple: (P [*, m, m], L [*, m, k], U [*, k, n]), k = min(m, n).

    Examples:
        >>> import oar
        >>> a = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> p, l, u = oar.linalg.lu_unpack(*oar.linalg.lu(a))
        >>> print(p @ l @ u)
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[1., 2.],
                [3., 4.]])
    """
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    L = U = P = None
    if unpack_ludata:
        eye = _C.eye(m, k, x.dtype)
        L = _C.tril(_C.slice(x, [x.ndim - 1], [0], [k]), -1) + eye
        U = _C.triu(_C.slice(x, [x.ndim - 2], [0], [k]), 0)
    if unpack_pivots:
        import numpy as np
        piv = y.numpy().reshape(-1, y.shape[-1]) - 1
        batch = list(x.shape[:-2])
        perms = np.zeros((piv.shape[0], m, m), dtype=np.float64)
        for b in range(piv.shape[0]):
            order = np.arange(m)
            for i, p in enumerate(piv[b]):
                order[i], order[p] = order[p], order[i]
            perms[b][order, np.arange(m)] = 1.0
        P = _C.cast(to_tensor(perms.reshape(batch + [m, m])), x.dtype)
    return P, L, U


def lstsq(x, y, rcond=None, driver=None, name=None):
    """Least-squares solution of ``x @ solution = y``; the minimum-norm one when x is
    rank-deficient.

    Args:
        x (Tensor): Matrices [*, m, n].
        y (Tensor): Right-hand sides [*, m, k].
        rcond (float, optional): Singular values below rcond times the largest count as zero;
            None uses the dtype's machine epsilon times max(m, n). Default: None.
        driver (str, optional): 'gels', 'gelsy', 'gelsd' or 'gelss' (None: 'gelsy'); it picks
            which of the outputs below are filled, as in Paddle. Default: None.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        tuple: (solution [*, n, k], residuals [*, k] (squared residual norms; only for
        gels/gelsd/gelss with m > n at full rank, else empty), rank [*] int32,
        singular_values [*, min(m, n)] (gelsd/gelss only, else empty)).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
        >>> y = oar.to_tensor([[1.0], [1.0], [2.0]])
        >>> solution, residuals, rank, s = oar.linalg.lstsq(x, y, driver="gelsd")
        >>> print(solution.numpy().round(4).tolist(), int(rank))
        [[1.0], [1.0]] 2
    """
    driver = driver or "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise ValueError(f"lstsq: argument 'driver' must be 'gels', 'gelsy', 'gelsd' or 'gelss', got {driver!r}")
    m, n = x.shape[-2], x.shape[-1]
    if rcond is None:
        rcond = (1.1920929e-07 if x.dtype.name == "float32" else 2.220446049250313e-16) * max(m, n)
    sol = _C.matmul(pinv(x, rcond), y)
    s = svdvals(x)
    rank = _C.sum(_C.cast(_C.greater_than(s, _C.max(s, [-1], True) * float(rcond)), convert_dtype("int32")),
                  [-1], convert_dtype("int32"), False)
    empty = _C.zeros([0], x.dtype)
    residuals = empty
    if driver != "gelsy" and m > n:  # and at full rank, which keep_if_all reads when it runs
        r = _C.matmul(x, sol) - y
        residuals = _C.keep_if_all(_C.sum(r * r, [-2], None, False), _C.equal(rank, _C.full([], n, rank.dtype)))
    return sol, residuals, rank, (s if driver in ("gelsd", "gelss") else empty)


def lu_solve(b, lu, pivots, trans="N", name=None):
    """Solves ``A @ X = b`` (or ``A^T @ X = b`` with trans 'T') from the LU factors of A.

    Args:
        b (Tensor): Right-hand sides [*, n, k].
        lu (Tensor): The packed LU factors of A, from ``oar.linalg.lu``.
        pivots (Tensor): The pivots from ``oar.linalg.lu``.
        trans (str, optional): 'N' (A), 'T' or 'C' (A^T). Default: 'N'.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        Tensor: X, [*, n, k].

    Examples:
        >>> import oar
        >>> a = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> lu, pivots = oar.linalg.lu(a)
        >>> print(oar.linalg.lu_solve(oar.to_tensor([[5.0], [11.0]]), lu, pivots))
        Tensor(shape=[2, 1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[1.],
                [2.]])
    """
    if trans not in ("N", "T", "C"):
        raise ValueError(f"lu_solve: argument 'trans' must be 'N', 'T' or 'C', got {trans!r}")
    P, L, U = lu_unpack(lu, pivots)
    if trans == "N":
        z = _C.triangular_solve(L, _C.matmul(P, b, True, False), False, False, True)
        return _C.triangular_solve(U, z, True, False, False)
    z = _C.triangular_solve(U, b, True, True, False)
    z = _C.triangular_solve(L, z, False, True, True)
    return _C.matmul(P, z)


def matrix_exp(x, name=None):
    """The matrix exponential of square matrices, by scaling and squaring.

    Args:
        x (Tensor): Square matrices [*, n, n].
        name (str, optional): Usually left unset. Default: None.

    Returns:
        Tensor: ``exp(x)``, [*, n, n].

    Examples:
        >>> import oar
        >>> print(oar.linalg.matrix_exp(oar.to_tensor([[0.0, 0.0], [0.0, 1.0]])))
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[1.        , 0.        ],
                [0.        , 2.71828...]])
    """
    # One C++ op: it reads the norm that sets the number of squarings, so a static program
    # decides it when it runs.
    return _C.matrix_exp(x)


def pinv(x, rcond=1e-15, hermitian=False, name=None):
    """The Moore-Penrose pseudo-inverse, computed through the SVD.

    Args:
        x (Tensor): Matrices [*, m, n].
        rcond (float, optional): Singular values below rcond times the largest are treated as
            zero. Default: 1e-15.
        hermitian (bool, optional): Accepted for Paddle's signature; the SVD is used either way.
            Default: False.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        Tensor: [*, n, m].

    Examples:
        >>> import oar
        >>> print(oar.linalg.pinv(oar.to_tensor([[2.0, 0.0], [0.0, 0.0]])))
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[0.50000000, 0.        ],
                [0.        , 0.        ]])
    """
    u, s, vh = _C.svd(x, False)
    cutoff = _C.max(s, [-1], True) * float(rcond)
    keep = _C.greater_than(s, cutoff)
    s_inv = _C.where(keep, 1.0 / _C.where(keep, s, _C.ones_like(s)), _C.zeros_like(s))
    return _C.matmul(_mT(vh) * _C.unsqueeze(s_inv, [-2]), u, False, True)


def matrix_rank(x, tol=None, hermitian=False, atol=None, rtol=None, name=None):
    """The rank of matrices: the number of singular values above a threshold.

    Args:
        x (Tensor): Matrices [*, m, n].
        tol (float|Tensor, optional): The threshold; overrides atol and rtol. Default: None.
        hermitian (bool, optional): Accepted for Paddle's signature; the SVD is used either way.
            Default: False.
        atol (float, optional): Absolute threshold. Default: None.
        rtol (float, optional): Threshold relative to the largest singular value; None uses
            max(m, n) times the dtype's machine epsilon (0 when atol is given). Default: None.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        Tensor: int64 [*].

    Examples:
        >>> import oar
        >>> print(int(oar.linalg.matrix_rank(oar.to_tensor([[1.0, 2.0], [2.0, 4.0]]))))
        1
    """
    s = _C.svd(x, False)[1]
    smax = _C.max(s, [-1], True)
    if tol is not None:
        thresh = _C.full([], float(tol), s.dtype) if not isinstance(tol, Tensor) else _C.unsqueeze(tol, [-1])
    else:
        eps = 1.1920929e-07 if x.dtype.name == "float32" else 2.220446049250313e-16
        r = rtol if rtol is not None else (max(x.shape[-2:]) * eps if atol is None else 0.0)
        thresh = smax * float(r)
        if atol is not None:
            thresh = _C.maximum(thresh, _C.full([], float(atol), s.dtype))
    return _C.sum(_C.cast(_C.greater_than(s, thresh), convert_dtype("int64")), [-1], None, False)


def matrix_power(x, n, name=None):
    """Raises square matrices to an integer power n (n < 0 inverts first; n = 0 gives the
    identity).

    Args:
        x (Tensor): Square matrices [*, n, n].
        n (int): The exponent.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        Tensor: [*, n, n].

    Examples:
        >>> import oar
        >>> print(oar.linalg.matrix_power(oar.to_tensor([[1.0, 1.0], [0.0, 1.0]]), 3))
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[1., 3.],
                [0., 1.]])
    """
    if n == 0:  # the identity, still connected to x (a zero gradient, as Paddle)
        return _C.broadcast_to(_C.eye(x.shape[-1], x.shape[-1], x.dtype), x.shape) + x * 0.0
    if n < 0:
        x, n = inv(x), -n
    result, base = None, x
    while n:
        if n & 1:
            result = base if result is None else _C.matmul(result, base)
        n >>= 1
        if n:
            base = _C.matmul(base, base)
    return result


def multi_dot(x, name=None):
    """The product of a chain of matrices, ``x[0] @ x[1] @ ... @ x[-1]``.

    Args:
        x (list of Tensor): The matrices (the first and last may be 1-D).
        name (str, optional): Usually left unset. Default: None.

    Returns:
        Tensor: the product.

    Examples:
        >>> import oar
        >>> print(oar.linalg.multi_dot([oar.ones([2, 3]), oar.ones([3, 4]), oar.ones([4, 5])]).shape)
        [2, 5]
    """
    out = x[0]
    for t in x[1:]:
        out = _C.matmul(out, t)
    return out


def vecdot(x, y, axis=-1, name=None):
    """The dot product of vectors along an axis: ``sum(x * y, axis)`` (x and y broadcast).

    Args:
        x (Tensor): The first vectors.
        y (Tensor): The second vectors.
        axis (int, optional): The axis of the vectors. Default: -1.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        Tensor: the broadcast shape without ``axis``.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> print(oar.linalg.vecdot(x, oar.to_tensor([[1.0, 1.0], [1.0, 0.0]])))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [3., 3.])
    """
    return _C.sum(x * y, [axis], None, False)


def cross(x, y, axis=9, name=None):
    """The cross product of 3-vectors along an axis.

    Args:
        x (Tensor): The first vectors.
        y (Tensor): The second vectors, shaped as x.
        axis (int, optional): The axis of size 3; the default 9 (as in Paddle) means the first
            dimension of size 3. Default: 9.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        Tensor: shaped as x.

    Examples:
        >>> import oar
        >>> print(oar.linalg.cross(oar.to_tensor([1.0, 0.0, 0.0]), oar.to_tensor([0.0, 1.0, 0.0])))
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0., 0., 1.])
    """
    if axis == 9:
        axis = next((d for d, s in enumerate(x.shape) if s == 3), None)
        if axis is None:
            raise ValueError(f"cross: no dimension of size 3 in x's shape {x.shape}")
    if x.shape[axis] != 3 or y.shape[axis] != 3:
        raise ValueError(f"cross: dimension {axis} of x {x.shape} and y {y.shape} must have size 3")
    a = [_C.slice(x, [axis], [i], [i + 1]) for i in range(3)]
    b = [_C.slice(y, [axis], [i], [i + 1]) for i in range(3)]
    return _C.concat([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]], axis)


def vector_norm(x, p=2.0, axis=None, keepdim=False, name=None, *, dtype=None):
    """The p-norm of the entries of a tensor, over the given axes (all by default).

    Args:
        x (Tensor): The input.
        p (float, optional): The order: any real, inf, -inf, or 0 (the count of nonzeros).
            Default: 2.0.
        axis (int|list|tuple, optional): The axes; None means all. Default: None.
        keepdim (bool, optional): Keep the reduced axes with size 1. Default: False.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        Tensor: the norms.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[3.0, -4.0], [0.0, 0.0]])
        >>> print(float(oar.linalg.vector_norm(x)), float(oar.linalg.vector_norm(x, p=float("inf"))))
        5.0 4.0
        >>> print(oar.linalg.vector_norm(x, p=1, axis=1))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [7., 0.])
    """
    axes = [] if axis is None else ([axis] if isinstance(axis, int) else list(axis))
    if p == 0:
        return _C.sum(_C.cast(_C.not_equal(x, _C.zeros_like(x)), x.dtype), axes, None, keepdim)
    return _C.p_norm(x, float(p), axes, keepdim)


def matrix_norm(x, p="fro", axis=(-2, -1), keepdim=False, name=None):
    """A matrix norm over two axes.

    Args:
        x (Tensor): The input, with at least two dimensions.
        p (str|float, optional): 'fro' (Frobenius), 'nuc' (nuclear: sum of singular values),
            1 / -1 (max / min column sum of |x|), inf / -inf (max / min row sum), or 2 / -2
            (largest / smallest singular value). Default: 'fro'.
        axis (list|tuple, optional): The two axes of the matrices. Default: (-2, -1).
        keepdim (bool, optional): Keep the reduced axes with size 1. Default: False.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        Tensor: the norms.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> print(float(oar.linalg.matrix_norm(x, p=1)), float(oar.linalg.matrix_norm(x)))
        6.0 5.477...
    """
    a0, a1 = [a + x.ndim if a < 0 else a for a in axis]
    if p == "fro":
        return _C.p_norm(x, 2.0, [a0, a1], keepdim)
    if p == "nuc" or p in (2, -2):
        m = _C.transpose(x, [d for d in range(x.ndim) if d not in (a0, a1)] + [a0, a1])
        s = svdvals(m)
        r = _C.sum(s, [-1], None, False) if p == "nuc" else (_C.max(s, [-1], False) if p == 2 else _C.min(s, [-1], False))
        if keepdim:
            for a in sorted((a0, a1)):
                r = _C.unsqueeze(r, [a])
        return r
    if p in (1, -1, math.inf, -math.inf):
        sum_axis, red_axis = (a0, a1) if p in (1, -1) else (a1, a0)
        col = _C.sum(_C.abs(x), [sum_axis], None, True)
        r = _C.max(col, [red_axis], True) if p > 0 else _C.min(col, [red_axis], True)
        return r if keepdim else _C.squeeze(r, sorted([a0, a1]))
    raise ValueError(f"matrix_norm: unsupported p={p!r}; expected 'fro', 'nuc', 1, -1, 2, -2, inf or -inf")


def norm(x, p=None, axis=None, keepdim=False, name=None):
    """A matrix or vector norm: a matrix norm when ``axis`` names two axes (or p is 'nuc'), a
    vector norm otherwise.

    Args:
        x (Tensor): The input.
        p (str|float, optional): The order; None means 'fro' for matrices and 2 for vectors.
            See matrix_norm and vector_norm. Default: None.
        axis (int|list|tuple, optional): One axis (vector norm), two (matrix norm), or None (all
            entries as one vector). Default: None.
        keepdim (bool, optional): Keep the reduced axes with size 1. Default: False.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        Tensor: the norms.

    Examples:
        >>> import oar
        >>> print(float(oar.linalg.norm(oar.to_tensor([3.0, 4.0]))))
        5.0
    """
    if isinstance(axis, (list, tuple)) and len(axis) == 2:
        return matrix_norm(x, "fro" if p is None else p, axis, keepdim)
    if p == "nuc":
        return matrix_norm(x, p, (-2, -1), keepdim)
    return vector_norm(x, 2.0 if p in (None, "fro") else p, axis, keepdim)


def cond(x, p=None, name=None):
    """The condition number of matrices: ``norm(x, p) * norm(inv(x), p)``, or the ratio of the
    extreme singular values for p None / 2 / -2.

    Args:
        x (Tensor): Matrices [*, n, n] (any [*, m, n] for p None, 2, -2).
        p (str|float, optional): None or 2 (largest / smallest singular value), -2 (the
            inverse), 'fro', 'nuc', 1, -1, inf, -inf. Default: None.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        Tensor: [*].

    Examples:
        >>> import oar
        >>> print(float(oar.linalg.cond(oar.to_tensor([[2.0, 0.0], [0.0, 0.5]]))))
        4.0
    """
    if p is None or p in (2, -2):
        s = svdvals(x)
        smax, smin = _C.max(s, [-1], False), _C.min(s, [-1], False)
        return smax / smin if p in (None, 2) else smin / smax
    return matrix_norm(x, p) * matrix_norm(inv(x), p)


def cov(x, rowvar=True, ddof=True, fweights=None, aweights=None, name=None):
    """The covariance matrix of variables observed several times.

    Args:
        x (Tensor): [variables, observations] (or the transpose with rowvar False), or 1-D (one
            variable).
        rowvar (bool, optional): Rows are variables. Default: True.
        ddof (bool, optional): Divide by observations - 1 (unbiased) instead of observations.
            Default: True.
        fweights (Tensor, optional): Frequency weights; not supported yet. Default: None.
        aweights (Tensor, optional): Observation weights; not supported yet. Default: None.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        Tensor: [variables, variables].

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 7.0]])
        >>> print(oar.linalg.cov(x))
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[1.        , 2.50000000],
                [2.50000000, 6.33333...]])
    """
    if x.ndim == 1:
        x = _C.unsqueeze(x, [0])
    if not rowvar:
        x = _mT(x)
    n = x.shape[1]
    if fweights is not None or aweights is not None:
        raise NotImplementedError("cov: fweights and aweights are not supported yet")
    xc = x - _C.mean(x, [1], True)
    return _C.matmul(xc, xc, False, True) / float(n - (1 if ddof else 0))


def corrcoef(x, rowvar=True, name=None):
    """Pearson correlation coefficients of variables observed several times, in [-1, 1].

    Args:
        x (Tensor): [variables, observations] (or the transpose with rowvar False).
        rowvar (bool, optional): Rows are variables. Default: True.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        Tensor: [variables, variables].

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])
        >>> print(oar.linalg.corrcoef(x))
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[ 1., -1.],
                [-1.,  1.]])
    """
    c = cov(x, rowvar)
    d = _C.sqrt(diagonal(c))
    return _C.clip(c / _C.unsqueeze(d, [-1]) / _C.unsqueeze(d, [0]), -1.0, 1.0)



# ---- Householder products and randomized low-rank decompositions (composites of C++ ops) ----

def _is_complex(t):
    return convert_dtype(t.dtype) in ("complex64", "complex128")


def _householder_q(x, tau):
    """Q = H_1 ... H_k, H_i = I - tau_i v_i v_i^H with v_i = (0, ..., 0, 1, x[i+1:, i]): the thin
    [..., m, n] product, batched, built with ops (so it is differentiable)."""
    m, n = x.shape[-2], x.shape[-1]
    rows = _C.arange(0, m, 1, "int64").reshape([m, 1])
    q = _C.eye(m, m, x.dtype)
    for i in range(min(tau.shape[-1], n)):
        column = _C.slice(x, [x.ndim - 1], [i], [i + 1])  # [..., m, 1]
        v = _C.where(rows > i, column, _C.where(rows == i, _C.ones_like(column), _C.zeros_like(column)))
        vh = _C.conj(_C.transpose(v, list(range(v.ndim - 2)) + [v.ndim - 1, v.ndim - 2])) if _is_complex(x) else \
            _C.transpose(v, list(range(v.ndim - 2)) + [v.ndim - 1, v.ndim - 2])
        t = _C.slice(tau, [tau.ndim - 1], [i], [i + 1]).unsqueeze(-1)  # [..., 1, 1]
        q = q - _C.matmul(_C.matmul(q, v), vh) * t
    return _C.slice(q, [q.ndim - 1], [0], [n])


def householder_product(x, tau, name=None):
    """The first n columns of the product of Householder reflectors H_1 ... H_k stored in x and tau
    (as LAPACK's geqrf leaves them): H_i = I - tau_i v_i v_i^H, v_i = (0, .., 0, 1, x[i+1:, i]).

    Args:
        x (Tensor): [*, m, n] with m >= n, the reflectors below the diagonal; float32, float64,
            complex64 or complex128.
        tau (Tensor): [*, k] with k <= n, the scale factors; x's dtype and batch dims.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        Tensor: [*, m, n], x's dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1.0, 0.0], [0.5, 1.0], [0.25, 0.5]])
        >>> q = oar.linalg.householder_product(x, oar.to_tensor([0.0, 0.0]))
        >>> print(q.numpy())
        [[1. 0.]
         [0. 1.]
         [0. 0.]]
    """
    if x.dtype != tau.dtype:
        raise AssertionError("The input x must have the same dtype with input tau.\n")
    if not (x.ndim >= 2 and tau.ndim >= 1 and x.ndim == tau.ndim + 1):
        raise AssertionError("The input x must have more than 2 dimensions, and input tau must have more than 1 "
                             "dimension,and the dimension of x is 1 larger than the dimension of tau\n")
    if x.shape[-2] < x.shape[-1]:
        raise AssertionError("The rows of input x must be greater than or equal to the columns of input x.\n")
    if x.shape[-1] < tau.shape[-1]:
        raise AssertionError("The last dim of x must be greater than tau.\n")
    if list(x.shape[:-2]) != list(tau.shape[:-1]):
        raise AssertionError("The input x must have the same batch dimensions with input tau.\n")
    return _householder_q(x, tau)


def ormqr(x, tau, y, left=True, transpose=False, name=None):
    """y multiplied by Q = householder_product(x, tau) (thin, [*, m, n]) or its transpose, from the
    left or the right, as Paddle's ormqr.

    Args:
        x (Tensor): [*, m, n], the reflectors (see householder_product).
        tau (Tensor): [*, n], the scale factors.
        y (Tensor): The matrices to multiply, x's dtype and rank.
        left (bool, optional): Q @ y (True) or y @ Q. Default: True.
        transpose (bool, optional): Use Q's transpose. Default: False.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        Tensor: the product.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1.0, 0.0], [0.5, 1.0]])
        >>> print(oar.linalg.ormqr(x, oar.to_tensor([0.0, 0.0]), oar.ones([2, 3])).numpy())
        [[1. 1. 1.]
         [1. 1. 1.]]
    """
    if not isinstance(left, bool):
        raise TypeError(f"The type of 'left' in ormqr must be bool, but received {type(left)}.")
    if not isinstance(transpose, bool):
        raise TypeError(f"The type of 'transpose' in ormqr must be bool, but received {type(transpose)}.")
    if not (x.dtype == tau.dtype and x.dtype == y.dtype):
        raise AssertionError("The input tau and y must have the same dtype with the x.\n")
    if not (x.ndim >= 2 and y.ndim >= 2 and tau.ndim >= 1):
        raise AssertionError("The input x and y must have more than 2 dimensions, and input tau must have more "
                             "than 1 dimension")
    if not (x.ndim == tau.ndim + 1 and x.ndim == y.ndim):
        raise AssertionError("the dimension of x is 1 larger than the dimension of tau\n and the dimension of x is "
                             "equal to the dimension of input")
    if x.shape[-1] != tau.shape[-1]:
        raise AssertionError("The innermost dimension of x and tau should be the same")
    inner = {(True, True): (x.shape[-2], y.shape[-2], "The row dimensions of x and y should be the same"),
             (False, True): (x.shape[-1], y.shape[-2],
                             "The column dimension of x and the row dimension of y should be the same"),
             (True, False): (x.shape[-2], y.shape[-1],
                             "The row dimension of x and the column dimension of y should be the same"),
             (False, False): (x.shape[-1], y.shape[-1], "The column dimensions of x and y should be the same")}
    a, b, message = inner[(transpose, left)]
    if a != b:
        raise AssertionError(message)
    q = householder_product(x, tau)
    if transpose:
        q = matrix_transpose(q)
    return _C.matmul(q, y) if left else _C.matmul(y, q)


def _adjoint(t):
    t = matrix_transpose(t)
    return _C.conj(t) if _is_complex(t) else t


def _range_basis(a, q, niter, shift):
    """An orthonormal [*, m, q] basis approximately spanning the range of a - shift (Halko, Martinsson
    and Tropp's randomized subspace iteration: a Gaussian sketch, then niter power steps, each
    re-orthonormalised by QR)."""
    def times(b):
        out = _C.matmul(a, b)
        return out if shift is None else out - _C.matmul(shift, b)

    def adjoint_times(b):
        out = _C.matmul(_adjoint(a), b)
        return out if shift is None else out - _C.matmul(_adjoint(shift), b)
    sketch = _C.gaussian(list(a.shape[:-2]) + [a.shape[-1], q], 0.0, 1.0, 0, a.dtype)
    basis = qr(times(sketch))[0]
    for _ in range(niter):
        basis = qr(times(qr(adjoint_times(basis))[0]))[0]
    return basis


def _check_low_rank(x, q, niter):
    from .tensor.logic import is_tensor
    if not is_tensor(x):
        raise ValueError(f"Input must be tensor, but got {type(x)}")
    m, n = x.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif min(m, n) != 0 and not (0 <= q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    return q


def svd_lowrank(x, q=None, niter=2, M=None, name=None):
    """An approximate rank-q SVD of x (or of x - M) by randomized subspace iteration: U [*, m, q],
    S [*, q], V [*, n, q] with x ~ U diag(S) V^H. Exact, up to rounding, when the rank is at most q.

    Args:
        x (Tensor): [*, m, n], float32 or float64.
        q (int, optional): The rank sought. Default: None (min(6, m, n)).
        niter (int, optional): Power iterations (more: better accuracy on slowly decaying
            spectra). Default: 2.
        M (Tensor, optional): Subtracted from x (broadcast to x's shape). Default: None.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        tuple: (U, S, V).

    Examples:
        >>> import oar
        >>> x = oar.matmul(oar.ones([5, 1]), oar.ones([1, 4]))
        >>> u, s, v = oar.linalg.svd_lowrank(x, q=1)
        >>> print(round(float(s[0]), 4))
        4.4721
    """
    q = _check_low_rank(x, q, niter)
    m, n = x.shape[-2:]
    shift = None if M is None else M.broadcast_to(x.shape)
    if m < n or n > q:  # sketch the row space: the smaller side
        basis = _range_basis(_adjoint(x), q, niter, None if shift is None else _adjoint(shift))
        b = _C.matmul(x, basis) if shift is None else _C.matmul(x, basis) - _C.matmul(shift, basis)
        u, s, vh = svd(b)
        return u, s, _C.matmul(basis, _adjoint(vh))
    basis = _range_basis(x, q, niter, shift)
    bh = _C.matmul(_adjoint(x), basis) if shift is None else \
        _C.matmul(_adjoint(x), basis) - _C.matmul(_adjoint(shift), basis)
    u, s, vh = svd(_adjoint(bh))
    return _C.matmul(basis, u), s, _adjoint(vh)


def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """Principal components of the rows of x: svd_lowrank of x with its column means removed
    (when center). V's columns are the principal directions, S**2 / (m - 1) their variances.

    Args:
        x (Tensor): [*, m, n] data, one sample per row; float32 or float64.
        q (int, optional): The number of components. Default: None (min(6, m, n)).
        center (bool, optional): Remove the column means first. Default: True.
        niter (int, optional): Power iterations. Default: 2.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        tuple: (U [*, m, q], S [*, q], V [*, n, q]).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        >>> u, s, v = oar.linalg.pca_lowrank(x, q=1)
        >>> print(round(float(s[0]), 4))
        4.0
    """
    from .tensor.logic import is_tensor
    if not is_tensor(x):
        raise ValueError(f"Input must be tensor, but got {type(x)}")
    m, n = x.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (0 <= q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(x, q, niter=niter)
    return svd_lowrank(x - x.mean(axis=-2, keepdim=True), q, niter=niter)

__all__ = ["inv", "det", "slogdet", "solve", "cholesky", "cholesky_solve", "cholesky_inverse",
           "triangular_solve", "eig", "eigvals", "eigh", "eigvalsh", "svd", "svdvals", "qr", "lu", "lu_unpack",
           "pinv", "matrix_rank", "matrix_power", "multi_dot", "vecdot", "cross", "vector_norm",
           "matrix_norm", "norm", "cond", "cov", "corrcoef", "matmul", "diagonal",
           "matrix_transpose", "lstsq", "lu_solve", "matrix_exp", "householder_product", "ormqr",
           "svd_lowrank", "pca_lowrank"]
