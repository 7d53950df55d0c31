"""Autograd with Paddle semantics: stop_gradient, accumulation, grad(), hooks, versions, PyLayer."""
import numpy as np
import pytest

import oar


def param(values):
    t = oar.to_tensor(values, dtype="float64")
    t.stop_gradient = False
    return t


def test_user_tensors_stop_gradient_and_results_inherit():
    x = oar.to_tensor([1.0, 2.0])
    assert x.stop_gradient and x.is_leaf
    y = x * 2
    assert y.stop_gradient
    p = param([1.0, 2.0])
    z = p * x
    assert not z.stop_gradient and not z.is_leaf


def test_backward_accumulates_and_clear_grad():
    p = param([1.0, 2.0, 3.0])
    (p * p).sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), [2, 4, 6])
    (p * 3).sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), [5, 7, 9])
    p.clear_grad()
    np.testing.assert_allclose(p.grad.numpy(), [0, 0, 0])
    p.clear_grad(set_to_zero=False)
    assert p.grad is None


def test_backward_non_scalar_uses_ones_and_grad_tensor():
    p = param([1.0, 2.0])
    (p * 3).backward()
    np.testing.assert_allclose(p.grad.numpy(), [3, 3])
    p.clear_grad()
    (p * 3).backward(oar.to_tensor([1.0, 10.0], dtype="float64"))
    np.testing.assert_allclose(p.grad.numpy(), [3, 30])


def test_backward_twice_needs_retain_graph():
    p = param([1.0, 2.0])
    y = (p.exp() * p).sum()
    y.backward(retain_graph=True)
    y.backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def test_grad_function_and_higher_order():
    x = param([0.5, 1.0, 2.0])
    y = (x ** 3).sum()
    (g,) = oar.grad(y, x, create_graph=True)
    np.testing.assert_allclose(g.numpy(), 3 * np.array([0.5, 1, 2]) ** 2)
    assert x.grad is None  # grad() does not accumulate
    (g2,) = oar.grad(g.sum(), x)
    np.testing.assert_allclose(g2.numpy(), 6 * np.array([0.5, 1, 2]))
    # Third order through tanh.
    t = param([0.3])
    (d1,) = oar.grad(oar.tanh(t).sum(), t, create_graph=True)
    (d2,) = oar.grad(d1.sum(), t, create_graph=True)
    (d3,) = oar.grad(d2.sum(), t)
    th = np.tanh(0.3)
    np.testing.assert_allclose(d3.numpy(), [-2 * (1 - th ** 2) ** 2 + 4 * th ** 2 * (1 - th ** 2)], rtol=1e-10)


def test_grad_allow_unused_and_non_leaf_inputs():
    x, z = param([1.0]), param([2.0])
    y = x * 2
    w = (y * y).sum()
    gy, gz = oar.grad(w, [y, z], allow_unused=True, retain_graph=True)
    np.testing.assert_allclose(gy.numpy(), [4.0])
    assert gz is None
    with pytest.raises(ValueError, match="allow_unused"):
        oar.grad(w, [z])


def test_no_grad_context_and_decorator():
    p = param([1.0])
    with oar.no_grad():
        y = p * 2
    assert y.stop_gradient

    @oar.no_grad()
    def f(t):
        return t * 2

    assert f(p).stop_gradient
    assert oar.is_grad_enabled()


def test_hooks_on_leaf_and_intermediate():
    p = param([1.0, 2.0])
    seen = []
    h = p.register_hook(lambda g: seen.append(g.numpy().copy()) or g * 2)
    y = p * 3
    y.register_hook(lambda g: g + 1)
    y.sum().backward()
    np.testing.assert_allclose(seen[0], [6, 6])       # (1 + 1) * 3
    np.testing.assert_allclose(p.grad.numpy(), [12, 12])
    h.remove()
    p.clear_grad()
    (p * 3).sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), [3, 3])


def test_inplace_on_saved_tensor_raises():
    p = param([1.0, 2.0])
    a = p * 1
    b = a.exp()
    with oar.no_grad():
        b.add_(oar.ones([2], dtype="float64"))
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        b.sum().backward()


def test_shape_only_backward_keeps_no_tensor():
    # reshape/add only need their input's shape for backward, so writing that input in place
    # afterwards is legal (PyTorch and Paddle agree); the gradient is unchanged.
    p = param([1.0, 2.0, 3.0, 4.0])
    a = p * 2
    r = a.reshape([2, 2])
    s = a + oar.ones([4], dtype="float64")
    with oar.no_grad():
        a.add_(oar.ones([4], dtype="float64"))
    (r.sum() + s.sum()).backward()
    np.testing.assert_allclose(p.grad.numpy(), [4, 4, 4, 4])


def test_inplace_on_leaf_that_requires_grad_is_value_error():
    p = param([1.0, 2.0])
    with pytest.raises(ValueError, match="Leaf Tensor"):
        p.add_(oar.ones([2], dtype="float64"))
    with pytest.raises(ValueError, match="Leaf Tensor"):
        p[0] = 3.0


def test_inplace_on_non_leaf_rebases_history():
    p = param([1.0, 2.0])
    a = p * 2
    a.exp_()
    a.sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), 2 * np.exp([2.0, 4.0]))


def test_setitem_with_autograd():
    p = param([1.0, 2.0, 3.0])
    v = param([10.0])
    a = p * 1
    a[1] = v[0] * 2
    (a * oar.to_tensor([1.0, 2.0, 3.0], dtype="float64")).sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), [1, 0, 3])
    np.testing.assert_allclose(v.grad.numpy(), [4.0])


def test_pylayer():
    class Cube(oar.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensor()
            return grad * 3 * x ** 2

    p = param([1.0, 2.0])
    y = Cube.apply(p)
    assert not y.stop_gradient
    y.sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), [3, 12])


class TwoOutputs(oar.autograd.PyLayer):
    """y1 = 2x, y2 = 3x; backward records what it received (materialize: None keeps the default)."""
    received = []

    @staticmethod
    def forward(ctx, x, materialize=None, non_differentiable=False):
        if materialize is not None:
            ctx.set_materialize_grads(materialize)
        y1, y2 = x * 2, x * 3
        if non_differentiable:
            ctx.mark_non_differentiable(y2)
        return y1, y2

    @staticmethod
    def backward(ctx, g1, g2):
        TwoOutputs.received.append([None if g is None else g.numpy().tolist() for g in (g1, g2)])
        grad = 0
        if g1 is not None:
            grad = grad + g1 * 2
        if g2 is not None:
            grad = grad + g2 * 3
        return grad


def _two_outputs(lib, use, **kwargs):
    """Runs TwoOutputs (defined on lib's PyLayer) with only the outputs in `use` in the loss."""
    cls = type("TwoOutputs", (lib.autograd.PyLayer,), {"forward": TwoOutputs.forward,
                                                       "backward": TwoOutputs.backward})
    x = lib.to_tensor([1.0, 2.0], stop_gradient=False)
    outs = cls.apply(x, **kwargs)
    TwoOutputs.received = []
    sum(outs[i].sum() * (i + 1) for i in use).backward()
    return TwoOutputs.received, x.grad.numpy().tolist(), [o.stop_gradient for o in outs]


@pytest.mark.parametrize("use", [(0,), (1,), (0, 1)])
def test_pylayer_materialize_grads_and_paddle(use):
    # Default (and True): an output without a gradient gets zeros; False: None, as in Paddle.
    for materialize in (None, True):
        received, grad, _ = _two_outputs(oar, use, materialize=materialize)
        assert received == [[[1.0, 1.0] if 0 in use else [0.0, 0.0], [2.0, 2.0] if 1 in use else [0.0, 0.0]]]
    received, grad, _ = _two_outputs(oar, use, materialize=False)
    assert received == [[[1.0, 1.0] if 0 in use else None, [2.0, 2.0] if 1 in use else None]]
    assert grad == [2.0 * (0 in use) + 6.0 * (1 in use)] * 2
    paddle = pytest.importorskip("paddle")
    for materialize in (None, True, False):
        assert _two_outputs(oar, use, materialize=materialize) == _two_outputs(paddle, use, materialize=materialize)


def test_pylayer_materialize_grads_false_each_pass():
    # A gradient that arrived in one backward pass does not count in the next (retain_graph).
    cls = type("TwoOutputs", (oar.autograd.PyLayer,), {"forward": TwoOutputs.forward,
                                                       "backward": TwoOutputs.backward})
    x = param([1.0, 2.0])
    y1, y2 = cls.apply(x, materialize=False)
    TwoOutputs.received = []
    y1.sum().backward(retain_graph=True)
    y2.sum().backward()
    assert TwoOutputs.received == [[[1.0, 1.0], None], [None, [1.0, 1.0]]]
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 5.0])


def test_pylayer_mark_non_differentiable_and_paddle():
    # The marked output gets stop_gradient=True and no gradient (zeros, or None unmaterialized).
    received, grad, stops = _two_outputs(oar, (0, 1), non_differentiable=True)
    assert stops == [False, True] and received == [[[1.0, 1.0], [0.0, 0.0]]] and grad == [2.0, 2.0]
    received, _, _ = _two_outputs(oar, (0, 1), non_differentiable=True, materialize=False)
    assert received == [[[1.0, 1.0], None]]
    paddle = pytest.importorskip("paddle")
    assert _two_outputs(oar, (0, 1), non_differentiable=True) == \
        _two_outputs(paddle, (0, 1), non_differentiable=True)


def test_detach_and_clone():
    p = param([1.0, 2.0])
    d = p.detach()
    assert d.stop_gradient
    c = p.clone()
    assert not c.stop_gradient
    c.sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), [1, 1])


def test_stop_gradient_false_on_int_tensor_is_type_error():
    with pytest.raises(TypeError):
        oar.to_tensor([1, 2]).stop_gradient = False
