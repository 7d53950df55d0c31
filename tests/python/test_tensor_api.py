"""Tensor API: creation, properties, NumPy/DLPack interop, printing, indexing, dtypes."""
import numpy as np
import pytest

import oar


@pytest.mark.host_only
def test_to_tensor_dtypes_and_0d():
    assert oar.to_tensor(2).shape == [] and oar.to_tensor(2).dtype == oar.int64
    assert oar.to_tensor(2.5).dtype == oar.float32
    assert oar.to_tensor([True]).dtype == oar.bool
    assert oar.to_tensor(np.zeros(3, dtype=np.float64)).dtype == oar.float64
    assert oar.to_tensor([1, 2], dtype="float32").dtype == oar.float32
    assert oar.to_tensor([[1, 2], [3, 4]]).shape == [2, 2]
    t = oar.to_tensor([1.0, 2.0])
    assert t.ndim == 1 and t.size == 2 and str(t.place) == "Place(cpu)"
    assert oar.to_tensor(t).numpy().tolist() == [1.0, 2.0]


def test_default_dtype():
    assert oar.get_default_dtype() == "float32"
    oar.set_default_dtype("float64")
    try:
        assert oar.to_tensor(1.5).dtype == oar.float64
        assert oar.zeros([2]).dtype == oar.float64
    finally:
        oar.set_default_dtype("float32")
    with pytest.raises(TypeError):
        oar.set_default_dtype("int32")


def test_numpy_copies_as_paddle_and_item_tolist():
    # numpy() is the array's own copy, as Paddle's (DLPack, np.from_dlpack, is the zero-copy way).
    t = oar.to_tensor([1.0, 2.0, 3.0])
    a = t.numpy()
    a[0] = 10
    assert t.numpy()[0] == 1
    assert oar.to_tensor(3).item() == 3 and isinstance(oar.to_tensor(3).item(), int)
    assert oar.to_tensor([[1, 2]]).tolist() == [[1, 2]]
    assert np.asarray(t).shape == (3,)


@pytest.mark.host_only
def test_dlpack_round_trip_shares_memory():
    t = oar.to_tensor([1.0, 2.0])
    arr = np.from_dlpack(t)
    assert arr.__array_interface__["data"][0] == t.data_ptr()  # same memory
    arr = t.numpy()
    back = oar.utils.dlpack.from_dlpack(arr)
    arr[0] = 7
    assert back.numpy()[0] == 7
    cap = oar.utils.dlpack.to_dlpack(t)
    u = oar.utils.dlpack.from_dlpack(cap)
    np.testing.assert_array_equal(u.numpy(), t.numpy())


@pytest.mark.host_only
def test_repr_like_paddle():
    assert repr(oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])) == (
        "Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,\n"
        "       [[1., 2.],\n"
        "        [3., 4.]])")
    assert repr(oar.to_tensor(2)) == ("Tensor(shape=[], dtype=int64, place=Place(cpu), stop_gradient=True,\n"
                                      "       2)")
    assert repr(oar.to_tensor([0.1, 2.5])).endswith("[0.10000000, 2.50000000])")
    assert repr(oar.to_tensor([True, False])).endswith("[True , False])")
    assert repr(oar.float32) == "paddle.float32"


def test_creation_ops():
    assert oar.zeros([2, 3]).numpy().sum() == 0 and oar.zeros([2, 3]).dtype == oar.float32
    assert oar.ones([2], dtype="int32").dtype == oar.int32
    assert oar.full([2], 1).dtype == oar.float32
    assert oar.full([2], True).dtype == oar.bool
    np.testing.assert_array_equal(oar.full([2, 2], 7, dtype="int64").numpy(), np.full((2, 2), 7))
    np.testing.assert_array_equal(oar.arange(5).numpy(), np.arange(5))
    assert oar.arange(5).dtype == oar.int64 and oar.arange(0, 1, 0.25).dtype == oar.float32
    np.testing.assert_allclose(oar.arange(0, 1, 0.25).numpy(), [0, 0.25, 0.5, 0.75])
    np.testing.assert_allclose(oar.linspace(0, 1, 5).numpy(), np.linspace(0, 1, 5), rtol=1e-6)
    np.testing.assert_array_equal(oar.eye(2, 3).numpy(), np.eye(2, 3))
    x = oar.to_tensor([[1, 2]])
    assert oar.zeros_like(x).dtype == oar.int64 and oar.ones_like(x, dtype="float32").dtype == oar.float32
    np.testing.assert_array_equal(oar.full_like(x, 3).numpy(), [[3, 3]])
    assert oar.empty([2, 0]).shape == [2, 0]


def test_random_ops_are_seeded_and_in_range():
    oar.seed(1)
    a = oar.rand([1000])
    oar.seed(1)
    b = oar.rand([1000])
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert 0 <= a.numpy().min() and a.numpy().max() < 1
    n = oar.randn([20000]).numpy()
    assert abs(n.mean()) < 0.05 and abs(n.std() - 1) < 0.05
    r = oar.randint(0, 5, [1000]).numpy()
    assert r.min() >= 0 and r.max() < 5 and oar.randint(0, 5, [3]).dtype == oar.int64
    u = oar.uniform([1000], min=2, max=3).numpy()
    assert u.min() >= 2 and u.max() <= 3
    p = oar.randperm(10).numpy()
    assert sorted(p.tolist()) == list(range(10))
    bern = oar.bernoulli(oar.full([10000], 0.3)).numpy()
    assert abs(bern.mean() - 0.3) < 0.03
    m = oar.normal(1.0, 2.0, [20000]).numpy()
    assert abs(m.mean() - 1) < 0.1 and abs(m.std() - 2) < 0.1


def test_getitem_basic_views_and_advanced():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    t = oar.to_tensor(a)
    for idx in [0, -1, (1, 2), (slice(None), 1), (Ellipsis, 2), (None, 0), (slice(None, None, -1),),
                (0, slice(1, None), slice(None, None, 2)), (slice(None), slice(None, None, -2)),
                ([1, 0],), (0, [2, 0, 1]), (slice(None), [0, 2], 1), (a[..., 0] > 5,)]:
        np.testing.assert_array_equal(t[idx].numpy(), a[idx], err_msg=str(idx))
    v = t[0]
    assert v.numpy().base is not None or True
    with pytest.raises(IndexError):
        t[5]


def test_setitem():
    a = np.zeros((3, 4), dtype=np.float32)
    t = oar.to_tensor(a)
    t[0] = 1.0
    t[1, 1:3] = oar.to_tensor([5.0, 6.0])
    t[:, -1] = 9
    a[0] = 1.0
    a[1, 1:3] = [5.0, 6.0]
    a[:, -1] = 9
    np.testing.assert_array_equal(t.numpy(), a)
    t[oar.to_tensor([2])] = 4.0
    a[[2]] = 4.0
    np.testing.assert_array_equal(t.numpy(), a)


def test_memory_statistics():
    oar.device.empty_cache()
    base = oar.device.memory_allocated()
    x = oar.zeros([1024, 256])
    assert oar.device.memory_allocated() >= base + 1024 * 256 * 4
    assert oar.device.max_memory_allocated() >= oar.device.memory_allocated()
    del x
    assert oar.device.memory_allocated() == base
    assert oar.device.memory_reserved() >= base + 1024 * 256 * 4


def test_numpy_returns_an_array_of_its_own():
    # As Paddle's numpy(): writes after the call show on neither side.
    t = oar.to_tensor([1.0, 2.0])
    a = t.numpy()
    t[0] = 5.0
    np.testing.assert_array_equal(a, [1.0, 2.0])
    a[1] = 7.0
    np.testing.assert_array_equal(t.numpy(), [5.0, 2.0])
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    (x * 3).sum().backward()
    g = x.grad.numpy()
    x.clear_gradient()
    np.testing.assert_array_equal(g, [3.0, 3.0])


def test_grad_fn_walks_the_autograd_graph():
    x = oar.ones([2])
    x.stop_gradient = False
    y = (x * 2).sum()
    assert y.grad_fn.name() == "SumGradNode"
    (mul,) = y.grad_fn.next_functions
    assert mul.name() == "MultiplyGradNode"
    assert mul.next_functions == [x.grad_fn] and x.grad_fn.name() == "GradNodeAccumulation"
    assert x.grad_fn.next_functions == [] and isinstance(x.grad_fn.node_ptr(), int)
    assert oar.ones([1]).grad_fn is None  # stops gradient
    with oar.no_grad():
        assert (x * 2).grad_fn is None
