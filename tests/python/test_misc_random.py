"""Small composites (diagflat, reduce_as, slice_scatter, diagonal_scatter, crop, multiplex,
increment, shard_index, batch, dtype aliases) and the Python samplers (multinomial, log_normal,
exponential_, cauchy_, geometric_, bernoulli_, log_normal_)."""
import numpy as np
import pytest

import oar
from op_test import check_grad, rand

T = oar.to_tensor


def test_composites():
    v = rand((2, 2), seed=101)
    np.testing.assert_array_equal(oar.diagflat(T(v), 1).numpy(), np.diagflat(v, 1))
    x = rand((2, 3, 4), seed=102)
    np.testing.assert_allclose(oar.reduce_as(T(x), T(np.ones((3, 1)))).numpy(), x.sum(axis=(0, 2))[:, None])
    m = rand((3, 4), seed=103)
    out = oar.slice_scatter(T(m), T(np.zeros((3, 2))), [1], [0], [4], [2]).numpy()
    want = m.copy()
    want[:, 0:4:2] = 0
    np.testing.assert_array_equal(out, want)
    out = oar.diagonal_scatter(T(m), T(np.array([7.0, 8.0, 9.0])), 1).numpy()
    want = m.copy()
    want[[0, 1, 2], [1, 2, 3]] = [7, 8, 9]
    np.testing.assert_array_equal(out, want)
    b = rand((2, 3, 3), seed=104)
    out = oar.diagonal_scatter(T(b), T(np.arange(6.0).reshape(2, 3)), 0, 1, 2).numpy()
    want = b.copy()
    for k in range(2):
        np.fill_diagonal(want[k], np.arange(3.0) + 3 * k)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(oar.crop(T(m), [2, 2], [1, 1]).numpy(), m[1:3, 1:3])
    with pytest.raises(ValueError, match="crop: offsets"):
        oar.crop(T(m), [3, 3], [1, 1])
    a, c = rand((2, 3), seed=105), rand((2, 3), seed=106)
    np.testing.assert_array_equal(oar.multiplex([T(a), T(c)], T(np.array([[1], [0]]))).numpy(), np.stack([c[0], a[1]]))
    np.testing.assert_array_equal(oar.increment(T(np.array([1.0])), 2.0).numpy(), [3.0])
    np.testing.assert_array_equal(oar.shard_index(T(np.array([[1], [6], [12], [19]])), 20, 2, 1).numpy(),
                                  [[-1], [-1], [2], [9]])
    reader = oar.batch(lambda: iter(range(5)), 2)
    assert list(reader()) == [[0, 1], [2, 3], [4]]
    assert list(oar.batch(lambda: iter(range(5)), 2, drop_last=True)()) == [[0, 1], [2, 3]]
    assert oar.float == oar.float32 and oar.double == oar.float64 and oar.half == oar.float16
    check_grad(lambda t, y: oar.diagonal_scatter(t, y, 1), [m, rand((3,), seed=107)], what="diagonal_scatter")
    check_grad(lambda t, y: oar.slice_scatter(t, y, [1], [0], [4], [2]), [m, rand((3, 2), seed=108)],
               what="slice_scatter")
    check_grad(lambda t, u: oar.multiplex([t, u], T(np.array([[1], [0]]))), [a, c], what="multiplex")


def test_samplers():
    oar.seed(5)
    p = T(np.array([0.1, 0.0, 0.9]))
    s = oar.multinomial(p, 4000, replacement=True).numpy()
    assert set(np.unique(s)) <= {0, 2} and abs((s == 2).mean() - 0.9) < 0.03
    rows = oar.multinomial(T(np.array([[0.2, 0.3, 0.5], [1.0, 1.0, 0.0]])), 2).numpy()
    assert rows.shape == (2, 2) and all(len(set(r)) == 2 for r in rows) and 2 not in rows[1]
    with pytest.raises(ValueError, match="multinomial: cannot draw 4 samples without replacement"):
        oar.multinomial(p, 4)
    t = oar.zeros([20000])
    t.exponential_(2.0)
    assert abs(float(t.mean()) - 0.5) < 0.02 and float(t.min()) >= 0
    t.cauchy_()
    assert abs(float(oar.median(t))) < 0.05
    t.geometric_(0.25)
    assert abs(float(t.mean()) - 4.0) < 0.15 and float(t.min()) >= 1
    t.bernoulli_(0.3)
    assert set(np.unique(t.numpy())) <= {0.0, 1.0} and abs(float(t.mean()) - 0.3) < 0.02
    t.log_normal_(0.0, 0.5)
    assert abs(np.log(t.numpy()).std() - 0.5) < 0.02
    assert oar.log_normal(0.0, 1.0, [3, 2]).shape == [3, 2]
    oar.seed(9)
    a = oar.multinomial(p, 10, True).numpy()
    oar.seed(9)
    np.testing.assert_array_equal(a, oar.multinomial(p, 10, True).numpy())


def test_framework_plumbing():
    assert oar.get_flags("FLAGS_check_nan_inf") == {"FLAGS_check_nan_inf": False}
    oar.set_flags({"FLAGS_check_nan_inf": True})
    assert oar.get_flags(["FLAGS_check_nan_inf"])["FLAGS_check_nan_inf"] is True
    oar.set_flags({"FLAGS_check_nan_inf": False})
    with pytest.raises(ValueError, match="get_flags: unknown flag 'FLAGS_nope'"):
        oar.get_flags("FLAGS_nope")
    oar.check_shape([2, 3], "reshape")
    with pytest.raises(TypeError, match="reshape: every element of 'shape' must be an int"):
        oar.check_shape([2, "3"], "reshape")
    assert oar.Size([2, 3]) == (2, 3)
    assert oar.disable_signal_handler() is None
    oar.set_cuda_rng_state([])
    with pytest.raises(RuntimeError, match="without CUDA"):
        oar.set_cuda_rng_state([object()])
    z = oar.view_as_complex(T(np.array([[1.0, 2.0]], np.float32)))
    assert z.dtype == oar.complex64 and complex(z.numpy()[0]) == 1 + 2j
    np.testing.assert_array_equal(oar.view_as_real(z).numpy(), [[1.0, 2.0]])
