"""The typed tensor factories (FloatTensor, ...): the forms Paddle 3.3.1 accepts, measured."""
import numpy as np
import pytest

import oar

FACTORIES = {"FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16",
             "BFloat16Tensor": "bfloat16", "IntTensor": "int32", "LongTensor": "int64", "ShortTensor": "int16",
             "CharTensor": "int8", "ByteTensor": "uint8", "BoolTensor": "bool"}


@pytest.mark.parametrize("name,dtype", FACTORIES.items())
def test_data_shape_and_empty_forms(name, dtype):
    f = getattr(oar, name)
    t = f([[1, 0], [1, 1]])
    assert t.dtype.name == dtype and t.shape == [2, 2] and t.stop_gradient
    np.testing.assert_array_equal(t.astype("float32").numpy(), [[1, 0], [1, 1]])
    assert f((1, 0)).shape == [2]                       # a tuple is data too
    e = f()
    assert e.shape == [0] and e.dtype.name == dtype
    s = f(2, 3)                                         # ints are a shape (uninitialised values)
    assert s.shape == [2, 3] and s.dtype.name == dtype
    assert f(0).shape == [0]


def test_data_is_converted_like_to_tensor():
    np.testing.assert_array_equal(oar.LongTensor([1.7, -2.2]).numpy(), [1, -2])   # truncation
    np.testing.assert_array_equal(oar.ByteTensor([1, 255]).numpy(), np.array([1, 255], np.uint8))
    np.testing.assert_array_equal(oar.BoolTensor([0, 2]).numpy(), [False, True])
    np.testing.assert_array_equal(oar.FloatTensor([oar.to_tensor(1.5), 2]).numpy(), [1.5, 2.0])
    # keyword arguments are ignored in the data form (Paddle passes only the dtype on)
    assert oar.FloatTensor([1.0, 2.0], stop_gradient=False).stop_gradient


def test_factories_are_not_tensor_types():
    t = oar.FloatTensor([1.0])
    assert type(t) is oar.Tensor
    assert not isinstance(t, oar.FloatTensor) and not isinstance(oar.to_tensor([1.0]), oar.FloatTensor)
    assert not issubclass(oar.FloatTensor, oar.Tensor)


def test_array_and_tensor_forms_keep_their_dtype():
    # Paddle's Tensor(value, ...) path: the factory's dtype is not applied
    a = np.array([1.0, 2.0])
    t = oar.FloatTensor(a)
    assert t.dtype == oar.float64
    a[0] = 7.0
    assert float(t[0]) == 1.0                                   # an array is copied
    assert oar.LongTensor(np.array([1.5, 2.0])).dtype == oar.float64
    assert oar.FloatTensor(np.array([1, 2], np.int32), dtype="float32").dtype == oar.int32
    src = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    shared = oar.FloatTensor(src)
    assert shared.stop_gradient and not src.stop_gradient     # a new handle, no history
    shared[0] = 5.0
    assert float(src[0]) == 5.0                                 # same memory
    named = oar.FloatTensor(np.zeros(2), oar.CPUPlace(), True, False, "nm", False)
    assert named.name == "nm" and named.persistable and not named.stop_gradient


@pytest.mark.parametrize("args,kwargs,err", [
    ((2.5,), {}, ValueError), (("a",), {}, ValueError), ((np.float64(2.0),), {}, ValueError),
    ((2, 3.0), {}, ValueError), ((True,), {}, TypeError), ((-1,), {}, ValueError),
    ((np.zeros(2), "x"), {}, TypeError), ((np.zeros(2),), {"foo": 1}, TypeError),
])
def test_bad_arguments(args, kwargs, err):
    with pytest.raises(err, match="FloatTensor"):
        oar.FloatTensor(*args, **kwargs)


_HAS_GPU = oar.device.cuda.device_count() > 0


@pytest.mark.skipif(_HAS_GPU, reason="a GPU is present: its places are valid")
@pytest.mark.parametrize("place,err", [(oar.CUDAPlace(0), ValueError), (oar.CUDAPinnedPlace(), RuntimeError)])
def test_gpu_places_without_a_gpu(place, err):
    with pytest.raises(err, match="FloatTensor"):
        oar.FloatTensor(np.zeros(2), place=place)


@pytest.mark.skipif(not _HAS_GPU, reason="needs a GPU")
def test_gpu_places_with_a_gpu():
    t = oar.FloatTensor(np.array([1.0, 2.0]), place=oar.CUDAPlace(0))
    assert str(t.place) == "Place(gpu:0)" and t.numpy().tolist() == [1.0, 2.0]
    p = oar.FloatTensor(np.array([3.0]), place=oar.CUDAPinnedPlace())
    assert str(p.place) == "Place(gpu_pinned)" and p.numpy().tolist() == [3.0]


def test_matches_paddle_live():
    paddle = pytest.importorskip("paddle")
    for name, dtype in FACTORIES.items():
        p, o = getattr(paddle, name)([[1.5, 0.0, 3.0]]), getattr(oar, name)([[1.5, 0.0, 3.0]])
        assert str(p.dtype).replace("paddle.", "") == o.dtype.name == dtype
        assert list(p.shape) == o.shape
        if dtype != "bfloat16":
            np.testing.assert_array_equal(o.numpy(), p.numpy())
