"""Sorting, searching and along-axis ops against NumPy (NaN order and tie order as Paddle), with
float64 gradient checks and bad-input errors."""
import numpy as np
import pytest

import oar
from op_test import check_grad, rand

T = oar.to_tensor
FLOATS = ["float32", "float64"]


def np_argsort(a, axis, descending):
    # Stable; NaNs last ascending, first descending (as Paddle).
    if descending:
        key = np.where(np.isnan(a), np.inf, -a)
        return np.argsort(key, axis=axis, kind="stable")
    return np.argsort(a, axis=axis, kind="stable")


@pytest.mark.parametrize("dt", FLOATS + ["int32", "int64"])
def test_sort_argsort(dt):
    a = rand((3, 5, 4), dt, low=-9, high=9, seed=61)
    for axis in (0, 1, -1):
        for desc in (False, True):
            idx = oar.argsort(T(a), axis=axis, descending=desc)
            assert idx.dtype == oar.int64
            want = np_argsort(a, axis, desc)
            np.testing.assert_array_equal(idx.numpy(), want, err_msg=f"argsort axis={axis} desc={desc}")
            np.testing.assert_array_equal(oar.sort(T(a), axis, desc).numpy(),
                                          np.take_along_axis(a, want, axis))
    # Non-contiguous input, 0-D input, ties (stable), NaNs.
    np.testing.assert_array_equal(oar.argsort(T(a).transpose([2, 0, 1]), axis=0).numpy(),
                                  np_argsort(a.transpose(2, 0, 1), 0, False))
    assert oar.argsort(T(np.array(3.0))).shape == []
    np.testing.assert_array_equal(oar.argsort(T(np.array([2, 1, 2, 1])), stable=True).numpy(), [1, 3, 0, 2])
    np.testing.assert_array_equal(oar.argsort(T(np.array([2, 1, 2, 1])), descending=True).numpy(), [0, 2, 1, 3])


def test_nan_order():
    # Expected values measured with paddle 3.3.
    x = T(np.array([3.0, np.nan, 1.0, 2.0, np.nan, -1.0], np.float32))
    np.testing.assert_array_equal(oar.argsort(x).numpy(), [5, 2, 3, 0, 1, 4])
    np.testing.assert_array_equal(oar.argsort(x, descending=True).numpy(), [1, 4, 0, 3, 2, 5])
    v, i = oar.topk(x, 3)
    np.testing.assert_array_equal(i.numpy(), [1, 4, 0])
    v, i = oar.topk(x, 2, largest=False)
    np.testing.assert_array_equal(v.numpy(), [-1, 1])


def test_sort_gradient():
    a = rand((3, 4), seed=62)
    check_grad(lambda t: oar.sort(t, axis=0), [a], what="sort")
    check_grad(lambda t: oar.sort(t, descending=True), [a], what="sort desc")
    check_grad(lambda t: oar.topk(t, 2, axis=1)[0], [a], what="topk")
    check_grad(lambda t: oar.kthvalue(t, 2, axis=0)[0], [a], what="kthvalue")


@pytest.mark.parametrize("dt", FLOATS + ["int64"])
def test_topk_kthvalue(dt):
    a = rand((4, 6), dt, low=-20, high=20, seed=63)
    for axis in (0, 1, None):
        ax = -1 if axis is None else axis
        for largest in (True, False):
            v, i = oar.topk(T(a), 3, axis=axis, largest=largest)
            want = np_argsort(a, ax, largest)
            want = np.take(want, range(3), axis=ax)
            np.testing.assert_array_equal(i.numpy(), want)
            np.testing.assert_array_equal(v.numpy(), np.take_along_axis(a, want, ax))
    v, i = oar.kthvalue(T(a), 2, axis=1)
    order = np.argsort(a, axis=1, kind="stable")
    np.testing.assert_array_equal(i.numpy(), order[:, 1])
    np.testing.assert_array_equal(v.numpy(), np.sort(a, 1)[:, 1])
    v, i = oar.kthvalue(T(a), 1, axis=0, keepdim=True)
    assert v.shape == [1, 6] and i.shape == [1, 6]
    np.testing.assert_array_equal(oar.msort(T(a)).numpy(), np.sort(a, 0))


def test_topk_kthvalue_errors():
    with pytest.raises(ValueError, match=r"topk: argument 'k' must be in \[0, 2\]"):
        oar.topk(T(np.array([1.0, 2.0])), 3)
    with pytest.raises(ValueError, match=r"kthvalue: argument 'k' must be in \[1, 3\]"):
        oar.kthvalue(T(np.ones((2, 3))), 4, axis=1)
    with pytest.raises(ValueError, match=r"argsort: argument 'axis' is out of range"):  # as Paddle
        oar.argsort(T(np.ones((2, 3))), axis=2)
    with pytest.raises(TypeError, match="complex values have no order"):
        oar.argsort(T(np.array([1 + 1j])))


def test_nonzero():
    a = np.array([[0, 1, 0], [2, 0, 3]])
    np.testing.assert_array_equal(oar.nonzero(T(a)).numpy(), np.argwhere(a))
    rows, cols = oar.nonzero(T(a), as_tuple=True)
    np.testing.assert_array_equal(rows.numpy(), np.nonzero(a)[0])
    np.testing.assert_array_equal(cols.numpy(), np.nonzero(a)[1])
    assert oar.nonzero(T(np.zeros((2, 2)))).shape == [0, 2]
    np.testing.assert_array_equal(oar.nonzero(T(np.array([True, False, True]))).numpy(), [[0], [2]])
    np.testing.assert_array_equal(oar.nonzero_coords(T(a)).numpy(), np.argwhere(a))  # the C++ op


def test_searchsorted_bucketize():
    seq = np.array([1, 3, 5, 7])
    v = np.array([[3, 6], [0, 9]])
    for right in (False, True):
        side = "right" if right else "left"
        out = oar.searchsorted(T(seq), T(v), right=right)
        assert out.dtype == oar.int64
        np.testing.assert_array_equal(out.numpy(), np.searchsorted(seq, v, side=side))
        np.testing.assert_array_equal(oar.bucketize(T(v), T(seq), right=right).numpy(),
                                      np.searchsorted(seq, v, side=side))
    seq2 = np.array([[1.0, 3.0], [2.0, 4.0]])
    out = oar.searchsorted(T(seq2), T(np.array([[3.0], [3.0]])), right=True, out_int32=True)
    assert out.dtype == oar.int32
    np.testing.assert_array_equal(out.numpy(), [[2], [1]])
    with pytest.raises(ValueError, match="searchsorted: the leading dims"):
        oar.searchsorted(T(seq2), T(np.ones((3, 1))))
    with pytest.raises(TypeError, match="must have the same dtype"):
        oar.searchsorted(T(seq), T(np.array([1.0])))
    with pytest.raises(ValueError, match="bucketize: argument 'sorted_sequence' must be 1-D"):
        oar.bucketize(T(v), T(seq2))


def test_unique():
    a = np.array([3, 1, 3, 2, 1, 3])
    out, idx, inv, cnt = oar.unique(T(a), return_index=True, return_inverse=True, return_counts=True)
    u, ui, uinv, uc = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
    for got, want in ((out, u), (idx, ui), (inv, uinv), (cnt, uc)):
        np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal(oar.unique(T(a.reshape(2, 3))).numpy(), u)
    parts = oar.unique_flat(T(a), False)  # the C++ op behind unique
    np.testing.assert_array_equal(parts[3].numpy(), uc)
    assert oar.unique(T(a), return_counts=True, dtype="int32")[1].dtype == oar.int32
    v, inv, cnt = oar.unique_consecutive(T(np.array([1, 1, 2, 2, 3, 1, 1])), return_inverse=True,
                                         return_counts=True)
    np.testing.assert_array_equal(v.numpy(), [1, 2, 3, 1])
    np.testing.assert_array_equal(inv.numpy(), [0, 0, 1, 1, 2, 3, 3])
    np.testing.assert_array_equal(cnt.numpy(), [2, 2, 1, 2])
    # NaNs are never equal to each other (as Paddle).
    got = oar.unique(T(np.array([1.0, np.nan, 1.0, np.nan]))).numpy()
    np.testing.assert_array_equal(got, [1.0, np.nan, np.nan])


def _np_unique_consecutive_rows(rows):
    keep = [0] + [i for i in range(1, len(rows)) if not np.array_equal(rows[i], rows[i - 1])]
    inverse = np.cumsum([0] + [int(not np.array_equal(rows[i], rows[i - 1])) for i in range(1, len(rows))])
    counts = np.diff(keep + [len(rows)])
    return keep, inverse, counts


@pytest.mark.parametrize("dt", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("shape,axis", [((7, 3), 0), ((7, 3), 1), ((4, 5, 2), 1), ((4, 5, 2), -1),
                                        ((6, 2, 3), 0), ((4, 3, 2), 2), ((3, 2, 2, 4), 3)])
def test_unique_along_axis(shape, axis, dt):
    # Few distinct values, so slices repeat. Paddle orders the slices lexicographically in the
    # layout of x with dims 0 and axis swapped (NumPy's unique(axis=) moves axis first instead,
    # which orders 3-D slices differently), first occurrences as NumPy.
    a = np.random.default_rng(sum(shape) + axis).integers(0, 2, shape).astype(dt)
    out, idx, inv, cnt = oar.unique(T(a), return_index=True, return_inverse=True, return_counts=True,
                                    axis=axis)
    u, ui, uinv, uc = np.unique(np.swapaxes(a, 0, axis), return_index=True, return_inverse=True,
                                return_counts=True, axis=0)
    u = np.swapaxes(u, 0, axis)
    assert out.dtype == T(a).dtype
    for got, want in ((out, u), (idx, ui), (inv, uinv.reshape(-1)), (cnt, uc)):
        np.testing.assert_array_equal(got.numpy(), want)
    # unique_consecutive: one slice per run of equal neighbouring slices, in input order.
    rows = np.moveaxis(a, axis, 0).reshape(a.shape[axis], -1)
    keep, inverse, counts = _np_unique_consecutive_rows(rows)
    v, inv, cnt = oar.unique_consecutive(T(a), return_inverse=True, return_counts=True, axis=axis)
    np.testing.assert_array_equal(v.numpy(), np.take(a, keep, axis=axis))
    np.testing.assert_array_equal(inv.numpy(), inverse)
    np.testing.assert_array_equal(cnt.numpy(), counts)


def test_unique_along_axis_dtype_nan_empty_and_method():
    a = np.array([[1, 2, 3], [0, 5, 1], [1, 2, 3], [0, 1, 9], [0, 5, 1]])
    parts = oar.unique(T(a), return_index=True, return_inverse=True, return_counts=True, axis=0,
                       dtype="int32")
    assert [p.dtype for p in parts] == [oar.int64, oar.int32, oar.int32, oar.int32]
    np.testing.assert_array_equal(parts[1].numpy(), [3, 1, 0])  # first occurrences
    # Paddle 3.3.1's order for 3-D slices along axis 2 (dims 0 and 2 swapped, then flattened).
    b = np.array([[[0, 0], [1, 0], [0, 1]], [[0, 0], [1, 1], [1, 1]], [[0, 1], [0, 1], [0, 0]],
                  [[1, 1], [1, 1], [0, 0]]])
    np.testing.assert_array_equal(oar.unique(T(b), axis=2, return_index=True)[1].numpy(), [0, 1])
    first, inverse, counts = oar.unique_rows(T(np.array([[1, 2], [0, 3], [1, 2]])), False)  # the C++ op
    np.testing.assert_array_equal(first.numpy(), [1, 0])
    np.testing.assert_array_equal(inverse.numpy(), [1, 0, 1])
    np.testing.assert_array_equal(counts.numpy(), [1, 2])
    with pytest.raises(ValueError, match=r"unique_rows: argument 'x' must be 2-D, got shape \[3\]"):
        oar.unique_rows(T(np.array([1, 2, 3])), False)
    np.testing.assert_array_equal(T(a).unique(axis=0).numpy(), np.unique(a, axis=0))
    assert oar.unique_consecutive(T(a), axis=0, return_counts=True, dtype="int32")[1].dtype == oar.int32
    # Rows holding NaN never equal another row (as Paddle: [1, nan] twice stays twice).
    f = np.array([[1.0, np.nan], [1.0, np.nan], [0.0, 2.0]])
    v, c = oar.unique(T(f), axis=0, return_counts=True)
    np.testing.assert_array_equal(v.numpy(), [[0.0, 2.0], [1.0, np.nan], [1.0, np.nan]])
    np.testing.assert_array_equal(c.numpy(), [1, 1, 1])
    v, i, c = oar.unique(T(np.zeros((0, 3), np.int64)), return_inverse=True, return_counts=True,
                         axis=0)
    assert v.shape == [0, 3] and i.shape == [0] and c.shape == [0]


def test_unique_along_axis_errors():
    a = T(np.zeros((2, 2, 2), np.int64))
    with pytest.raises(ValueError, match=r"unique: argument 'axis' must be in \[-3, 3\) for x of "
                                         r"shape \[2, 2, 2\], got 3"):
        oar.unique(a, axis=3)
    with pytest.raises(ValueError, match=r"unique_consecutive: argument 'axis' must be in \[-3, 3\)"
                                         r" for x of shape \[2, 2, 2\], got -4"):
        oar.unique_consecutive(a, axis=-4)
    with pytest.raises(TypeError, match="unique: argument 'axis' must be an int or None, got list"):
        oar.unique(a, axis=[0])


def test_median():
    a = rand((3, 4), seed=64)
    np.testing.assert_allclose(oar.median(T(a)).numpy(), np.median(a))
    np.testing.assert_allclose(oar.median(T(a), axis=1).numpy(), np.median(a, 1))
    np.testing.assert_allclose(oar.median(T(a[:, :3]), axis=1, keepdim=True).numpy(), np.median(a[:, :3], 1, keepdims=True))
    m = oar.median(T(np.array([1, 2, 3, 4])))
    assert m.dtype == oar.float32 and float(m) == 2.5
    v, i = oar.median(T(np.array([[1.0, 5.0, 2.0], [3.0, 4.0, 0.0]])), axis=1, mode="min")
    np.testing.assert_array_equal(v.numpy(), [2, 3])
    np.testing.assert_array_equal(i.numpy(), [2, 0])
    np.testing.assert_array_equal(oar.median(T(np.array([[1.0, np.nan], [3.0, 4.0]])), axis=1).numpy(), [np.nan, 3.5])
    check_grad(lambda t: oar.median(t, axis=0), [a], what="median")
    with pytest.raises(ValueError, match="median: argument 'mode'"):
        oar.median(T(a), mode="max")


@pytest.mark.host_only  # errors raised from inside the host kernels (a device kernel's come back as OSError)
def test_take_put_along_axis_kernel_errors():
    a = rand((3, 4), seed=65)
    with pytest.raises(IndexError):
        oar.take_along_axis(T(a), T(np.array([[4]])), 1)
    with pytest.raises(ValueError, match="put_along_axis: argument 'reduce' must be one of"):
        oar.put_along_axis(T(a), T(np.array([[0, 3], [1, 1], [2, 0]])), 1.0, 1, reduce="max")


def test_take_put_along_axis():
    a = rand((3, 4), seed=65)
    idx = np.array([[0, 3], [1, 1], [2, 0]])
    np.testing.assert_array_equal(oar.take_along_axis(T(a), T(idx), 1).numpy(), np.take_along_axis(a, idx, 1))
    # Broadcast of indices against arr (as Paddle).
    np.testing.assert_array_equal(oar.take_along_axis(T(a), T(np.array([[1], [0], [2]])), 1).numpy(),
                                  np.take_along_axis(a, np.array([[1], [0], [2]]), 1))
    np.testing.assert_array_equal(oar.take_along_axis(T(a), T(np.array([[2, 0, 1, 1]])), 0).numpy(),
                                  np.take_along_axis(a, np.array([[2, 0, 1, 1]]), 0))
    out = oar.put_along_axis(T(a), T(idx), T(np.full((3, 2), 9.0)), 1)
    want = a.copy()
    np.put_along_axis(want, idx, 9.0, 1)
    np.testing.assert_array_equal(out.numpy(), want)
    np.testing.assert_array_equal(oar.put_along_axis(T(np.zeros((2, 3))), T(np.array([[0, 0], [2, 2]])), 1.0, 1,
                                                     reduce="add").numpy(), [[2, 0, 0], [0, 0, 2]])
    z = oar.put_along_axis(T(np.ones((1, 3))), T(np.array([[0, 0, 1]])), T(np.array([[2.0, 3.0, 4.0]])), 1,
                           reduce="mul", include_self=False)
    np.testing.assert_array_equal(z.numpy(), [[6, 4, 1]])
    m = oar.put_along_axis(T(np.ones((1, 3))), T(np.array([[0, 0, 1]])), T(np.array([[2.0, 4.0, 4.0]])), 1,
                           reduce="mean")
    np.testing.assert_allclose(m.numpy(), [[7 / 3, 2.5, 1]])
    check_grad(lambda t: oar.take_along_axis(t, T(idx), 1), [a], what="take_along_axis")
    check_grad(lambda t, v: oar.put_along_axis(t, T(idx), v, 1), [a, rand((3, 2), seed=66)],
               what="put_along_axis assign")
    check_grad(lambda t, v: oar.put_along_axis(t, T(idx), v, 1, reduce="add"), [a, rand((3, 2), seed=67)],
               what="put_along_axis add")
    with pytest.raises(ValueError, match="take_along_axis: 'indices' and 'arr' must have the same number"):
        oar.take_along_axis(T(a), T(np.array([0])), 1)
    with pytest.raises(TypeError, match="take_along_axis: argument 'indices' must be an int32 or int64"):
        oar.take_along_axis(T(a), T(np.array([[0.0]])), 1)
    t = T(a.copy())
    t.put_along_axis_(T(idx), 0.0, 1)
    want = a.copy()
    np.put_along_axis(want, idx, 0.0, 1)
    np.testing.assert_array_equal(t.numpy(), want)


def test_mode_argwhere():
    # Values measured with paddle 3.3: the smallest most-frequent value, index of its last occurrence.
    v, i = oar.mode(T(np.array([[1.0, 2, 2, 3], [4, 4, 1, 1]])), axis=1)
    np.testing.assert_array_equal(v.numpy(), [2, 1])
    np.testing.assert_array_equal(i.numpy(), [2, 3])
    a = np.array([[3, 1, 3], [2, 2, 5]])
    v, i = oar.mode(T(a), axis=0, keepdim=True)
    assert v.shape == [1, 3]
    np.testing.assert_array_equal(v.numpy(), [[2, 1, 3]])
    # The gradient reaches the returned occurrence (a tie makes the numeric derivative undefined).
    t = T(np.array([[1.0, 2.0, 2.0], [3.0, 3.0, 1.0]]), stop_gradient=False)
    v, i = oar.mode(t, axis=1)
    v.sum().backward()
    np.testing.assert_array_equal(t.grad.numpy(), [[0, 0, 1], [0, 1, 0]])
    m = np.array([[0, 1], [2, 0]])
    np.testing.assert_array_equal(oar.argwhere(T(m)).numpy(), np.argwhere(m))


def test_where_forms():
    c = np.array([[True, False], [False, True]])
    rows, cols = oar.where(T(c))
    np.testing.assert_array_equal(rows.numpy(), np.where(c)[0])
    np.testing.assert_array_equal(cols.numpy(), np.where(c)[1])
    out = oar.where(T(c), 1.0, 0.0)
    assert out.dtype == oar.float32
    np.testing.assert_array_equal(out.numpy(), np.where(c, 1.0, 0.0))
    x = T(np.array([[1, 2], [3, 4]]))
    np.testing.assert_array_equal(oar.where(T(c), x, -1).numpy(), np.where(c, [[1, 2], [3, 4]], -1))
    with pytest.raises(ValueError, match="where: give both 'x' and 'y', or neither"):
        oar.where(T(c), x)
