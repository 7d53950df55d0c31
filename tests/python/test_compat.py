"""Paddle's alias and convenience functions (python/oar/tensor/: math, manipulation, logic,
attribute, linalg, creation) against NumPy, with float64 gradient checks where they are
differentiable and the errors Paddle raises."""
import math

import numpy as np
import pytest

import oar
from op_test import check_grad, rand

A = rand((2, 3, 4), seed=31)
T = oar.to_tensor


def same(t, ref):
    """t (a tensor, or a list of tensors) equals ref (an array, or a list of arrays)."""
    ts, rs = (list(t), list(ref)) if isinstance(t, (list, tuple)) else ([t], [ref])
    assert len(ts) == len(rs)
    for x, r in zip(ts, rs):
        np.testing.assert_allclose(x.numpy(), np.asarray(r), rtol=1e-12, atol=1e-12)


def test_aliases():
    b = rand((4,), seed=32)
    same(oar.cat([T(A), T(A)], axis=1), np.concatenate([A, A], 1))
    same(oar.concatenate([T(A)], axis=0), A)
    same(oar.clamp(T(A), min=-0.5), np.maximum(A, -0.5))
    same(oar.clamp(T(A), max=0.2), np.minimum(A, 0.2))
    same(oar.mul(T(A), T(b)), A * b)
    same(oar.sub(T(A), T(b), alpha=2), A - 2 * b)
    same(oar.true_divide(T(A), T(b + 3)), A / (b + 3))
    assert oar.gt is oar.greater and oar.lt is oar.less
    same(oar.ne(T(A), T(b)), A != b)
    same(oar.negative(T(A)), -A)
    assert oar.positive(T(A)) is not None
    with pytest.raises(TypeError, match="positive"):
        oar.positive(T(np.array([True])))
    t = T(A.copy())
    t.clamp_(min=0.0)
    same(t, np.maximum(A, 0))
    assert math.isclose(oar.pi, math.pi) and oar.newaxis is None and oar.inf == math.inf


def test_div_rounding_modes():
    x = np.array([7, -7, 7, -7, 6], np.int64)
    y = np.array([2, 2, -2, -2, 3], np.int64)
    same(oar.div(T(x), T(y), rounding_mode="trunc"), np.trunc(x / y).astype(np.int64))
    same(oar.div(T(x), T(y), rounding_mode="floor"), np.floor_divide(x, y))
    same(oar.div(T(x.astype(float)), T(y.astype(float)), rounding_mode="trunc"), np.trunc(x / y))
    same(oar.div(T(x.astype(float)), T(y.astype(float))), x / y)
    assert oar.div(T(x), T(y), rounding_mode="trunc").dtype == oar.int64
    with pytest.raises(ValueError, match="div: argument 'rounding_mode'"):
        oar.div(T(x), T(y), rounding_mode="round")


def test_math_composites_and_gradients():
    x = rand((3, 4), low=0.1, high=0.9, seed=33)
    y = rand((4,), low=0.5, high=2, seed=34)
    same(oar.logit(T(x)), np.log(x / (1 - x)))
    same(oar.logit(T(x), eps=0.2), np.log(np.clip(x, 0.2, 0.8) / (1 - np.clip(x, 0.2, 0.8))))
    same(oar.logaddexp(T(x), T(y)), np.logaddexp(x, y))
    same(oar.hypot(T(x), T(y)), np.hypot(x, y))
    same(oar.sinc(T(np.array([0.0, 0.25, -1.5]))), np.sinc([0.0, 0.25, -1.5]))
    same(oar.frac(T(A * 3)), A * 3 - np.trunc(A * 3))
    same(oar.deg2rad(T(A)), np.deg2rad(A))
    same(oar.rad2deg(T(A)), np.rad2deg(A))
    assert oar.deg2rad(T(np.array([180]))).dtype == oar.float32
    same(oar.signbit(T(np.array([-1.0, -0.0, 0.0, 2.0]))), [True, True, False, False])
    same(oar.sgn(T(A)), np.sign(A))
    z = np.array([3 + 4j, 0j], np.complex64)
    np.testing.assert_allclose(oar.sgn(T(z)).numpy(), [0.6 + 0.8j, 0])
    for f in (oar.logaddexp, oar.hypot):
        check_grad(f, [x, y], what=f.__name__)
    check_grad(oar.sinc, [np.array([0.3, -1.2, 2.5])], what="sinc")
    check_grad(lambda t: oar.logit(t), [x], what="logit")


def test_nan_reductions_and_counts():
    v = np.array([[1.0, np.nan, 2.0], [3.0, 4.0, np.nan]])
    same(oar.nansum(T(v)), np.nansum(v))
    same(oar.nansum(T(v), axis=1), np.nansum(v, 1))
    same(oar.nanmean(T(v), axis=0, keepdim=True), np.nanmean(v, 0, keepdims=True))
    c = oar.count_nonzero(T(np.array([[0.0, 1.0], [2.0, 0.0]])), axis=1)
    same(c, [1, 1])
    assert c.dtype == oar.int64
    same(oar.isin(T(np.array([1, 2, 3, 2])), T(np.array([2, 5]))), [False, True, False, True])
    same(oar.isin(T(np.array([1, 2])), T(np.array([2])), invert=True), [True, False])


def test_layout_functions_and_gradients():
    same(oar.permute(T(A), [2, 0, 1]), A.transpose(2, 0, 1))
    same(oar.swapaxes(T(A), 0, 2), A.swapaxes(0, 2))
    same(oar.moveaxis(T(A), [0, 1], [2, 0]), np.moveaxis(A, [0, 1], [2, 0]))
    same(oar.matrix_transpose(T(A)), A.swapaxes(-1, -2))
    same(oar.ravel(T(A)), A.ravel())
    same(oar.narrow(T(A), 2, -3, 2), A[:, :, 1:3])
    same(oar.view(T(A), [4, 6]), A.reshape(4, 6))
    same(oar.unflatten(T(A), 2, [2, 2]), A.reshape(2, 3, 2, 2))
    same(oar.unstack(T(A), axis=1), [A[:, i] for i in range(3)])
    same(oar.reverse(T(A), [0, 2]), A[::-1, :, ::-1])
    same(oar.atleast_1d(T(np.array(2.0))), [2.0])
    same(oar.atleast_2d(T(np.arange(3.0))), np.atleast_2d(np.arange(3.0)))
    same(oar.atleast_3d(T(np.ones((2, 3)))), np.atleast_3d(np.ones((2, 3))))
    m = rand((2, 3), seed=35)
    same(oar.hstack([T(m), T(m)]), np.hstack([m, m]))
    same(oar.vstack([T(m[0]), T(m)]), np.vstack([m[0], m]))
    same(oar.dstack([T(m), T(m)]), np.dstack([m, m]))
    same(oar.column_stack([T(m[0]), T(m[1])]), np.column_stack([m[0], m[1]]))
    v = rand((7, 2), seed=36)
    same(oar.tensor_split(T(v), 3), np.array_split(v, 3))
    same(oar.tensor_split(T(v), [2, 5]), np.split(v, [2, 5]))
    same(oar.hsplit(T(rand((2, 6), seed=37)), 3), np.hsplit(rand((2, 6), seed=37), 3))
    with pytest.raises(ValueError, match="vsplit: argument 'x' must have at least 2 dims"):
        oar.vsplit(T(np.ones(4)), 2)
    with pytest.raises(ValueError, match="hsplit: dimension 1 of size 6 is not divisible by 4"):
        oar.hsplit(T(np.ones((2, 6))), 4)
    with pytest.raises(ValueError, match="moveaxis: 'source' and 'destination'"):
        oar.moveaxis(T(A), [0, 1], [2])
    g1, g2 = oar.meshgrid(T(np.arange(3.0)), T(np.arange(2.0)))
    r1, r2 = np.meshgrid(np.arange(3.0), np.arange(2.0), indexing="ij")
    same([g1, g2], [r1, r2])
    same(oar.broadcast_tensors([T(np.ones((2, 1))), T(np.ones(3))]), [np.ones((2, 3))] * 2)
    assert oar.broadcast_shape([2, 1], [3]) == [2, 3]
    check_grad(lambda t: oar.moveaxis(t, 0, -1), [A], what="moveaxis")
    check_grad(lambda t: oar.narrow(t, 1, 1, 2), [A], what="narrow")
    check_grad(lambda t: oar.tensor_split(t, 3), [v], what="tensor_split")


def test_small_linear_algebra():
    m = rand((3, 4), seed=38)
    same(oar.inner(T(m), T(m)), np.inner(m, m))
    same(oar.mv(T(m), T(m[0])), m @ m[0])
    same(oar.ger(T(m[0]), T(m[1])), np.outer(m[0], m[1]))
    for off in (0, 1, -2):
        same(oar.diagonal(T(m), offset=off), np.diagonal(m, off))
        same(oar.trace(T(m), offset=off), np.trace(m, off))
        same(oar.diag(T(m), offset=off), np.diag(m, off))
        same(oar.diag(T(m[0]), offset=off), np.diag(m[0], off))
    same(oar.diag(T(np.array([1.0, 2.0])), padding_value=7), [[1, 7], [7, 2]])
    same(oar.diagonal(T(A), 1, 1, 2), np.diagonal(A, 1, 1, 2))
    same(oar.diagonal(T(A), -1, 2, 0), np.diagonal(A, -1, 2, 0))
    same(oar.diff(T(m), n=2), np.diff(m, 2))
    same(oar.diff(T(m), axis=0, prepend=T(m[:1])), np.diff(m, axis=0, prepend=m[:1]))
    check_grad(lambda t: oar.diagonal(t, 1, 0, 2), [A], what="diagonal")
    check_grad(lambda t: oar.diag(t, offset=-1), [rand((3,), seed=39)], what="diag 1-D")
    check_grad(lambda t: oar.trace(t), [m], what="trace")
    check_grad(lambda t: oar.diff(t, n=2), [m], what="diff")
    with pytest.raises(ValueError, match="diag: argument 'x' must be 1-D or 2-D"):
        oar.diag(T(A))
    with pytest.raises(ValueError, match="diagonal: 'axis1' and 'axis2' must differ"):
        oar.diagonal(T(A), 0, 1, 1)


def test_predicates_and_methods():
    t = T(A)
    assert not oar.is_complex(t) and oar.is_floating_point(t) and not oar.is_integer(t)
    assert oar.is_integer(T(np.array([1])))
    assert bool(oar.is_empty(T(np.zeros((0, 3))))) and not bool(oar.is_empty(t))
    r = oar.rank(t)
    assert r.shape == [] and r.dtype == oar.int32 and int(r) == 3
    # The same functions as Tensor methods.
    same(t.permute([1, 0, 2]), A.transpose(1, 0, 2))
    same(t.clamp(-0.1, 0.1), np.clip(A, -0.1, 0.1))
    same(t.diagonal(0, 1, 2), np.diagonal(A, 0, 1, 2))
    oar.manual_seed(3)
    a = oar.rand_like(t)
    oar.manual_seed(3)
    np.testing.assert_array_equal(a.numpy(), oar.rand_like(t).numpy())
    assert oar.randn_like(t, dtype="float32").dtype == oar.float32
    same(oar.logspace(0, 2, 3, dtype="float64"), [1.0, 10.0, 100.0])
