"""Activations of activation2.yaml (python/oar/nn/functional/activation.py) against NumPy
references, float32 and float64, with float64 gradient checks, non-contiguous inputs and argument
errors."""
import math

import numpy as np
import pytest

import oar
import oar.nn.functional as F
from op_test import FLOAT_DTYPES, assert_close, check_grad, rand


def T(a, **kw):
    return oar.to_tensor(a, **kw)


def np_softplus(x):
    return np.where(x > 20, x, np.log1p(np.exp(np.minimum(x, 20))))


def np_sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


REFS = {
    "celu": (lambda x, alpha=1.0: np.where(x > 0, x, alpha * np.expm1(x / alpha)), {"alpha": 0.7}),
    "selu": (lambda x, scale=1.0507009873554805, alpha=1.6732632423543772:
             np.where(x > 0, scale * x, scale * alpha * np.expm1(x)), {"scale": 1.2, "alpha": 1.5}),
    "mish": (lambda x: x * np.tanh(np_softplus(x)), {}),
    "softsign": (lambda x: x / (1 + np.abs(x)), {}),
    "softshrink": (lambda x, threshold=0.5: np.where(x > threshold, x - threshold,
                                                     np.where(x < -threshold, x + threshold, 0.0)),
                   {"threshold": 0.3}),
    "hardshrink": (lambda x, threshold=0.5: np.where(np.abs(x) > threshold, x, 0.0), {"threshold": 0.3}),
    "hardtanh": (lambda x, min=-1.0, max=1.0: np.clip(x, min, max), {"min": -0.5, "max": 0.8}),
    "tanhshrink": (lambda x: x - np.tanh(x), {}),
    "thresholded_relu": (lambda x, threshold=1.0, value=0.0: np.where(x > threshold, x, value),
                         {"threshold": 0.2, "value": -0.3}),
    "log_sigmoid": (lambda x: -np.logaddexp(0, -x), {}),
    "swish": (lambda x: x * np_sigmoid(x), {}),
}
ELEMENTWISE = list(REFS)
# values around every kink and the exp ranges, including large magnitudes
EDGE = np.array([-100.0, -30.0, -21.0, -20.0, -5.0, -1.0, -0.5, -0.3, -1e-4, 0.0, 1e-4, 0.2, 0.3,
                 0.5, 0.8, 1.0, 5.0, 19.9, 20.5, 30.0, 90.0, 100.0])


@pytest.mark.parametrize("name", ELEMENTWISE)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_elementwise_forward(name, dtype):
    ref, kw = REFS[name]
    f = getattr(F, name)
    # 37 elements: whole 8-lane vectors and a tail
    x = np.concatenate([rand((15,), dtype, -4, 4, seed=1), EDGE.astype(dtype)])
    with np.errstate(over="ignore"):
        for kwargs in ({}, kw):
            out = f(T(x), **kwargs)
            assert out.dtype.name == dtype
            # parameters rounded to the dtype, as the kernel compares in it (x == threshold)
            exp = ref(x.astype(np.float64), **{k: float(np.dtype(dtype).type(v)) for k, v in kwargs.items()})
            assert_close(out, exp, dtype, f"{name}{kwargs}")
    # a large input goes through several threads' chunks
    big = rand((70001,), dtype, -25, 25, seed=2)
    assert_close(f(T(big), **kw), ref(big.astype(np.float64), **kw), dtype, name)


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_elementwise_noncontiguous_and_grad(name):
    ref, kw = REFS[name]
    f = getattr(F, name)
    x = rand((4, 6), "float32", -3, 3, seed=3)
    xt = T(x).transpose([1, 0])  # a strided view
    assert not xt.is_contiguous()
    assert_close(f(xt, **kw), ref(x.T.astype(np.float64), **kw), "float32", name)
    # float64 gradient away from the kinks (central differences are not defined there)
    g = rand((3, 5), "float64", -3, 3, seed=4)
    for thr in (0.3, 0.2, -0.5, 0.8, 0.0):
        g = np.where(np.abs(np.abs(g) - abs(thr)) < 1e-3, g + 0.01, g)
    check_grad(f, [g], kw, what=name)
    check_grad(f, [g], {}, what=name)


def test_mish_large_and_grad_regions():
    x = np.array([-30.0, -5.0, 0.0, 5.0, 19.0, 21.0, 50.0])
    check_grad(F.mish, [x])
    check_grad(F.log_sigmoid, [np.array([-40.0, -3.0, 0.1, 3.0, 40.0])])


def test_logsigmoid_alias_and_integer_input():
    assert F.logsigmoid is F.log_sigmoid
    out = F.log_sigmoid(T(np.array([0, 1, 2])))
    assert out.dtype.name == "float32"
    assert_close(out, -np.logaddexp(0, -np.array([0.0, 1.0, 2.0])), "float32")


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_inplace_variants(dtype):
    x = rand((7,), dtype, -2, 2, seed=5)
    t = T(x.copy())
    r = F.hardtanh_(t, -0.5, 0.5)
    np.testing.assert_array_equal(r.numpy(), t.numpy())
    assert_close(t, np.clip(x, -0.5, 0.5), dtype)
    t = T(x.copy())
    F.thresholded_relu_(t, 0.5, 0.1)
    assert_close(t, np.where(x > 0.5, x, 0.1), dtype)
    t = T(x.copy())
    F.elu_(t, 0.5)
    assert_close(t, np.where(x > 0, x, 0.5 * np.expm1(x)), dtype)
    t = T(x.copy())
    F.leaky_relu_(t, 0.2)
    assert_close(t, np.where(x > 0, x, 0.2 * x), dtype)
    t = T(x.copy())
    F.tanh_(t)
    assert_close(t, np.tanh(x), dtype)


def test_act2_grad_op_via_double_check():
    # the backward kernel against a hand formula, float32 (vector path) and float64
    for dtype in FLOAT_DTYPES:
        x = rand((19,), dtype, -3, 3, seed=6)
        xt = T(x, stop_gradient=False)
        y = F.celu(xt, 0.5)
        (g,) = oar.grad([y.sum()], [xt])
        assert_close(g, np.where(x > 0, 1.0, np.exp(x.astype(np.float64) / 0.5)), dtype)


def test_elementwise_errors():
    x = T(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="celu: argument 'alpha' must not be 0"):
        F.celu(x, 0.0)
    with pytest.raises(ValueError, match="selu: argument 'scale' must be greater than 1.0"):
        F.selu(x, scale=1.0)
    with pytest.raises(ValueError, match="selu: argument 'alpha' must be no less than 0"):
        F.selu(x, alpha=-1.0)
    with pytest.raises(ValueError, match="softshrink: argument 'threshold' must be no less than 0"):
        F.softshrink(x, -1.0)
    with pytest.raises(TypeError, match="hardtanh: argument 'min' must be a float"):
        F.hardtanh(x, "a")
    with pytest.raises(TypeError, match="celu: argument 'alpha' must be a float, got str"):
        F.celu(x, "a")


# ---- compositions -------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_prelu(dtype):
    x = rand((2, 3, 4), dtype, -2, 2, seed=7)
    w = np.array([0.1, 0.2, 0.3], dtype)
    out = F.prelu(T(x), T(w))
    assert_close(out, np.where(x > 0, x, x * w[None, :, None]), dtype)
    out = F.prelu(T(x), T(np.array([0.25, 0.5, 0.75, 1.0], dtype)), data_format="NLC")
    assert_close(out, np.where(x > 0, x, x * np.array([0.25, 0.5, 0.75, 1.0])), dtype)
    out = F.prelu(T(x), T(np.array([0.25], dtype)))
    assert_close(out, np.where(x > 0, x, 0.25 * x), dtype)
    check_grad(lambda a, b: F.prelu(a, b), [x.astype(np.float64) + 0.01, w.astype(np.float64)])
    with pytest.raises(ValueError, match="prelu: argument 'data_format' must be one of"):
        F.prelu(T(x), T(w), data_format="XYZ")
    with pytest.raises(ValueError, match="prelu: argument 'weight' expected 4 slopes"):
        F.prelu(T(x), T(w), data_format="NLC")
    with pytest.raises(ValueError, match="prelu: argument 'weight' must be 0-D or 1-D"):
        F.prelu(T(x), T(np.ones((1, 3), dtype)))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_rrelu(dtype):
    x = rand((200,), dtype, -2, 2, seed=8)
    out = F.rrelu(T(x), 0.1, 0.3, training=False)
    assert_close(out, np.where(x >= 0, x, x * 0.2), dtype)
    oar.seed(5)
    a = F.rrelu(T(x), 0.1, 0.3).numpy()
    oar.seed(5)
    b = F.rrelu(T(x), 0.1, 0.3).numpy()
    np.testing.assert_array_equal(a, b)  # the seed fixes the slopes
    neg = x < 0
    slope = a[neg] / x[neg]
    assert slope.min() >= 0.1 - 1e-6 and slope.max() <= 0.3 + 1e-6
    assert slope.std() > 0.03  # random, not the mean
    np.testing.assert_array_equal(a[~neg], x[~neg])
    check_grad(lambda t: F.rrelu(t, training=False), [x[:6].astype(np.float64)])
    with pytest.raises(TypeError, match="rrelu: arguments 'lower' and 'upper' must be floats"):
        F.rrelu(T(x), 0, 0.3)
    with pytest.raises(ValueError, match="rrelu: argument 'lower' must be in"):
        F.rrelu(T(x), -0.1, 0.3)
    with pytest.raises(ValueError, match="rrelu: argument 'upper' must be >= lower"):
        F.rrelu(T(x), 0.3, 0.2)
    with pytest.raises(ValueError, match="rrelu: argument 'upper' must be <= 1"):
        F.rrelu(T(x), 0.3, 1.2)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_glu_swiglu_maxout(dtype):
    x = rand((2, 4, 6), dtype, -2, 2, seed=9)
    a, b = x[..., :3], x[..., 3:]
    assert_close(F.glu(T(x)), a * np_sigmoid(b), dtype)
    assert_close(F.glu(T(x), axis=1), x[:, :2] * np_sigmoid(x[:, 2:]), dtype)
    assert_close(F.swiglu(T(x)), a * np_sigmoid(a) * b, dtype)
    y = rand((2, 4, 6), dtype, -2, 2, seed=10)
    assert_close(F.swiglu(T(x), T(y)), x * np_sigmoid(x) * y, dtype)
    x4 = rand((2, 6, 3, 2), dtype, -2, 2, seed=11)
    assert_close(F.maxout(T(x4), 3), x4.reshape(2, 2, 3, 3, 2).max(2), dtype)
    assert_close(F.maxout(T(x4), 2, axis=-1), x4.reshape(2, 6, 3, 1, 2).max(4), dtype)
    x64 = x.astype(np.float64)
    check_grad(lambda t: F.glu(t, 1), [x64])
    check_grad(lambda t: F.swiglu(t), [x64])
    check_grad(lambda t: F.maxout(t, 3), [x4.astype(np.float64)])
    with pytest.raises(ValueError, match="glu: the size of x along axis 1 must be even"):
        F.glu(T(rand((2, 3), dtype)), axis=1)
    with pytest.raises(ValueError, match="glu: argument 'axis' must be in"):
        F.glu(T(x), axis=5)
    with pytest.raises(ValueError, match="swiglu: without 'y' the last dim of x must be even"):
        F.swiglu(T(rand((2, 3), dtype)))
    with pytest.raises(ValueError, match="maxout: the channels of x"):
        F.maxout(T(x4), 4)
    with pytest.raises(ValueError, match="maxout: argument 'axis' must be 1, -1 or 3"):
        F.maxout(T(x4), 2, axis=2)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_gumbel_softmax(dtype):
    x = rand((500, 4), dtype, -1, 1, seed=12)
    oar.seed(3)
    y = F.gumbel_softmax(T(x), temperature=0.5).numpy()
    np.testing.assert_allclose(y.sum(-1), 1.0, rtol=1e-5)
    assert y.min() >= 0
    oar.seed(3)
    h = F.gumbel_softmax(T(x), temperature=0.5, hard=True).numpy()
    assert set(np.unique(h)) <= {0.0, 1.0}
    np.testing.assert_array_equal(h.argmax(-1), y.argmax(-1))  # same draw, same argmax
    # argmax frequencies follow softmax(x): a row repeated many times
    row = np.array([[1.0, 0.0, -1.0, 0.5]], dtype)
    h = F.gumbel_softmax(T(np.repeat(row, 20000, 0)), hard=True).numpy()
    p = np.exp(row[0]) / np.exp(row[0]).sum()
    np.testing.assert_allclose(h.mean(0), p, atol=0.02)
    # the hard output has the soft gradient
    xt = T(x[:3].astype(np.float64), stop_gradient=False)
    (g,) = oar.grad([(F.gumbel_softmax(xt, hard=True, axis=0) * T(np.arange(12.0).reshape(3, 4))).sum()], [xt])
    assert np.abs(g.numpy()).sum() > 0
    with pytest.raises(ValueError, match="gumbel_softmax: argument 'temperature' must be > 0"):
        F.gumbel_softmax(T(x), temperature=0.0)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_rms_norm(dtype):
    x = rand((2, 3, 4), dtype, -2, 2, seed=13)
    w = rand((4,), dtype, 0.5, 1.5, seed=14)
    out, inv = F.rms_norm(T(x), [4], T(w), 1e-5)
    r = 1 / np.sqrt((x.astype(np.float64) ** 2).mean(-1, keepdims=True) + 1e-5)
    assert_close(out, x * r * w, dtype)
    assert_close(inv, r.reshape(6), dtype)
    out, inv = F.rms_norm(T(x), [3, 4])
    r = 1 / np.sqrt((x.astype(np.float64) ** 2).mean((1, 2), keepdims=True) + 1e-5)
    assert_close(out, x * r, dtype)
    assert inv.shape == [2]
    check_grad(lambda a, b: F.rms_norm(a, 4, b)[0], [x.astype(np.float64), w.astype(np.float64)])
    with pytest.raises(ValueError, match="rms_norm: argument 'normalized_shape'"):
        F.rms_norm(T(x), [5])
    with pytest.raises(ValueError, match="rms_norm: argument 'weight' expected shape"):
        F.rms_norm(T(x), [4], T(w[:3]))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_label_smooth_sequence_mask(dtype):
    lab = np.eye(4, dtype=dtype)[[0, 2, 3]]
    assert_close(F.label_smooth(T(lab)), lab * 0.9 + 0.1 / 4, dtype)
    prior = np.array([[0.1, 0.2, 0.3, 0.4]], dtype)
    assert_close(F.label_smooth(T(lab), T(prior), 0.2), lab * 0.8 + 0.2 * prior, dtype)
    check_grad(lambda a: F.label_smooth(a), [lab.astype(np.float64)])
    # prior_dist is a constant, as in Paddle
    pt = T(prior.astype(np.float64), stop_gradient=False)
    lt = T(lab.astype(np.float64), stop_gradient=False)
    gl, gp = oar.grad([F.label_smooth(lt, pt, 0.2).sum()], [lt, pt], allow_unused=True)
    assert gp is None or not np.abs(gp.numpy()).any()
    np.testing.assert_allclose(gl.numpy(), 0.8)
    with pytest.raises(ValueError, match="label_smooth: argument 'epsilon' must be in"):
        F.label_smooth(T(lab), epsilon=1.5)
    lens = np.array([[1, 3], [0, 2]])
    m = F.sequence_mask(T(lens))
    assert m.dtype.name == "int64"
    np.testing.assert_array_equal(m.numpy(), (np.arange(3) < lens[..., None]).astype(np.int64))
    m = F.sequence_mask(T(lens), maxlen=5, dtype="float32")
    assert m.dtype.name == "float32" and m.shape == [2, 2, 5]
    np.testing.assert_array_equal(m.numpy(), (np.arange(5) < lens[..., None]))
    m = F.sequence_mask(T(lens), maxlen=T(np.array(4)), dtype="bool")
    np.testing.assert_array_equal(m.numpy(), np.arange(4) < lens[..., None])


def np_alpha_dropout_parts(p):
    alpha_p = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    return alpha_p, a, -a * alpha_p * p


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_alpha_dropouts(dtype):
    x = rand((400, 50), dtype, -1, 1, seed=15)
    assert F.alpha_dropout(T(x), 0.3, training=False).numpy().tolist() == x.tolist()
    oar.seed(1)
    out = F.alpha_dropout(T(x), 0.3).numpy()
    alpha_p, a, b = np_alpha_dropout_parts(0.3)
    dropped = np.isclose(out, a * alpha_p + b, atol=1e-6)
    assert abs(dropped.mean() - 0.3) < 0.02
    assert_close(out[~dropped], a * x[~dropped] + b, dtype)
    # standard normal input keeps zero mean and unit variance
    z = np.random.default_rng(0).standard_normal((200000,)).astype(dtype)
    o = F.alpha_dropout(T(z), 0.2).numpy()
    assert abs(o.mean()) < 0.02 and abs(o.std() - 1) < 0.02
    # feature: one draw per (sample, channel)
    x4 = rand((30, 40, 3, 2), dtype, -1, 1, seed=16)
    o = F.feature_alpha_dropout(T(x4), 0.5).numpy()
    alpha_p, a, b = np_alpha_dropout_parts(0.5)
    d = np.isclose(o, a * alpha_p + b, atol=1e-6).reshape(30, 40, 6)
    assert (d.all(-1) | ~d.any(-1)).all()
    assert abs(d[..., 0].mean() - 0.5) < 0.06
    assert F.feature_alpha_dropout(T(x4), 0.5, training=False).numpy().tolist() == x4.tolist()
    with pytest.raises(ValueError, match="alpha_dropout: argument 'p' must be in"):
        F.alpha_dropout(T(x), 1.5)
    with pytest.raises(TypeError, match="alpha_dropout: argument 'p' must be a float"):
        F.alpha_dropout(T(x), "a")
    with pytest.raises(ValueError, match="feature_alpha_dropout: argument 'x' must be at least 2-D"):
        F.feature_alpha_dropout(T(x[0]), 0.5)
    # gradient: the affine map of the kept elements
    xt = T(x[:5, :5].astype(np.float64), stop_gradient=False)
    oar.seed(2)
    o = F.alpha_dropout(xt, 0.3)
    (g,) = oar.grad([o.sum()], [xt])
    _, a, b = np_alpha_dropout_parts(0.3)
    kept = ~np.isclose(o.numpy(), np_alpha_dropout_parts(0.3)[0] * a + b)
    np.testing.assert_allclose(g.numpy(), np.where(kept, a, 0.0), rtol=1e-12)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_dropout1d(dtype):
    x = rand((20, 30, 8), dtype, 0.5, 1, seed=17)
    oar.seed(4)
    o = F.dropout1d(T(x), 0.4).numpy()
    zero = (o == 0).reshape(20, 30, 8)
    assert (zero.all(-1) | ~zero.any(-1)).all()  # whole channels
    assert abs(zero[..., 0].mean() - 0.4) < 0.08
    kept = ~zero
    assert_close(o[kept], x[kept] / 0.6, dtype)
    o2 = F.dropout1d(T(x[0]), 0.4).numpy()
    z2 = o2 == 0
    assert (z2.all(-1) | ~z2.any(-1)).all()
    assert F.dropout1d(T(x), 0.4, training=False).numpy().tolist() == x.tolist()
    with pytest.raises(ValueError, match="dropout1d: argument 'input' must be 2-D"):
        F.dropout1d(T(x[0, 0]), 0.5)
    with pytest.raises(ValueError, match="dropout1d: argument 'p' must be in"):
        F.dropout1d(T(x), 2.0)


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_double_grad(name):
    """d/dx of the autograd first derivative (create_graph) against central differences of it."""
    _, kw = REFS[name]
    f = getattr(F, name)
    x = rand((9,), "float64", -3, 3, seed=40)
    x = np.where(np.abs(np.abs(x) - 0.3) < 1e-2, x + 0.05, x)
    x = np.concatenate([x, [-25.0, 25.0]])
    w = rand(x.shape, "float64", 0.5, 1.5, seed=41)

    def d1(a, create_graph=False):
        t = T(a, stop_gradient=False)
        (g,) = oar.grad([f(t, **kw).sum()], [t], create_graph=create_graph)
        return t, g

    t, g = d1(x, True)
    (d2,) = oar.grad([(g * T(w)).sum()], [t], allow_unused=True)
    eps = 1e-6
    num = np.array([((d1(x + eps * np.eye(len(x))[i])[1].numpy() -
                      d1(x - eps * np.eye(len(x))[i])[1].numpy()) * w).sum() / (2 * eps)
                    for i in range(len(x))])
    got = np.zeros_like(x) if d2 is None else d2.numpy()
    np.testing.assert_allclose(got, num, atol=1e-6, rtol=1e-5, err_msg=name)
    # the gradient is also differentiable in the incoming gradient (out_grad)
    gw = T(w, stop_gradient=False)
    t = T(x, stop_gradient=False)
    (g,) = oar.grad([f(t, **kw)], [t], grad_outputs=[gw], create_graph=True)
    (dg,) = oar.grad([g.sum()], [gw])
    plain = d1(x)[1]
    np.testing.assert_allclose(dg.numpy(), plain.numpy(), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", ELEMENTWISE)
def test_half_types(name, dtype):
    # computed in float32 per element, stored in the half type
    ref, kw = REFS[name]
    x = np.linspace(-3, 3, 13)
    xs = oar.to_tensor(x.astype(np.float32)).astype(dtype)
    out = getattr(F, name)(xs, **kw)
    assert out.dtype.name == dtype
    x_half = xs.astype("float32").numpy().astype(np.float64)
    assert_close(out.astype("float32").numpy(), ref(x_half, **kw), dtype, name)


def test_inplace_gradients_and_leaf_errors():
    # on a non-leaf the in-place forms carry the op's gradient
    base = np.array([-1.0, 0.1, 0.4, 2.0])
    cases = [(F.elu_, {"alpha": 0.5}, lambda z: np.where(z > 0, 1.0, 0.5 * np.exp(z))),
             (F.leaky_relu_, {"negative_slope": 0.3}, lambda z: np.where(z > 0, 1.0, 0.3)),
             (F.hardtanh_, {"min": -0.5, "max": 0.5}, lambda z: ((z > -0.5) & (z < 0.5)) * 1.0),
             (F.thresholded_relu_, {"threshold": 0.5, "value": 1.0}, lambda z: (z > 0.5) * 1.0),
             (F.tanh_, {}, lambda z: 1 - np.tanh(z) ** 2)]
    for f, kw, deriv in cases:
        y = T(base, stop_gradient=False)
        z = y * 2.0
        f(z, **kw)
        (g,) = oar.grad([z.sum()], [y])
        np.testing.assert_allclose(g.numpy(), 2.0 * deriv(2.0 * base), rtol=1e-12, err_msg=f.__name__)
        leaf = T(base, stop_gradient=False)
        with pytest.raises(ValueError, match=f"{f.__name__}: Leaf Tensor that doesn't stop gradient"):
            f(leaf, **kw)
        with oar.no_grad():
            f(leaf, **kw)  # allowed without recording
        assert not np.array_equal(leaf.numpy(), base)  # written in place


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_float32_accuracy(name):
    # the vectorised float32 formulas stay within a few float32 ulps of the exact value
    ref, kw = REFS[name]
    x = np.random.default_rng(1).uniform(-30, 30, 20000).astype(np.float32)
    x = np.concatenate([x, np.linspace(-2, 2, 4001, dtype=np.float32)])
    got = getattr(F, name)(T(x), **kw).numpy().astype(np.float64)
    exp = ref(x.astype(np.float64), **{k: float(np.float32(v)) for k, v in kw.items()})
    err = np.abs(got - exp) / np.maximum(np.abs(exp), 1.0)
    assert err.max() < 1e-6, f"{name}: max error {err.max()}"


@pytest.mark.parametrize("shape", [(3, 1030), (2, 5, 8), (1,)])
def test_swiglu_fused_kernel_blocks_and_gradients(shape):
    """The fused kernel works in blocks of 512: sizes across block ends, both inputs' gradients."""
    x = rand(shape, "float64", -3, 3, seed=12)
    y = rand(shape, "float64", -3, 3, seed=13)
    assert_close(F.swiglu(T(x), T(y)), x * np_sigmoid(x) * y, "float64")
    check_grad(lambda a, b: F.swiglu(a, b), [x, y])
    if shape[-1] % 2 == 0:
        h = shape[-1] // 2
        assert_close(F.swiglu(T(x)), x[..., :h] * np_sigmoid(x[..., :h]) * x[..., h:], "float64")
        check_grad(lambda a: F.swiglu(a), [x.copy()])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_swiglu_half_precision(dtype):
    x = rand((4, 64), "float32", -3, 3, seed=14)
    got = F.swiglu(T(x).astype(dtype)).astype("float32").numpy()
    ref = x[:, :32] * np_sigmoid(x[:, :32]) * x[:, 32:]
    np.testing.assert_allclose(got, ref, rtol=3e-2, atol=3e-2)


def test_swiglu_matches_paddle():
    paddle = pytest.importorskip("paddle")
    x = rand((3, 16), "float32", -3, 3, seed=15)
    out = {}
    for lib in (oar, paddle):
        t = lib.to_tensor(x, stop_gradient=False)
        o = lib.nn.functional.swiglu(t)
        o.sum().backward()
        out[lib.__name__] = (o.numpy(), t.grad.numpy())
    for a, b in zip(out["oar"], out["paddle"]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# relu's and gelu's gradients run on the act2 kernels (ids 11-13): their first derivatives against
# NumPy's formulas (float32: the kernel's erf is an approximation within 2.4e-7), their second
# derivatives against central differences of the first, in float64.
def _gelu_d1(x, approximate):
    if approximate:
        k, c = math.sqrt(2 / math.pi), 0.044715
        t = np.tanh(k * (x + c * x ** 3))
        return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * c * x * x)
    erf = np.vectorize(math.erf)
    return 0.5 * (1 + erf(x / math.sqrt(2))) + x * np.exp(-x * x / 2) / math.sqrt(2 * math.pi)


GRAD_CASES = {
    "relu": (F.relu, lambda x: (x > 0).astype(np.float64)),
    "gelu": (F.gelu, lambda x: _gelu_d1(x, False)),
    "gelu_tanh": (lambda t: F.gelu(t, approximate=True), lambda x: _gelu_d1(x, True)),
}


@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_relu_gelu_fused_gradients(name):
    f, d1 = GRAD_CASES[name]
    x = np.concatenate([np.linspace(-8, 8, 4001), [0.0, 1e-9, -1e-9, 40.0, -40.0]])
    w = rand(x.shape, "float64", 0.5, 1.5, seed=7)
    t = T(x.astype(np.float32), stop_gradient=False)
    (g,) = oar.grad([f(t)], [t], grad_outputs=[T(w.astype(np.float32))])
    # (the tanh form's 1 + tanh(u) cancels to 0 in float32 below x = -5, as Paddle's does: 2e-6)
    np.testing.assert_allclose(g.numpy(), d1(x.astype(np.float32).astype(np.float64)) * w.astype(np.float32),
                               atol=2e-6 if name == "gelu_tanh" else 1e-6, rtol=1e-6, err_msg=name)
    # non-contiguous input and float64 second derivative
    xs = rand((7, 6), "float64", -3, 3, seed=8)
    xs = np.where(np.abs(xs) < 0.05, 0.3, xs)
    t = T(xs, stop_gradient=False)
    (g,) = oar.grad([f(t.transpose([1, 0])).sum()], [t], create_graph=True)
    np.testing.assert_allclose(g.numpy(), d1(xs), rtol=1e-12, atol=1e-14)
    (d2,) = oar.grad([g.sum()], [t], allow_unused=True)
    eps = 1e-6
    num = (d1(xs + eps) - d1(xs - eps)) / (2 * eps)
    np.testing.assert_allclose(np.zeros_like(xs) if d2 is None else d2.numpy(), num, atol=1e-6, rtol=1e-5)
    for dtype in ("float16", "bfloat16"):
        th = T(x[::97].astype(np.float32)).astype(dtype)
        th.stop_gradient = False
        (gh,) = oar.grad([f(th).sum()], [th])
        assert gh.dtype.name == dtype
        ref = d1(th.astype("float32").numpy().astype(np.float64))
        assert_close(gh.astype("float32").numpy(), ref, dtype, name)
