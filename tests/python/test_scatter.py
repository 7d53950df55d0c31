"""Gather/scatter in Paddle's forms (gather_nd, scatter, scatter_nd(_add), index_sample, take,
repeat_interleave, index_fill, scatter_add, scatter_reduce, select_scatter, diag_embed) against
NumPy, with float64 gradient checks and bad-input errors."""
import numpy as np
import pytest

import oar
from op_test import check_grad, rand

T = oar.to_tensor


def test_gather_nd():
    x = rand((2, 3, 4), seed=71)
    idx = np.array([[0, 1], [1, 2], [0, 0]])
    np.testing.assert_array_equal(oar.gather_nd(T(x), T(idx)).numpy(), x[idx[:, 0], idx[:, 1]])
    idx3 = np.array([[[1, 2, 3]], [[0, 0, 1]]])
    np.testing.assert_array_equal(oar.gather_nd(T(x), T(idx3)).numpy(), x[idx3[..., 0], idx3[..., 1], idx3[..., 2]])
    assert oar.gather_nd(T(x), T(np.zeros((2, 0), np.int64))).shape == [2, 2, 3, 4]
    check_grad(lambda t: oar.gather_nd(t, T(idx)), [x], what="gather_nd")
    with pytest.raises(ValueError, match=r"gather_nd: the last dim of 'index' \(4\) must not exceed"):
        oar.gather_nd(T(x), T(np.zeros((1, 4), np.int64)))
    with pytest.raises(IndexError):
        oar.gather_nd(T(x), T(np.array([[2, 0]])))


def test_scatter_nd():
    x = rand((3, 4), seed=72)
    idx = np.array([[1], [0], [1]])
    up = rand((3, 4), seed=73)
    want = x.copy()
    np.add.at(want, idx[:, 0], up)
    np.testing.assert_allclose(oar.scatter_nd_add(T(x), T(idx), T(up)).numpy(), want)
    z = oar.scatter_nd(T(np.array([[0, 1], [2, 3], [0, 1]])), T(np.array([1.0, 2.0, 3.0])), [3, 4])
    want = np.zeros((3, 4))
    want[0, 1], want[2, 3] = 4.0, 2.0
    np.testing.assert_array_equal(z.numpy(), want)
    check_grad(lambda a, u: oar.scatter_nd_add(a, T(idx), u), [x, up], what="scatter_nd_add")
    with pytest.raises(ValueError, match=r"scatter_nd_add: 'updates' must have shape \[3, 4\]"):
        oar.scatter_nd_add(T(x), T(idx), T(np.ones((3, 3))))


def test_scatter_overwrite_and_accumulate():
    # Values measured with paddle 3.3.
    x = T(np.array([[1.0, 1], [2, 2], [3, 3]]))
    idx = T(np.array([2, 1, 2]))
    up = T(np.array([[10.0, 10], [20, 20], [30, 30]]))
    np.testing.assert_array_equal(oar.scatter(x, idx, up).numpy(), [[1, 1], [20, 20], [30, 30]])
    np.testing.assert_array_equal(oar.scatter(x, idx, up, overwrite=False).numpy(), [[1, 1], [20, 20], [40, 40]])
    np.testing.assert_array_equal(x.scatter(idx, up).numpy(), [[1, 1], [20, 20], [30, 30]])
    a, u = rand((4, 3), seed=74), rand((2, 3), seed=75)
    check_grad(lambda t, v: oar.scatter(t, T(np.array([3, 0])), v), [a, u], what="scatter")
    check_grad(lambda t, v: oar.scatter(t, T(np.array([3, 0])), v, overwrite=False), [a, u], what="scatter add")
    with pytest.raises(ValueError, match=r"scatter: 'updates' must have shape \[2, 3\]"):
        oar.scatter(T(a), T(np.array([3, 0])), T(np.ones((2, 2))))
    with pytest.raises(TypeError, match="scatter: argument 'index' must be an int32 or int64"):
        oar.scatter(T(a), T(np.array([1.0])), T(np.ones((1, 3))))


def test_index_sample_take():
    x = np.array([[1, 2, 3], [4, 5, 6]])
    np.testing.assert_array_equal(oar.index_sample(T(x), T(np.array([[2, 0], [1, 1]]))).numpy(), [[3, 1], [5, 5]])
    y = np.array([[1, 2], [3, 4]])
    np.testing.assert_array_equal(oar.take(T(y), T(np.array([3, -1, 0]))).numpy(), [4, 4, 1])
    np.testing.assert_array_equal(oar.take(T(y), T(np.array([5, -6])), mode="wrap").numpy(), np.take(y, [5, -6], mode="wrap"))
    np.testing.assert_array_equal(oar.take(T(y), T(np.array([[5, -6]])), mode="clip").numpy(), np.take(y, [[5, -6]], mode="clip"))
    with pytest.raises(IndexError):
        oar.take(T(y), T(np.array([4])))
    with pytest.raises(ValueError, match="take: argument 'mode'"):
        oar.take(T(y), T(np.array([0])), mode="nearest")
    check_grad(lambda t: oar.take(t, T(np.array([[3, 0], [0, 1]]))), [rand((2, 2), seed=76)], what="take")


def test_repeat_interleave():
    x = np.array([[1, 2], [3, 4]])
    np.testing.assert_array_equal(oar.repeat_interleave(T(x), 2, axis=0).numpy(), np.repeat(x, 2, 0))
    np.testing.assert_array_equal(oar.repeat_interleave(T(x), 2).numpy(), np.repeat(x, 2))
    np.testing.assert_array_equal(oar.repeat_interleave(T(np.array([1, 2, 3])), T(np.array([1, 0, 2]))).numpy(), [1, 3, 3])
    np.testing.assert_array_equal(T(x).repeat_interleave(T(np.array([2, 1])), axis=1).numpy(), np.repeat(x, [2, 1], 1))
    check_grad(lambda t: oar.repeat_interleave(t, 3, axis=1), [rand((2, 2), seed=77)], what="repeat_interleave")
    with pytest.raises(ValueError, match="repeat_interleave: 'repeats' must hold one count or 2"):
        oar.repeat_interleave(T(x), T(np.array([1, 2, 3])), axis=0)
    # An int count (unsqueeze, expand, reshape; the count op for 0 and for empty dims): every axis,
    # 0-d and zero-size inputs, as NumPy.
    for shape in [(), (5,), (2, 3, 4), (0, 3), (2, 0, 4)]:
        a = rand(shape, seed=81) if shape else np.array(1.5)
        for axis in [None] + list(range(-len(shape), len(shape))):
            for r in (1, 3, 0):
                got = oar.repeat_interleave(T(a), r, axis).numpy()
                want = np.repeat(a, r, axis=axis)
                assert got.shape == want.shape and np.array_equal(got, want), (shape, axis, r)
    check_grad(lambda t: oar.repeat_interleave(t, 2), [rand((2, 3), seed=82)], what="repeat_interleave axis=None")
    with pytest.raises(ValueError, match="repeat_interleave: 'repeats' must be non-negative, got -1"):
        oar.repeat_interleave(T(x), -1, 0)
    with pytest.raises(ValueError, match="repeat_interleave: argument 'axis' is out of range"):
        oar.repeat_interleave(T(x), 2, 2)


def test_index_fill_scatter_add_reduce_select_scatter():
    x = rand((3, 4), seed=78)
    out = oar.index_fill(T(x), T(np.array([0, 2])), 1, -1.0)
    want = x.copy()
    want[:, [0, 2]] = -1.0
    np.testing.assert_array_equal(out.numpy(), want)
    check_grad(lambda t: oar.index_fill(t, T(np.array([1])), 0, 0.5), [x], what="index_fill")
    idx = np.array([[0, 1, 0, 3]])
    src = rand((1, 4), seed=79)
    want = x.copy()
    np.add.at(want[0], idx[0], src[0])
    np.testing.assert_allclose(oar.scatter_add(T(x), 1, T(idx), T(src)).numpy(), want)
    r = oar.scatter_reduce(T(np.ones((1, 4))), 1, T(idx), T(np.array([[2.0, 3.0, 4.0, 5.0]])), "prod")
    np.testing.assert_array_equal(r.numpy(), [[8, 3, 1, 5]])
    with pytest.raises(ValueError, match="scatter_reduce: argument 'reduce'"):
        oar.scatter_reduce(T(x), 1, T(idx), T(src), "max")
    v = rand((3,), seed=80)
    out = oar.select_scatter(T(x), T(v), 1, -1)
    want = x.copy()
    want[:, -1] = v
    np.testing.assert_array_equal(out.numpy(), want)
    check_grad(lambda t, u: oar.select_scatter(t, u, 0, 1), [x, rand((4,), seed=81)], what="select_scatter")
    with pytest.raises(IndexError):
        oar.select_scatter(T(x), T(v), 1, 4)


def test_diag_embed():
    v = rand((2, 3), seed=82)
    for off in (0, 1, -2):
        out = oar.diag_embed(T(v), offset=off).numpy()
        want = np.stack([np.diag(r, off) for r in v])
        np.testing.assert_array_equal(out, want)
    out = oar.diag_embed(T(v), 0, 0, 2).numpy()
    np.testing.assert_array_equal(out, np.stack([np.diag(r) for r in v]).transpose(1, 0, 2))
    check_grad(lambda t: oar.diag_embed(t, 1), [v], what="diag_embed")
    with pytest.raises(ValueError, match="diag_embed: 'dim1' and 'dim2' must differ"):
        oar.diag_embed(T(v), 0, 1, 1)
