"""Float -> integer casts of NaN, infinities and out-of-range values: defined in oar
(oar/core/numeric_cast.h) as x86 converts, so they equal NumPy's (and Paddle's) results instead
of being undefined behaviour."""
import warnings

import numpy as np
import pytest

import oar

VALUES = [1e10, -1e10, np.nan, 3.7, -3.7, np.inf, -np.inf, 300.5, -300.5, 2.0 ** 31, -2.0 ** 31,
          2.0 ** 31 - 1.5, 70000.2, -70000.2, 4e9, -4e9, 2.0 ** 63, -2.0 ** 63]


@pytest.mark.parametrize("src", ["float32", "float64"])
@pytest.mark.parametrize("dst", ["int8", "int16", "int32", "int64", "uint8"])
def test_cast_matches_numpy(src, dst):
    a = np.array(VALUES, dtype=src)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = a.astype(dst)
    np.testing.assert_array_equal(oar.to_tensor(a).astype(dst).numpy(), expected)


def test_cast_matches_paddle():
    paddle = pytest.importorskip("paddle")
    a = np.array(VALUES, dtype="float32")
    for dst in ["int8", "int32", "int64", "uint8"]:
        np.testing.assert_array_equal(oar.to_tensor(a).astype(dst).numpy(),
                                      paddle.to_tensor(a).astype(dst).numpy(), err_msg=dst)


def test_integer_scale_of_a_large_factor():
    # scale on integers computes in double and converts back: out-of-range is the indefinite value
    x = oar.to_tensor([1, -1, 0], dtype="int32")
    got = oar.scale(x, scale=1e12).numpy()
    np.testing.assert_array_equal(got, np.array([1e12, -1e12, 0]).astype("int32"))
