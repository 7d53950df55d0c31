"""einsum, tensordot, distances, statistics and small constructions against NumPy, with float64
gradient checks and bad-input errors."""
import itertools

import numpy as np
import pytest

import oar
from op_test import check_grad, rand

T = oar.to_tensor
R = np.random.default_rng(95)


@pytest.mark.parametrize("eq,shapes", [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]), ("ij->", [(3, 4)]), ("...j,j", [(2, 3, 4), (4,)]), ("i,j->ij", [(3,), (4,)]),
    ("ijk,ikl,lm->jm", [(2, 3, 4), (2, 4, 5), (5, 2)]), ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("ij,ij->i", [(3, 4), (3, 4)]), ("ji", [(3, 4)]), ("b...i,b...i->b...", [(2, 3, 4), (2, 3, 4)]),
])
def test_einsum(eq, shapes):
    arrays = [R.random(s) for s in shapes]
    np.testing.assert_allclose(oar.einsum(eq, *[T(a) for a in arrays]).numpy(), np.einsum(eq, *arrays),
                               rtol=1e-12, atol=1e-12)
    small = [R.random(s) for s in shapes]
    check_grad(lambda *ts: oar.einsum(eq, *ts), small, what=f"einsum {eq}")


def test_einsum_errors():
    with pytest.raises(ValueError, match="einsum: the equation 'ij,jk' has 2 operands, but 1"):
        oar.einsum("ij,jk", T(np.ones((2, 2))))
    with pytest.raises(ValueError, match="einsum: subscripts 'ijk' name 3 dims"):
        oar.einsum("ijk", T(np.ones((2, 2))))
    with pytest.raises(ValueError, match="einsum: output letter 'z'"):
        oar.einsum("ij->z", T(np.ones((2, 2))))


def test_tensordot_products():
    a, b = R.random((2, 3, 4)), R.random((3, 4, 5))
    for axes in (2, [[1, 2], [0, 1]], [[1], [0]]):
        np_axes = axes if isinstance(axes, int) else (axes[0], axes[1])
        np.testing.assert_allclose(oar.tensordot(T(a), T(b), axes).numpy(), np.tensordot(a, b, np_axes), rtol=1e-12)
    check_grad(lambda x, y: oar.tensordot(x, y, 2), [a, b], what="tensordot")
    with pytest.raises(ValueError, match="tensordot: dim 2 of x"):
        oar.tensordot(T(a), T(R.random((5, 4))), [[2], [0]])
    i, x, y = R.random((3, 5)), R.random((3, 4)), R.random((4, 5))
    np.testing.assert_allclose(oar.addmm(T(i), T(x), T(y), beta=0.5, alpha=2).numpy(), 0.5 * i + 2 * x @ y, rtol=1e-12)
    np.testing.assert_allclose(oar.baddbmm(T(i[None]), T(x[None]), T(y[None])).numpy(), (i + x @ y)[None], rtol=1e-12)
    np.testing.assert_allclose(oar.add_n([T(i), T(i), T(i)]).numpy(), 3 * i, rtol=1e-12)


def test_distances():
    x, y = R.random((2, 3, 4)), R.random((2, 5, 4))
    for p in (2.0, 1.0, 3.0):
        want = (np.abs(x[:, :, None] - y[:, None]) ** p).sum(-1) ** (1 / p)
        np.testing.assert_allclose(oar.cdist(T(x), T(y), p=p).numpy(), want, rtol=1e-10)
    np.testing.assert_allclose(oar.dist(T(x[0]), T(y[0, 0]), p=np.inf).numpy(), np.abs(x[0] - y[0, 0]).max())
    assert float(oar.dist(T(np.array([1.0, 0.0])), T(np.array([1.0, 2.0])), p=0)) == 1.0
    z = R.random((4, 3))
    want = [np.linalg.norm(z[i] - z[j]) for i, j in itertools.combinations(range(4), 2)]
    np.testing.assert_allclose(oar.pdist(T(z)).numpy(), want, rtol=1e-12)
    check_grad(lambda a, b: oar.cdist(a, b), [x[0], y[0]], what="cdist")


def test_quantiles():
    a = R.random((3, 5))
    for q, kw in ((0.3, {}), (0.3, {"axis": 1}), ([0.1, 0.9], {"axis": 0, "keepdim": True})):
        np_kw = {"axis": kw.get("axis"), "keepdims": kw.get("keepdim", False)}
        np.testing.assert_allclose(oar.quantile(T(a), q, **kw).numpy(), np.quantile(a, q, **np_kw), rtol=1e-12)
    for interp in ("lower", "higher", "midpoint", "nearest"):
        np.testing.assert_allclose(oar.quantile(T(a), 0.4, axis=1, interpolation=interp).numpy(),
                                   np.quantile(a, 0.4, axis=1, method=interp), rtol=1e-12, err_msg=interp)
    b = np.array([[1.0, np.nan, 3.0, 2.0], [np.nan, 4.0, 0.5, 1.0]])
    np.testing.assert_allclose(oar.nanquantile(T(b), 0.5, axis=1).numpy(), np.nanquantile(b, 0.5, axis=1))
    np.testing.assert_allclose(oar.nanmedian(T(b), axis=1).numpy(), np.nanmedian(b, axis=1))
    assert np.isnan(oar.quantile(T(b), 0.5, axis=1).numpy()).all()
    check_grad(lambda t: oar.quantile(t, 0.3, axis=1), [a], what="quantile")
    with pytest.raises(ValueError, match=r"quantile: every q must be in \[0, 1\]"):
        oar.quantile(T(a), 1.5)
    with pytest.raises(ValueError, match="quantile: argument 'interpolation'"):
        oar.quantile(T(a), 0.5, interpolation="cubic")


def test_counting_and_integration():
    x = np.array([1, 2, 1, 5])
    np.testing.assert_array_equal(oar.bincount(T(x)).numpy(), np.bincount(x))
    np.testing.assert_array_equal(oar.bincount(T(x), minlength=8).numpy(), np.bincount(x, minlength=8))
    w = R.random(4)
    np.testing.assert_allclose(oar.bincount(T(x), weights=T(w)).numpy(), np.bincount(x, w))
    with pytest.raises(ValueError, match="bincount: argument 'x' must hold non-negative values"):
        oar.bincount(T(np.array([-1, 2])))
    v = R.random(20) * 3
    np.testing.assert_array_equal(oar.histogram(T(v), bins=4, min=0, max=3).numpy(), np.histogram(v, 4, (0, 3))[0])
    np.testing.assert_array_equal(oar.histogram(T(v), bins=5).numpy(), np.histogram(v, 5)[0])
    y = R.random((3, 5))
    np.testing.assert_allclose(oar.trapezoid(T(y)).numpy(), np.trapezoid(y) if hasattr(np, "trapezoid") else np.trapz(y))
    xs = np.sort(R.random(5))
    np.testing.assert_allclose(oar.trapezoid(T(y), x=T(xs)).numpy(), (np.trapezoid if hasattr(np, "trapezoid") else np.trapz)(y, xs))
    cum = oar.cumulative_trapezoid(T(y), dx=0.5, axis=0).numpy()
    np.testing.assert_allclose(cum, np.cumsum((y[1:] + y[:-1]) * 0.25, axis=0))
    r = oar.renorm(T(y), 2.0, 0, 1.0).numpy()
    n = np.linalg.norm(y, axis=1, keepdims=True)
    np.testing.assert_allclose(r, np.where(n > 1, y / n, y), rtol=1e-12)
    check_grad(lambda t: oar.trapezoid(t, dx=0.5), [y], what="trapezoid")


def test_constructions():
    a, b = R.random((2, 3)), R.random((1, 2))
    want = np.zeros((3, 5))
    want[:2, :3], want[2:, 3:] = a, b
    np.testing.assert_array_equal(oar.block_diag([T(a), T(b)]).numpy(), want)
    u, v = R.random(3), R.random(2)
    np.testing.assert_array_equal(oar.cartesian_prod([T(u), T(v)]).numpy(), np.array(list(itertools.product(u, v))))
    np.testing.assert_array_equal(oar.combinations(T(u), 2).numpy(), np.array(list(itertools.combinations(u, 2))))
    np.testing.assert_array_equal(oar.combinations(T(u), 2, with_replacement=True).numpy(),
                                  np.array(list(itertools.combinations_with_replacement(u, 2))))
    np.testing.assert_allclose(oar.vander(T(u)).numpy(), np.vander(u))
    np.testing.assert_allclose(oar.vander(T(u), 4, increasing=True).numpy(), np.vander(u, 4, increasing=True))
    m = R.random((2, 3, 4))
    for k, axes in ((1, (0, 1)), (2, (0, 1)), (3, (1, 2)), (-1, (0, 2))):
        np.testing.assert_array_equal(oar.rot90(T(m), k, axes).numpy(), np.rot90(m, k, axes))
    np.testing.assert_array_equal(oar.tril_indices(4, 3, 1).numpy(), np.stack(np.tril_indices(4, 1, 3)))
    np.testing.assert_array_equal(oar.triu_indices(4, 3, -1).numpy(), np.stack(np.triu_indices(4, -1, 3)))
    r = oar.range(0, 5, 2)
    assert r.dtype == oar.float32
    np.testing.assert_array_equal(r.numpy(), [0, 2, 4])
    np.testing.assert_array_equal(oar.take_along_dim(T(a), T(np.array([[2], [0]])), 1).numpy(), [[a[0, 2]], [a[1, 0]]])
    t = T(a)
    assert oar.clone(t) is not t and oar.as_tensor(t) is t
    np.testing.assert_array_equal(oar.from_numpy(a).numpy(), a)
    np.testing.assert_array_equal(oar.asarray([1, 2], dtype="float32").numpy(), [1, 2])
    check_grad(lambda t: oar.rot90(t, 1, [1, 2]), [m], what="rot90")
    check_grad(lambda t: oar.block_diag([t, t]), [a], what="block_diag")
