"""oar.incubate.autograd: vjp, jvp, the lazily evaluated Jacobian and Hessian (shapes, batch
axis, indexing, caching), the prim switch; checked against closed forms, finite differences
and real Paddle."""
import numpy as np
import pytest

import oar
from oar.incubate import autograd as A

X = np.array([[1.0, 2.0], [3.0, 4.0]])
Y = np.array([[0.5, -1.0], [2.0, 1.0]])


def _t(a, dtype="float64"):
    return oar.to_tensor(np.asarray(a, dtype=dtype))


def _numeric_jacobian(f, xs, eps=1e-6):
    """d flat(f(xs)) / d flat(xs), by central differences (float64 NumPy function)."""
    flat = np.concatenate([x.ravel() for x in xs])
    sizes = np.cumsum([0] + [x.size for x in xs])

    def call(v):
        parts = [v[sizes[k]:sizes[k + 1]].reshape(x.shape) for k, x in enumerate(xs)]
        return np.concatenate([np.ravel(o) for o in f(*parts)])
    cols = []
    for i in range(flat.size):
        d = np.zeros_like(flat)
        d[i] = eps
        cols.append((call(flat + d) - call(flat - d)) / (2 * eps))
    return np.stack(cols, axis=1)


def test_vjp_single_and_multi():
    x = _t(X)
    out, g = A.vjp(lambda a: oar.matmul(a, a), x)
    np.testing.assert_allclose(out.numpy(), X @ X)
    np.testing.assert_allclose(g.numpy(), np.ones((2, 2)) @ X.T + X.T @ np.ones((2, 2)))
    v = _t([[1.0, 0.0], [0.0, 0.0]])
    _, g = A.vjp(lambda a: oar.matmul(a, a), x, v)
    np.testing.assert_allclose(g.numpy(), v.numpy() @ X.T + X.T @ v.numpy())
    assert not g.stop_gradient and x.stop_gradient  # differentiable result; x untouched
    outs, gs = A.vjp(lambda a, b: (oar.matmul(a, b), a * b), [x, _t(Y)])
    assert isinstance(outs, tuple) and isinstance(gs, tuple) and len(gs) == 2
    ones = np.ones((2, 2))
    np.testing.assert_allclose(gs[0].numpy(), ones @ Y.T + Y)
    np.testing.assert_allclose(gs[1].numpy(), X.T @ ones + X)
    # A list of one input gives a tuple of one gradient; an unused input gets zeros.
    _, gs = A.vjp(lambda a: a * 2.0, [x])
    assert isinstance(gs, tuple) and len(gs) == 1
    _, gs = A.vjp(lambda a, b: a * 2.0, [x, x])
    np.testing.assert_array_equal(gs[1].numpy(), np.zeros((2, 2)))


def test_jvp_single_and_multi():
    x = _t(X)
    out, t = A.jvp(lambda a: oar.matmul(a, a), x)
    ones = np.ones((2, 2))
    np.testing.assert_allclose(t.numpy(), ones @ X + X @ ones)
    v = np.array([[1.0, 0.0], [0.0, 0.0]])
    _, t = A.jvp(lambda a: oar.matmul(a, a), x, _t(v))
    np.testing.assert_allclose(t.numpy(), v @ X + X @ v)
    outs, ts = A.jvp(lambda a, b: (oar.matmul(a, b), a * b), [x, _t(Y)], [_t(v), _t(ones)])
    assert isinstance(ts, tuple) and len(ts) == 2
    np.testing.assert_allclose(ts[0].numpy(), v @ Y + X @ ones)
    np.testing.assert_allclose(ts[1].numpy(), v * Y + X * ones)
    _, t = A.jvp(lambda a: a * 2.0, [x])  # one output: a Tensor
    assert isinstance(t, oar.Tensor)
    _, ts = A.jvp(lambda a, b: (a * 2.0, oar.ones([3], "float64")), [x, x])
    np.testing.assert_array_equal(ts[1].numpy(), np.zeros(3))  # an output free of the inputs


def test_jvp_matches_jacobian_times_vector():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((3, 2)), rng.standard_normal(2)
    va, vb = rng.standard_normal((3, 2)), rng.standard_normal(2)
    f = lambda p, q: (oar.tanh(p) * q, (p * p).sum(axis=0))  # noqa: E731
    _, ts = A.jvp(f, [_t(a), _t(b)], [_t(va), _t(vb)])
    J = _numeric_jacobian(lambda p, q: (np.tanh(p) * q, (p * p).sum(axis=0)), [a, b])
    np.testing.assert_allclose(np.concatenate([t.numpy().ravel() for t in ts]),
                               J @ np.concatenate([va.ravel(), vb.ravel()]), rtol=1e-6, atol=1e-8)


def test_jacobian_shapes_and_lazy_rows():
    x = _t(X)
    J = A.Jacobian(lambda a, b: oar.matmul(a, b), [x, x])
    assert J.shape == (4, 8)
    assert not J._rows  # nothing computed yet
    row = J[0, :]
    assert list(row.shape) == [8] and set(J._rows) == {0}
    np.testing.assert_allclose(row.numpy(), [1, 3, 0, 0, 1, 0, 2, 0])
    np.testing.assert_allclose(J[:, 0].numpy(), [1, 2, 0, 0])
    full = J[:]
    assert list(full.shape) == [4, 8] and set(J._rows) == {0, 1, 2, 3}
    np.testing.assert_allclose(full.numpy(), _numeric_jacobian(lambda a, b: (a @ b,), [X, X]), atol=1e-8)
    np.testing.assert_allclose(J[1:3, 2:5].numpy(), full.numpy()[1:3, 2:5])
    np.testing.assert_allclose(J[-1, -1].numpy(), full.numpy()[-1, -1])
    assert list(J[::2].shape) == [2, 8]
    assert list(J[4:].shape) == [0, 8]
    # Several outputs are flattened and concatenated too; a scalar output is one row.
    J = A.Jacobian(lambda a: (a * 2.0, a.sum()), x)
    assert J.shape == (5, 4)
    np.testing.assert_allclose(J[:].numpy(), np.vstack([2 * np.eye(4), np.ones((1, 4))]))
    J = A.Jacobian(lambda a: a * 3.0, _t(2.0))  # a 0-D input is one column
    assert J.shape == (1, 1) and J[0, 0].item() == 3.0


def test_jacobian_batched():
    rng = np.random.default_rng(2)
    xb = rng.standard_normal((3, 2, 2))
    J = A.Jacobian(lambda a: a.sum(-1) * 2.0, _t(xb), is_batched=True)
    assert J.shape == (3, 2, 4)
    full = J[:].numpy()
    for b in range(3):
        np.testing.assert_allclose(full[b], _numeric_jacobian(lambda a: (a.sum(-1) * 2.0,), [xb[b]]), atol=1e-8)
    assert list(J[0].shape) == [2, 4]
    assert list(J[:, 1].shape) == [3, 4]
    assert list(J[:, 1, 2].shape) == [3]
    J = A.Jacobian(lambda a, c: (a * c, (a * a).sum(-1)), [_t(xb), _t(xb)], is_batched=True)
    assert J.shape == (3, 6, 8)


def test_hessian():
    x = _t(X)
    H = A.Hessian(lambda a: (a * a * a).sum(), x)
    assert H.shape == (4, 4)
    np.testing.assert_allclose(H[:].numpy(), np.diag(6 * X.ravel()))
    H = A.Hessian(lambda a, b: (a * a * b).sum(), [x, _t(Y)])
    assert H.shape == (8, 8)
    ref = np.zeros((8, 8))
    ref[:4, :4] = np.diag(2 * Y.ravel())
    ref[:4, 4:] = ref[4:, :4] = np.diag(2 * X.ravel())
    np.testing.assert_allclose(H[:].numpy(), ref)
    xb = np.random.default_rng(3).standard_normal((3, 2, 2))
    Hb = A.Hessian(lambda a: (a * a * a).sum(-1).sum(-1, keepdim=True), _t(xb), is_batched=True)
    assert Hb.shape == (3, 4, 4)
    for b in range(3):
        np.testing.assert_allclose(Hb[b].numpy(), np.diag(6 * xb[b].ravel()), atol=1e-12)


def test_errors():
    x = _t(X)
    f = lambda a, b: (a * b, a + b)  # noqa: E731
    with pytest.raises(ValueError, match="jvp: the argument v .* should match xs \\(2\\), but got 1") as e:
        A.jvp(f, [x, x], [x])
    assert isinstance(e.value, RuntimeError)  # as Paddle raises
    with pytest.raises(ValueError, match="vjp: the argument v .* func's outputs \\(2\\), but got 1"):
        A.vjp(f, [x, x], [x])
    with pytest.raises(ValueError, match="vjp: v\\[0\\] has shape \\[3\\]"):
        A.vjp(lambda a: a * 2.0, x, _t([1.0, 2.0, 3.0]))
    with pytest.raises(TypeError, match="jvp: expected 'xs' is a Tensor\\|Sequence\\[Tensor\\], but got int"):
        A.jvp(f, 1)
    with pytest.raises(TypeError, match="Jacobian: expected 'xs'"):
        A.Jacobian(lambda a: a, [x, 2])
    with pytest.raises(TypeError, match="vjp: func must return a Tensor"):
        A.vjp(lambda a: 3, x)
    with pytest.raises(ValueError, match="Hessian: the function given to Hessian should return a single element"):
        A.Hessian(lambda a: a * 2.0, x)
    J = A.Jacobian(lambda a: a * 2.0, x)
    with pytest.raises(IndexError, match="Ellipsis"):
        J[...]
    with pytest.raises(IndexError, match="out of range"):
        J[4]
    with pytest.raises(IndexError, match="too many indices"):
        J[0, 0, 0]
    with pytest.raises(TypeError, match="indices must be ints or slices"):
        J[[0, 1]]
    with pytest.raises(ValueError, match="batch axis"):
        A.Jacobian(lambda a: a.sum(), _t([1.0, 2.0, 3.0]), is_batched=True)
    with pytest.raises(ValueError, match="share the batch size"):
        A.Jacobian(lambda a: a.reshape([2, 3]), _t(np.ones((3, 2))), is_batched=True)
    with pytest.raises(TypeError, match="is_batched must be a bool"):
        A.Jacobian(lambda a: a, x, is_batched=1)


def test_prim_switch():
    with pytest.raises(RuntimeError, match="enable_prim\\(\\) is only supported in static graph mode") as e:
        A.enable_prim()
    assert isinstance(e.value, AssertionError)  # as Paddle asserts
    oar.enable_static()
    try:
        assert A.prim_enabled() is False
        A.enable_prim()
        assert A.prim_enabled() is True
        A.disable_prim()
        assert A.prim_enabled() is False
    finally:
        oar.disable_static()
    assert set(A.__all__) == {"vjp", "jvp", "Jacobian", "Hessian", "enable_prim", "disable_prim", "grad"}


# ---------------------------------------------------------------- against real Paddle

def _np(ts):
    return [t.numpy() for t in (ts if isinstance(ts, tuple) else (ts,))]


CASES = [
    (lambda m, a, b: (m.matmul(a, b), a * b), 2),
    (lambda m, a, b: m.tanh(a) * m.exp(b), 2),
    (lambda m, a: (a * a).sum(axis=0), 1),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_vjp_jvp_match_paddle(case):
    paddle = pytest.importorskip("paddle")
    fn, n = CASES[case]
    rng = np.random.default_rng(case)
    arrays = [rng.standard_normal((2, 2)).astype("float32") for _ in range(n)]
    pin = [paddle.to_tensor(a) for a in arrays]
    oin = [oar.to_tensor(a) for a in arrays]
    pf = lambda *xs: fn(paddle, *xs)  # noqa: E731
    of = lambda *xs: fn(oar, *xs)  # noqa: E731
    for po, oo in zip(paddle.incubate.autograd.vjp(pf, pin), A.vjp(of, oin)):
        for p, o in zip(_np(po), _np(oo)):
            np.testing.assert_allclose(o, p, rtol=1e-5, atol=1e-6)
    for po, oo in zip(paddle.incubate.autograd.jvp(pf, pin), A.jvp(of, oin)):
        for p, o in zip(_np(po), _np(oo)):
            np.testing.assert_allclose(o, p, rtol=1e-5, atol=1e-6)
    tangents = [rng.standard_normal((2, 2)).astype("float32") for _ in range(n)]
    _, pt = paddle.incubate.autograd.jvp(pf, pin, [paddle.to_tensor(v) for v in tangents])
    _, ot = A.jvp(of, oin, [oar.to_tensor(v) for v in tangents])
    for p, o in zip(_np(pt), _np(ot)):
        np.testing.assert_allclose(o, p, rtol=1e-5, atol=1e-6)


def test_jacobian_hessian_match_paddle():
    paddle = pytest.importorskip("paddle")
    pa = paddle.incubate.autograd
    x = np.random.default_rng(5).standard_normal((2, 3)).astype("float32")
    px, ox = paddle.to_tensor(x), oar.to_tensor(x)
    pj = pa.Jacobian(lambda a, b: paddle.matmul(a, b.t()), [px, px])
    oj = A.Jacobian(lambda a, b: oar.matmul(a, b.t()), [ox, ox])
    assert tuple(pj.shape) == oj.shape
    for idx in [slice(None), (0, slice(None)), (slice(None), 2), (slice(1, 3), slice(0, 4)), (3, 5)]:
        np.testing.assert_allclose(oj[idx].numpy(), pj[idx].numpy(), rtol=1e-5, atol=1e-6)
    xb = np.random.default_rng(6).standard_normal((4, 3)).astype("float32")
    pj = pa.Jacobian(lambda a: paddle.tanh(a) * 2.0, paddle.to_tensor(xb), is_batched=True)
    oj = A.Jacobian(lambda a: oar.tanh(a) * 2.0, oar.to_tensor(xb), is_batched=True)
    assert tuple(pj.shape) == oj.shape
    for idx in [slice(None), (slice(None), 1), (slice(None), 1, 2), 0]:
        np.testing.assert_allclose(oj[idx].numpy(), pj[idx].numpy(), rtol=1e-5, atol=1e-6)
    ph = pa.Hessian(lambda a: (a * a * paddle.sin(a)).sum(), px)
    oh = A.Hessian(lambda a: (a * a * oar.sin(a)).sum(), ox)
    assert tuple(ph.shape) == oh.shape
    np.testing.assert_allclose(oh[:].numpy(), ph[:].numpy(), rtol=1e-5, atol=1e-5)
    ph = pa.Hessian(lambda a: (a * a * a).sum(-1, keepdim=True), paddle.to_tensor(xb), is_batched=True)
    oh = A.Hessian(lambda a: (a * a * a).sum(-1, keepdim=True), oar.to_tensor(xb), is_batched=True)
    assert tuple(ph.shape) == oh.shape
    np.testing.assert_allclose(oh[:].numpy(), ph[:].numpy(), rtol=1e-5, atol=1e-5)
