"""Tensor.fill_diagonal_tensor and fill_diagonal_tensor_ against NumPy, with gradients."""
import numpy as np
import pytest

import oar
from op_test import check_grad, rand


def _ref(x, y, offset, d1, d2):
    out = x.copy()
    if d1 > d2:
        d1, d2, offset = d2, d1, -offset
    moved = np.moveaxis(out, (d1, d2), (-2, -1))  # a view: writes land in out
    n = y.shape[-1]
    rows = np.arange(n) + max(-offset, 0)
    cols = np.arange(n) + max(offset, 0)
    moved[..., rows, cols] = y
    return out


CASES = [((3, 4), (3,), 0, 0, 1), ((3, 4), (3,), 1, 0, 1), ((3, 4), (2,), 2, 0, 1), ((3, 4), (2,), -1, 0, 1),
         ((2, 3, 4), (2, 3), 0, 1, 2), ((2, 3, 4), (2, 2), 1, 2, 1), ((2, 3, 4), (4, 2), 0, 0, -2),
         ((2, 3, 4), (2, 3), 0, -2, -1), ((3, 4), (0,), 4, 0, 1)]


@pytest.mark.parametrize("xs,ys,offset,d1,d2", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_matches_numpy(xs, ys, offset, d1, d2, dtype):
    x, y = rand(xs, dtype, seed=1), rand(ys, dtype, seed=2)
    out = oar.to_tensor(x).fill_diagonal_tensor(oar.to_tensor(y), offset=offset, dim1=d1, dim2=d2)
    assert out.dtype.name == dtype
    np.testing.assert_array_equal(out.numpy(), _ref(x, y, offset, d1 % x.ndim, d2 % x.ndim))


@pytest.mark.parametrize("xs,ys,offset,d1,d2", CASES[:7])
def test_gradients(xs, ys, offset, d1, d2):
    # y's gradient too (Paddle 3.3.1 records none for y)
    check_grad(lambda x, y: x.fill_diagonal_tensor(y, offset, d1, d2), [rand(xs, seed=3), rand(ys, seed=4)],
               what=f"fill_diagonal_tensor{xs, offset, d1, d2}")


def test_inplace():
    x = oar.ones([3, 4])
    r = x.fill_diagonal_tensor_(oar.to_tensor([1.0, 2.0, 3.0]), offset=1)
    assert r is x
    np.testing.assert_array_equal(x.numpy(), _ref(np.ones((3, 4), np.float32), np.array([1, 2, 3.0]), 1, 0, 1))
    # through a non-leaf, gradients reach both the original leaf (zero on the diagonal) and y
    a = oar.to_tensor(rand((3, 4), seed=5), stop_gradient=False)
    y = oar.to_tensor(rand((3,), seed=6), stop_gradient=False)
    b = a * 1.0
    b.fill_diagonal_tensor_(y)
    w = rand((3, 4), seed=7)
    ga, gy = oar.grad([(b * oar.to_tensor(w)).sum()], [a, y])
    expect = w.copy()
    expect[[0, 1, 2], [0, 1, 2]] = 0.0
    np.testing.assert_allclose(ga.numpy(), expect)
    np.testing.assert_allclose(gy.numpy(), w[[0, 1, 2], [0, 1, 2]])
    with pytest.raises(ValueError, match="Leaf Tensor"):
        a.fill_diagonal_tensor_(y)


@pytest.mark.parametrize("xs,ys,kw,err,msg", [
    ((3, 4), (2,), {}, ValueError, "must have shape \\[3\\]"),
    ((3, 4), (1, 3), {}, ValueError, "must have shape \\[3\\]"),
    ((3, 4), (3,), {"offset": 5}, ValueError, "outside"),
    ((3, 4), (3,), {"dim1": 0, "dim2": 2}, ValueError, "'dim2' must be in"),
    ((3, 4), (3,), {"dim1": 0, "dim2": 0}, ValueError, "different dims"),
    ((3,), (1,), {}, ValueError, "'dim2' must be in"),
])
def test_errors(xs, ys, kw, err, msg):
    with pytest.raises(err, match=msg):
        oar.zeros(list(xs)).fill_diagonal_tensor(oar.zeros(list(ys)), **kw)


def test_dtype_mismatch_raises():
    # Paddle reinterprets y's bytes as x's dtype here (garbage values); oar refuses
    with pytest.raises(TypeError, match="dtype"):
        oar.zeros([3, 4]).fill_diagonal_tensor(oar.to_tensor([1, 2, 3]))
