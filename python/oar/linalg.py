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
    """X with x @ X = y (left) or X @ x = y; y may be [..., n] (a vector per matrix)."""
    vector = y.ndim == x.ndim - 1
    if vector:
        y = _C.unsqueeze(y, [-1])
    if left:
        res = _C.solve_base(x, y)
    else:
        res = _mT(_C.solve_base(_mT(x), _mT(y)))
    return _C.squeeze(res, [-1]) if vector else res


def cholesky_solve(x, y, upper=False, name=None):
    """Solves A X = x with A = y y^T (y the lower Cholesky factor; upper: A = y^T y)."""
    if upper:
        z = _C.triangular_solve(y, x, True, True, False)
        return _C.triangular_solve(y, z, True, False, False)
    z = _C.triangular_solve(y, x, False, False, False)
    return _C.triangular_solve(y, z, False, True, False)


def cholesky_inverse(x, upper=False, name=None):
    """(x x^T)^-1 for a lower factor x (x^T x when upper), every entry of x counting (as Paddle)."""
    return inv(_C.matmul(x, x, upper, not upper))


def eigh(x, UPLO="L", name=None):
    return tuple(_C.eigh(x, UPLO))


def eigvalsh(x, UPLO="L", name=None):
    return _C.eigh(x, UPLO)[0]


def svd(x, full_matrices=False, name=None, *, out=None):
    return tuple(_C.svd(x, full_matrices))


def svdvals(x, name=None):
    return _C.svd(x, False)[1]


def qr(x, mode="reduced", name=None):
    q, r = _C.qr(x, mode)
    return r if mode == "r" else (q, r)


def lu(x, pivot=True, get_infos=False, name=None):
    if not pivot:
        raise NotImplementedError("lu: pivot=False is not supported on the CPU (as Paddle)")
    lu_, piv, infos = _C.lu_base(x)
    return (lu_, piv, infos) if get_infos else (lu_, piv)


def lu_unpack(x, y, unpack_ludata=True, unpack_pivots=True, name=None):
    """(P, L, U) from lu's packed factors x and 1-based pivots y, with x = P @ L @ U."""
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
    """Least-squares solution of x @ sol = y (minimum norm when rank-deficient), as Paddle:
    (solution, residuals, rank, singular_values); residuals only for gels/gelsd/gelss with
    m > n at full rank, singular values only for gelsd/gelss (empty tensors otherwise)."""
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
    """X with A X = b (trans 'N') or A^T X = b ('T'), from lu's factors of A = P L U."""
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
    """exp of square matrices by scaling and squaring (one C++ op: it reads the norm that sets
    the number of squarings, so a static program decides it when it runs)."""
    return _C.matrix_exp(x)


def pinv(x, rcond=1e-15, hermitian=False, name=None):
    """Moore-Penrose inverse through the SVD, singular values below rcond * max dropped."""
    u, s, vh = _C.svd(x, False)
    cutoff = _C.max(s, [-1], True) * float(rcond)
    keep = _C.greater_than(s, cutoff)
    s_inv = _C.where(keep, 1.0 / _C.where(keep, s, _C.ones_like(s)), _C.zeros_like(s))
    return _C.matmul(_mT(vh) * _C.unsqueeze(s_inv, [-2]), u, False, True)


def matrix_rank(x, tol=None, hermitian=False, atol=None, rtol=None, name=None):
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
    out = x[0]
    for t in x[1:]:
        out = _C.matmul(out, t)
    return out


def vecdot(x, y, axis=-1, name=None):
    return _C.sum(x * y, [axis], None, False)


def cross(x, y, axis=9, name=None):
    """Cross product along `axis` (Paddle's default 9: the first dim of size 3)."""
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
    axes = [] if axis is None else ([axis] if isinstance(axis, int) else list(axis))
    if p == 0:
        return _C.sum(_C.cast(_C.not_equal(x, _C.zeros_like(x)), x.dtype), axes, None, keepdim)
    return _C.p_norm(x, float(p), axes, keepdim)


def matrix_norm(x, p="fro", axis=(-2, -1), keepdim=False, name=None):
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
    """A matrix norm over a pair of axes (p 'fro' by default), else a vector norm (p 2)."""
    if isinstance(axis, (list, tuple)) and len(axis) == 2:
        return matrix_norm(x, "fro" if p is None else p, axis, keepdim)
    if p == "nuc":
        return matrix_norm(x, p, (-2, -1), keepdim)
    return vector_norm(x, 2.0 if p in (None, "fro") else p, axis, keepdim)


def cond(x, p=None, name=None):
    if p is None or p in (2, -2):
        s = svdvals(x)
        smax, smin = _C.max(s, [-1], False), _C.min(s, [-1], False)
        return smax / smin if p in (None, 2) else smin / smax
    return matrix_norm(x, p) * matrix_norm(inv(x), p)


def cov(x, rowvar=True, ddof=True, fweights=None, aweights=None, name=None):
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
    c = cov(x, rowvar)
    d = _C.sqrt(diagonal(c))
    return _C.clip(c / _C.unsqueeze(d, [-1]) / _C.unsqueeze(d, [0]), -1.0, 1.0)


__all__ = ["inv", "det", "slogdet", "solve", "cholesky", "cholesky_solve", "cholesky_inverse",
           "triangular_solve", "eigh", "eigvalsh", "svd", "svdvals", "qr", "lu", "lu_unpack",
           "pinv", "matrix_rank", "matrix_power", "multi_dot", "vecdot", "cross", "vector_norm",
           "matrix_norm", "norm", "cond", "cov", "corrcoef", "matmul", "diagonal",
           "matrix_transpose", "lstsq", "lu_solve", "matrix_exp"]
