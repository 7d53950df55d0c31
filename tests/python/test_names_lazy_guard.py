"""LazyGuard: parameters built under it get their values at param.initialize(), in that order."""
import numpy as np
import pytest

import oar


def test_initialize_gives_the_eager_values():
    oar.seed(1)
    eager = oar.nn.Linear(3, 2)
    oar.seed(1)
    with oar.LazyGuard():
        lazy = oar.nn.Linear(3, 2)
    assert lazy.weight.shape == [3, 2] and lazy.weight.dtype == oar.float32
    assert not lazy.weight._is_initialized() and not lazy.bias._is_initialized()
    for p in lazy.parameters():
        p.initialize()
        assert p._is_initialized()
    np.testing.assert_array_equal(lazy.weight.numpy(), eager.weight.numpy())
    np.testing.assert_array_equal(lazy.bias.numpy(), eager.bias.numpy())
    x = oar.ones([1, 3])
    np.testing.assert_array_equal(lazy(x).numpy(), eager(x).numpy())


def test_draws_happen_at_initialize():
    # Paddle: building under the guard draws nothing; the draws come with initialize(), so a draw
    # made in between comes first
    oar.seed(2)
    with oar.LazyGuard():
        net = oar.nn.Linear(4, 4)
    between = oar.rand([3]).numpy()
    net.weight.initialize()
    oar.seed(2)
    first = oar.rand([3]).numpy()
    ref = oar.nn.Linear(4, 4)
    np.testing.assert_array_equal(between, first)
    np.testing.assert_array_equal(net.weight.numpy(), ref.weight.numpy())


def test_guard_scope_and_nesting():
    with oar.LazyGuard() as g:
        assert g is None
        with oar.LazyGuard():
            p1 = oar.create_parameter([2], "float32")
        p2 = oar.create_parameter([2], "float32")
    p3 = oar.create_parameter([2], "float32")
    assert not p1._is_initialized() and not p2._is_initialized() and p3._is_initialized()
    other = oar.ones([2])  # other tensors are unaffected inside the guard
    np.testing.assert_array_equal(other.numpy(), [1.0, 1.0])


def test_initialize_twice_or_eager_raises():
    with oar.LazyGuard():
        p = oar.create_parameter([2, 2], "float64", default_initializer=oar.nn.initializer.Constant(3.0))
    p.initialize()
    np.testing.assert_array_equal(p.numpy(), np.full((2, 2), 3.0))
    with pytest.raises(RuntimeError, match="initialize"):
        p.initialize()
    with pytest.raises(RuntimeError, match="no pending initialisation"):
        oar.nn.Linear(2, 2).weight.initialize()


def test_initialize_records_no_gradient():
    with oar.LazyGuard():
        net = oar.nn.Linear(2, 2)
    for p in net.parameters():
        p.initialize()
    assert net.weight.is_leaf and not net.weight.stop_gradient
    net(oar.ones([1, 2])).sum().backward()
    assert net.weight.grad.shape == [2, 2]
