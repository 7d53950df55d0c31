"""oar.linalg (LAPACK-backed ops and the functions built on them) against NumPy, with float64
gradient checks (symmetric inputs symmetrised inside the checked function) and errors."""
import numpy as np
import pytest

import oar
from op_test import check_grad, rand

T = oar.to_tensor
L = oar.linalg
RNG = np.random.default_rng(90)


def well_conditioned(*shape):
    n = shape[-1]
    return RNG.random(shape) + 2 * np.eye(n)


def spd(*shape):
    a = RNG.random(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def sym(t):
    return (t + oar.linalg.matrix_transpose(t)) * 0.5


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_inv_det_slogdet_solve(dt):
    tol = 1e-4 if dt == "float32" else 1e-10
    a = well_conditioned(2, 3, 3).astype(dt)
    np.testing.assert_allclose(L.inv(T(a)).numpy(), np.linalg.inv(a), rtol=tol, atol=tol)
    np.testing.assert_allclose(L.det(T(a)).numpy(), np.linalg.det(a), rtol=tol)
    sl = L.slogdet(T(a)).numpy()
    sign, logabs = np.linalg.slogdet(a)
    assert sl.shape == (2, 2)
    np.testing.assert_allclose(sl[0], sign)
    np.testing.assert_allclose(sl[1], logabs, rtol=tol)
    b = RNG.random((2, 3, 2)).astype(dt)
    np.testing.assert_allclose(L.solve(T(a), T(b)).numpy(), np.linalg.solve(a, b), rtol=tol, atol=tol)
    np.testing.assert_allclose(L.solve(T(a[0]), T(b[0, :, 0])).numpy(), np.linalg.solve(a[0], b[0, :, 0]), rtol=tol, atol=tol)
    np.testing.assert_allclose(L.solve(T(a), T(np.swapaxes(b, -1, -2)), left=False).numpy(),
                               np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), b), -1, -2), rtol=tol, atol=tol)
    assert L.inv(T(a)).dtype.name == dt


def test_gradients_inv_det_solve():
    a = well_conditioned(3, 3)
    check_grad(L.inv, [a], what="inv")
    check_grad(L.det, [a], what="det")
    check_grad(lambda t: L.slogdet(t), [a], what="slogdet")
    check_grad(L.solve, [a, RNG.random((3, 2))], what="solve")
    check_grad(lambda t: L.inv(t), [well_conditioned(2, 3, 3)], what="inv batched")


def test_cholesky_triangular_solve():
    s = spd(2, 4, 4)
    c = L.cholesky(T(s)).numpy()
    np.testing.assert_allclose(c, np.linalg.cholesky(s), rtol=1e-10)
    np.testing.assert_allclose(L.cholesky(T(s), upper=True).numpy(), np.swapaxes(np.linalg.cholesky(s), -1, -2), rtol=1e-10)
    b = RNG.random((2, 4, 3))
    for upper in (True, False):
        for trans in (False, True):
            tri = np.triu(c[0].T) if upper else np.tril(c[0])
            got = L.triangular_solve(T(tri), T(b[0]), upper=upper, transpose=trans).numpy()
            want = np.linalg.solve(tri.T if trans else tri, b[0])
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(L.cholesky_solve(T(b), T(c)).numpy(), np.linalg.solve(s, b), rtol=1e-9)
    np.testing.assert_allclose(L.cholesky_inverse(T(c[0])).numpy(), np.linalg.inv(s[0]), rtol=1e-9)
    check_grad(lambda t: L.cholesky(sym(t)), [spd(3, 3)], what="cholesky")
    check_grad(lambda t: L.cholesky(sym(t), upper=True), [spd(3, 3)], what="cholesky upper")
    tri = np.tril(well_conditioned(3, 3))
    check_grad(lambda t, y: L.triangular_solve(t, y, upper=False), [tri, RNG.random((3, 2))],
               what="triangular_solve")
    check_grad(lambda t, y: L.triangular_solve(t, y, upper=True, transpose=True), [np.triu(well_conditioned(3, 3)), RNG.random((3, 2))],
               what="triangular_solve upper transpose")
    with pytest.raises(ValueError, match="cholesky: the input is not positive definite"):
        L.cholesky(T(-np.eye(3)))


def test_eigh_svd_qr_lu():
    s = spd(2, 4, 4)
    w, v = L.eigh(T(s))
    np.testing.assert_allclose(w.numpy(), np.linalg.eigvalsh(s), rtol=1e-10)
    np.testing.assert_allclose(v.numpy() @ (w.numpy()[..., None] * np.swapaxes(v.numpy(), -1, -2)), s, rtol=1e-9)
    np.testing.assert_allclose(L.eigvalsh(T(s), UPLO="U").numpy(), np.linalg.eigvalsh(s, UPLO="U"), rtol=1e-10)
    check_grad(lambda t: L.eigh(sym(t))[0], [spd(3, 3)], what="eigh values")
    check_grad(lambda t: oar.abs(L.eigh(sym(t))[1]), [spd(3, 3)], what="eigh vectors (sign-free)")
    a = RNG.random((2, 4, 3))
    u, sv, vh = L.svd(T(a))
    np.testing.assert_allclose(sv.numpy(), np.linalg.svd(a)[1], rtol=1e-10)
    np.testing.assert_allclose((u.numpy() * sv.numpy()[..., None, :]) @ vh.numpy(), a, rtol=1e-9, atol=1e-12)
    uf, _, vhf = L.svd(T(a), full_matrices=True)
    assert uf.shape == [2, 4, 4] and vhf.shape == [2, 3, 3]
    np.testing.assert_allclose(L.svdvals(T(a)).numpy(), np.linalg.svd(a)[1], rtol=1e-10)
    check_grad(L.svdvals, [a[0]], what="svdvals")
    # Through u and vh too (sign-free functions of them: the reconstruction, and |u|, |vh|).
    check_grad(lambda t: oar.abs(L.svd(t)[0]), [a[0]], what="svd u (tall)")
    check_grad(lambda t: oar.abs(L.svd(t)[2]), [a[0].T.copy()], what="svd vh (wide)")
    q, r = L.qr(T(a))
    np.testing.assert_allclose(q.numpy() @ r.numpy(), a, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(np.abs(r.numpy()), np.abs(np.linalg.qr(a)[1]), rtol=1e-9, atol=1e-12)
    qc, rc = L.qr(T(a), mode="complete")
    assert qc.shape == [2, 4, 4] and rc.shape == [2, 4, 3]
    assert L.qr(T(a), mode="r").shape == [2, 3, 3]
    m = well_conditioned(3, 3)
    lu, piv = L.lu(T(m))
    assert piv.dtype == oar.int32
    P, Lo, U = L.lu_unpack(lu, piv)
    np.testing.assert_allclose(P.numpy() @ Lo.numpy() @ U.numpy(), m, rtol=1e-10)
    _, _, infos = L.lu(T(m), get_infos=True)
    assert int(infos) == 0
    lu2, _, _ = oar.lu_base(T(m))  # the C++ op behind lu
    np.testing.assert_allclose(lu2.numpy(), lu.numpy())


def test_built_on_top():
    a = well_conditioned(3, 3)
    t = T(a)
    np.testing.assert_allclose(L.pinv(t).numpy(), np.linalg.pinv(a), rtol=1e-9)
    r = RNG.random((4, 3))
    np.testing.assert_allclose(L.pinv(T(r)).numpy(), np.linalg.pinv(r), rtol=1e-9, atol=1e-12)
    assert int(L.matrix_rank(T(np.ones((3, 3))))) == 1 and int(L.matrix_rank(t)) == 3
    np.testing.assert_allclose(L.matrix_power(t, 3).numpy(), np.linalg.matrix_power(a, 3), rtol=1e-10)
    np.testing.assert_allclose(L.matrix_power(t, -2).numpy(), np.linalg.matrix_power(a, -2), rtol=1e-9)
    np.testing.assert_allclose(L.matrix_power(t, 0).numpy(), np.eye(3))
    np.testing.assert_allclose(L.cond(t).numpy(), np.linalg.cond(a), rtol=1e-9)
    np.testing.assert_allclose(L.cond(t, "fro").numpy(), np.linalg.cond(a, "fro"), rtol=1e-9)
    np.testing.assert_allclose(L.multi_dot([t, t, t]).numpy(), a @ a @ a, rtol=1e-12)
    x, y = RNG.random((4, 3)), RNG.random((4, 3))
    np.testing.assert_allclose(L.cross(T(x), T(y)).numpy(), np.cross(x, y), rtol=1e-12)
    np.testing.assert_allclose(L.vecdot(T(x), T(y)).numpy(), (x * y).sum(-1), rtol=1e-12)
    np.testing.assert_allclose(L.vector_norm(T(x), 3, axis=1).numpy(), np.linalg.norm(x, 3, axis=1), rtol=1e-12)
    for p in ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
        np.testing.assert_allclose(L.matrix_norm(t, p).numpy(), np.linalg.norm(a, p), rtol=1e-9, err_msg=str(p))
    np.testing.assert_allclose(L.norm(t).numpy(), np.linalg.norm(a), rtol=1e-12)
    np.testing.assert_allclose(L.norm(t, 2, axis=[0, 1]).numpy(), np.linalg.norm(a, 2), rtol=1e-9)
    np.testing.assert_allclose(L.cov(T(x)).numpy(), np.cov(x), rtol=1e-10)
    np.testing.assert_allclose(L.corrcoef(T(x)).numpy(), np.corrcoef(x), rtol=1e-10)
    np.testing.assert_allclose(oar.kron(T(x[:2, :2]), T(y)).numpy(), np.kron(x[:2, :2], y), rtol=1e-12)
    check_grad(L.pinv, [r], what="pinv")
    check_grad(lambda u, v: L.cross(u, v), [x, y], what="cross")
    check_grad(lambda u: oar.kron(u, T(y)), [x[:2, :2]], what="kron")


def test_errors():
    with pytest.raises(ValueError, match="inv: the input is not invertible"):
        L.inv(T(np.array([[1.0, 2.0], [2.0, 4.0]])))
    with pytest.raises(ValueError, match=r"inv: argument 'x' must hold square matrices, got shape \[2, 3\]"):
        L.inv(T(np.ones((2, 3))))
    with pytest.raises(TypeError, match="det: unsupported dtype int64"):
        L.det(T(np.eye(2, dtype=np.int64)))
    with pytest.raises(ValueError, match=r"solve_base: 'y' must be \[\.\.\., 3, k\]"):
        oar.solve_base(T(np.eye(3)), T(np.ones((2, 1))))
    with pytest.raises(ValueError, match="solve: the matrix 'x' is singular"):
        L.solve(T(np.zeros((2, 2))), T(np.ones((2, 1))))
    with pytest.raises(ValueError, match="eigh: argument 'UPLO' must be 'L' or 'U'"):
        L.eigh(T(np.eye(2)), UPLO="X")
    assert float(L.det(T(np.array([[1.0, 2.0], [2.0, 4.0]])))) == 0.0


def test_lstsq_lu_solve_matrix_exp():
    a, b = RNG.random((5, 3)), RNG.random((5, 2))
    sol, res, rank, sv = L.lstsq(T(a), T(b), driver="gelsd")
    want = np.linalg.lstsq(a, b, rcond=None)
    np.testing.assert_allclose(sol.numpy(), want[0], rtol=1e-9)
    np.testing.assert_allclose(res.numpy(), want[1], rtol=1e-9)
    assert int(rank) == 3 and rank.dtype == oar.int32
    np.testing.assert_allclose(sv.numpy(), want[3], rtol=1e-10)
    sol, res, _, sv = L.lstsq(T(a), T(b))  # gelsy: no residuals or singular values
    assert res.shape == [0] and sv.shape == [0]
    deficient = np.ones((4, 3))
    sol = L.lstsq(T(deficient), T(np.arange(4.0)[:, None]))[0]
    np.testing.assert_allclose(sol.numpy(), np.linalg.pinv(deficient) @ np.arange(4.0)[:, None], rtol=1e-9)
    with pytest.raises(ValueError, match="lstsq: argument 'driver'"):
        L.lstsq(T(a), T(b), driver="qr")
    m = well_conditioned(3, 3)
    lu, piv = L.lu(T(m))
    rhs = RNG.random((3, 2))
    np.testing.assert_allclose(L.lu_solve(T(rhs), lu, piv).numpy(), np.linalg.solve(m, rhs), rtol=1e-9)
    np.testing.assert_allclose(L.lu_solve(T(rhs), lu, piv, trans="T").numpy(), np.linalg.solve(m.T, rhs), rtol=1e-9)
    s = spd(3, 3) / 4
    w, v = np.linalg.eigh(s)
    np.testing.assert_allclose(L.matrix_exp(T(s)).numpy(), (v * np.exp(w)) @ v.T, rtol=1e-10)
    rot = np.array([[0.0, 1.0], [-1.0, 0.0]]) * 3
    np.testing.assert_allclose(L.matrix_exp(T(rot)).numpy(), [[np.cos(3), np.sin(3)], [-np.sin(3), np.cos(3)]], rtol=1e-10)
    check_grad(L.matrix_exp, [RNG.random((3, 3))], what="matrix_exp")
    check_grad(lambda x, y: L.lstsq(x, y)[0], [a, b], what="lstsq")
