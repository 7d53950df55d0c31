"""Matrix products (matmul, mm, bmm, dot, outer) and softmax / log_softmax against NumPy, with
float64 gradient checks."""
import numpy as np
import pytest

import oar
from op_test import FLOAT_DTYPES, INT_DTYPES, assert_close, check_forward, check_grad, rand

NUM_DTYPES = ["float32", "float64", "int32", "int64"]


def _ints(shape, seed):
    return np.asarray(np.random.default_rng(seed).integers(-4, 5, size=shape))


def np_matmul(x, y, transpose_x=False, transpose_y=False):
    """Paddle's matmul: transposes swap the last two dims of operands with rank >= 2."""
    if transpose_x and x.ndim >= 2:
        x = np.swapaxes(x, -1, -2)
    if transpose_y and y.ndim >= 2:
        y = np.swapaxes(y, -1, -2)
    return np.matmul(x, y)


# x shape, y shape, transpose_x, transpose_y
MATMUL = [
    ((3, 4), (4, 5), False, False),
    ((4,), (4, 5), False, False),
    ((3, 4), (4,), False, False),
    ((4,), (4,), False, False),
    ((2, 3, 4), (2, 4, 5), False, False),
    ((2, 3, 4), (4, 5), False, False),      # y shared by the batch
    ((4, 5), (2, 5, 3), False, False),      # x shared by the batch
    ((2, 1, 3, 4), (1, 5, 4, 2), False, False),  # batch dims broadcast both ways
    ((2, 3, 4), (4,), False, False),
    ((4,), (2, 3, 4, 5), False, False),
    ((4, 3), (4, 5), True, False),
    ((3, 4), (5, 4), False, True),
    ((4, 3), (5, 4), True, True),
    ((2, 4, 3), (2, 5, 4), True, True),
    ((2, 4, 3), (4, 5), True, False),
    ((2, 3, 4), (5, 4), False, True),
    ((4,), (5, 4), False, True),            # the 1-D operand's flag does not apply
    ((4, 3), (4,), True, False),
    ((4,), (4,), True, True),
    ((3, 1, 4), (4, 2), False, False),      # M = 1 rows folded with the batch
    ((3, 4, 1), (4, 2), True, False),
    ((1, 4), (4, 1), False, False),
    ((0, 4), (4, 3), False, False),
    ((3, 0), (0, 2), False, False),         # empty contraction: zeros
    ((2, 0, 4), (4, 3), False, False),
]


@pytest.mark.parametrize("xs,ys,tx,ty", MATMUL, ids=[f"{a}x{b}{'T' if c else ''}{'T' if d else ''}"
                                                     for a, b, c, d in MATMUL])
def test_matmul(xs, ys, tx, ty):
    for dt in NUM_DTYPES:
        if dt.startswith("int"):
            x, y = _ints(xs, 1).astype(dt), _ints(ys, 2).astype(dt)
        else:
            x, y = rand(xs, dt, seed=1), rand(ys, dt, seed=2)
        out = oar.matmul(oar.to_tensor(x), oar.to_tensor(y), transpose_x=tx, transpose_y=ty)
        exp = np_matmul(x.astype(np.float64) if dt.startswith("float") else x,
                        y.astype(np.float64) if dt.startswith("float") else y, tx, ty)
        assert out.dtype.name == dt
        assert_close(out, exp, dt, f"matmul{xs}x{ys} tx={tx} ty={ty} [{dt}]")
    if 0 not in xs and 0 not in ys:
        check_grad(lambda a, b: oar.matmul(a, b, tx, ty), [rand(xs, seed=3), rand(ys, seed=4)],
                   what=f"matmul{xs}x{ys} tx={tx} ty={ty}")


def test_matmul_method_and_operator():
    x, y = rand((3, 4), seed=5), rand((4, 2), seed=6)
    tx, ty = oar.to_tensor(x), oar.to_tensor(y)
    assert_close(tx.matmul(ty), x @ y, "float64", "matmul method")
    assert_close(tx @ ty, x @ y, "float64", "@ operator")
    assert_close(tx.matmul(oar.to_tensor(y.T.copy()), transpose_y=True), x @ y, "float64", "method transpose_y")


def test_matmul_views():
    """Non-contiguous operands: transposed, sliced, negative strides, expanded (stride 0)."""
    for dt in FLOAT_DTYPES + ["int64"]:
        a = (rand((6, 8), dt, seed=7) if dt.startswith("float") else _ints((6, 8), 7).astype(dt))
        b = (rand((8, 10), dt, seed=8) if dt.startswith("float") else _ints((8, 10), 8).astype(dt))
        ta, tb = oar.to_tensor(a), oar.to_tensor(b)
        cases = [
            (ta.T, tb.T, a.T, b.T, True, True),
            (ta[1:4, ::2], tb[::2, 1:7], a[1:4, ::2], b[::2, 1:7], False, False),
            (ta[::-1], tb[:, ::-2], a[::-1], b[:, ::-2], False, False),
            (ta[:, 2], tb[:6, 3:5], a[:, 2], b[:6, 3:5], False, False),
            (ta[2, ::2], tb[::2, 5], a[2, ::2], b[::2, 5], False, False),
            (oar.expand(ta[:1], [3, 6, 8]), tb, np.broadcast_to(a[:1], (3, 6, 8)), b, False, False),
            (ta, oar.expand(tb[:, :1], [8, 4]), a, np.broadcast_to(b[:, :1], (8, 4)), False, False),
            (oar.transpose(oar.reshape(ta, [2, 3, 8]), [1, 0, 2]), tb, a.reshape(2, 3, 8).transpose(1, 0, 2), b,
             False, False),
            (oar.reshape(ta, [2, 3, 8]), oar.transpose(oar.reshape(oar.tile(tb, [2, 1]), [2, 8, 10]), [0, 2, 1]),
             a.reshape(2, 3, 8), np.tile(b, (2, 1)).reshape(2, 8, 10).transpose(0, 2, 1), False, True),
        ]
        for k, (x, y, xn, yn, tx, ty) in enumerate(cases):
            out = oar.matmul(x, y, transpose_x=tx, transpose_y=ty)
            f = (lambda v: v.astype(np.float64)) if dt.startswith("float") else (lambda v: v)
            assert_close(out, np_matmul(f(xn), f(yn), tx, ty), dt, f"matmul view case {k} [{dt}]")
    check_grad(lambda p, q: oar.matmul(p.T, q[::2]), [rand((5, 3), seed=9), rand((10, 4), seed=10)],
               what="matmul views")


def test_matmul_large_and_many_batch_dims():
    rng = np.random.default_rng(11)
    for dt, tol in (("float32", 2e-4), ("float64", 1e-10)):
        x = rng.uniform(-1, 1, size=(70, 130)).astype(dt)
        y = rng.uniform(-1, 1, size=(130, 90)).astype(dt)
        np.testing.assert_allclose(oar.matmul(oar.to_tensor(x), oar.to_tensor(y)).numpy(),
                                   x.astype(np.float64) @ y, rtol=tol, atol=tol)
        np.testing.assert_allclose(oar.matmul(oar.to_tensor(x), oar.to_tensor(y.T.copy()), transpose_y=True).numpy(),
                                   x.astype(np.float64) @ y, rtol=tol, atol=tol)
        b = rng.uniform(-1, 1, size=(16, 40, 30)).astype(dt)
        c = rng.uniform(-1, 1, size=(16, 30, 20)).astype(dt)
        np.testing.assert_allclose(oar.bmm(oar.to_tensor(b), oar.to_tensor(c)).numpy(),
                                   np.matmul(b.astype(np.float64), c), rtol=tol, atol=tol)
        # Many small matrices (the batch is threaded) and a long, thin product.
        s = rng.uniform(-1, 1, size=(500, 4, 6)).astype(dt)
        w = rng.uniform(-1, 1, size=(500, 6, 3)).astype(dt)
        np.testing.assert_allclose(oar.matmul(oar.to_tensor(s), oar.to_tensor(w)).numpy(),
                                   np.matmul(s.astype(np.float64), w), rtol=tol, atol=tol)
        v = rng.uniform(-1, 1, size=20000).astype(dt)
        np.testing.assert_allclose(oar.matmul(oar.to_tensor(v), oar.to_tensor(v)).numpy(),
                                   v.astype(np.float64) @ v, rtol=tol * 10)
    # Batch dims that cannot be merged (broadcast in alternation).
    x = rand((2, 1, 2, 1, 2, 1, 3, 4), seed=12)
    y = rand((1, 2, 1, 2, 1, 2, 4, 2), seed=13)
    assert_close(oar.matmul(oar.to_tensor(x), oar.to_tensor(y)), np.matmul(x, y), "float64", "alternating batch")
    i = np.random.default_rng(14).integers(-100, 100, size=(40, 60))
    np.testing.assert_array_equal(oar.matmul(oar.to_tensor(i), oar.to_tensor(i.T.copy())).numpy(), i @ i.T)


def test_matmul_errors():
    with pytest.raises(ValueError, match=r"matmul.*\[2, 3\].*\[2, 4\]"):
        oar.matmul(oar.ones([2, 3]), oar.ones([2, 4]))
    with pytest.raises(ValueError, match="matmul"):
        oar.matmul(oar.ones([3]), oar.ones([4]))
    with pytest.raises(ValueError, match="matmul"):
        oar.matmul(oar.ones([2, 3]), oar.ones([2, 3]), transpose_x=False, transpose_y=False)
    with pytest.raises(ValueError, match="matmul"):
        oar.matmul(oar.ones([2, 3, 4]), oar.ones([3, 4, 5]))  # batch 2 vs 3
    with pytest.raises(ValueError, match="matmul"):
        oar.matmul(oar.ones([3, 4]), oar.ones([4, 5]), transpose_x=True)
    with pytest.raises(ValueError, match="matmul"):
        oar.matmul(oar.ones([]), oar.ones([3]))


def test_mm_bmm():
    for dt in NUM_DTYPES:
        mk = (lambda s, k: rand(s, dt, seed=k)) if dt.startswith("float") else (lambda s, k: _ints(s, k).astype(dt))
        x, y = mk((3, 4), 1), mk((4, 5), 2)
        assert_close(oar.mm(oar.to_tensor(x), oar.to_tensor(y)), x.astype(np.float64) @ y if dt.startswith("float")
                     else x @ y, dt, f"mm [{dt}]")
        b, c = mk((2, 3, 4), 3), mk((2, 4, 5), 4)
        out = oar.bmm(oar.to_tensor(b), oar.to_tensor(c))
        assert out.dtype.name == dt
        assert_close(out, np.matmul(b.astype(np.float64), c) if dt.startswith("float") else np.matmul(b, c), dt,
                     f"bmm [{dt}]")
    # mm: batch dims broadcast as matmul (Paddle).
    x, y = rand((2, 3, 4), seed=5), rand((4, 5), seed=6)
    assert_close(oar.mm(oar.to_tensor(x), oar.to_tensor(y)), x @ y, "float64", "mm batched")
    assert_close(oar.to_tensor(x[0]).mm(oar.to_tensor(y)), x[0] @ y, "float64", "mm method")
    assert_close(oar.to_tensor(x).bmm(oar.to_tensor(rand((2, 4, 2), seed=7))), x @ rand((2, 4, 2), seed=7),
                 "float64", "bmm method")
    assert_close(oar.bmm(oar.to_tensor(x).transpose([0, 2, 1]), oar.to_tensor(rand((2, 3, 2), seed=8))),
                 np.swapaxes(x, 1, 2) @ rand((2, 3, 2), seed=8), "float64", "bmm view")
    check_grad(oar.mm, [rand((3, 4), seed=9), rand((4, 2), seed=10)], what="mm")
    check_grad(oar.bmm, [rand((2, 3, 4), seed=11), rand((2, 4, 2), seed=12)], what="bmm")
    with pytest.raises(ValueError, match="bmm"):
        oar.bmm(oar.ones([2, 3, 4]), oar.ones([2, 5, 2]))
    with pytest.raises(ValueError, match="bmm"):
        oar.bmm(oar.ones([2, 3, 4]), oar.ones([3, 4, 2]))
    with pytest.raises(ValueError, match="bmm"):
        oar.bmm(oar.ones([3, 4]), oar.ones([4, 2]))
    with pytest.raises(ValueError, match="matmul"):  # mm is matmul (as in Paddle)
        oar.mm(oar.ones([3, 4]), oar.ones([3, 2]))


def test_dot_outer():
    for dt in NUM_DTYPES:
        mk = (lambda s, k: rand(s, dt, seed=k)) if dt.startswith("float") else (lambda s, k: _ints(s, k).astype(dt))
        x, y = mk((5,), 1), mk((5,), 2)
        out = oar.dot(oar.to_tensor(x), oar.to_tensor(y))
        assert out.shape == [] and out.dtype.name == dt
        assert_close(out, np.dot(x.astype(np.float64), y) if dt.startswith("float") else np.dot(x, y), dt, f"dot [{dt}]")
        a, b = mk((3, 5), 3), mk((3, 5), 4)
        out = oar.dot(oar.to_tensor(a), oar.to_tensor(b))
        assert out.dtype.name == dt
        assert_close(out, (a.astype(np.float64) * b).sum(-1) if dt.startswith("float") else (a * b).sum(-1), dt,
                     f"dot 2-D [{dt}]")
        p, q = mk((3,), 5), mk((4,), 6)
        out = oar.outer(oar.to_tensor(p), oar.to_tensor(q))
        assert out.dtype.name == dt
        assert_close(out, np.outer(p.astype(np.float64), q) if dt.startswith("float") else np.outer(p, q), dt,
                     f"outer [{dt}]")
        r = mk((2, 3), 7)
        assert_close(oar.outer(oar.to_tensor(r), oar.to_tensor(p)),
                     np.outer(r.astype(np.float64), p) if dt.startswith("float") else np.outer(r, p), dt,
                     f"outer flattens [{dt}]")
    x = rand((6,), seed=8)
    t = oar.to_tensor(x)
    assert_close(oar.dot(t[::2], t[1::2]), np.dot(x[::2], x[1::2]), "float64", "dot views")
    m = rand((4, 3), seed=9)
    assert_close(oar.dot(oar.to_tensor(m).T, oar.to_tensor(m).T), (m.T * m.T).sum(-1), "float64", "dot 2-D views")
    assert_close(oar.outer(t[::-1], t[:2]), np.outer(x[::-1], x[:2]), "float64", "outer views")
    assert_close(t.dot(t), np.dot(x, x), "float64", "dot method")
    assert_close(t.outer(t[:2]), np.outer(x, x[:2]), "float64", "outer method")
    check_grad(oar.dot, [rand((5,), seed=10), rand((5,), seed=11)], what="dot")
    check_grad(oar.dot, [rand((3, 5), seed=12), rand((3, 5), seed=13)], what="dot 2-D")
    check_grad(oar.outer, [rand((3,), seed=14), rand((4,), seed=15)], what="outer")
    check_grad(oar.outer, [rand((2, 2), seed=16), rand((3,), seed=17)], what="outer 2-D")
    with pytest.raises(ValueError, match="dot"):
        oar.dot(oar.ones([3]), oar.ones([4]))
    with pytest.raises(ValueError, match="dot"):
        oar.dot(oar.ones([2, 3, 4]), oar.ones([2, 3, 4]))
    with pytest.raises(TypeError, match="dot"):
        oar.dot(oar.ones([3]), oar.ones([3], "float64"))


# ---------------------------------------------------------------------------------------------
# softmax / log_softmax

def np_softmax(x, axis=-1):
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=axis, keepdims=True)


def np_log_softmax(x, axis=-1):
    m = np.max(x, axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


SOFTMAX = [("softmax", np_softmax), ("log_softmax", np_log_softmax)]


@pytest.mark.parametrize("name,ref", SOFTMAX, ids=[s[0] for s in SOFTMAX])
def test_softmax(name, ref):
    op = getattr(oar, name)
    for shape, axes in [((3, 4, 5), (-1, 0, 1, 2, -2, -3)), ((7,), (0, -1)), ((2, 130), (-1, 0)),
                        ((3, 70, 2), (1,)), ((1, 5), (0, 1))]:
        x = rand(shape, low=-5, high=5, seed=1)
        for axis in axes:
            check_forward(lambda t: op(t, axis=axis), lambda a: ref(a.astype(np.float64), axis=axis), [x],
                          FLOAT_DTYPES, what=f"{name}{shape} axis={axis}")
    # Default axis, 0-D, zero-size, views, dtype argument, method form (softmax only).
    x = rand((3, 4), low=-3, high=3, seed=2)
    check_forward(op, lambda a: ref(a.astype(np.float64)), [x], FLOAT_DTYPES, what=f"{name} default axis")
    check_forward(op, lambda a: np.asarray(1.0 if name == "softmax" else 0.0), [rand((), seed=3)], FLOAT_DTYPES,
                  what=f"{name} 0-D")
    check_forward(lambda t: op(t, axis=0), lambda a: np.zeros((0, 3)), [np.zeros((0, 3))], FLOAT_DTYPES,
                  what=f"{name} zero-size")
    for axis in (0, 1, -1):
        check_forward(lambda t: op(t.T, axis=axis), lambda a: ref(a.T.astype(np.float64), axis=axis), [x],
                      FLOAT_DTYPES, what=f"{name}(view) axis={axis}")
    check_forward(lambda t: op(t[:, ::2], axis=0), lambda a: ref(a[:, ::2].astype(np.float64), axis=0), [x],
                  FLOAT_DTYPES, what=f"{name}(sliced)")
    out = op(oar.to_tensor(x.astype(np.float32)), axis=1, dtype="float64")
    assert out.dtype == oar.float64
    np.testing.assert_allclose(out.numpy(), ref(x.astype(np.float32).astype(np.float64), axis=1), rtol=1e-10)
    if name == "softmax":
        assert_close(oar.to_tensor(x).softmax(axis=0), ref(x, axis=0), "float64", "softmax method")
    # Gradients.
    g = rand((3, 4, 2), low=-2, high=2, seed=4)
    for axis in (-1, 0, 1):
        check_grad(lambda t: op(t, axis=axis), [g], what=f"{name} axis={axis}")
    check_grad(lambda t: op(t.T, axis=0), [rand((3, 4), seed=5)], what=f"{name}(view)")
    check_grad(op, [rand((), seed=6)], what=f"{name} 0-D")


@pytest.mark.parametrize("name,ref", SOFTMAX, ids=[s[0] for s in SOFTMAX])
def test_softmax_extreme_values(name, ref):
    op = getattr(oar, name)
    a = np.array([[1000.0, 0.0, -1000.0], [-np.inf, 1.0, 2.0], [-50.0, -50.0, -50.0], [88.0, 89.0, -90.0],
                  [-100.0, -120.0, -200.0]])
    with np.errstate(divide="ignore"):
        exp = ref(a)
    for dt in FLOAT_DTYPES:
        out = op(oar.to_tensor(a.astype(dt)), axis=1).numpy()
        assert np.all(np.isfinite(out) | np.isinf(exp)), f"{name}[{dt}]: {out}"
        np.testing.assert_allclose(out, exp, rtol=1e-5, atol=1e-6, err_msg=f"{name} extremes [{dt}]")
        # Strided kernel path (reduced axis not innermost).
        out = op(oar.to_tensor(a.T.copy().astype(dt)), axis=0).numpy()
        np.testing.assert_allclose(out, exp.T, rtol=1e-5, atol=1e-6, err_msg=f"{name} extremes axis 0 [{dt}]")


@pytest.mark.parametrize("name,ref", SOFTMAX, ids=[s[0] for s in SOFTMAX])
def test_softmax_large(name, ref):
    op = getattr(oar, name)
    rng = np.random.default_rng(7)
    for shape, axis in (((300, 257), -1), ((64, 300, 100), 1), ((5000, 3), 0), ((2, 70000), -1)):
        x = rng.uniform(-10, 10, size=shape)
        exp = ref(x, axis=axis)
        for dt, tol in (("float32", 1e-5), ("float64", 1e-12)):
            out = op(oar.to_tensor(x.astype(dt)), axis=axis).numpy()
            np.testing.assert_allclose(out, exp, rtol=tol * 10, atol=tol, err_msg=f"{name}{shape} axis={axis} [{dt}]")


def test_softmax_errors():
    with pytest.raises(ValueError, match="softmax"):
        oar.softmax(oar.ones([2, 3]), axis=2)
    with pytest.raises(ValueError, match="log_softmax"):
        oar.log_softmax(oar.ones([2, 3]), axis=-3)


def test_matmul_random_shapes():
    """Seeded sweep over batch broadcasting, 1-D operands, transposes, layouts and dtypes."""
    rng = np.random.default_rng(2025)
    for _ in range(300):
        dt = str(rng.choice(NUM_DTYPES))
        M, K, N = (int(rng.choice([1, 2, 3, 5, 17])) for _ in range(3))
        bx = [int(rng.choice([1, 2, 3])) for _ in range(int(rng.integers(0, 3)))]
        by = [int(rng.choice([1, 2, 3])) for _ in range(int(rng.integers(0, 3)))]
        L = max(len(bx), len(by))
        fx, fy = [1] * (L - len(bx)) + bx, [1] * (L - len(by)) + by
        fy = [fx[i] if fx[i] != fy[i] and fx[i] != 1 and fy[i] != 1 else fy[i] for i in range(L)]
        by = fy[L - len(by):]
        tx, ty = bool(rng.integers(0, 2)), bool(rng.integers(0, 2))
        xs = [K] if rng.integers(0, 6) == 0 else bx + ([K, M] if tx else [M, K])
        ys = [K] if rng.integers(0, 6) == 0 else by + ([N, K] if ty else [K, N])

        def mk(s):
            v = rng.uniform(-1, 1, size=s) if dt.startswith("float") else rng.integers(-3, 4, size=s)
            v = v.astype(dt)
            if v.ndim >= 2 and rng.integers(0, 2):  # stored transposed, viewed back
                perm = list(range(v.ndim - 2)) + [v.ndim - 1, v.ndim - 2]
                return oar.transpose(oar.to_tensor(np.ascontiguousarray(v.transpose(perm))), perm), v
            return oar.to_tensor(v), v

        (ta, a), (tb, b) = mk(xs), mk(ys)
        out = oar.matmul(ta, tb, transpose_x=tx, transpose_y=ty)
        f = (lambda v: v.astype(np.float64)) if dt.startswith("float") else (lambda v: v)
        assert_close(out, np_matmul(f(a), f(b), tx, ty), dt, f"matmul {xs} x {ys} tx={tx} ty={ty} [{dt}]")


def test_conj():
    z = (rand((3, 4), seed=41) + 1j * rand((3, 4), seed=42)).astype(np.complex64)
    np.testing.assert_array_equal(oar.conj(oar.to_tensor(z)).numpy(), np.conj(z))
    np.testing.assert_array_equal(oar.to_tensor(z).conj().numpy(), np.conj(z))
    # Real tensors come back unchanged (a copy, same dtype), as Paddle.
    for dt in FLOAT_DTYPES + INT_DTYPES:
        a = rand((2, 3), dt, seed=43)
        out = oar.conj(oar.to_tensor(a))
        assert out.dtype.name == dt
        np.testing.assert_array_equal(out.numpy(), a)
    check_grad(oar.conj, [rand((2, 3), seed=44)], what="conj (real)")


def test_complex_matmul_gradient_uses_conjugate():
    # Values measured with paddle 3.3: d(real(sum(c @ d)))/dc = conj(d)^T, and so on.
    c = oar.to_tensor(np.array([[1 + 2j, 3 - 1j]], np.complex64), stop_gradient=False)
    d = oar.to_tensor(np.array([[2 - 1j], [1 + 1j]], np.complex64), stop_gradient=False)
    out = oar.matmul(c, d)
    out.backward(oar.to_tensor(np.ones((1, 1), np.complex64)))
    np.testing.assert_allclose(c.grad.numpy(), [[2 + 1j, 1 - 1j]])
    np.testing.assert_allclose(d.grad.numpy(), [[1 - 2j], [3 + 1j]])


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("shape,axis", [((4, 7, 33), -1), ((4, 7, 33), 1), ((6,), 0), ((3, 17), 0)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_fused_softmax_grad_against_numpy(log, shape, axis, dtype):
    """softmax's backward is one fused kernel ("softmax_grad") unless a higher-order gradient
    needs its graph: both give the NumPy formula."""
    rng = np.random.default_rng(len(shape) + axis)
    out = (rng.random(shape) + 0.1)
    g = rng.standard_normal(shape)
    op = getattr(oar._C, "softmax_grad")
    got = op(oar.to_tensor(out).astype(dtype), oar.to_tensor(g).astype(dtype), axis, log).astype("float64").numpy()
    ref = g - np.exp(out) * g.sum(axis, keepdims=True) if log else out * (g - (g * out).sum(axis, keepdims=True))
    tol = {"float32": 1e-5, "float64": 1e-12, "bfloat16": 5e-2}[dtype]
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol * (np.abs(ref).max() + 1))
    with pytest.raises(ValueError, match="grad"):
        op(oar.to_tensor(out), oar.to_tensor(g[..., :1]), axis, log)


def test_softmax_double_backward_keeps_its_graph():
    x = oar.to_tensor(np.random.default_rng(0).standard_normal((3, 5)), stop_gradient=False)
    y = oar.nn.functional.softmax(x)
    (g,) = oar.grad([(y * y).sum()], [x], create_graph=True)
    (gg,) = oar.grad([g.sum()], [x])
    # d/dx of sum(d(sum y^2)/dx), by central differences.
    def first(v):
        t = oar.to_tensor(v, stop_gradient=False)
        s = oar.nn.functional.softmax(t)
        return oar.grad([(s * s).sum()], [t])[0].numpy().sum()
    v, eps = x.numpy(), 1e-6
    num = np.zeros_like(v)
    for i in np.ndindex(v.shape):
        d = np.zeros_like(v)
        d[i] = eps
        num[i] = (first(v + d) - first(v - d)) / (2 * eps)
    np.testing.assert_allclose(gg.numpy(), num, rtol=1e-5, atol=1e-7)
