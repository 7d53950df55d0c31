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


def test_pow_of_complex_values_and_gradients():
    # Values against NumPy (principal branch), gradients against central differences in
    # complex128, for a tensor exponent (with broadcasting) and for Python-number exponents.
    rng = np.random.default_rng(2)
    x = rng.uniform(0.5, 1.5, (2, 3)) * rng.choice([-1, 1], (2, 3)) + 1j * rng.uniform(-1, 1, (2, 3))
    y = rng.uniform(-1, 2, (3,)) + 1j * rng.uniform(-1, 1, (3,))
    w = rng.uniform(0.5, 1.5, (2, 3))
    np.testing.assert_allclose(oar.pow(oar.to_tensor(x), oar.to_tensor(y)).numpy(), x ** y, rtol=1e-12)
    gx, gy = _analytic(oar.pow, [x, y], w)
    np.testing.assert_allclose(gx, _numeric(oar.pow, [x, y], 0, w), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(gy, _numeric(oar.pow, [x, y], 1, w), rtol=1e-5, atol=1e-7)
    for e in (2, 2.5, -1, 0.5, 0):
        fn = lambda t, e=e: oar.pow(t, e)
        out = fn(oar.to_tensor(x.astype(np.complex64)))
        assert out.dtype == oar.complex64
        np.testing.assert_allclose(out.numpy(), x.astype(np.complex64) ** e, rtol=2e-6, atol=1e-6)
        (g,) = _analytic(fn, [x], w)
        np.testing.assert_allclose(g, _numeric(fn, [x], 0, w), rtol=1e-5, atol=1e-7, err_msg=f"pow {e}")
    np.testing.assert_allclose((oar.to_tensor(x) ** 3).numpy(), x ** 3, rtol=1e-12)


def test_round_of_complex_and_halves_to_even():
    # Paddle rounds halves to even (2.5 -> 2, -0.5 -> -0), the real and imaginary parts apart.
    z = np.array([0.5 + 2.5j, -1.5 - 0.5j, 1.26 - 3.74j], np.complex64)
    np.testing.assert_array_equal(oar.round(oar.to_tensor(z)).numpy(), [0 + 2j, -2 - 0j, 1 - 4j])
    np.testing.assert_array_equal(oar.to_tensor(z).round(decimals=1).numpy(),
                                  np.round(z, 1))
    r = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 3.5])
    for dt in ("float32", "float64"):
        np.testing.assert_array_equal(oar.round(oar.to_tensor(r.astype(dt))).numpy(), np.round(r))
    np.testing.assert_allclose(oar.round(oar.to_tensor(np.array([1.25, 1234.5, -25.0])), decimals=-1).numpy(),
                               [0.0, 1230.0, -20.0])
    np.testing.assert_allclose(oar.round(oar.to_tensor(np.array([0.125, 2.675])), decimals=2).numpy(),
                               np.round(np.array([0.125, 2.675]), 2))
    np.testing.assert_array_equal(oar.round(oar.to_tensor(np.array([15, 25])), decimals=-1).numpy(), [15, 25])
    x = oar.to_tensor(z, stop_gradient=False)
    (g,) = oar.grad([oar.real(oar.round(x).sum())], [x])
    np.testing.assert_array_equal(g.numpy(), np.zeros(3, np.complex64))


def test_pow_and_round_bad_inputs():
    with pytest.raises(TypeError, match="round: unsupported dtype bool for argument 'x'"):
        oar.round(oar.to_tensor(np.array([True, False])))
    with pytest.raises(TypeError, match="pow: unsupported dtype bool for argument 'x'"):
        oar.pow(oar.to_tensor(np.array([True, False])), 2)


def test_pow_inplace_takes_numbers_only():
    x = oar.to_tensor(np.array([1.5, 2.0], np.float32))
    np.testing.assert_allclose(x.clone().pow_(2).numpy(), [2.25, 4.0])
    with pytest.raises(TypeError, match="pow_: argument 'y' must be a Python int or float, got Tensor"):
        x.clone().pow_(oar.to_tensor(np.array([2.0, 3.0], np.float32)))
