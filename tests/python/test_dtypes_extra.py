"""Paddle 3's extra dtypes: float8_e4m3fn and float8_e5m2 (storage: cast in and out, copies,
fills, printing), uint16 (Paddle's name for bfloat16), and uint32, uint64, pstring, raw (names
without CPU tensors). Expected bits and values are Paddle 3.3.1's, recorded from its CPU build."""
import numpy as np
import pytest

import oar

VALUES = [0.0, -0.0, 1e-9, 0.001953125, 0.0009765625, 1.0625, 1.09375, 447.0, 448.0, 460.0, 464.0, 500.0,
          1000.0, 1e6, float("inf"), float("-inf"), float("nan"), -3.3, 57344.0, 61440.0, 65536.0, 1e-7, 2e-5,
          1.5e-5]
BITS = {
    "float8_e4m3fn": [0, -128, 0, 1, 0, 56, 57, 126, 126, 126, 126, 126, 126, 126, 126, -2, 126, -59, 126, 126,
                      126, 0, 0, 0],
    "float8_e5m2": [0, -128, 0, 24, 20, 60, 60, 95, 95, 95, 95, 96, 100, 123, 123, -5, 127, -61, 123, 124, 123, 0,
                    1, 1],
}
BACK = {
    "float8_e4m3fn": [0.0, -0.0, 0.0, 0.001953125, 0.0, 1.0, 1.125, 448.0, 448.0, 448.0, 448.0, 448.0, 448.0,
                      448.0, 448.0, -448.0, 448.0, -3.25, 448.0, 448.0, 448.0, 0.0, 0.0, 0.0],
    "float8_e5m2": [0.0, -0.0, 0.0, 0.001953125, 0.0009765625, 1.0, 1.0, 448.0, 448.0, 448.0, 448.0, 512.0, 1024.0,
                    57344.0, 57344.0, -57344.0, float("nan"), -3.5, 57344.0, float("inf"), 57344.0, 0.0,
                    1.52587890625e-05, 1.52587890625e-05],
}
FLOAT8 = ["float8_e4m3fn", "float8_e5m2"]


@pytest.mark.parametrize("dt", FLOAT8)
def test_float8_casts_round_as_paddle(dt):
    x = oar.to_tensor(VALUES, dtype="float32").astype(dt)
    assert x.dtype == getattr(oar, dt) and x.element_size() == 1
    assert x.numpy().dtype == np.int8
    assert x.numpy().tolist() == BITS[dt]
    np.testing.assert_array_equal(x.astype("float32").numpy(), np.array(BACK[dt], "float32"))
    assert not x.is_floating_point()


@pytest.mark.parametrize("dt", FLOAT8)
def test_float8_from_and_to_other_dtypes(dt):
    expect = {"float8_e4m3fn": ([56, 121], [68, 126]), "float8_e5m2": ([60, 93], [66, 100])}[dt]
    assert oar.to_tensor([1.0625, 300.0], dtype="float64").astype(dt).numpy().tolist() == expect[0]
    assert oar.to_tensor([3, 1000]).astype(dt).numpy().tolist() == expect[1]
    x = oar.to_tensor(VALUES[:6], dtype="float32").astype(dt)
    assert x.astype("int32").numpy().tolist() == [0, 0, 0, 0, 0, 1]
    assert x.astype("bool").numpy().tolist() == [False, False, False, True, dt == "float8_e5m2", True]
    np.testing.assert_array_equal(x.astype("float16").astype("float32").numpy(), x.astype("float32").numpy())
    other = "float8_e5m2" if dt == "float8_e4m3fn" else "float8_e4m3fn"
    np.testing.assert_array_equal(x.astype(other).astype("float32").numpy(),
                                  x.astype("float32").astype(other).astype("float32").numpy())


@pytest.mark.parametrize("dt", FLOAT8)
def test_float8_storage_ops(dt):
    y = oar.to_tensor(VALUES, dtype="float32").astype(dt)
    t = oar.transpose(y.reshape([4, 6]), [1, 0])
    np.testing.assert_array_equal(t.astype("float32").numpy(),
                                  np.array(BACK[dt], "float32").reshape(4, 6).T)
    np.testing.assert_array_equal(y[2:5].astype("float32").numpy(), np.array(BACK[dt][2:5], "float32"))
    assert y.clone().dtype == getattr(oar, dt)
    np.testing.assert_array_equal(oar.zeros([2], dtype=dt).astype("float32").numpy(), [0, 0])
    np.testing.assert_array_equal(oar.ones([2], dtype=dt).astype("float32").numpy(), [1, 1])
    np.testing.assert_array_equal(oar.full([2], 3.0, dt).astype("float32").numpy(), [3, 3])


@pytest.mark.host_only
def test_float8_repr_as_paddle():
    x = oar.to_tensor([1.5, 2.0, 3.0]).astype("float8_e4m3fn")
    assert repr(x) == ("Tensor(shape=[3], dtype=float8_e4m3fn, place=Place(cpu), stop_gradient=True,\n"
                       "       [1.50000000, 2.        , 3.        ])")


def test_float8_has_no_arithmetic():
    x = oar.ones([2]).astype("float8_e4m3fn")
    with pytest.raises(TypeError):
        x + x
    with pytest.raises(TypeError):
        oar.to_tensor([1.0]).astype("complex64").astype("float8_e5m2")


def test_uint16_is_bfloat16_and_tensorless_dtypes():
    assert oar.uint16 is oar.bfloat16 and repr(oar.uint16) == "paddle.bfloat16"
    for name in ("uint32", "uint64", "pstring", "raw"):
        d = getattr(oar, name)
        assert repr(d) == f"paddle.{name}" and d == name
        with pytest.raises(ValueError, match=f"Not supported numpy dtype {name}"):
            oar.ones([2]).astype(d)
        with pytest.raises(ValueError, match=f"Not supported numpy dtype {name}"):
            oar.to_tensor([1, 2], dtype=name)
        with pytest.raises((TypeError, ValueError)):  # the C++ creation ops refuse it as an argument
            oar.zeros([2], dtype=name)
