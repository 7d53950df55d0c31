"""The Python operators Paddle's Tensor has beyond arithmetic: shifts (<<, >> and reflected, arithmetic
right shift), reflected bitwise &, |, ^, unary +, complex(), Python 2's __div__/__rdiv__/__nonzero__/
__long__, and bool tensors meeting ints (int64, as Paddle)."""
import numpy as np
import pytest

import oar


def test_shift_operators():
    x = oar.to_tensor(np.array([4, -8, 3], dtype="int32"))
    np.testing.assert_array_equal((x << 2).numpy(), [16, -32, 12])
    np.testing.assert_array_equal((x >> 1).numpy(), [2, -4, 1])  # arithmetic: the sign stays
    np.testing.assert_array_equal((1 << oar.to_tensor([0, 3])).numpy(), [1, 8])
    np.testing.assert_array_equal((64 >> oar.to_tensor([1, 4])).numpy(), [32, 4])
    np.testing.assert_array_equal((x << oar.to_tensor(np.array([1, 2, 3], "int32"))).numpy(), [8, -32, 24])
    assert (x << 2).dtype == oar.int32
    with pytest.raises(TypeError):
        oar.to_tensor([1.5]) << 1


def test_reflected_bitwise_operators():
    b = oar.to_tensor([True, False])
    np.testing.assert_array_equal((True & b).numpy(), [True, False])
    np.testing.assert_array_equal((False | b).numpy(), [True, False])
    np.testing.assert_array_equal((True ^ b).numpy(), [False, True])
    x = oar.to_tensor([5, 6])
    np.testing.assert_array_equal((3 & x).numpy(), [1, 2])
    np.testing.assert_array_equal((3 | x).numpy(), [7, 7])
    np.testing.assert_array_equal((3 ^ x).numpy(), [6, 5])


def test_bool_tensor_with_numbers():
    b = oar.to_tensor([True, False])
    for result, values, dtype in [(b + 1, [2, 1], oar.int64), (1 + b, [2, 1], oar.int64), (b * 2, [2, 0], oar.int64),
                                  (b + True, [True, True], oar.bool), (b * False, [False, False], oar.bool),
                                  (b + 1.5, [2.5, 1.5], oar.float32)]:
        assert result.dtype == dtype
        np.testing.assert_array_equal(result.numpy(), values)


def test_unary_plus_and_conversions():
    x = oar.to_tensor([1.5, -2.0])
    assert (+x) is x
    with pytest.raises(TypeError, match="bool tensor is not supported"):
        +oar.to_tensor([True])
    assert complex(oar.to_tensor(2.5)) == 2.5 + 0j
    assert complex(oar.to_tensor(1 - 2j)) == 1 - 2j
    with pytest.raises(ValueError, match="one-element"):
        complex(x)
    np.testing.assert_allclose(x.__div__(2).numpy(), [0.75, -1.0])
    np.testing.assert_allclose(x.__rdiv__(3).numpy(), [2.0, -1.5])
    assert oar.to_tensor([3]).__long__() == 3
    assert oar.to_tensor([0.0]).__nonzero__() is False


def test_static_program_records_the_operators():
    oar.enable_static()
    try:
        main, startup = oar.static.Program(), oar.static.Program()
        with oar.static.program_guard(main, startup):
            x = oar.static.data("x", [3], "int64")
            outs = [x << 2, 64 >> x, 5 & x, x + 1]
        got = oar.static.Executor().run(main, feed={"x": np.array([1, 2, 3])}, fetch_list=outs)
    finally:
        oar.disable_static()
    for g, e in zip(got, [[4, 8, 12], [32, 16, 8], [1, 0, 1], [2, 3, 4]]):
        np.testing.assert_array_equal(g, e)


def test_matches_paddle():
    paddle = pytest.importorskip("paddle")
    a = np.array([7, -9, 12], dtype="int64")
    # (Paddle 3.3.1 raises "argument 'y' must be Tensor" for t & 6 and 6 & t: checked above against NumPy.)
    cases = [lambda t: t << 3, lambda t: t >> 2, lambda t: 5 << (t % 4), lambda t: 100 >> (t % 4),
             lambda t: (t > 0) + 1, lambda t: (t > 0) * 3, lambda t: +t]
    for fn in cases:
        mine, theirs = fn(oar.to_tensor(a)), fn(paddle.to_tensor(a))
        assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        np.testing.assert_array_equal(mine.numpy(), theirs.numpy())
