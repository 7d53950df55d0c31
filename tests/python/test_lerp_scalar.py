"""paddle.lerp accepts a Python number as the weight (as a 0-D tensor of x's dtype)."""
import numpy as np

import oar


def test_lerp_with_float_weight_matches_numpy_and_has_gradients():
    a = np.array([1.0, -2.0, 3.0])
    b = np.array([0.5, 4.0, -1.0])
    x = oar.to_tensor(a, stop_gradient=False)
    y = oar.to_tensor(b, stop_gradient=False)
    out = oar.lerp(x, y, 0.25)
    np.testing.assert_allclose(out.numpy(), a + 0.25 * (b - a))
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 0.75))
    np.testing.assert_allclose(y.grad.numpy(), np.full(3, 0.25))
    np.testing.assert_allclose(x.detach().lerp(y.detach(), 1.0).numpy(), b)
