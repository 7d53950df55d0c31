"""linalg.householder_product, ormqr (Householder reflectors as LAPACK's geqrf stores them) and the
randomized low-rank decompositions svd_lowrank / pca_lowrank: against NumPy constructions, real
Paddle, gradients by central differences, and Paddle's argument errors."""
import numpy as np
import pytest

import oar
from op_test import check_grad

RNG = np.random.default_rng(9)


def _np_householder(x, tau):
    m, n = x.shape
    q = np.eye(m, dtype=x.dtype)
    for i in range(len(tau)):
        v = np.zeros(m, dtype=x.dtype)
        v[i] = 1
        v[i + 1:] = x[i + 1:, i]
        q = q @ (np.eye(m) - tau[i] * np.outer(v, np.conj(v)))
    return q[:, :n]


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_householder_product_and_ormqr(dtype):
    x = RNG.standard_normal((3, 6, 4))
    tau = RNG.uniform(0.5, 1.5, (3, 4))
    if dtype == "complex128":
        x, tau = x + 1j * RNG.standard_normal(x.shape), tau + 0.3j
    x, tau = x.astype(dtype), tau.astype(dtype)
    q = oar.linalg.householder_product(oar.to_tensor(x), oar.to_tensor(tau)).numpy()
    tol = 1e-5 if dtype == "float32" else 1e-12
    for b in range(3):
        np.testing.assert_allclose(q[b], _np_householder(x[b], tau[b]), atol=tol)
    y = RNG.standard_normal((3, 4, 5)).astype(dtype)
    got = oar.linalg.ormqr(oar.to_tensor(x), oar.to_tensor(tau), oar.to_tensor(y)).numpy()
    np.testing.assert_allclose(got, q @ y, atol=tol * 10)
    # From the right, Paddle's ormqr takes the thin Q as is: square x only.
    xs, ts = x[:, :4, :], tau
    qs = oar.linalg.householder_product(oar.to_tensor(xs), oar.to_tensor(ts)).numpy()
    y2 = RNG.standard_normal((3, 2, 4)).astype(dtype)
    got = oar.linalg.ormqr(oar.to_tensor(xs), oar.to_tensor(ts), oar.to_tensor(y2), left=False).numpy()
    np.testing.assert_allclose(got, y2 @ qs, atol=tol * 10)
    y3 = RNG.standard_normal((3, 6, 2)).astype(dtype)
    got = oar.linalg.ormqr(oar.to_tensor(x), oar.to_tensor(tau), oar.to_tensor(y3), transpose=True).numpy()
    np.testing.assert_allclose(got, np.swapaxes(q, -1, -2) @ y3, atol=tol * 10)


def test_householder_product_is_qrs_q():
    # With tau_i = 2 / |v_i|^2 for unit-leading v_i, each H_i is a reflection: Q is orthonormal.
    x = RNG.standard_normal((5, 3))
    v = np.tril(x, -1) + np.eye(5, 3)
    tau = 2 / (v ** 2).sum(axis=0)
    q = oar.linalg.householder_product(oar.to_tensor(x), oar.to_tensor(tau)).numpy()
    np.testing.assert_allclose(q.T @ q, np.eye(3), atol=1e-12)


def test_gradients():
    x, tau = RNG.standard_normal((4, 3)), RNG.standard_normal(3)
    check_grad(lambda a, t: oar.linalg.householder_product(a, t), [x, tau])
    y = RNG.standard_normal((3, 2))
    check_grad(lambda a, t, b: oar.linalg.ormqr(a, t, b), [x, tau, y])


def test_matches_paddle():
    paddle = pytest.importorskip("paddle")
    x, tau = RNG.standard_normal((2, 5, 3)), RNG.standard_normal((2, 3))
    y = RNG.standard_normal((2, 5, 4))
    mine = oar.linalg.ormqr(oar.to_tensor(x), oar.to_tensor(tau), oar.to_tensor(y), True, True)
    theirs = paddle.linalg.ormqr(paddle.to_tensor(x), paddle.to_tensor(tau), paddle.to_tensor(y), True, True)
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), atol=1e-12)
    a = RNG.standard_normal((9, 3)) @ RNG.standard_normal((3, 7))
    s = oar.linalg.svd_lowrank(oar.to_tensor(a), q=3)[1].numpy()
    np.testing.assert_allclose(s, paddle.linalg.svd_lowrank(paddle.to_tensor(a), q=3)[1].numpy(), atol=1e-10)
    s = oar.linalg.pca_lowrank(oar.to_tensor(a), q=3)[1].numpy()  # rank 3: exact (the sketches differ)
    np.testing.assert_allclose(s, paddle.linalg.pca_lowrank(paddle.to_tensor(a), q=3)[1].numpy(), atol=1e-10)


@pytest.mark.parametrize("shape,rank,q", [((8, 6), 3, 3), ((5, 9), 2, 4), ((2, 10, 7), 4, 4), ((6, 6), 2, None)])
def test_svd_lowrank_recovers_low_rank_matrices(shape, rank, q):
    a = RNG.standard_normal(shape[:-1] + (rank,)) @ RNG.standard_normal(shape[:-2] + (rank, shape[-1]))
    u, s, v = oar.linalg.svd_lowrank(oar.to_tensor(a), q=q)
    k = q or min(6, *shape[-2:])
    assert u.shape == list(shape[:-1]) + [k] and s.shape == list(shape[:-2]) + [k] and v.shape == list(
        shape[:-2]) + [shape[-1], k]
    np.testing.assert_allclose(u.numpy() @ (s.numpy()[..., None] * np.swapaxes(v.numpy(), -1, -2)), a, atol=1e-10)
    np.testing.assert_allclose(s.numpy()[..., :rank], np.linalg.svd(a, compute_uv=False)[..., :rank], atol=1e-10)
    np.testing.assert_allclose(np.swapaxes(u.numpy(), -1, -2) @ u.numpy(), np.broadcast_to(np.eye(k), tuple(s.shape) + (k,)),
                               atol=1e-10)


def test_svd_lowrank_with_m_and_pca():
    a = RNG.standard_normal((7, 2)) @ RNG.standard_normal((2, 5))
    shift = RNG.standard_normal((1, 5))
    u, s, v = oar.linalg.svd_lowrank(oar.to_tensor(a + shift), q=3, M=oar.to_tensor(shift))
    np.testing.assert_allclose(u.numpy() @ np.diag(s.numpy()) @ v.numpy().T, a, atol=1e-10)
    data = RNG.standard_normal((30, 4)) @ np.diag([4.0, 2.0, 0.5, 0.1]) + 3.0
    u, s, v = oar.linalg.pca_lowrank(oar.to_tensor(data), q=2, niter=6)
    expected = np.linalg.svd(data - data.mean(0), compute_uv=False)[:2]
    np.testing.assert_allclose(s.numpy(), expected, rtol=1e-6)
    _, s_raw, _ = oar.linalg.pca_lowrank(oar.to_tensor(data), q=4, center=False)  # q = n: exact
    np.testing.assert_allclose(s_raw.numpy(), np.linalg.svd(data, compute_uv=False), rtol=1e-10)


def test_errors():
    x, tau = oar.ones([4, 3]), oar.ones([3])
    with pytest.raises(AssertionError, match="same dtype"):
        oar.linalg.householder_product(x, oar.ones([3], dtype="float64"))
    with pytest.raises(AssertionError, match="rows of input x must be greater"):
        oar.linalg.householder_product(oar.ones([2, 3]), tau)
    with pytest.raises(AssertionError, match="same batch dimensions"):
        oar.linalg.householder_product(oar.ones([2, 4, 3]), oar.ones([3, 3]))
    with pytest.raises(AssertionError, match="column dimension of x and the row dimension of y"):
        oar.linalg.ormqr(x, tau, oar.ones([4, 2]))
    with pytest.raises(TypeError, match="'left' in ormqr must be bool"):
        oar.linalg.ormqr(x, tau, oar.ones([3, 2]), left=1)
    with pytest.raises(ValueError, match=r"q\(=5\) must be non-negative integer and not greater than min\(m, n\)=3"):
        oar.linalg.svd_lowrank(oar.ones([3, 4]), q=5)
    with pytest.raises(ValueError, match=r"niter\(=-1\)"):
        oar.linalg.pca_lowrank(oar.ones([3, 4]), niter=-1)
    with pytest.raises(ValueError, match="Input must be tensor"):
        oar.linalg.svd_lowrank([[1.0]])
