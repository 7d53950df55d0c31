"""oar.nn.utils (paddle.nn.utils): weight_norm / remove_weight_norm, spectral_norm,
parameters_to_vector / vector_to_parameters, clip_grad_norm_ / clip_grad_value_. Checked against
NumPy formulas, and beside the real Paddle (same weights in, same values and gradients out)."""
import inspect

import numpy as np
import pytest

import oar
from oar.nn.utils import (clip_grad_norm_, clip_grad_value_, parameters_to_vector, remove_weight_norm,
                          spectral_norm, vector_to_parameters, weight_norm)


def _conv(lib):
    return lib.nn.Conv2D(3, 4, 3)


def _norm_except(w, dim):
    """NumPy: the L2 norm of w over every axis but dim, broadcastable against w."""
    if dim is None:
        return np.sqrt((w ** 2).sum())
    axes = tuple(a for a in range(w.ndim) if a != dim)
    return np.sqrt((w ** 2).sum(axis=axes, keepdims=True))


@pytest.mark.parametrize("dim", [0, 1, 3, -2, None, -1])
def test_weight_norm_matches_numpy(dim):
    conv = _conv(oar)
    w = conv.weight.numpy().copy()
    weight_norm(conv, dim=dim)
    whole = dim in (None, -1)  # Paddle reads -1 as "the whole tensor", not the last axis
    d = None if whole else dim % 4
    g = _norm_except(w, d)
    np.testing.assert_allclose(conv.weight_g.numpy(), g.reshape(-1)[0] if whole else g.reshape(-1), rtol=1e-5)
    assert conv.weight_g.shape == ([] if whole else [w.shape[d]])
    np.testing.assert_allclose(conv.weight_v.numpy(), w)
    # w = g * v / ||v|| reproduces the original weight, before and at every forward call.
    np.testing.assert_allclose(conv.weight.numpy(), w, rtol=1e-5, atol=1e-6)
    with oar.no_grad():
        conv.weight_g.copy_(conv.weight_g * 2.0)
    conv(oar.ones([1, 3, 5, 5]))
    np.testing.assert_allclose(conv.weight.numpy(), 2 * w, rtol=1e-5, atol=1e-6)


def test_weight_norm_state_and_remove():
    conv = weight_norm(_conv(oar))
    assert list(conv.state_dict()) == ["bias", "weight_v", "weight_g"]
    assert [n for n, _ in conv.named_parameters()] == ["bias", "weight_v", "weight_g"]
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"):
        weight_norm(conv)
    with oar.no_grad():
        conv.weight_g.copy_(conv.weight_g * 3.0)
    expected = conv(oar.ones([1, 3, 5, 5])).numpy()
    assert remove_weight_norm(conv) is conv
    assert list(conv.state_dict()) == ["bias", "weight"]
    assert "weight" in dict(conv.named_parameters()) and "weight" not in conv._buffers
    assert not conv._forward_pre_hooks
    np.testing.assert_allclose(conv(oar.ones([1, 3, 5, 5])).numpy(), expected, rtol=1e-5)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        remove_weight_norm(conv)
    with pytest.raises(AssertionError):
        weight_norm(_conv(oar), dim=4)


@pytest.mark.parametrize("dim", [0, 2, None])
def test_weight_norm_beside_paddle(dim):
    paddle = pytest.importorskip("paddle")
    theirs, ours = _conv(paddle), _conv(oar)
    ours.set_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    paddle.nn.utils.weight_norm(theirs, dim=dim)
    weight_norm(ours, dim=dim)
    x = np.random.RandomState(0).rand(2, 3, 6, 6).astype("float32")
    out_t, out_o = theirs(paddle.to_tensor(x)), ours(oar.to_tensor(x))
    np.testing.assert_allclose(out_o.numpy(), out_t.numpy(), rtol=1e-5, atol=1e-5)
    (out_t * out_t).sum().backward()
    (out_o * out_o).sum().backward()
    for name in ("weight_g", "weight_v"):
        assert list(getattr(ours, name).shape) == list(getattr(theirs, name).shape)
        np.testing.assert_allclose(getattr(ours, name).grad.numpy(), getattr(theirs, name).grad.numpy(),
                                   rtol=1e-4, atol=1e-4)


def test_spectral_norm_matches_numpy_power_iteration():
    linear = oar.nn.Linear(5, 4)
    w = linear.weight.numpy().copy()
    spectral_norm(linear, n_power_iterations=3)
    assert list(linear.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert [n for n, _ in linear.named_parameters()] == ["bias", "weight_orig"]
    m = w.T  # Linear's weight is [in, out]: dim defaults to 1, the rows are the outputs
    u, v = linear.weight_u.numpy().astype("float64"), linear.weight_v.numpy().astype("float64")
    assert u.shape == (4,) and v.shape == (5,)
    for _ in range(3):
        v = m.T @ u
        v /= np.linalg.norm(v)
        u = m @ v
        u /= np.linalg.norm(u)
    linear(oar.ones([2, 5]))
    np.testing.assert_allclose(linear.weight_u.numpy(), u, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(linear.weight_v.numpy(), v, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(linear.weight.numpy(), w / (u @ m @ v), rtol=1e-4)
    # eval mode: u and v are used as they are.
    linear.eval()
    linear(oar.ones([2, 5]))
    np.testing.assert_allclose(linear.weight_u.numpy(), u, rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
        spectral_norm(oar.nn.Linear(2, 2), n_power_iterations=0)
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
        spectral_norm(linear)


@pytest.mark.parametrize("make,dim", [("Linear(4, 3)", None), ("Conv2D(2, 3, 3)", None),
                                      ("Conv2DTranspose(2, 3, 3)", None), ("Conv2D(2, 3, 3)", 2)])
def test_spectral_norm_beside_paddle(make, dim):
    paddle = pytest.importorskip("paddle")
    theirs, ours = eval("paddle.nn." + make), eval("oar.nn." + make)
    ours.set_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    paddle.nn.utils.spectral_norm(theirs, n_power_iterations=2, dim=dim)
    spectral_norm(ours, n_power_iterations=2, dim=dim)
    assert sorted(ours.state_dict()) == sorted(theirs.state_dict())
    ours.set_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})  # the same random u, v
    shape = [2, 4] if make.startswith("Linear") else [2, 2, 5, 5]
    x = np.random.RandomState(1).rand(*shape).astype("float32")
    for train in (True, False):
        theirs.train() if train else theirs.eval()
        ours.train() if train else ours.eval()
        out_t, out_o = theirs(paddle.to_tensor(x)), ours(oar.to_tensor(x))
        np.testing.assert_allclose(out_o.numpy(), out_t.numpy(), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(ours.weight_u.numpy(), theirs.weight_u.numpy(), rtol=1e-4, atol=1e-5)
    out_t.sum().backward()
    out_o.sum().backward()
    np.testing.assert_allclose(ours.weight_orig.grad.numpy(), theirs.weight_orig.grad.numpy(), rtol=1e-4,
                               atol=1e-5)


def test_parameters_to_vector_and_back():
    a, b = oar.nn.Linear(3, 4), oar.nn.Linear(3, 4)
    vec = parameters_to_vector(a.parameters())
    expected = np.concatenate([p.numpy().reshape(-1) for p in a.parameters()])
    np.testing.assert_array_equal(vec.numpy(), expected)
    assert vec.shape == [16] and vec.stop_gradient is False
    vector_to_parameters(vec, b.parameters())
    np.testing.assert_array_equal(b.weight.numpy(), a.weight.numpy())
    np.testing.assert_array_equal(b.bias.numpy(), a.bias.numpy())
    # A longer vector fills from the start; a float64 one is cast to the parameters' dtype.
    vector_to_parameters(oar.arange(20, dtype="float64"), b.parameters())
    np.testing.assert_array_equal(b.weight.numpy(), np.arange(12).reshape(3, 4))
    np.testing.assert_array_equal(b.bias.numpy(), np.arange(12, 16))
    assert b.weight.dtype == oar.float32
    with pytest.raises(ValueError, match="total_elements of vec"):
        vector_to_parameters(oar.ones([15]), b.parameters())
    with pytest.raises(AssertionError):
        vector_to_parameters(oar.ones([4, 4]), b.parameters())


def _with_grads(seed=0):
    layer = oar.nn.Linear(3, 2)
    x = oar.to_tensor(np.random.RandomState(seed).randn(4, 3).astype("float32") * 10)
    (layer(x) ** 2).sum().backward()
    return layer


@pytest.mark.parametrize("norm_type", [2, 1, 0, float("inf")])
def test_clip_grad_norm_matches_numpy(norm_type):
    layer = _with_grads()
    grads = [p.grad.numpy().astype("float64") for p in layer.parameters()]
    if norm_type == float("inf"):
        total = max(np.abs(g).max() for g in grads)
    else:
        total = np.linalg.norm([np.linalg.norm(g.reshape(-1), norm_type) for g in grads], norm_type)
    out = clip_grad_norm_(layer.parameters(), max_norm=1.5, norm_type=norm_type)
    assert out.shape == []
    np.testing.assert_allclose(float(out), total, rtol=1e-5)
    scale = min(1.0, 1.5 / (total + 1e-6))
    for p, g in zip(layer.parameters(), grads):
        np.testing.assert_allclose(p.grad.numpy(), g * scale, rtol=1e-5)


def test_clip_grad_norm_edge_cases():
    with pytest.raises(ValueError, match=r"norm_type only support \[inf, 0, 1, 2\]"):
        clip_grad_norm_(_with_grads().parameters(), 1.0, norm_type=3)
    assert float(clip_grad_norm_(oar.nn.Linear(2, 2).parameters(), 1.0)) == 0.0  # no gradients
    layer = _with_grads()
    layer.weight.grad.copy_(oar.full([3, 2], float("nan")))
    with pytest.raises(RuntimeError, match="non-finite"):
        clip_grad_norm_(layer.parameters(), 1.0, error_if_nonfinite=True)
    one = _with_grads()
    g = one.weight.grad.numpy()
    clip_grad_norm_(one.weight, 1e9)  # a single tensor; a large max_norm leaves the gradient as it is
    np.testing.assert_allclose(one.weight.grad.numpy(), g, rtol=1e-6)


def test_clip_grad_value_():
    layer = _with_grads()
    grads = [p.grad.numpy() for p in layer.parameters()]
    assert clip_grad_value_(layer.parameters(), 2.5) is None
    for p, g in zip(layer.parameters(), grads):
        np.testing.assert_array_equal(p.grad.numpy(), np.clip(g, -2.5, 2.5))
    clip_grad_value_(layer.weight, 1)
    assert np.abs(layer.weight.grad.numpy()).max() <= 1.0


def test_clip_grads_beside_paddle():
    paddle = pytest.importorskip("paddle")
    theirs, ours = paddle.nn.Linear(3, 2), oar.nn.Linear(3, 2)
    ours.set_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    x = np.random.RandomState(2).randn(4, 3).astype("float32") * 10
    (theirs(paddle.to_tensor(x)) ** 2).sum().backward()
    (ours(oar.to_tensor(x)) ** 2).sum().backward()
    for norm_type in (2, float("inf")):
        t = paddle.nn.utils.clip_grad_norm_(theirs.parameters(), 5.0, norm_type=norm_type)
        o = clip_grad_norm_(ours.parameters(), 5.0, norm_type=norm_type)
        np.testing.assert_allclose(float(o), float(t), rtol=1e-5)
    paddle.nn.utils.clip_grad_value_(theirs.parameters(), 0.3)
    clip_grad_value_(ours.parameters(), 0.3)
    for p, q in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_module_paths():
    import oar.nn.utils.spectral_norm_hook  # noqa: F401  (Paddle's module paths)
    import oar.nn.utils.transform_parameters  # noqa: F401
    import oar.nn.utils.weight_norm_hook  # noqa: F401
    assert oar.nn.utils.clip_grad_norm_ is clip_grad_norm_
    assert sorted(oar.nn.utils.__all__) == sorted(["weight_norm", "remove_weight_norm", "spectral_norm",
                                                   "parameters_to_vector", "vector_to_parameters",
                                                   "clip_grad_norm_", "clip_grad_value_"])


def test_signatures_match_paddle():
    paddle = pytest.importorskip("paddle")
    for name in paddle.nn.utils.__all__:
        theirs = inspect.signature(getattr(paddle.nn.utils, name)).parameters.values()
        ours = inspect.signature(getattr(oar.nn.utils, name)).parameters.values()
        assert [(p.name, p.default) for p in ours] == [(p.name, p.default) for p in theirs], name
