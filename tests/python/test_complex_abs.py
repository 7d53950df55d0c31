"""abs of complex tensors: real magnitudes (float32 for complex64), and Paddle's gradient
dout * x / |x| (0 at 0). Values measured from Paddle 3.3.1 are written in as constants."""
import numpy as np
import pytest

import oar


@pytest.mark.parametrize("ctype,rtype", [("complex64", "float32"), ("complex128", "float64")])
def test_abs_of_complex_is_real_magnitude(ctype, rtype):
    a = np.array([1 + 2j, -3 + 0.5j, 0j, -4j], ctype)
    out = oar.abs(oar.to_tensor(a))
    assert out.dtype == getattr(oar, rtype)
    np.testing.assert_allclose(out.numpy(), np.abs(a), rtol=1e-6)


def test_abs_gradient_matches_paddle():
    x = oar.to_tensor(np.array([1 + 2j, -3 + 0.5j, 0j], np.complex64), stop_gradient=False)
    (g,) = oar.grad([oar.abs(x).sum()], [x])
    # paddle.grad([paddle.abs(x).sum()], [x]) on the same input:
    expected = np.array([0.4472136 + 0.8944272j, -0.9863939 + 0.16439898j, 0j], np.complex64)
    np.testing.assert_allclose(g.numpy(), expected, rtol=1e-6, atol=1e-7)


def test_abs_gradient_is_numeric_derivative_in_float64():
    a = np.array([0.3 - 1.2j, 2.0 + 0.7j])
    w = np.array([0.5, -1.5])
    x = oar.to_tensor(a, stop_gradient=False)
    (g,) = oar.grad([(oar.abs(x) * oar.to_tensor(w)).sum()], [x])
    # Paddle's convention for a real loss L of complex x: dL/dRe + i dL/dIm.
    eps = 1e-7
    numeric = np.array([(np.abs(a[k] + eps) - np.abs(a[k] - eps)) / (2 * eps) * w[k]
                        + 1j * (np.abs(a[k] + 1j * eps) - np.abs(a[k] - 1j * eps)) / (2 * eps) * w[k]
                        for k in range(2)])
    np.testing.assert_allclose(g.numpy(), numeric, rtol=1e-6)


def test_abs_inplace_on_complex_becomes_real_as_paddle():
    x = oar.to_tensor(np.array([3 + 4j, -5j], np.complex64))
    y = x.abs_()
    # Paddle 3.3.1: abs_ on complex64 returns x itself, now float32 holding the magnitudes.
    assert y is x and x.dtype == oar.float32
    np.testing.assert_allclose(x.numpy(), [5.0, 5.0])
    real = oar.to_tensor([-1.5, 2.0])
    view = real[0:1]
    oar.abs_(real)  # a real tensor is overwritten in its own storage: views see it
    np.testing.assert_allclose(view.numpy(), [1.5])
