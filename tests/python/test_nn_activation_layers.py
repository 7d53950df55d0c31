"""The activation layers of oar.nn: forward values, input gradients and printed forms against
NumPy and the functional ops (always), and live against Paddle 3.3.1 where it is installed."""
import numpy as np
import pytest

import oar
import oar.nn as nn
import oar.nn.functional as F

RNG = np.random.default_rng(7)


def _x(shape, dtype="float64"):
    return RNG.standard_normal(shape).astype(dtype) * 2.0


def _grad(layer, x, w, lib):
    """forward of layer on x, and d(sum(out * w))/dx."""
    t = lib.to_tensor(x, stop_gradient=False)
    out = layer(t)
    (out * lib.to_tensor(w)).sum().backward()
    return out.numpy(), t.grad.numpy()


# (class name, positional args, keyword args, input shape); every class with defaults and with
# non-default arguments (and a name, which the printed form shows).
CASES = [
    ("CELU", (), {}, [3, 5]), ("CELU", (0.5,), {"name": "c"}, [3, 5]),
    ("ELU", (), {}, [3, 5]), ("ELU", (0.3,), {}, [3, 5]),
    ("GELU", (), {}, [3, 5]), ("GELU", (True,), {}, [3, 5]), ("GELU", ("tanh",), {}, [3, 5]),
    ("GELU", ("none",), {"name": "g"}, [3, 5]),
    ("GLU", (), {}, [3, 6]), ("GLU", (0,), {}, [4, 3]),
    ("Hardshrink", (), {}, [3, 5]), ("Hardshrink", (1.2,), {}, [3, 5]),
    ("Hardsigmoid", (), {}, [3, 5]), ("Hardsigmoid", (), {"name": "h"}, [3, 5]),
    ("Hardswish", (), {}, [3, 5]),
    ("Hardtanh", (), {}, [3, 5]), ("Hardtanh", (-0.5, 2.0), {}, [3, 5]),
    ("LeakyReLU", (), {}, [3, 5]), ("LeakyReLU", (0.2,), {"name": "lr"}, [3, 5]),
    ("LogSigmoid", (), {}, [3, 5]),
    ("LogSoftmax", (), {}, [3, 5]), ("LogSoftmax", (0,), {}, [3, 5]),
    ("Maxout", (2,), {}, [2, 4, 3, 3]), ("Maxout", (3,), {"axis": -1}, [2, 3, 2, 6]),
    ("Mish", (), {}, [3, 5]),
    ("ReLU", (), {}, [3, 5]), ("ReLU", (), {"name": "r"}, [3, 5]),
    ("ReLU6", (), {}, [3, 5]),
    ("SELU", (), {}, [3, 5]), ("SELU", (1.5, 2.0), {}, [3, 5]),
    ("Sigmoid", (), {}, [3, 5]), ("Sigmoid", (), {"name": "s"}, [3, 5]),
    ("Silu", (), {}, [3, 5]), ("SiLU", (), {"name": "si"}, [3, 5]),
    ("Softmax", (), {}, [3, 5]), ("Softmax", (0,), {}, [3, 5]),
    ("Softmax2D", (), {}, [2, 3, 4, 5]), ("Softmax2D", (), {}, [3, 4, 5]),
    ("Softplus", (), {}, [3, 5]), ("Softplus", (2, 3), {}, [3, 5]),
    ("Softshrink", (), {}, [3, 5]), ("Softshrink", (0.9,), {}, [3, 5]),
    ("Softsign", (), {}, [3, 5]),
    ("Swish", (), {}, [3, 5]),
    ("Tanh", (), {}, [3, 5]),
    ("Tanhshrink", (), {}, [3, 5]),
    ("ThresholdedReLU", (), {}, [3, 5]), ("ThresholdedReLU", (0.5, -0.25), {}, [3, 5]),
    ("RReLU", (), {}, [3, 5]), ("RReLU", (0.1, 0.3), {}, [3, 5]),
    ("PReLU", (), {}, [2, 3, 4]), ("PReLU", (3, 0.1), {"name": "p"}, [2, 3, 4]),
    ("PReLU", (4,), {"data_format": "NHWC"}, [2, 3, 3, 4]),
]
IDS = [f"{c[0]}-{i}" for i, c in enumerate(CASES)]


# ---- live against Paddle ---------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_against_paddle(case):
    paddle = pytest.importorskip("paddle")
    cls, args, kwargs, shape = case
    mine, theirs = getattr(nn, cls)(*args, **kwargs), getattr(paddle.nn, cls)(*args, **kwargs)
    assert repr(mine) == repr(theirs)
    dtype = "float64"
    if cls == "PReLU":  # the weight is created in the default dtype; give both the same slopes
        dtype = "float32"
        slopes = RNG.uniform(-0.5, 0.5, theirs._weight.shape).astype(dtype)
        theirs._weight.set_value(slopes)
        mine._weight.set_value(slopes)
    if cls == "RReLU":  # random slopes in training: compare evaluation, as Paddle's eval()
        mine.eval()
        theirs.eval()
        assert repr(mine) == repr(theirs)
    x = _x(shape, dtype)
    w = _x(theirs(paddle.to_tensor(x)).shape, dtype)  # weights of the output in the probed loss
    out, gx = _grad(mine, x, w, oar)
    out_ref, gx_ref = _grad(theirs, x, w, paddle)
    # Paddle keeps float arguments (alpha, slopes) as float32 attributes even for float64 inputs
    tol = 1e-5 if dtype == "float32" else 1e-6
    assert out.dtype == out_ref.dtype and out.shape == out_ref.shape
    np.testing.assert_allclose(out, out_ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(gx, gx_ref, rtol=tol, atol=tol)
    if cls == "PReLU":
        np.testing.assert_allclose(mine._weight.grad.numpy(), theirs._weight.grad.numpy(),
                                   rtol=1e-5, atol=1e-5)
        assert [p.shape for p in mine.parameters()] == [list(p.shape) for p in theirs.parameters()]


def test_prelu_default_parameter_matches_paddle():
    paddle = pytest.importorskip("paddle")
    for args in [(), (5, 0.7)]:
        mine, theirs = nn.PReLU(*args), paddle.nn.PReLU(*args)
        np.testing.assert_array_equal(mine._weight.numpy(), theirs._weight.numpy())
        assert mine._weight.dtype.name == str(theirs._weight.dtype).split(".")[-1]
        assert mine._weight.stop_gradient == theirs._weight.stop_gradient is False
        assert list(mine.state_dict()) == list(theirs.state_dict())


def test_rrelu_training_matches_paddle_in_law():
    """Training draws differ between generators; both keep x >= 0 and scale negatives by a slope
    in [lower, upper]."""
    paddle = pytest.importorskip("paddle")
    x = _x([400])
    for layer, lib in ((nn.RReLU(0.2, 0.4), oar), (paddle.nn.RReLU(0.2, 0.4), paddle)):
        assert layer.training
        out = layer(lib.to_tensor(x)).numpy()
        neg = x < 0
        np.testing.assert_array_equal(out[~neg], x[~neg])
        slope = out[neg] / x[neg]
        assert slope.min() >= 0.2 - 1e-12 and slope.max() <= 0.4 + 1e-12
        assert slope.std() > 0.01  # really random, not one fixed slope


def test_silu_inplace_against_paddle():
    paddle = pytest.importorskip("paddle")
    x = _x([2, 5])
    outs = []
    for layer, lib in ((nn.Silu(inplace=True), oar), (paddle.nn.Silu(inplace=True), paddle)):
        leaf = lib.to_tensor(x, stop_gradient=False)
        t = leaf * 1.0
        out = layer(t)
        assert out is t
        t.sum().backward()
        outs.append((out.numpy(), leaf.grad.numpy()))
        with pytest.raises(ValueError):  # a leaf that needs gradient cannot be written in place
            layer(lib.to_tensor(x, stop_gradient=False))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-12)
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-12)


def test_bad_arguments_raise_like_paddle():
    paddle = pytest.importorskip("paddle")
    x = _x([2, 3])
    bad = [
        lambda lib: lib.nn.PReLU(init="a"),
        lambda lib: lib.nn.PReLU(weight_attr=3),
        lambda lib: lib.nn.GELU("foo")(lib.to_tensor(x)),
        lambda lib: lib.nn.Softmax2D()(lib.to_tensor(x)),
        lambda lib: lib.nn.GLU()(lib.to_tensor(x)),  # odd size along axis
    ]
    for make in bad:
        with pytest.raises(Exception) as theirs:
            make(paddle)
        with pytest.raises(Exception) as mine:
            make(oar)
        assert type(mine.value) is type(theirs.value), (mine.value, theirs.value)
    # Paddle checks nothing else when building an activation: neither does oar
    for make in (lambda m: m.CELU(alpha=0), lambda m: m.Maxout(groups=0),
                 lambda m: m.RReLU(lower=0.5, upper=0.2), lambda m: m.Softplus(beta=0)):
        assert repr(make(nn)) == repr(make(paddle.nn))


def test_aliases_and_properties_against_paddle():
    paddle = pytest.importorskip("paddle")
    for m in (nn, paddle.nn):
        assert m.SiLU is m.Silu
        assert repr(m.GLU(dim=0)) == "GLU(axis=0)"
        layer = m.Hardshrink(lambd=0.3)
        assert layer.lambd == 0.3 and repr(layer) == "Hardshrink(threshold=0.3)"
        layer.lambd = 0.7
        assert repr(layer) == "Hardshrink(threshold=0.7)"
        assert repr(m.Softshrink(lambd=0.2)) == "Softshrink(threshold=0.2)"
    x = _x([2, 4])
    a = nn.Softshrink(0.2)(input=oar.to_tensor(x)).numpy()
    b = paddle.nn.Softshrink(0.2)(input=paddle.to_tensor(x)).numpy()
    np.testing.assert_allclose(a, b)
    a = nn.GLU(dim=0)(input=oar.to_tensor(x)).numpy()
    b = paddle.nn.GLU(dim=0)(input=paddle.to_tensor(x)).numpy()
    np.testing.assert_allclose(a, b, rtol=1e-12)


# ---- without Paddle: NumPy references, the functional ops, printed forms measured ------------

def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def _softmax(v, axis):
    e = np.exp(v - v.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


NUMPY_REFS = [
    (nn.ReLU(), lambda v: np.maximum(v, 0), lambda v: (v > 0).astype(v.dtype)),
    (nn.Sigmoid(), _sigmoid, lambda v: _sigmoid(v) * (1 - _sigmoid(v))),
    (nn.Tanh(), np.tanh, lambda v: 1 - np.tanh(v) ** 2),
    (nn.ELU(0.5), lambda v: np.where(v > 0, v, 0.5 * (np.exp(v) - 1)),
     lambda v: np.where(v > 0, 1.0, 0.5 * np.exp(v))),
    (nn.LeakyReLU(0.1), lambda v: np.where(v > 0, v, 0.1 * v), lambda v: np.where(v > 0, 1.0, 0.1)),
    (nn.Hardtanh(-0.5, 2.0), lambda v: np.clip(v, -0.5, 2.0),
     lambda v: ((v > -0.5) & (v < 2.0)).astype(v.dtype)),
    (nn.Softshrink(0.5), lambda v: np.where(v > 0.5, v - 0.5, np.where(v < -0.5, v + 0.5, 0.0)),
     lambda v: (np.abs(v) > 0.5).astype(v.dtype)),
    (nn.Softplus(2, 20), lambda v: np.log1p(np.exp(2 * v)) / 2, lambda v: _sigmoid(2 * v)),
    (nn.Silu(), lambda v: v * _sigmoid(v), lambda v: _sigmoid(v) * (1 + v * (1 - _sigmoid(v)))),
    (nn.ThresholdedReLU(0.5, -1.0), lambda v: np.where(v > 0.5, v, -1.0),
     lambda v: (v > 0.5).astype(v.dtype)),
]


@pytest.mark.parametrize("i", range(len(NUMPY_REFS)))
def test_elementwise_against_numpy(i):
    layer, f, df = NUMPY_REFS[i]
    x = _x([4, 6])
    x[np.abs(x) < 1e-3] = 0.3  # keep away from kinks
    x[np.abs(np.abs(x) - 0.5) < 1e-3] = 0.3
    out, gx = _grad(layer, x, np.ones_like(x), oar)
    np.testing.assert_allclose(out, f(x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gx, df(x), rtol=1e-10, atol=1e-12)


def test_softmax_family_against_numpy():
    x = _x([2, 3, 4, 5])
    np.testing.assert_allclose(nn.Softmax(1)(oar.to_tensor(x)).numpy(), _softmax(x, 1), rtol=1e-12)
    np.testing.assert_allclose(nn.LogSoftmax()(oar.to_tensor(x)).numpy(), np.log(_softmax(x, -1)),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(nn.Softmax2D()(oar.to_tensor(x)).numpy(), _softmax(x, 1), rtol=1e-12)
    np.testing.assert_allclose(nn.Softmax2D()(oar.to_tensor(x[0])).numpy(), _softmax(x[0], 0),
                               rtol=1e-12)
    with pytest.raises(AssertionError, match="Softmax2D"):
        nn.Softmax2D()(oar.to_tensor(x[0, 0]))


def test_glu_and_maxout_against_numpy():
    x = _x([4, 6])
    a, b = x[:, :3], x[:, 3:]
    np.testing.assert_allclose(nn.GLU()(oar.to_tensor(x)).numpy(), a * _sigmoid(b), rtol=1e-12)
    y = _x([2, 6, 3, 3])
    ref = y.reshape(2, 3, 2, 3, 3).max(axis=2)
    np.testing.assert_allclose(nn.Maxout(2)(oar.to_tensor(y)).numpy(), ref)


def test_prelu_without_paddle():
    layer = nn.PReLU(3, 0.1)
    p = layer.parameters()
    assert len(p) == 1 and p[0].shape == [3] and not p[0].stop_gradient
    np.testing.assert_array_equal(p[0].numpy(), np.full([3], 0.1, "float32"))
    slopes = np.array([0.1, -0.2, 0.3], "float32")
    layer._weight.set_value(slopes)
    x = _x([2, 3, 4], "float32")
    out, gx = _grad(layer, x, np.ones_like(x), oar)
    s = slopes.reshape(1, 3, 1)
    np.testing.assert_allclose(out, np.where(x > 0, x, s * x), rtol=1e-6)
    np.testing.assert_allclose(gx, np.where(x > 0, 1.0, np.broadcast_to(s, x.shape)), rtol=1e-6)
    np.testing.assert_allclose(layer._weight.grad.numpy(),
                               np.where(x > 0, 0.0, x).sum(axis=(0, 2)), rtol=1e-5)
    # one shared slope, channels last
    last = nn.PReLU(4, data_format="NHWC")
    y = _x([2, 3, 4], "float32")
    np.testing.assert_allclose(last(oar.to_tensor(y)).numpy(), np.where(y > 0, y, 0.25 * y),
                               rtol=1e-6)
    with pytest.raises(ValueError, match="init"):
        nn.PReLU(init="a")
    with pytest.raises(TypeError):
        nn.PReLU(weight_attr=3)


def test_rrelu_train_and_eval_without_paddle():
    x = _x([500])
    layer = nn.RReLU(0.1, 0.3)
    t = oar.to_tensor(x, stop_gradient=False)
    out = layer(t)
    out.sum().backward()
    neg = x < 0
    slope = out.numpy()[neg] / x[neg]
    assert slope.min() >= 0.1 - 1e-12 and slope.max() <= 0.3 + 1e-12 and slope.std() > 0.01
    np.testing.assert_allclose(t.grad.numpy()[neg], slope, rtol=1e-12)  # the same slopes
    layer.eval()
    np.testing.assert_allclose(layer(oar.to_tensor(x)).numpy(), np.where(neg, 0.2 * x, x),
                               rtol=1e-12)
    assert repr(layer) == "RReLU(lower=0.1, upper=0.3, training=False, dtype=float32)"


@pytest.mark.parametrize("layer,fn", [
    (nn.CELU(0.7), lambda t: F.celu(t, 0.7)), (nn.SELU(1.2, 1.5), lambda t: F.selu(t, 1.2, 1.5)),
    (nn.Mish(), F.mish), (nn.Softsign(), F.softsign), (nn.Tanhshrink(), F.tanhshrink),
    (nn.LogSigmoid(), F.log_sigmoid), (nn.Swish(), F.swish), (nn.Hardswish(), F.hardswish),
    (nn.Hardsigmoid(), F.hardsigmoid), (nn.Hardshrink(0.8), lambda t: F.hardshrink(t, 0.8)),
    (nn.ReLU6(), F.relu6), (nn.GELU("tanh"), lambda t: F.gelu(t, True)),
    (nn.GELU(), F.gelu),
])
def test_layer_is_its_functional_op(layer, fn):
    x = oar.to_tensor(_x([3, 4]) * 3)
    np.testing.assert_array_equal(layer(x).numpy(), fn(x).numpy())


def test_printed_forms_measured_from_paddle():
    # repr() of paddle.nn's layers, measured with Paddle 3.3.1
    expected = {
        "PReLU(num_parameters=1, data_format=NCHW, init=0.25, dtype=float32)": nn.PReLU(),
        "PReLU(num_parameters=3, data_format=NHWC, init=0.1, dtype=float32, name=p)":
            nn.PReLU(3, 0.1, data_format="NHWC", name="p"),
        "RReLU(lower=0.125, upper=0.3333333333333333, training=True, dtype=float32)": nn.RReLU(),
        "SELU(scale=1.0507009873554805, alpha=1.6732632423543772)": nn.SELU(),
        "SELU(scale=1.5000000000000000, alpha=2.0000000000000000)": nn.SELU(1.5, 2.0),
        "GELU(approximate=False)": nn.GELU(), "GELU(approximate=tanh)": nn.GELU("tanh"),
        "Softplus(beta=1, threshold=20)": nn.Softplus(), "Sigmoid(name=s)": nn.Sigmoid(name="s"),
        "Silu(inplace=False)": nn.Silu(), "Silu(inplace=True, name=a)": nn.Silu(True, "a"),
        "Softmax2D()": nn.Softmax2D(), "Softmax(axis=-1)": nn.Softmax(),
        "LogSoftmax(axis=1, name=n)": nn.LogSoftmax(1, "n"), "Maxout(groups=2, axis=1)": nn.Maxout(2),
        "CELU(alpha=2)": nn.CELU(2), "Hardtanh(min=-1.0, max=1.0)": nn.Hardtanh(),
        "ELU(alpha=1.0, name=e)": nn.ELU(name="e"), "ReLU()": nn.ReLU(),
        "ThresholdedReLU(threshold=1.0, value=0.0)": nn.ThresholdedReLU(),
        "Softshrink(threshold=0.3)": nn.Softshrink(lambd=0.3), "GLU(axis=1)": nn.GLU(dim=1),
    }
    for text, layer in expected.items():
        assert repr(layer) == text
    seq = nn.Sequential(nn.ReLU(), nn.Softmax(1))
    assert repr(seq) == "Sequential(\n  (0): ReLU()\n  (1): Softmax(axis=1)\n)"


def test_activations_have_no_parameters_and_follow_train_eval():
    for cls in ["ReLU", "Tanh", "Softmax", "GELU", "Softplus", "SELU"]:
        layer = getattr(nn, cls)()
        assert layer.parameters() == [] and len(layer.state_dict()) == 0
        assert layer.eval().training is False and layer.train().training is True


ACTIVATIONS = ["CELU", "ELU", "GELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh",
               "LeakyReLU", "LogSigmoid", "LogSoftmax", "Maxout", "Mish", "PReLU", "ReLU", "ReLU6",
               "RReLU", "SELU", "Sigmoid", "Silu", "SiLU", "Softmax", "Softmax2D", "Softplus",
               "Softshrink", "Softsign", "Swish", "Tanh", "Tanhshrink", "ThresholdedReLU"]


def test_signatures_and_names_match_paddle():
    """Every activation class paddle.nn exports exists in oar.nn with Paddle's constructor and
    forward signatures (names, order, defaults)."""
    import inspect
    paddle = pytest.importorskip("paddle")
    theirs = sorted(n for n in dir(paddle.nn) if inspect.isclass(getattr(paddle.nn, n))
                    and getattr(paddle.nn, n).__module__ == "paddle.nn.layer.activation")
    assert theirs == sorted(ACTIVATIONS)

    def sig(f):
        return [(p.name, p.default, p.kind) for p in inspect.signature(f).parameters.values()]
    for name in ACTIVATIONS:
        for method in ("__init__", "forward"):
            assert sig(getattr(getattr(nn, name), method)) == \
                sig(getattr(getattr(paddle.nn, name), method)), (name, method)


# Arguments that every class accepts (Maxout needs groups); the printed forms must not depend on
# which arguments a class declares through the shared _Activation table.
_REQUIRED_ARGS = {"Maxout": (2,)}


@pytest.mark.parametrize("cls", ACTIVATIONS)
def test_every_class_prints_stores_and_rejects_like_paddle(cls):
    """repr with and without a name, the attributes a layer keeps its arguments in, and the
    TypeError text of a wrong constructor or forward call, per class against Paddle."""
    import inspect
    paddle = pytest.importorskip("paddle")
    args = _REQUIRED_ARGS.get(cls, ())
    mine_cls, theirs_cls = getattr(nn, cls), getattr(paddle.nn, cls)
    assert repr(mine_cls(*args)) == repr(theirs_cls(*args))
    assert repr(mine_cls(*args, name="nm")) == repr(theirs_cls(*args, name="nm"))

    def kept(layer):  # the attributes that hold constructor arguments (name included)
        return sorted(k for k in vars(layer) if k.lstrip("_") in
                      set(inspect.signature(type(layer)).parameters))
    assert kept(mine_cls(*args)) == kept(theirs_cls(*args))

    def message(call):
        with pytest.raises(TypeError) as info:
            call()
        return str(info.value)
    assert message(lambda: mine_cls(*args, no_such_arg=1)) == \
        message(lambda: theirs_cls(*args, no_such_arg=1))
    x = _x([2, 4, 3, 4])
    assert message(lambda: mine_cls(*args)(oar.to_tensor(x), no_such_arg=1)) == \
        message(lambda: theirs_cls(*args)(paddle.to_tensor(x), no_such_arg=1))
