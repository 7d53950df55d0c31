"""Gradients of complex inputs follow Paddle's convention: for a real loss L, dL/dz = dL/dRe(z) + i dL/dIm(z)
(the incoming gradient times the conjugate derivative). Checked by central differences in complex128."""
import numpy as np
import pytest

import oar

UNARY = ["exp", "log", "sqrt", "sin", "cos", "tanh", "square", "reciprocal", "abs", "neg", "expm1", "log2", "log10",
         "log1p", "tan", "asin", "acos", "atan", "sinh", "cosh", "sigmoid"]


def _loss(fn, arrays, w):
    out = fn(*[oar.to_tensor(a) for a in arrays]).numpy()
    return float(np.sum(np.real(out * w)))


def _numeric(fn, arrays, which, w, eps=1e-6):
    base = arrays[which]
    g = np.zeros_like(base)
    for idx in np.ndindex(base.shape):
        for unit in (1.0, 1j):
            plus = [a.copy() for a in arrays]
            minus = [a.copy() for a in arrays]
            plus[which][idx] += unit * eps
            minus[which][idx] -= unit * eps
            g[idx] += unit * (_loss(fn, plus, w) - _loss(fn, minus, w)) / (2 * eps)
    return g


def _analytic(fn, arrays, w):
    xs = [oar.to_tensor(a, stop_gradient=False) for a in arrays]
    out = fn(*xs)
    wt = oar.to_tensor(w.astype(out.numpy().dtype))
    loss = oar.real((out * wt).sum()) if out.dtype in (oar.complex64, oar.complex128) else (out * wt).sum()
    return [g.numpy() for g in oar.grad([loss], xs)]


@pytest.mark.parametrize("name", UNARY)
def test_unary_complex_gradient(name):
    rng = np.random.default_rng(0)
    z = (rng.uniform(0.3, 1.5, (2, 3)) * rng.choice([-1, 1], (2, 3)) + 1j * rng.uniform(-1, 1, (2, 3)))
    fn = getattr(oar, name)
    w = rng.uniform(0.5, 1.5, (2, 3))
    (g,) = _analytic(fn, [z], w)
    np.testing.assert_allclose(g, _numeric(fn, [z], 0, w), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide"])
def test_binary_complex_gradient_with_broadcast(name):
    rng = np.random.default_rng(1)
    x = rng.uniform(0.5, 1.5, (2, 3)) + 1j * rng.uniform(-1, 1, (2, 3))
    y = rng.uniform(0.5, 1.5, (3,)) + 1j * rng.uniform(-1, 1, (3,))
    fn = getattr(oar, name)
    w = rng.uniform(0.5, 1.5, (2, 3))
    gx, gy = _analytic(fn, [x, y], w)
    np.testing.assert_allclose(gx, _numeric(fn, [x, y], 0, w), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(gy, _numeric(fn, [x, y], 1, w), rtol=1e-5, atol=1e-7)


def test_complex_sign_and_predicates():
    z = np.array([3 + 4j, 0j, complex(np.nan, 1), complex(1, np.inf)], np.complex64)
    t = oar.to_tensor(z)
    np.testing.assert_allclose(oar.sign(t).numpy()[:2], [0.6 + 0.8j, 0j], rtol=1e-6)
    np.testing.assert_array_equal(oar.isnan(t).numpy(), [False, False, True, False])
    np.testing.assert_array_equal(oar.isinf(t).numpy(), [False, False, False, True])
    np.testing.assert_array_equal(oar.isfinite(t).numpy(), [True, True, False, False])
