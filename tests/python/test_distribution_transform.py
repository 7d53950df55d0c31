"""The transforms of oar.distribution (python/oar/distribution/transform.py) and the distributions
built from them (TransformedDistribution, Independent): forward, inverse and both
log-determinants against NumPy references and against Paddle, the log-determinants against the
derivative autograd gives, forward_shape/inverse_shape, domains and codomains, calling a
transform on tensors, distributions and transforms, and Paddle's errors."""
import math

import numpy as np
import pytest

import oar
from oar import distribution as D


def f64(x):
    return oar.to_tensor(np.asarray(x, dtype=np.float64))


def softplus(x):
    return np.logaddexp(0, x)


X = np.array([[0.5, -1.0, 2.0], [0.1, 0.2, -0.3]])
POS = np.abs(X) + 0.1
SIMPLEX = np.array([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]])
SIMPLEX4 = np.array([[0.2, 0.3, 0.4, 0.1], [0.1, 0.5, 0.3, 0.1]])


def stick_breaking(x):
    k = x.shape[-1]
    z = 1 / (1 + np.exp(-(x - np.log(np.arange(k, 0, -1)))))
    y = np.ones(x.shape[:-1] + (k + 1,))
    rest = np.ones(x.shape[:-1])
    for i in range(k):
        y[..., i] = z[..., i] * rest
        rest = rest * (1 - z[..., i])
    y[..., k] = rest
    return y


def stick_breaking_log_det(x):
    """log|det d y[:-1] / d x| by central differences."""
    out = np.zeros(x.shape[:-1])
    for idx in np.ndindex(*x.shape[:-1]):
        v = x[idx]
        k = v.size
        jac = np.zeros((k, k))
        for j in range(k):
            h = np.zeros(k)
            h[j] = 1e-6
            jac[:, j] = (stick_breaking(v + h)[:k] - stick_breaking(v - h)[:k]) / 2e-6
        out[idx] = np.linalg.slogdet(jac)[1]
    return out


# (name, transform of D and a tensor maker, x, y, NumPy forward, inverse, forward log-det)
CASES = [
    ("Exp", lambda D, T: D.ExpTransform(), X, POS, np.exp, np.log, lambda x: x),
    ("Affine", lambda D, T: D.AffineTransform(T([1.0, 2.0, 3.0]), T([[2.0], [-3.0]])), X, X,
     lambda x: np.array([1.0, 2.0, 3.0]) + np.array([[2.0], [-3.0]]) * x,
     lambda y: (y - np.array([1.0, 2.0, 3.0])) / np.array([[2.0], [-3.0]]),
     lambda x: np.log(np.abs(np.array([[2.0], [-3.0]])))),  # log|scale|, not broadcast to x (as Paddle)
    ("Power", lambda D, T: D.PowerTransform(T([2.0, 3.0, 0.5])), POS, POS,
     lambda x: x ** np.array([2.0, 3.0, 0.5]), lambda y: y ** (1 / np.array([2.0, 3.0, 0.5])),
     lambda x: np.log(np.abs(np.array([2.0, 3.0, 0.5]) * x ** (np.array([2.0, 3.0, 0.5]) - 1)))),
    ("Sigmoid", lambda D, T: D.SigmoidTransform(), X, POS / 3, lambda x: 1 / (1 + np.exp(-x)),
     lambda y: np.log(y) - np.log1p(-y), lambda x: -softplus(-x) - softplus(x)),
    ("Tanh", lambda D, T: D.TanhTransform(), X, X / 3, np.tanh, np.arctanh, lambda x: np.log1p(-np.tanh(x) ** 2)),
    ("Abs", lambda D, T: D.AbsTransform(), X, POS, np.abs, lambda y: (-y, y), None),
    ("Softmax", lambda D, T: D.SoftmaxTransform(), X, SIMPLEX, lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True),
     np.log, None),
    ("StickBreaking", lambda D, T: D.StickBreakingTransform(), X, SIMPLEX4, stick_breaking,
     lambda y: (np.log(y[..., :-1]) - np.log(1 - np.cumsum(y[..., :-1], -1))
                + np.log(np.arange(y.shape[-1] - 1, 0, -1))),
     stick_breaking_log_det),
    ("Reshape", lambda D, T: D.ReshapeTransform((3,), (3, 1)), X, X.reshape(2, 3, 1), lambda x: x.reshape(2, 3, 1),
     lambda y: y.reshape(2, 3), lambda x: np.zeros(2)),
    ("Independent", lambda D, T: D.IndependentTransform(D.ExpTransform(), 1), X, POS, np.exp, np.log,
     lambda x: x.sum(-1)),
    ("Chain", lambda D, T: D.ChainTransform([D.AffineTransform(T(1.0), T(2.0)), D.ExpTransform()]), X, POS,
     lambda x: np.exp(1 + 2 * x), lambda y: (np.log(y) - 1) / 2, lambda x: math.log(2) + 1 + 2 * x),
    ("Chain-event", lambda D, T: D.ChainTransform([D.ExpTransform(), D.StickBreakingTransform()]), X, SIMPLEX4,
     lambda x: stick_breaking(np.exp(x)),
     None, lambda x: x.sum(-1) + stick_breaking_log_det(np.exp(x))),
    ("Stack", lambda D, T: D.StackTransform([D.ExpTransform(), D.TanhTransform(), D.SigmoidTransform()], 1), X, POS / 3,
     lambda x: np.stack([np.exp(x[:, 0]), np.tanh(x[:, 1]), 1 / (1 + np.exp(-x[:, 2]))], 1),
     lambda y: np.stack([np.log(y[:, 0]), np.arctanh(y[:, 1]), np.log(y[:, 2] / (1 - y[:, 2]))], 1),
     lambda x: np.stack([x[:, 0], np.log1p(-np.tanh(x[:, 1]) ** 2), -softplus(-x[:, 2]) - softplus(x[:, 2])], 1)),
]


@pytest.mark.parametrize("name,make,x,y,forward,inverse,fldj", CASES, ids=[c[0] for c in CASES])
def test_against_numpy(name, make, x, y, forward, inverse, fldj):
    tr = make(D, f64)
    np.testing.assert_allclose(tr.forward(f64(x)).numpy(), forward(x), rtol=1e-10, atol=1e-12)
    assert tr(f64(x)).shape == list(np.shape(forward(x)))  # calling a transform is forward
    if inverse is not None:
        got, want = tr.inverse(f64(y)), inverse(y)
        if isinstance(want, tuple):
            for g, w in zip(got, want):
                np.testing.assert_allclose(g.numpy(), w, rtol=1e-10)
        else:
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12)
    if fldj is not None:
        np.testing.assert_allclose(tr.forward_log_det_jacobian(f64(x)).numpy(), fldj(x), rtol=1e-6, atol=1e-8)
        # inverse_log_det_jacobian(y) = -forward_log_det_jacobian(inverse(y))
        if inverse is not None:
            np.testing.assert_allclose(tr.inverse_log_det_jacobian(f64(y)).numpy(), -fldj(inverse(y)),
                                       rtol=1e-6, atol=1e-8)
    else:
        with pytest.raises(NotImplementedError):
            tr.forward_log_det_jacobian(f64(x))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,make,x,y,forward,inverse,fldj", CASES, ids=[c[0] for c in CASES])
def test_against_paddle(name, make, x, y, forward, inverse, fldj, dtype):
    paddle = pytest.importorskip("paddle")
    ours = make(D, lambda v: oar.to_tensor(np.asarray(v, dtype=dtype)))
    theirs = make(paddle.distribution, lambda v: paddle.to_tensor(np.asarray(v, dtype=dtype)))
    tol = 1e-5 if dtype == "float32" else 1e-10
    if dtype == "float64" and name in ("StickBreaking", "Chain-event"):
        tol = 1e-7  # Paddle builds the stick-breaking offsets in float32
    for method, arg in [("forward", x), ("inverse", y), ("forward_log_det_jacobian", x),
                        ("inverse_log_det_jacobian", y)]:
        try:
            want = getattr(theirs, method)(paddle.to_tensor(np.asarray(arg, dtype=dtype)))
        except NotImplementedError:
            with pytest.raises(NotImplementedError):
                getattr(ours, method)(oar.to_tensor(np.asarray(arg, dtype=dtype)))
            continue
        got = getattr(ours, method)(oar.to_tensor(np.asarray(arg, dtype=dtype)))
        got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
        for g, w in zip(got, want):
            assert str(g.dtype) == str(w.dtype) and g.shape == list(w.shape), f"{name}.{method}"
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=tol, atol=tol, err_msg=f"{name}.{method}")
    for method in ("forward_shape", "inverse_shape"):
        for shape in [(2, 3), (4, 2, 3)]:
            try:
                want = getattr(theirs, method)(shape)
            except ValueError:
                with pytest.raises(ValueError):
                    getattr(ours, method)(shape)
                continue
            assert tuple(getattr(ours, method)(shape)) == tuple(want), f"{name}.{method}({shape})"
    for attr in ("_domain", "_codomain"):
        assert getattr(ours, attr).event_rank == getattr(theirs, attr).event_rank, f"{name}.{attr}"
        assert getattr(ours, attr).is_discrete == getattr(theirs, attr).is_discrete, f"{name}.{attr}"
    assert ours._is_injective() == theirs._is_injective()


@pytest.mark.parametrize("make", [lambda: D.ExpTransform(), lambda: D.SigmoidTransform(), lambda: D.TanhTransform(),
                                  lambda: D.PowerTransform(f64(3.0)), lambda: D.AffineTransform(f64(1.0), f64(-2.0))],
                         ids=["Exp", "Sigmoid", "Tanh", "Power", "Affine"])
def test_log_det_is_log_of_the_derivative(make):
    """For elementwise bijections, forward_log_det_jacobian(x) = log|f'(x)| with f' from autograd."""
    tr = make()
    x = oar.to_tensor(POS.ravel(), stop_gradient=False)
    (deriv,) = oar.grad(tr.forward(x).sum(), [x])
    log_det = np.broadcast_to(tr.forward_log_det_jacobian(x).numpy(), x.shape)  # Affine's is one number
    np.testing.assert_allclose(log_det, np.log(np.abs(deriv.numpy())), rtol=1e-10, atol=1e-12)


def test_shapes():
    assert D.ReshapeTransform((2, 3), (6,)).forward_shape((5, 2, 3)) == (5, 6)
    assert D.ReshapeTransform((2, 3), (6,)).inverse_shape((5, 6)) == (5, 2, 3)
    assert D.StickBreakingTransform().forward_shape((4, 3)) == (4, 4)
    assert D.StickBreakingTransform().inverse_shape((4, 3)) == (4, 2)
    assert D.AffineTransform(f64([1.0, 2.0]), f64([[1.0], [2.0], [3.0]])).forward_shape((2,)) == (3, 2)
    assert D.PowerTransform(f64([1.0, 2.0])).inverse_shape((3, 1)) == (3, 2)
    chain = D.ChainTransform([D.StickBreakingTransform(), D.ReshapeTransform((4,), (2, 2))])
    # inverse_shape walks the chain backwards (Paddle 3.3 walks it forwards and fails here)
    assert chain.forward_shape((5, 3)) == (5, 2, 2) and chain.inverse_shape((5, 2, 2)) == (5, 3)
    assert chain._domain.event_rank == 1 and chain._codomain.event_rank == 2


def test_calling_a_transform():
    exp, affine = D.ExpTransform(), D.AffineTransform(f64(1.0), f64(2.0))
    chain = exp(affine)
    assert isinstance(chain, D.ChainTransform) and chain.transforms == [exp, affine]
    # As Paddle's, the chain applies the transform called first: 1 + 2 exp(0).
    np.testing.assert_allclose(chain(f64([0.0])).numpy(), [3.0])
    dist = exp(D.Normal(f64(0.0), f64(1.0)))
    assert isinstance(dist, D.TransformedDistribution)
    np.testing.assert_allclose(dist.log_prob(f64(2.0)).numpy(),
                               D.LogNormal(f64(0.0), f64(1.0)).log_prob(f64(2.0)).numpy(), rtol=1e-12)


TRANSFORM_ERRORS = [
    ("forward(list)", lambda D, T: D.ExpTransform().forward([1.0]), TypeError, "Expected 'x' is a Tensor"),
    ("inverse(float)", lambda D, T: D.ExpTransform().inverse(1.0), TypeError, "Expected 'y' is a Tensor"),
    ("forward rank", lambda D, T: D.SoftmaxTransform().forward(T(1.0)), ValueError, "grater than or equal to 1"),
    ("inverse rank", lambda D, T: D.StickBreakingTransform().inverse(T(1.0)), ValueError, "grater than or equal"),
    ("Abs fldj", lambda D, T: D.AbsTransform().forward_log_det_jacobian(T([1.0])), NotImplementedError, "non-injective"),
    ("Softmax fldj", lambda D, T: D.SoftmaxTransform().forward_log_det_jacobian(T([1.0])), NotImplementedError, None),
    ("forward_shape(int)", lambda D, T: D.ExpTransform().forward_shape(3), TypeError, "Sequence"),
    ("Affine(float)", lambda D, T: D.AffineTransform(1.0, T(1.0)), TypeError, "'loc' is a Tensor"),
    ("Affine(scale)", lambda D, T: D.AffineTransform(T(1.0), 2.0), TypeError, "scale is a Tensor"),
    ("Power(float)", lambda D, T: D.PowerTransform(2.0), TypeError, "'power' is a tensor"),
    ("Chain(transform)", lambda D, T: D.ChainTransform(D.ExpTransform()), TypeError, "Sequence"),
    ("Chain([1])", lambda D, T: D.ChainTransform([1]), TypeError, "Transform type"),
    ("Independent(base)", lambda D, T: D.IndependentTransform(1, 1), TypeError, "Transform type"),
    ("Independent(0)", lambda D, T: D.IndependentTransform(D.ExpTransform(), 0), ValueError, "grater than zero"),
    ("Reshape(int)", lambda D, T: D.ReshapeTransform(3, (3,)), TypeError, "Sequence"),
    ("Reshape(numel)", lambda D, T: D.ReshapeTransform((2, 3), (5,)), ValueError, "numel"),
    ("Reshape forward_shape", lambda D, T: D.ReshapeTransform((2, 3), (6,)).forward_shape((3, 3)), ValueError,
     "Event shape mismatch"),
    ("Reshape short shape", lambda D, T: D.ReshapeTransform((2, 3), (6,)).forward_shape((3,)), ValueError,
     "not less than 2"),
    ("Softmax forward_shape", lambda D, T: D.SoftmaxTransform().forward_shape(()), ValueError, "grater than 1"),
    ("StickBreaking shape", lambda D, T: D.StickBreakingTransform().forward_shape(()), ValueError, "not empty"),
    ("Stack([])", lambda D, T: D.StackTransform([]), TypeError, "Sequence"),
    ("Stack([1])", lambda D, T: D.StackTransform([1]), TypeError, "Transform Type"),
    ("Stack(axis)", lambda D, T: D.StackTransform([D.ExpTransform()], 0.5), TypeError, "'axis' is int"),
    ("Stack size", lambda D, T: D.StackTransform([D.ExpTransform()], 0).forward(T([1.0, 2.0])), ValueError,
     "equal to the length of transforms"),
    ("Stack axis range", lambda D, T: D.StackTransform([D.ExpTransform()], 3).forward(T([1.0])), ValueError,
     "stack transform axis"),
    ("TransformedDistribution rank", lambda D, T: D.TransformedDistribution(
        D.Normal(T(0.0), T(1.0)), [D.StickBreakingTransform()]), ValueError, "at least 1"),
]


@pytest.mark.parametrize("label,call,error,match", TRANSFORM_ERRORS, ids=[e[0] for e in TRANSFORM_ERRORS])
def test_bad_arguments(label, call, error, match):
    with pytest.raises(error, match=match):
        call(D, f64)


@pytest.mark.parametrize("label,call,error,match", TRANSFORM_ERRORS, ids=[e[0] for e in TRANSFORM_ERRORS])
def test_bad_arguments_as_paddle(label, call, error, match):
    paddle = pytest.importorskip("paddle")
    with pytest.raises(error, match=match):
        call(paddle.distribution, lambda v: paddle.to_tensor(np.asarray(v, dtype=np.float64)))


# ---- TransformedDistribution and Independent ----

TRANSFORMED = [
    ("Normal-Exp-Affine", lambda D, T: D.TransformedDistribution(
        D.Normal(T([0.0, 1.0]), T([1.0, 2.0])), [D.ExpTransform(), D.AffineTransform(T(1.0), T(2.0))]),
     [1.5, 4.0]),
    ("Normal-StickBreaking", lambda D, T: D.TransformedDistribution(
        D.Normal(T([[0.0, 1.0, 2.0]]), T([[1.0, 2.0, 1.0]])), [D.StickBreakingTransform()]), [0.1, 0.2, 0.3, 0.4]),
    ("Normal-Reshape", lambda D, T: D.TransformedDistribution(
        D.Normal(T([0.0, 1.0, 2.0, 0.0]), T([1.0, 2.0, 1.0, 1.0])), [D.ReshapeTransform((4,), (2, 2))]),
     [[0.1, 0.2], [0.3, 0.4]]),
    ("Independent-Normal-Tanh", lambda D, T: D.TransformedDistribution(
        D.Independent(D.Normal(T([[0.0, 1.0]]), T([[1.0, 2.0]])), 1), [D.TanhTransform()]), [[0.1, -0.5]]),
    ("Gumbel", lambda D, T: D.Gumbel(T([0.0, 1.0]), T([1.0, 2.0])), [0.5, 3.0]),
    ("LogNormal", lambda D, T: D.LogNormal(T([0.0, 1.0]), T([1.0, 2.0])), [0.5, 3.0]),
    ("Independent", lambda D, T: D.Independent(D.Beta(T([[0.5, 2.0]]), T([[1.0, 3.0]])), 2), [[0.2, 0.3]]),
]


@pytest.mark.parametrize("name,make,value", TRANSFORMED, ids=[c[0] for c in TRANSFORMED])
def test_transformed_against_paddle(name, make, value):
    paddle = pytest.importorskip("paddle")
    ours = make(D, f64)
    theirs = make(paddle.distribution, lambda v: paddle.to_tensor(np.asarray(v, dtype=np.float64)))
    assert ours.batch_shape == tuple(theirs.batch_shape) and ours.event_shape == tuple(theirs.event_shape)
    for method in ("log_prob", "prob"):
        got = getattr(ours, method)(f64(value))
        want = getattr(theirs, method)(paddle.to_tensor(np.asarray(value, dtype=np.float64)))
        assert got.shape == list(want.shape), f"{name}.{method}"
        tol = 1e-7 if "StickBreaking" in name else 1e-10  # Paddle's stick-breaking offsets are float32
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, err_msg=f"{name}.{method}")
    oar.seed(1)
    assert ours.sample([3]).shape == list(theirs.sample([3]).shape)


def test_transformed_log_prob_is_the_change_of_variables():
    """Normal pushed through an affine map is the normal of the mapped parameters; through exp,
    the log-normal."""
    base = D.Normal(f64([0.5, -1.0]), f64([2.0, 0.5]))
    shifted = D.TransformedDistribution(base, [D.AffineTransform(f64(1.0), f64(3.0))])
    value = f64([0.3, 2.0])
    np.testing.assert_allclose(shifted.log_prob(value).numpy(),
                               D.Normal(f64([2.5, -2.0]), f64([6.0, 1.5])).log_prob(value).numpy(), rtol=1e-12)
    assert shifted.batch_shape == (2,) and shifted.event_shape == ()
    x = np.array([0.3, 2.0])
    want = -np.log(x) - (np.log(x) - [0.5, -1.0]) ** 2 / (2 * np.array([4.0, 0.25])) - np.log([2.0, 0.5]) \
        - 0.5 * math.log(2 * math.pi)
    np.testing.assert_allclose(D.TransformedDistribution(base, [D.ExpTransform()]).log_prob(f64(x)).numpy(), want,
                               rtol=1e-12)


def test_transformed_event_shapes():
    base = D.Normal(f64(np.zeros((5, 3))), f64(np.ones((5, 3))))
    d = D.TransformedDistribution(base, [D.StickBreakingTransform()])
    assert d.batch_shape == (5,) and d.event_shape == (4,)
    assert d.sample([2]).shape == [2, 5, 4]
    np.testing.assert_allclose(d.sample([2]).numpy().sum(-1), 1.0, rtol=1e-12)
    assert d.log_prob(f64(np.full((5, 4), 0.25))).shape == [5]
    d = D.TransformedDistribution(base, [])
    assert d.batch_shape == (5, 3) and d.event_shape == ()


def test_independent():
    base = D.Normal(f64([[0.0, 1.0, 2.0], [1.0, 1.0, 1.0]]), f64([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]]))
    d = D.Independent(base, 1)
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    value = f64(np.arange(6.0).reshape(2, 3))
    np.testing.assert_allclose(d.log_prob(value).numpy(), base.log_prob(value).numpy().sum(-1), rtol=1e-12)
    np.testing.assert_allclose(d.prob(value).numpy(), np.exp(base.log_prob(value).numpy().sum(-1)), rtol=1e-12)
    np.testing.assert_allclose(d.entropy().numpy(), base.entropy().numpy().sum(-1), rtol=1e-12)
    np.testing.assert_allclose(d.mean.numpy(), base.mean.numpy())
    np.testing.assert_allclose(d.variance.numpy(), base.variance.numpy())
    assert d.sample([4]).shape == [4, 2, 3]
    d2 = D.Independent(base, 2)
    assert d2.batch_shape == () and d2.event_shape == (2, 3) and d2.log_prob(value).shape == []
