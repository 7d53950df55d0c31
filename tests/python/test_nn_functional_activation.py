"""oar.nn.functional activations: Paddle's names and keyword arguments, NumPy references."""
import numpy as np
import pytest

import oar
import oar.nn.functional as F
from op_test import check_grad, rand

X = rand((3, 5), low=-4, high=4, seed=11)

CASES = [
    ("relu", {}, lambda a: np.maximum(a, 0)),
    ("relu6", {}, lambda a: np.clip(a, 0, 6)),
    ("leaky_relu", {"negative_slope": 0.2}, lambda a: np.where(a > 0, a, 0.2 * a)),
    ("elu", {"alpha": 0.5}, lambda a: np.where(a > 0, a, 0.5 * np.expm1(a))),
    ("silu", {}, lambda a: a / (1 + np.exp(-a))),
    ("sigmoid", {}, lambda a: 1 / (1 + np.exp(-a))),
    ("hardsigmoid", {}, lambda a: np.clip(a / 6 + 0.5, 0, 1)),
    ("hardswish", {}, lambda a: a * np.clip(a + 3, 0, 6) / 6),
    ("softplus", {"beta": 2.0, "threshold": 5.0},
     lambda a: np.where(2 * a > 5, a, np.log1p(np.exp(2 * a)) / 2)),
    ("tanh", {}, np.tanh),
    ("gelu", {"approximate": True},
     lambda a: 0.5 * a * (1 + np.tanh(np.sqrt(2 / np.pi) * (a + 0.044715 * a ** 3)))),
    ("softmax", {"axis": 0}, lambda a: np.exp(a) / np.exp(a).sum(0, keepdims=True)),
    ("log_softmax", {"axis": -1}, lambda a: a - np.log(np.exp(a).sum(-1, keepdims=True))),
]


@pytest.mark.parametrize("name,kw,ref", CASES, ids=[c[0] for c in CASES])
def test_activation(name, kw, ref):
    f = getattr(F, name)
    for dt in ("float32", "float64"):
        out = f(oar.to_tensor(X.astype(dt)), **kw)
        assert out.dtype.name == dt
        np.testing.assert_allclose(out.numpy(), ref(X), rtol=1e-5, atol=1e-6, err_msg=f"{name}[{dt}]")
    check_grad(lambda t: f(t, **kw), [X + 0.013], what=f"F.{name}")  # off the kinks


def test_inplace_variants_and_errors():
    t = oar.to_tensor(X.copy())
    F.relu_(t)
    np.testing.assert_array_equal(t.numpy(), np.maximum(X, 0))
    with pytest.raises(TypeError):
        F.relu(oar.to_tensor([1, 2, 3]).astype("bool"))
