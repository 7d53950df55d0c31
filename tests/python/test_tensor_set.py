"""Tensor.set_: x becomes a view of source's storage (shape, stride, byte offset), sharing memory."""
import numpy as np
import pytest

import oar


def test_set_shares_source_memory():
    src = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    x = oar.to_tensor([7.0, 8.0, 9.0])
    assert x.set_(src) is x
    assert x.shape == [2, 2]
    np.testing.assert_array_equal(x.numpy(), [[1, 2], [3, 4]])
    src[0, 0] = 100.0
    assert x.numpy()[0, 0] == 100.0
    x[1, 1] = -1.0
    assert src.numpy()[1, 1] == -1.0


def test_set_empty():
    x = oar.to_tensor([1.0, 2.0, 3.0])
    x.set_()
    assert x.shape == [0] and x.dtype == oar.float32
    x = oar.to_tensor([1, 2], dtype="int32")
    x.set_(None, [2])  # as Paddle: without a source the shape is ignored
    assert x.shape == [0] and x.dtype == oar.int32


def test_set_shape_stride_offset():
    src = oar.arange(12, dtype="float32")
    a = np.arange(12, dtype="float32")
    x = oar.to_tensor([0.0]).set_(src, [2, 3])
    np.testing.assert_array_equal(x.numpy(), a[:6].reshape(2, 3))
    assert x.get_strides() == [3, 1]
    x = oar.to_tensor([0.0]).set_(src, [2, 3], [1, 2], 4)  # offset in bytes: element 1
    np.testing.assert_array_equal(x.numpy(), np.lib.stride_tricks.as_strided(a[1:], (2, 3), (4, 8)))
    x = oar.to_tensor([0.0]).set_(src, shape=[2], stride=[2], offset=8)
    np.testing.assert_array_equal(x.numpy(), [2.0, 4.0])
    # A view source: the offset counts from the start of the storage, as Paddle does.
    x = oar.to_tensor([0.0]).set_(src[4:])
    np.testing.assert_array_equal(x.numpy(), a[:8])
    # A strided source keeps its strides.
    t = src.reshape([3, 4]).t()
    x = oar.to_tensor([0.0]).set_(t)
    assert x.get_strides() == t.get_strides()
    np.testing.assert_array_equal(x.numpy(), a.reshape(3, 4).T)


def test_set_float64_and_int():
    src = oar.to_tensor(np.arange(6, dtype="float64"))
    x = oar.zeros([1], dtype="float64").set_(src, [3], None, 16)
    np.testing.assert_array_equal(x.numpy(), [2.0, 3.0, 4.0])
    src = oar.to_tensor(np.arange(6, dtype="int64"))
    x = oar.zeros([1], dtype="int64").set_(src, [2, 2], [1, 2])
    np.testing.assert_array_equal(x.numpy(), [[0, 2], [1, 3]])


def test_set_autograd():
    a = oar.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    with pytest.raises(ValueError, match="set_: Leaf Tensor that doesn't stop gradient"):
        a.set_(oar.ones([2]))
    with oar.no_grad():
        a.set_(oar.ones([2]))
    assert a.shape == [2] and not a.stop_gradient
    src = oar.to_tensor([5.0, 6.0], stop_gradient=False)
    y = a * 2.0
    y.set_(src)
    (y * 3.0).sum().backward()
    assert src.grad is None  # no gradient flows from x to source, as in Paddle


def test_set_errors():
    x = oar.to_tensor([1.0, 2.0])
    src = oar.arange(12, dtype="float32")
    with pytest.raises(ValueError, match="set_: argument 'source' should be a Tensor"):
        x.set_(np.ones(3))
    with pytest.raises(ValueError, match="set_: argument 'source' should be a Tensor"):
        x.set_([1.0, 2.0])
    with pytest.raises(NotImplementedError, match="set_: source's dtype int64 differs"):
        x.set_(oar.to_tensor([1, 2]))
    with pytest.raises(ValueError, match="set_: argument 'offset' must be a non-negative multiple"):
        x.set_(src, [2], None, 2)
    with pytest.raises(ValueError, match="set_: argument 'offset'"):
        x.set_(src, [2], None, -4)
    with pytest.raises(TypeError, match="set_: argument 'offset' must be an int"):
        x.set_(src, [2], None, 1.5)
    with pytest.raises(ValueError, match="set_: .*storage holds 12 elements"):
        x.set_(src, [20])
    with pytest.raises(TypeError, match="set_: argument 'shape'"):
        x.set_(src, "ab")
    with pytest.raises(ValueError, match="set_: stride"):
        x.set_(src, [2, 3], [1])
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])  # unchanged after each error


def test_set_matches_paddle():
    paddle = pytest.importorskip("paddle")
    a = np.arange(24, dtype="float32") / 3.0
    for kwargs in [{}, {"shape": [4, 6]}, {"shape": [2, 3], "stride": [1, 2], "offset": 8},
                   {"shape": [3], "stride": [5], "offset": 4}]:
        ps, os_ = paddle.to_tensor(a), oar.to_tensor(a)
        px, ox = paddle.to_tensor([1.0, 2.0]), oar.to_tensor([1.0, 2.0])
        px.set_(ps, **kwargs)
        ox.set_(os_, **kwargs)
        assert list(px.shape) == ox.shape
        assert list(px.get_strides()) == ox.get_strides()
        np.testing.assert_array_equal(ox.numpy(), px.numpy())
        ps[0] = 50.0
        os_[0] = 50.0
        np.testing.assert_array_equal(ox.numpy(), px.numpy())
