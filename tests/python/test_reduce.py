"""Reductions and scans: NumPy references over axes, keepdim, shapes (0-D, views) and dtypes,
float64 gradient checks, and Paddle's dtype rules (sum of int32 gives int64)."""
import math

import numpy as np
import pytest

import oar
from op_test import FLOAT_DTYPES, assert_close, check_forward, check_grad, rand

# var/std of a single value (n - 1 = 0) is NaN, in NumPy as in oar.
pytestmark = pytest.mark.filterwarnings("ignore:Degrees of freedom:RuntimeWarning",
                                        "ignore:invalid value encountered:RuntimeWarning")


def _np_axis(axis, ndim):
    """Paddle axis (None / [] = all, int, list) -> NumPy axis."""
    if axis is None or (isinstance(axis, (list, tuple)) and len(axis) == 0):
        return None
    if isinstance(axis, (list, tuple)):
        return tuple(a % max(ndim, 1) for a in axis) if ndim else None
    return None if ndim == 0 else axis


def _lse(a, axis=None, keepdims=False):
    m = np.max(a, axis=axis, keepdims=True)
    r = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return r if keepdims else np.squeeze(r, axis=axis) if axis is not None else r.reshape(())


def _pnorm(p):
    def ref(a, axis=None, keepdims=False):
        if p == np.inf:
            return np.max(np.abs(a), axis=axis, keepdims=keepdims)
        if p == 1:
            return np.sum(np.abs(a), axis=axis, keepdims=keepdims)
        return np.sqrt(np.sum(a * a, axis=axis, keepdims=keepdims))
    return ref


# name, numpy reference (a, axis, keepdims), extra kwargs for oar, differentiable, grad domain
REDUCE = [
    ("sum", np.sum, {}, True, (-1, 1)),
    ("mean", np.mean, {}, True, (-1, 1)),
    ("prod", np.prod, {}, True, (0.5, 1.5)),
    ("max", np.max, {}, True, (-1, 1)),
    ("min", np.min, {}, True, (-1, 1)),
    ("amax", np.max, {}, True, (-1, 1)),
    ("amin", np.min, {}, True, (-1, 1)),
    ("logsumexp", _lse, {}, True, (-1, 1)),
    ("var", lambda a, axis=None, keepdims=False: np.var(a, axis=axis, keepdims=keepdims, ddof=1), {}, True, (-1, 1)),
    ("std", lambda a, axis=None, keepdims=False: np.std(a, axis=axis, keepdims=keepdims, ddof=1), {}, True, (-1, 1)),
]

AXES_3D = [None, 1, -1, 0, [0, 2], [-1, 0], [0, 1, 2], []]
AXES_0D = [None, 0, -1, []]


def _run_reduce(name, ref, a, axis, keepdim, dt, extra=None):
    t = oar.to_tensor(a)
    out = getattr(oar, name)(t, axis=axis, keepdim=keepdim, **(extra or {}))
    exp = np.asarray(ref(a.astype(np.float64) if a.dtype.kind == "f" else a,
                         axis=_np_axis(axis, a.ndim), keepdims=keepdim))
    if keepdim and a.ndim == 0:
        exp = exp.reshape(())
    assert_close(out, exp, dt, f"{name}(shape={a.shape}, axis={axis}, keepdim={keepdim})[{dt}]")
    return out


@pytest.mark.parametrize("name,ref,extra,diff,dom", REDUCE, ids=[r[0] for r in REDUCE])
def test_reduce_float(name, ref, extra, diff, dom):
    for dt in FLOAT_DTYPES:
        a = rand((3, 4, 5), dt, low=dom[0], high=dom[1])
        for axis in AXES_3D:
            for keepdim in (False, True):
                out = _run_reduce(name, ref, a, axis, keepdim, dt, extra)
                assert out.dtype.name == dt
        s = rand((), dt, low=dom[0], high=dom[1], seed=3)
        for axis in AXES_0D:
            for keepdim in (False, True):
                out = _run_reduce(name, ref, s, axis, keepdim, dt, extra)
                assert out.shape == []
        # Non-contiguous input: a transposed view.
        m = rand((4, 6), dt, low=dom[0], high=dom[1], seed=4)
        for axis in (None, 0, -1, [0, 1]):
            for keepdim in (False, True):
                out = getattr(oar, name)(oar.to_tensor(m).T, axis=axis, keepdim=keepdim)
                exp = ref(m.T.astype(np.float64), axis=_np_axis(axis, 2), keepdims=keepdim)
                assert_close(out, exp, dt, f"{name}(view, axis={axis}, keepdim={keepdim})[{dt}]")
    # Method form.
    a = rand((3, 4), low=dom[0], high=dom[1], seed=5)
    assert_close(getattr(oar.to_tensor(a), name)(axis=1), ref(a, axis=1), "float64", f"{name} method")
    if diff:
        g = rand((3, 4), low=dom[0], high=dom[1], seed=6)
        for axis in (None, 1, [0, 1], -2):
            for keepdim in (False, True):
                check_grad(lambda x: getattr(oar, name)(x, axis=axis, keepdim=keepdim), [g],
                           what=f"{name}(axis={axis}, keepdim={keepdim})")
        check_grad(lambda x: getattr(oar, name)(x.T, axis=0), [g], what=f"{name}(view)")


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "amax", "amin"])
def test_reduce_int(name):
    ref = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "amax": np.max, "amin": np.min}[name]
    for dt in ("int32", "int64"):
        a = rand((3, 4), dt, low=-3, high=3, seed=7)
        for axis in (None, 0, -1, [0, 1]):
            for keepdim in (False, True):
                out = getattr(oar, name)(oar.to_tensor(a), axis=axis, keepdim=keepdim)
                exp = ref(a, axis=_np_axis(axis, 2), keepdims=keepdim)
                np.testing.assert_array_equal(out.numpy(), exp, err_msg=f"{name}({axis}, {keepdim})[{dt}]")
                assert list(out.shape) == list(np.shape(exp))
                # Paddle: sum of int32 (and bool) accumulates in int64; the others keep the dtype.
                assert out.dtype.name == ("int64" if name == "sum" else dt), f"{name}[{dt}] -> {out.dtype}"


def test_sum_dtype_rules():
    b = np.array([[True, False, True], [True, True, False]])
    r = oar.sum(oar.to_tensor(b))
    assert r.dtype == oar.int64 and int(r) == 4
    r = oar.sum(oar.to_tensor(b), axis=1)
    np.testing.assert_array_equal(r.numpy(), [2, 2])
    a = rand((2, 3), "float32", seed=1)
    r = oar.sum(oar.to_tensor(a), dtype="float64")
    assert r.dtype == oar.float64
    np.testing.assert_allclose(r.numpy(), a.astype(np.float64).sum(), rtol=1e-6)
    i = np.array([[1, 2], [3, 4]], dtype=np.int32)
    r = oar.sum(oar.to_tensor(i), axis=0, dtype="int32")
    assert r.dtype == oar.int32
    np.testing.assert_array_equal(r.numpy(), [4, 6])
    # Large int32 sum does not overflow (int64 accumulation).
    big = np.full([4], 2 ** 30, dtype=np.int32)
    assert int(oar.sum(oar.to_tensor(big))) == 2 ** 32
    # prod with an explicit dtype
    r = oar.prod(oar.to_tensor(i), dtype="int64")
    assert r.dtype == oar.int64 and int(r) == 24


def test_sum_empty_and_zero_size():
    z = np.zeros((0, 3))
    check_forward(lambda t: oar.sum(t, axis=0), lambda v: np.sum(v, axis=0), [z], FLOAT_DTYPES)
    check_forward(lambda t: oar.sum(t), lambda v: np.sum(v), [z], FLOAT_DTYPES)
    check_forward(lambda t: oar.prod(t, axis=0), lambda v: np.prod(v, axis=0), [z], FLOAT_DTYPES)
    check_forward(lambda t: oar.sum(t, axis=1), lambda v: np.sum(v, axis=1), [z], FLOAT_DTYPES)


def test_max_min_gradient_ties():
    # max/min give the full gradient to each tied position (Paddle), amax/amin split it evenly.
    x = oar.to_tensor(np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]]), stop_gradient=False)
    for name, exp in [("max", [[0, 1, 1], [1, 0, 1]]), ("amax", [[0, 0.5, 0.5], [0.5, 0, 0.5]])]:
        (g,) = oar.grad([getattr(oar, name)(x, axis=1).sum()], [x])
        np.testing.assert_allclose(g.numpy(), exp, err_msg=name)
    y = oar.to_tensor(np.array([[1.0, 0.0, 0.0], [2.0, 5.0, 2.0]]), stop_gradient=False)
    for name, exp in [("min", [[0, 1, 1], [1, 0, 1]]), ("amin", [[0, 0.5, 0.5], [0.5, 0, 0.5]])]:
        (g,) = oar.grad([getattr(oar, name)(y, axis=1).sum()], [y])
        np.testing.assert_allclose(g.numpy(), exp, err_msg=name)


def test_prod_gradient_with_zeros():
    a = np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 4.0], [1.5, 2.0, -1.0]])
    check_grad(lambda x: oar.prod(x, axis=1), [a], what="prod with zeros")
    check_grad(lambda x: oar.prod(x), [np.array([[0.5, 2.0], [3.0, 0.0]])], what="prod all with zero")


@pytest.mark.parametrize("name,ref", [("argmax", np.argmax), ("argmin", np.argmin)])
def test_argmax_argmin(name, ref):
    for dt in ("float32", "float64", "int32", "int64"):
        a = np.random.default_rng(11).permutation(60).reshape(3, 4, 5).astype(dt)
        for axis in (None, 0, 1, -1):
            for keepdim in (False, True):
                out = getattr(oar, name)(oar.to_tensor(a), axis=axis, keepdim=keepdim)
                exp = ref(a, axis=axis, keepdims=keepdim)
                assert out.dtype == oar.int64
                np.testing.assert_array_equal(out.numpy(), exp, err_msg=f"{name}({axis}, {keepdim})[{dt}]")
                assert list(out.shape) == list(np.shape(exp)), f"{name}({axis}, {keepdim}) shape"
        # Non-contiguous view.
        m = a[0]
        out = getattr(oar, name)(oar.to_tensor(m).T, axis=1)
        np.testing.assert_array_equal(out.numpy(), ref(m.T, axis=1))
        out = getattr(oar, name)(oar.to_tensor(m).T)
        np.testing.assert_array_equal(out.numpy(), ref(m.T))
    # Ties: the first occurrence (NumPy and Paddle).
    t = np.array([[1.0, 3.0, 3.0, 0.0], [0.0, 0.0, 2.0, 2.0]])
    np.testing.assert_array_equal(getattr(oar, name)(oar.to_tensor(t), axis=1).numpy(), ref(t, axis=1))
    # 0-D and dtype=int32.
    assert int(getattr(oar, name)(oar.to_tensor(5.0))) == 0
    r = getattr(oar, name)(oar.to_tensor(t), axis=1, dtype="int32")
    assert r.dtype == oar.int32
    np.testing.assert_array_equal(r.numpy(), ref(t, axis=1))
    # Method form.
    np.testing.assert_array_equal(getattr(oar.to_tensor(t), name)(axis=0).numpy(), ref(t, axis=0))


@pytest.mark.parametrize("name,ref", [("all", np.all), ("any", np.any)])
def test_all_any(name, ref):
    rng = np.random.default_rng(5)
    cases = [rng.random((3, 4, 5)) > 0.3, rng.random((3, 4, 5)) > 0.9, np.ones((2, 3), bool),
             np.zeros((2, 3), bool), np.array(True), np.array(False)]
    for b in cases:
        axes = (None, 0, -1, [0, 1], []) if b.ndim else (None, 0, -1)
        for axis in axes:
            for keepdim in (False, True):
                out = getattr(oar, name)(oar.to_tensor(b), axis=axis, keepdim=keepdim)
                exp = ref(b, axis=_np_axis(axis, b.ndim), keepdims=keepdim)
                if b.ndim == 0:
                    exp = np.asarray(exp).reshape(())
                assert out.dtype == oar.bool
                np.testing.assert_array_equal(out.numpy(), exp, err_msg=f"{name}({b.shape}, {axis}, {keepdim})")
                assert list(out.shape) == list(np.shape(exp))
    # Non-bool inputs: nonzero counts as true.
    for dt in ("float32", "float64", "int32", "int64"):
        a = np.array([[0, 1, 2], [3, 4, 5]]).astype(dt)
        np.testing.assert_array_equal(getattr(oar, name)(oar.to_tensor(a), axis=1).numpy(), ref(a, axis=1))
    b = cases[0][0]
    np.testing.assert_array_equal(getattr(oar, name)(oar.to_tensor(b).T, axis=0).numpy(), ref(b.T, axis=0))
    np.testing.assert_array_equal(getattr(oar.to_tensor(b), name)(axis=1).numpy(), ref(b, axis=1))


def test_logsumexp_large_values_no_overflow():
    a = np.array([[1000.0, 1000.0], [-1000.0, -1001.0]])
    for dt in FLOAT_DTYPES:
        out = oar.logsumexp(oar.to_tensor(a.astype(dt)), axis=1)
        np.testing.assert_allclose(out.numpy(), [1000 + math.log(2), -1000 + math.log1p(math.exp(-1))], rtol=1e-6)


def test_var_std_biased_and_ints():
    a = rand((3, 5), seed=8)
    for name, ref in [("var", np.var), ("std", np.std)]:
        for axis in (None, 0, -1, [0, 1]):
            for keepdim in (False, True):
                out = getattr(oar, name)(oar.to_tensor(a), axis=axis, unbiased=False, keepdim=keepdim)
                assert_close(out, ref(a, axis=_np_axis(axis, 2), keepdims=keepdim), "float64", name)
        check_grad(lambda x: getattr(oar, name)(x, axis=1, unbiased=False), [a], what=f"{name} biased")
        i = np.array([[1, 2, 3, 4], [2, 4, 6, 9]], dtype=np.int64)
        out = getattr(oar, name)(oar.to_tensor(i), axis=1)
        assert out.dtype == oar.float32
        np.testing.assert_allclose(out.numpy(), ref(i.astype(np.float64), axis=1, ddof=1), rtol=1e-6)


NORMS = [("fro", 2), (2, 2), (1, 1), (float("inf"), np.inf), (np.inf, np.inf)]


@pytest.mark.parametrize("p,np_p", NORMS, ids=["fro", "2", "1", "inf", "np.inf"])
def test_norm(p, np_p):
    ref = _pnorm(np_p)
    axes = [None, 0, 1, -1, [0, 1]] if p == "fro" else [None, 0, 1, -1]
    for dt in FLOAT_DTYPES:
        a = rand((3, 4), dt, low=-2, high=2, seed=9)
        for axis in axes:
            for keepdim in (False, True):
                out = oar.norm(oar.to_tensor(a), p=p, axis=axis, keepdim=keepdim)
                exp = ref(a.astype(np.float64), axis=_np_axis(axis, 2), keepdims=keepdim)
                assert_close(out, exp, dt, f"norm(p={p}, axis={axis}, keepdim={keepdim})[{dt}]")
                assert out.dtype.name == dt
        # 3-D, a view, and 0-D.
        b = rand((2, 3, 4), dt, seed=10)
        assert_close(oar.norm(oar.to_tensor(b), p=p, axis=-1), ref(b.astype(np.float64), axis=-1), dt, "norm 3-D")
        assert_close(oar.norm(oar.to_tensor(a).T, p=p, axis=1), ref(a.T.astype(np.float64), axis=1), dt, "norm view")
        assert_close(oar.norm(oar.to_tensor(np.array(-3.0, dt)), p=p), np.array(3.0), dt, "norm 0-D")
    a = rand((3, 4), low=-2, high=2, seed=12)
    assert_close(oar.to_tensor(a).norm(p=p, axis=1), ref(a, axis=1), "float64", "norm method")
    # Gradients (no zeros for p=1, no ties for inf).
    g = rand((3, 4), low=0.2, high=2, seed=13) * np.where(rand((3, 4), seed=14) > 0, 1, -1)
    for axis in (None, 1, -2):
        for keepdim in (False, True):
            check_grad(lambda x: oar.norm(x, p=p, axis=axis, keepdim=keepdim), [g],
                       what=f"norm(p={p}, axis={axis}, keepdim={keepdim})")


def test_norm_default_and_other_p():
    a = rand((3, 4), low=-2, high=2, seed=15)
    assert_close(oar.norm(oar.to_tensor(a)), np.sqrt((a * a).sum()), "float64", "norm default")
    assert_close(oar.norm(oar.to_tensor(a), p=3, axis=1), (np.abs(a) ** 3).sum(1) ** (1 / 3), "float64", "p=3")
    assert_close(oar.norm(oar.to_tensor(a), p=-np.inf, axis=1), np.abs(a).min(1), "float64", "p=-inf")


SCANS = [("cumsum", "axis", np.cumsum), ("cumprod", "dim", np.cumprod)]


@pytest.mark.parametrize("name,kw,ref", SCANS, ids=["cumsum", "cumprod"])
def test_scans(name, kw, ref):
    op = getattr(oar, name)
    for dt in FLOAT_DTYPES + ["int32", "int64"]:
        a = rand((3, 4, 2), dt, low=-1.5, high=1.5, seed=16) if dt in FLOAT_DTYPES else rand((3, 4, 2), dt, low=-3, high=2)
        for axis in (None, 0, 1, -1, -3):
            out = op(oar.to_tensor(a), **{kw: axis})
            exp = ref(a, axis=axis)
            if dt in FLOAT_DTYPES:
                assert_close(out, exp.astype(np.float64), dt, f"{name}(axis={axis})[{dt}]")
            else:
                np.testing.assert_array_equal(out.numpy(), exp, err_msg=f"{name}(axis={axis})[{dt}]")
            # As Paddle: cumsum sums integers in int64, cumprod keeps the integer dtype.
            want = "int64" if name == "cumsum" and dt not in FLOAT_DTYPES else dt
            assert out.dtype.name == want, f"{name}[{dt}] -> {out.dtype}"
        # Non-contiguous view.
        m = a[:, :, 0]
        for axis in (None, 0, 1):
            out = op(oar.to_tensor(m).T, **{kw: axis})
            np.testing.assert_allclose(out.numpy(), ref(m.T, axis=axis), rtol=1e-5, err_msg=f"{name} view")
    # 0-D: axis None gives [1], an axis gives 0-D.
    s = oar.to_tensor(2.5)
    assert op(s).shape == [1]
    assert op(s, **{kw: 0}).shape == []
    # bool counts as int64; explicit dtype.
    b = np.array([True, False, True, True])
    r = op(oar.to_tensor(b), **{kw: 0})
    assert r.dtype == oar.int64
    np.testing.assert_array_equal(r.numpy(), ref(b.astype(np.int64)))
    i = np.array([[1, 2], [3, 4]], dtype=np.int32)
    r = op(oar.to_tensor(i), **{kw: 1}, dtype="float64")
    assert r.dtype == oar.float64
    np.testing.assert_allclose(r.numpy(), ref(i.astype(np.float64), axis=1))
    # Method form.
    a = rand((3, 4), seed=17)
    np.testing.assert_allclose(getattr(oar.to_tensor(a), name)(**{kw: 1}).numpy(), ref(a, axis=1), rtol=1e-12)
    # Gradients.
    g = rand((3, 4), low=0.5, high=1.5, seed=18) * np.where(rand((3, 4), seed=19) > 0, 1, -1)
    for axis in (None, 0, 1, -1):
        check_grad(lambda x: op(x, **{kw: axis}), [g], what=f"{name}(axis={axis})")
    check_grad(lambda x: op(x.T, **{kw: 1}), [g], what=f"{name}(view)")


def test_cumprod_gradient_with_zeros():
    a = np.array([[1.5, 0.0, 2.0, -1.0], [0.0, 2.0, 0.0, 3.0], [0.5, 2.0, 1.5, 0.0]])
    check_grad(lambda x: oar.cumprod(x, dim=1), [a], what="cumprod with zeros")


BAD_AXIS = ["sum", "mean", "prod", "max", "min", "amax", "amin", "all", "any", "logsumexp", "var", "std"]


@pytest.mark.parametrize("name", BAD_AXIS)
def test_bad_axis(name):
    x = oar.ones([2, 3])
    with pytest.raises(ValueError, match=name):
        getattr(oar, name)(x, axis=2)
    with pytest.raises(ValueError, match=name):
        getattr(oar, name)(x, axis=-3)
    with pytest.raises(ValueError, match=name):
        getattr(oar, name)(x, axis=[0, 5])


@pytest.mark.parametrize("name", ["argmax", "argmin", "cumsum", "cumprod"])
def test_bad_axis_single(name):
    x = oar.ones([2, 3])
    kw = "dim" if name == "cumprod" else "axis"
    with pytest.raises(ValueError, match=name):
        getattr(oar, name)(x, **{kw: 2})
    with pytest.raises(ValueError, match=name):
        getattr(oar, name)(x, **{kw: -3})


def test_bad_axis_norm():
    with pytest.raises(ValueError, match="norm"):
        oar.norm(oar.ones([2, 3]), p=2, axis=2)


# ---- large inputs: the kernels' parallel paths (rows split among threads, chunked columns) ----

def test_large_reductions():
    rng = np.random.default_rng(21)
    a = rng.uniform(-1, 1, size=300_000)
    col = rng.uniform(-1, 1, size=(100_000, 3))
    for dt in FLOAT_DTYPES:
        v, c = a.astype(dt), col.astype(dt)
        tol = 1e-4 if dt == "float32" else 1e-10
        for name, ref in [("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min),
                          ("logsumexp", _lse)]:
            np.testing.assert_allclose(getattr(oar, name)(oar.to_tensor(v)).numpy(),
                                       ref(v.astype(np.float64)), rtol=tol, atol=tol, err_msg=f"{name} 1-D [{dt}]")
            np.testing.assert_allclose(getattr(oar, name)(oar.to_tensor(c), axis=0).numpy(),
                                       ref(c.astype(np.float64), axis=0), rtol=tol, atol=tol,
                                       err_msg=f"{name} columns [{dt}]")
            np.testing.assert_allclose(getattr(oar, name)(oar.to_tensor(c).T, axis=1).numpy(),
                                       ref(c.astype(np.float64), axis=0), rtol=tol, atol=tol,
                                       err_msg=f"{name} view rows [{dt}]")
        for p, ref in [(2, _pnorm(2)), (1, _pnorm(1)), (np.inf, _pnorm(np.inf))]:
            np.testing.assert_allclose(oar.norm(oar.to_tensor(v), p=p).numpy(), ref(v.astype(np.float64)),
                                       rtol=tol, err_msg=f"norm p={p} 1-D [{dt}]")
        np.testing.assert_allclose(oar.var(oar.to_tensor(c), axis=0).numpy(),
                                   np.var(c.astype(np.float64), axis=0, ddof=1), rtol=tol)
        for name, ref in [("argmax", np.argmax), ("argmin", np.argmin)]:
            assert int(getattr(oar, name)(oar.to_tensor(v))) == ref(v), f"{name} 1-D [{dt}]"
            np.testing.assert_array_equal(getattr(oar, name)(oar.to_tensor(c), axis=0).numpy(), ref(c, axis=0))
    i = rng.integers(-1000, 1000, size=300_000).astype(np.int32)
    r = oar.sum(oar.to_tensor(i))
    assert r.dtype == oar.int64 and int(r) == int(i.astype(np.int64).sum())
    assert int(oar.max(oar.to_tensor(i))) == i.max() and int(oar.min(oar.to_tensor(i))) == i.min()
    b = np.ones(300_000, bool)
    assert bool(oar.all(oar.to_tensor(b)))
    b[299_999] = False
    assert not bool(oar.all(oar.to_tensor(b)))
    assert bool(oar.any(oar.to_tensor(~b)))
    assert not bool(oar.any(oar.to_tensor(np.zeros(300_000, bool))))


def test_large_argmax_ties_across_chunks():
    # The maximum appears in several places: the first index wins (NumPy / Paddle).
    a = np.zeros(300_000)
    for pos in (250_000, 170_001, 299_999):
        a[pos] = 5.0
    assert int(oar.argmax(oar.to_tensor(a))) == 170_001
    assert int(oar.argmin(oar.to_tensor(-a))) == 170_001
    assert int(oar.argmax(oar.to_tensor(np.ones(300_000)))) == 0
    m = np.zeros((1000, 7))
    m[[3, 500, 900], :] = 1.0
    np.testing.assert_array_equal(oar.argmax(oar.to_tensor(m), axis=0).numpy(), np.full(7, 3))


def test_nan_propagation():
    a = np.array([[1.0, np.nan, 3.0], [1.0, 2.0, 3.0]])
    for name, ref in [("max", np.max), ("min", np.min), ("amax", np.max), ("amin", np.min),
                      ("sum", np.sum), ("logsumexp", _lse)]:
        assert_close(getattr(oar, name)(oar.to_tensor(a), axis=1), ref(a, axis=1), "float64", f"{name} NaN")
    # argmax/argmin skip NaNs, as Paddle (unlike NumPy, which returns the first NaN); an
    # all-NaN run gives index 0. Expected values measured with paddle 3.3.
    for name, ref in [("argmax", np.nanargmax), ("argmin", np.nanargmin)]:
        np.testing.assert_array_equal(getattr(oar, name)(oar.to_tensor(a), axis=1).numpy(), ref(a, axis=1))
        b = np.arange(40.0)
        b[[0, 17, 39]] = np.nan
        assert int(getattr(oar, name)(oar.to_tensor(b))) == ref(b), f"{name}: NaNs skipped"
        for dt in ("float32", "float64"):
            c = np.array([[np.nan, 1, 3], [1, np.nan, 3], [3, np.nan, 1], [np.nan, np.nan, np.nan]], dt)
            want = {"argmax": [2, 2, 0, 0], "argmin": [1, 0, 2, 0]}[name]
            np.testing.assert_array_equal(getattr(oar, name)(oar.to_tensor(c), axis=1).numpy(), want,
                                          err_msg=f"{name}[{dt}] rows with NaN")


def test_logsumexp_infinities():
    a = np.array([[-np.inf, -np.inf], [np.inf, 1.0], [-np.inf, 0.0]])
    out = oar.logsumexp(oar.to_tensor(a), axis=1).numpy()
    np.testing.assert_array_equal(out, [-np.inf, np.inf, 0.0])


def test_large_cumsum_and_reverse_grad():
    rng = np.random.default_rng(22)
    a = rng.uniform(-1, 1, size=300_000)
    np.testing.assert_allclose(oar.cumsum(oar.to_tensor(a)).numpy(), np.cumsum(a), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(oar.cumsum(oar.to_tensor(a.astype(np.float32))).numpy(), np.cumsum(a),
                               rtol=1e-4, atol=1e-3)
    p = np.where(np.arange(300_000) % 2 == 0, 1.0, -1.0)
    np.testing.assert_array_equal(oar.cumprod(oar.to_tensor(p), dim=0).numpy(), np.cumprod(p))
    # Backward of cumsum is a reverse cumsum.
    x = oar.to_tensor(a, stop_gradient=False)
    w = rng.uniform(0.5, 1.5, size=300_000)
    (g,) = oar.grad([(oar.cumsum(x) * oar.to_tensor(w)).sum()], [x])
    np.testing.assert_allclose(g.numpy(), np.cumsum(w[::-1])[::-1], rtol=1e-9)
    i = rng.integers(-5, 5, size=(3, 200_000)).astype(np.int64)
    np.testing.assert_array_equal(oar.cumsum(oar.to_tensor(i), axis=1).numpy(), np.cumsum(i, axis=1))
    np.testing.assert_array_equal(oar.cumsum(oar.to_tensor(i), axis=0).numpy(), np.cumsum(i, axis=0))


def test_permuted_view_reductions():
    # Kept dims in a different memory order than the logical order (the kernel's reorder path).
    a = rand((3, 4, 5, 6), seed=23)
    t = oar.transpose(oar.to_tensor(a), [2, 0, 3, 1])
    v = a.transpose(2, 0, 3, 1)
    for axis in (1, [0, 2], [1, 3], -1, [0, 3]):
        for keepdim in (False, True):
            for name, ref in [("sum", np.sum), ("max", np.max), ("prod", np.prod)]:
                assert_close(getattr(oar, name)(t, axis=axis, keepdim=keepdim),
                             ref(v, axis=_np_axis(axis, 4), keepdims=keepdim), "float64",
                             f"{name} permuted axis={axis}")
    # A sliced (non-dense) view and a broadcast (expanded) view.
    s = oar.to_tensor(a)[:, 1:3, ::2]
    assert_close(oar.sum(s, axis=[0, 2]), a[:, 1:3, ::2].sum(axis=(0, 2)), "float64", "sliced view")
    e = oar.expand(oar.to_tensor(a[0, 0, 0]), [4, 5, 6])
    assert_close(oar.sum(e, axis=0), np.broadcast_to(a[0, 0, 0], (4, 5, 6)).sum(0), "float64", "expanded view")


def test_random_views_and_axes():
    """Seeded sweep: random shapes (with size-1 dims), permuted/strided views, axis subsets."""
    rng = np.random.default_rng(2024)
    for _ in range(300):
        nd = int(rng.integers(1, 5))
        shape = tuple(int(rng.choice([1, 2, 3, 5])) for _ in range(nd))
        dt = str(rng.choice(["float32", "float64", "int32", "int64"]))
        a = (rng.uniform(-2, 2, size=shape) if dt.startswith("float") else rng.integers(-5, 5, size=shape)).astype(dt)
        perm = list(rng.permutation(nd))
        step = tuple(slice(None, None, int(rng.choice([1, 2, -1]))) for _ in range(nd))
        t = oar.to_tensor(a)
        t, v = (oar.transpose(t, perm)[step], a.transpose(perm)[step]) if rng.integers(0, 2) else (t[step], a[step])
        axes = sorted(rng.choice(nd, size=int(rng.integers(0, nd + 1)), replace=False).tolist())
        keep = bool(rng.integers(0, 2))
        npax = tuple(axes) if axes else None
        what = f"shape={shape} perm={perm} step={step} axes={axes} keepdim={keep} [{dt}]"
        vf = v.astype(np.float64) if dt.startswith("float") else v.astype(np.int64)
        for name, ref in [("sum", np.sum), ("max", np.max), ("min", np.min)]:
            out = getattr(oar, name)(t, axis=axes, keepdim=keep)
            exp = np.asarray(ref(vf, axis=npax, keepdims=keep))
            if name != "sum" and not dt.startswith("float"):
                exp = exp.astype(dt)
            assert_close(out, exp, dt, f"{name} {what}")
        if dt.startswith("float"):
            assert_close(oar.logsumexp(t, axis=axes, keepdim=keep),
                         np.log(np.exp(vf).sum(axis=npax, keepdims=keep)), dt, f"logsumexp {what}")
            assert_close(oar.norm(t, p=2, axis=axes, keepdim=keep),
                         np.sqrt((vf ** 2).sum(axis=npax, keepdims=keep)), dt, f"norm {what}")
        ax = int(rng.integers(-nd, nd))
        np.testing.assert_array_equal(oar.argmax(t, axis=ax, keepdim=keep).numpy(), np.argmax(v, axis=ax, keepdims=keep),
                                      err_msg=f"argmax axis={ax} {what}")
        np.testing.assert_allclose(oar.cumsum(t, axis=ax).numpy(), np.cumsum(vf, axis=ax), rtol=1e-5, atol=1e-5,
                                   err_msg=f"cumsum axis={ax} {what}")
