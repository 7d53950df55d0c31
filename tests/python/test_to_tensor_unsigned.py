"""to_tensor on unsigned NumPy arrays, as Paddle 3.3.1: uint16 holds bfloat16 bits, uint32/uint64 are
refused (converting them silently would wrap large values)."""
import numpy as np
import pytest

import oar


def test_uint16_array_is_bfloat16_bits():
    t = oar.to_tensor(np.array([16256, 16384, 49216], np.uint16))  # 1.0, 2.0, -3.0 in bfloat16
    assert t.dtype == oar.bfloat16
    np.testing.assert_array_equal(t.astype("float32").numpy(), [1.0, 2.0, -3.0])


def test_uint16_with_dtype_keeps_values():
    t = oar.to_tensor(np.array([1, 65535], np.uint16), dtype="int32")
    np.testing.assert_array_equal(t.numpy(), [1, 65535])


@pytest.mark.parametrize("dt", [np.uint32, np.uint64])
def test_wide_unsigned_arrays_raise(dt):
    with pytest.raises(ValueError, match=f"dtype {np.dtype(dt).name} are not supported"):
        oar.to_tensor(np.array([2 ** 31, 1], dt))
    np.testing.assert_array_equal(oar.to_tensor(np.array([2 ** 31], dt), dtype="int64").numpy(), [2 ** 31])
