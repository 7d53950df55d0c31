"""linalg.eig / eigvals (LAPACK ?geev): the decomposition against NumPy (A V = V diag(w), unit
columns, NumPy's order), dtypes, batches, gradients by central differences for losses that do not
depend on each eigenvector's phase (the others have no well-defined gradient), real Paddle, errors."""
import numpy as np
import pytest

import oar

RNG = np.random.default_rng(5)


def _matrix(shape, dtype):
    a = RNG.standard_normal(shape)
    if "complex" in dtype:
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_decomposition(dtype):
    a = _matrix((3, 5, 5), dtype)
    w, v = oar.linalg.eig(oar.to_tensor(a))
    single = dtype in ("float32", "complex64")
    assert w.dtype == (oar.complex64 if single else oar.complex128) and w.shape == [3, 5] and v.shape == [3, 5, 5]
    w, v = w.numpy(), v.numpy()
    tol = 1e-4 if single else 1e-10
    np.testing.assert_allclose(a @ v, v * w[:, None, :], atol=tol * 10)
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1.0, atol=tol)
    # The order is LAPACK's (?geev with and without vectors, and other LAPACK builds, may order them
    # differently): compared as sorted lists here, in order against Paddle below.
    vals = oar.linalg.eigvals(oar.to_tensor(a)).numpy()
    for got in (w, vals):
        np.testing.assert_allclose(np.sort_complex(got), np.sort_complex(np.linalg.eigvals(a)), atol=tol * 10)
    np.testing.assert_allclose(oar.to_tensor(a).eigvals().numpy(), vals, atol=tol * 10)  # the Tensor methods
    assert len(oar.to_tensor(a).eig()) == 2


def test_real_matrix_with_complex_pairs_and_edge_sizes():
    rot = np.array([[0.0, -2.0], [2.0, 0.0]])
    w, v = oar.linalg.eig(oar.to_tensor(rot))
    np.testing.assert_allclose(w.numpy(), [2j, -2j], atol=1e-6)
    np.testing.assert_allclose(v.numpy()[:, 1], np.conj(v.numpy()[:, 0]), atol=1e-6)  # the pair's vectors
    w, v = oar.linalg.eig(oar.to_tensor(np.zeros((0, 3, 3))))
    assert w.shape == [0, 3] and v.shape == [0, 3, 3]
    w, v = oar.linalg.eig(oar.to_tensor([[4.0]]))
    assert w.numpy().tolist() == [4 + 0j] and v.numpy().tolist() == [[1 + 0j]]


def _numeric(loss, a, eps=1e-6):
    g = np.zeros(a.shape, dtype=a.dtype)
    units = [1.0, 1j] if np.iscomplexobj(a) else [1.0]
    for idx in np.ndindex(a.shape):
        for u in units:
            e = np.zeros(a.shape, dtype=a.dtype)
            e[idx] = eps * u
            g[idx] += u * (loss(a + e) - loss(a - e)) / (2 * eps)
    return g


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_gradient_of_phase_invariant_losses(dtype):
    if dtype == "float64":  # real, distinct eigenvalues: an ordering that small steps keep
        q = np.linalg.qr(RNG.standard_normal((4, 4)))[0]
        a = q @ np.diag([1.0, 2.0, 3.5, -1.0]) @ np.linalg.inv(q) + 0.05 * RNG.standard_normal((4, 4))
    else:
        a = _matrix((4, 4), dtype)
    weights, gw = RNG.standard_normal((4, 4)), RNG.standard_normal(4) + 1j * RNG.standard_normal(4)

    def value(w, v, lib=oar):
        # |v|^2 and the eigenvalues: both independent of each eigenvector's phase.
        return (lib.abs(v) ** 2 * lib.to_tensor(weights)).sum() + lib.real((w * lib.to_tensor(gw)).sum())

    def loss(m):
        return float(value(*oar.linalg.eig(oar.to_tensor(m))).numpy())
    x = oar.to_tensor(a, stop_gradient=False)
    value(*oar.linalg.eig(x)).backward()
    np.testing.assert_allclose(x.grad.numpy(), _numeric(loss, a), atol=1e-6)
    assert x.grad.dtype == x.dtype
    # Only eigenvalues reached, or only eigenvectors: the other gradient is absent, not zero-filled.
    x = oar.to_tensor(a, stop_gradient=False)
    oar.real(oar.linalg.eig(x)[0].sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), _numeric(lambda m: float(np.real(
        oar.linalg.eig(oar.to_tensor(m))[0].numpy().sum())), a), atol=1e-6)


def test_matches_paddle():
    paddle = pytest.importorskip("paddle")
    for dtype in ("float32", "float64", "complex64", "complex128"):
        a = _matrix((2, 4, 4), dtype)
        (w, v), (pw, pv) = oar.linalg.eig(oar.to_tensor(a)), paddle.linalg.eig(paddle.to_tensor(a))
        np.testing.assert_allclose(w.numpy(), pw.numpy(), atol=1e-5)
        np.testing.assert_allclose(v.numpy(), pv.numpy(), atol=1e-5)
    a = _matrix((3, 3), "complex128")
    weights = RNG.standard_normal((3, 3))
    grads = []
    for lib in (oar, paddle):
        x = lib.to_tensor(a, stop_gradient=False)
        w, v = lib.linalg.eig(x)
        ((lib.abs(v) ** 2 * lib.to_tensor(weights)).sum() + lib.real(w.sum())).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], atol=1e-10)


def test_errors():
    with pytest.raises(ValueError, match="square"):
        oar.linalg.eig(oar.ones([2, 3]))
    with pytest.raises(ValueError, match="at least 2-D"):
        oar.linalg.eigvals(oar.ones([3]))
    with pytest.raises(TypeError, match="unsupported dtype int64"):
        oar.linalg.eig(oar.to_tensor([[1, 2], [3, 4]]))
    with pytest.raises(ValueError, match="NaN or Inf"):
        oar.linalg.eig(oar.to_tensor([[1.0, float("nan")], [0.0, 1.0]]))
    # The gradient op checks that its operands are eig's results for x.
    x = oar.ones([3, 3])
    w, v = oar.linalg.eig(x)
    with pytest.raises(ValueError, match="eig_grad: .*'eigenvectors'"):
        getattr(oar._C, "eig_grad")(x, w, w, None, None)


def test_static_program():
    a = _matrix((2, 3, 3), "float64")
    oar.enable_static()
    try:
        main, startup = oar.static.Program(), oar.static.Program()
        with oar.static.program_guard(main, startup):
            x = oar.static.data("x", [2, 3, 3], "float64")
            w, v = oar.linalg.eig(x)
            vals = oar.linalg.eigvals(x)
        got = oar.static.Executor().run(main, feed={"x": a}, fetch_list=[w, v, vals])
    finally:
        oar.disable_static()
    np.testing.assert_allclose(got[0], np.linalg.eigvals(a), atol=1e-10)
    np.testing.assert_allclose(np.sort_complex(got[2]), np.sort_complex(got[0]), atol=1e-12)
    np.testing.assert_allclose(a @ got[1], got[1] * got[0][:, None, :], atol=1e-10)
