"""Sampling in oar.distribution (python/oar/distribution/): the shapes and dtypes of sample and
rsample for every distribution, as Paddle's; sample moments and frequencies within statistical
tolerance of the exact ones (fixed seeds, 40000 draws, bounds of several standard errors); the
same seed giving the same draws; rsample gradients against central differences taken with the
same draws (oar.seed before each); which samples carry gradients, as Paddle.

The draws of Gamma, Chi2, Beta, Dirichlet, StudentT and LKJCholesky (through Beta) come from the
C++ op oar.standard_gamma, Poisson's from oar.poisson and Binomial's from oar.binomial: the tests
that sample those distributions (named in NEEDS_OPS) call the ops."""
import math
import warnings

import numpy as np
import pytest

import oar
from oar import distribution as D

N = 40000
# The distributions whose sampling calls oar.standard_gamma, oar.poisson or oar.binomial.
NEEDS_OPS = {"Gamma", "Chi2", "Beta", "Dirichlet", "StudentT", "LKJCholesky", "LKJCholesky-cvine", "Poisson",
             "Binomial"}


def f32(x):
    return oar.to_tensor(np.asarray(x, dtype=np.float32))


def f64(x):
    return oar.to_tensor(np.asarray(x, dtype=np.float64))


# (name, constructor of D and a tensor maker, batch + event shape, has rsample)
SHAPES = [
    ("Normal", lambda D, T: D.Normal(T([0.0, 1.0]), T([1.0, 2.0])), (2,), True),
    ("Uniform", lambda D, T: D.Uniform(T([0.0, 1.0]), T([1.0, 3.0])), (2,), False),
    ("Bernoulli", lambda D, T: D.Bernoulli(T([0.3, 0.6])), (2,), True),
    ("Beta", lambda D, T: D.Beta(T([0.3, 0.6]), T([1.0, 2.0])), (2,), False),
    ("Binomial", lambda D, T: D.Binomial(T([3.0, 5.0]), T([0.3, 0.6])), (2,), False),
    ("Categorical", lambda D, T: D.Categorical(T([[0.3, 0.6, 0.1], [1.0, 1.0, 1.0]])), (2,), False),
    ("Cauchy", lambda D, T: D.Cauchy(T([0.0, 1.0]), T([1.0, 2.0])), (2,), True),
    ("Chi2", lambda D, T: D.Chi2(T([1.0, 2.0])), (2,), True),
    ("ContinuousBernoulli", lambda D, T: D.ContinuousBernoulli(T([0.3, 0.6])), (2,), True),
    ("Dirichlet", lambda D, T: D.Dirichlet(T([[0.3, 0.6, 1.0], [1.0, 2.0, 3.0]])), (2, 3), False),
    ("Exponential", lambda D, T: D.Exponential(T([0.3, 0.6])), (2,), True),
    ("Gamma", lambda D, T: D.Gamma(T([0.3, 0.6]), T([1.0, 2.0])), (2,), True),
    ("Geometric", lambda D, T: D.Geometric(T([0.3, 0.6])), (2,), True),
    ("Gumbel", lambda D, T: D.Gumbel(T([0.3, 0.6]), T([1.0, 2.0])), (2,), True),
    ("Laplace", lambda D, T: D.Laplace(T([0.3, 0.6]), T([1.0, 2.0])), (2,), True),
    ("LogNormal", lambda D, T: D.LogNormal(T([0.3, 0.6]), T([1.0, 2.0])), (2,), True),
    ("LKJCholesky", lambda D, T: D.LKJCholesky(3, T([1.0, 2.0])), (2, 3, 3), False),
    ("LKJCholesky-cvine", lambda D, T: D.LKJCholesky(4, T(1.5), "cvine"), (4, 4), False),
    ("Multinomial", lambda D, T: D.Multinomial(5, T([[0.3, 0.6, 0.1], [1.0, 1.0, 1.0]])), (2, 3), False),
    ("MultivariateNormal", lambda D, T: D.MultivariateNormal(T([0.0, 1.0]), T([[1.0, 0.2], [0.2, 1.0]])), (2,), True),
    ("Poisson", lambda D, T: D.Poisson(T([0.3, 6.0])), (2,), False),
    ("StudentT", lambda D, T: D.StudentT(T([3.0, 6.0]), T(0.0), T(1.0)), (2,), False),
    ("Independent", lambda D, T: D.Independent(D.Normal(T([[0.0, 1.0]]), T([[1.0, 2.0]])), 1), (1, 2), False),
    ("TransformedDistribution", lambda D, T: D.TransformedDistribution(
        D.Normal(T([0.0, 1.0]), T([1.0, 2.0])), [D.ExpTransform()]), (2,), True),
]


def _expected_dtype(name, dtype):
    return "int64" if name == "Categorical" else dtype


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,make,shape,has_rsample", SHAPES, ids=[s[0] for s in SHAPES])
def test_sample_shapes_and_dtypes(name, make, shape, has_rsample, dtype):
    d = make(D, lambda x: oar.to_tensor(np.asarray(x, dtype=dtype)))
    methods = ["sample", "rsample"] if has_rsample else ["sample"]
    for method in methods:
        for sample_shape in [(), (4,), (2, 3)]:
            x = getattr(d, method)(list(sample_shape))
            assert tuple(x.shape) == sample_shape + shape, f"{name}.{method}({sample_shape})"
            assert x.dtype == _expected_dtype(name, dtype), f"{name}.{method}: {x.dtype}"
    if not has_rsample:
        with pytest.raises(NotImplementedError):
            d.rsample([2])


@pytest.mark.parametrize("name,make,shape,has_rsample", SHAPES, ids=[s[0] for s in SHAPES])
def test_sample_shapes_and_gradients_as_paddle(name, make, shape, has_rsample):
    """Shapes, dtypes and whether the draws carry gradients (parameters that require them), as
    Paddle's."""
    paddle = pytest.importorskip("paddle")

    def maker(fw):
        def to(x):
            out = fw.to_tensor(np.asarray(x, dtype=np.float32))
            out.stop_gradient = False
            return out
        return to

    ours, theirs = make(D, maker(oar)), make(paddle.distribution, maker(paddle))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method in (["sample", "rsample"] if has_rsample else ["sample"]):
            got, want = getattr(ours, method)([3]), getattr(theirs, method)([3])
            assert got.shape == list(want.shape), f"{name}.{method}"
            assert str(got.dtype) == str(want.dtype), f"{name}.{method}"
            assert got.stop_gradient == want.stop_gradient, f"{name}.{method}: stop_gradient {got.stop_gradient}"


def test_beta_sample_keeps_a_batch_axis_of_size_one():
    """Paddle 3.3 squeezes it away ([3] for a batch of shape [1]); oar's samples have the shape
    sample_shape + batch_shape."""
    d = D.Beta(f32([0.5]), f32([0.5]))
    assert d.sample([3]).shape == [3, 1]


@pytest.mark.parametrize("name,make,shape,has_rsample", SHAPES, ids=[s[0] for s in SHAPES])
def test_same_seed_same_draws(name, make, shape, has_rsample):
    d = make(D, f32)
    oar.seed(11)
    first = d.sample([5]).numpy()
    oar.seed(11)
    np.testing.assert_array_equal(d.sample([5]).numpy(), first)


def test_sample_seed_argument():
    """Normal and Uniform take Paddle's seed argument: the same seed, the same draws."""
    for d in (D.Normal(f32([0.0, 1.0]), f32([1.0, 2.0])), D.Uniform(f32([0.0, 1.0]), f32([1.0, 2.0]))):
        a = d.sample([4], seed=123).numpy()
        d.sample([4])
        np.testing.assert_array_equal(d.sample([4], seed=123).numpy(), a)


# ---- moments and frequencies ----

def _check_mean_var(x, mean, var, what, var_rtol=0.05):
    """x: draws along axis 0; the sample mean within 5 standard errors, the variance within
    var_rtol."""
    x = x.astype(np.float64)
    mean, var = np.broadcast_to(mean, x.shape[1:]), np.broadcast_to(var, x.shape[1:])
    se = np.sqrt(var / x.shape[0])
    np.testing.assert_array_less(np.abs(x.mean(0) - mean), 5 * se + 1e-12, err_msg=f"{what}: mean")
    np.testing.assert_allclose(x.var(0), var, rtol=var_rtol, err_msg=f"{what}: variance")


def _check_cdf(x, cdf_at, points, what):
    """The empirical CDF of draws x (axis 0) at points within 5 standard errors of the CDF."""
    for p in points:
        want = np.asarray(cdf_at(p), dtype=np.float64)
        got = (x <= p).mean(0)
        np.testing.assert_array_less(np.abs(got - want), 5 * np.sqrt(want * (1 - want) / x.shape[0]) + 1e-3,
                                     err_msg=f"{what}: cdf at {p}")


def _check_pmf(x, pmf_at, support, what):
    for k in support:
        want = np.asarray(pmf_at(k), dtype=np.float64)
        got = (x == k).mean(0)
        np.testing.assert_array_less(np.abs(got - want), 5 * np.sqrt(want * (1 - want) / x.shape[0]) + 1e-3,
                                     err_msg=f"{what}: frequency of {k}")


def _draws(d, seed=2024):
    oar.seed(seed)
    return d.sample([N]).numpy()


CONTINUOUS = [  # (name, distribution, CDF points or None); mean and variance from the distribution
    ("Normal", lambda: D.Normal(f64([0.5, -1.0]), f64([2.0, 0.5])), None),
    ("Uniform", lambda: D.Uniform(f64([0.0, -1.0]), f64([2.0, 3.0])), None),
    ("Exponential", lambda: D.Exponential(f64([0.5, 2.0])), [0.2, 1.0, 3.0]),
    ("Laplace", lambda: D.Laplace(f64([0.0, 1.0]), f64([1.0, 2.0])), [-1.0, 0.5, 2.0]),
    ("Gumbel", lambda: D.Gumbel(f64([0.0, 1.0]), f64([1.0, 2.0])), [-1.0, 0.5, 2.0]),
    ("ContinuousBernoulli", lambda: D.ContinuousBernoulli(f64([0.2, 0.5, 0.9])), [0.1, 0.5, 0.8]),
    ("LogNormal", lambda: D.LogNormal(f64([0.0, 0.5]), f64([0.5, 0.25])), None),
    ("Gamma", lambda: D.Gamma(f64([0.5, 3.0]), f64([1.0, 2.5])), None),
    ("Chi2", lambda: D.Chi2(f64([1.0, 5.0])), None),
    ("Beta", lambda: D.Beta(f64([0.5, 2.0]), f64([3.0, 1.5])), None),
    ("StudentT", lambda: D.StudentT(f64([5.0, 10.0]), f64([0.0, 1.0]), f64([1.0, 2.0])), None),
]


@pytest.mark.parametrize("name,make,points", CONTINUOUS, ids=[c[0] for c in CONTINUOUS])
def test_continuous_moments(name, make, points):
    d = make()
    x = _draws(d)
    var_rtol = 0.1 if name in ("StudentT", "LogNormal", "Gamma", "Chi2") else 0.05  # heavier tails
    if name == "Uniform":  # Paddle's Uniform has no mean or variance
        width = (d.high - d.low).numpy()
        mean, var = (d.low.numpy() + d.high.numpy()) / 2, width ** 2 / 12
    else:
        mean, var = d.mean.numpy(), d.variance.numpy()
    _check_mean_var(x, mean, var, name, var_rtol)
    if points is not None:
        _check_cdf(x, lambda p: d.cdf(f64(p)).numpy(), points, name)


def test_cauchy_quantiles():
    d = D.Cauchy(f64([0.0, 1.0]), f64([1.0, 2.0]))
    _check_cdf(_draws(d), lambda p: d.cdf(f64(p)).numpy(), [-3.0, -0.5, 0.0, 1.0, 4.0], "Cauchy")


def test_normal_complex_moments():
    d = D.Normal(1 + 2j, 2.0)
    oar.seed(3)
    z = d.sample([N]).numpy()
    assert z.dtype == np.complex64
    assert abs(z.mean() - (1 + 2j)) < 5 * 2 / math.sqrt(N)
    np.testing.assert_allclose([z.real.var(), z.imag.var()], [2.0, 2.0], rtol=0.05)  # scale^2 / 2 each


def test_discrete_frequencies():
    p = np.array([0.3, 0.9])
    x = _draws(D.Bernoulli(f64(p)))
    _check_pmf(x, lambda k: p if k == 1 else 1 - p, [0, 1], "Bernoulli")

    probs = np.array([0.3, 0.8])
    x = _draws(D.Geometric(f64(probs)))
    _check_pmf(x, lambda k: (1 - probs) ** k * probs, range(5), "Geometric")

    logits = np.array([[0.1, 0.2, 0.7], [1.0, 2.0, 3.0]])
    x = _draws(D.Categorical(f64(logits)))
    softmax = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    _check_pmf(x, lambda k: softmax[:, k], range(3), "Categorical")


def test_poisson_frequencies():
    rate = np.array([0.5, 3.0, 20.0])
    d = D.Poisson(f64(rate))
    x = _draws(d)
    _check_mean_var(x, rate, rate, "Poisson")
    _check_pmf(x, lambda k: np.exp(k * np.log(rate) - rate - math.lgamma(k + 1)), range(6), "Poisson")


def test_binomial_frequencies():
    n, p = np.array([10.0, 4.0]), np.array([0.3, 0.6])
    d = D.Binomial(f64(n), f64(p))
    x = _draws(d)
    assert ((x >= 0) & (x <= n)).all()
    _check_mean_var(x, n * p, n * p * (1 - p), "Binomial")
    _check_pmf(x, lambda k: d.prob(f64([k, k])).numpy(), range(5), "Binomial")


def test_multinomial_counts():
    probs = np.array([0.2, 0.3, 0.5])
    d = D.Multinomial(6, f64(probs))
    x = _draws(d)
    assert (x.sum(-1) == 6).all()
    _check_mean_var(x, 6 * probs, 6 * probs * (1 - probs), "Multinomial")


def test_dirichlet_moments():
    d = D.Dirichlet(f64([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]]))
    x = _draws(d)
    np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-12)
    _check_mean_var(x, d.mean.numpy(), d.variance.numpy(), "Dirichlet")


def test_multivariate_normal_moments():
    cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    for d in (D.MultivariateNormal(f64([0.0, 1.0]), covariance_matrix=f64(cov)),
              D.MultivariateNormal(f64([0.0, 1.0]), precision_matrix=f64(np.linalg.inv(cov))),
              D.MultivariateNormal(f64([0.0, 1.0]), scale_tril=f64(np.linalg.cholesky(cov)))):
        x = _draws(d)
        _check_mean_var(x, [0.0, 1.0], np.diag(cov), "MultivariateNormal")
        np.testing.assert_allclose(np.cov(x.T), cov, atol=0.05)


@pytest.mark.parametrize("method", ["onion", "cvine"])
def test_lkj_cholesky_samples(method):
    """Draws are lower-triangular with rows of unit norm (C = L L^T is a correlation matrix), and
    every correlation has the LKJ marginal 2 Beta(a, a) - 1, a = eta - 1 + dim / 2: mean 0,
    E[r^2] = 1 / (2a + 1), E[r^4] = 3 / ((2a + 1)(2a + 3)). (Paddle 3.3's samplers fail this
    for dim >= 3: its onion method draws rows 2 and up from the wrong Beta, its C-vine places the
    partial correlations in the wrong entries.)"""
    eta, dim = 1.5, 4
    a = eta - 1 + dim / 2
    d = D.LKJCholesky(dim, f64(eta), method)
    oar.seed(5)
    L = d.sample([N // 2]).numpy()
    np.testing.assert_allclose(np.triu(L, 1), 0.0)
    np.testing.assert_allclose((L ** 2).sum(-1), 1.0, rtol=1e-10)
    assert (np.diagonal(L, axis1=-2, axis2=-1) > 0).all()
    C = L @ np.swapaxes(L, -1, -2)
    for i, j in zip(*np.tril_indices(dim, -1)):
        r = C[:, i, j]
        _check_mean_var(r, 0.0, 1 / (2 * a + 1), f"LKJCholesky {method} C[{i}, {j}]")
        np.testing.assert_allclose((r ** 4).mean(), 3 / ((2 * a + 1) * (2 * a + 3)), rtol=0.08)


# ---- rsample gradients ----

def _weights(shape):
    return oar.to_tensor(np.random.default_rng(1).uniform(0.5, 1.5, size=shape))


# (name, constructor from parameter tensors, parameter values)
RSAMPLE = [
    ("Normal", lambda loc, scale: D.Normal(loc, scale), [[0.5, -1.0], [2.0, 0.5]]),
    ("Exponential", lambda rate: D.Exponential(rate), [[0.5, 2.0]]),
    ("Cauchy", lambda loc, scale: D.Cauchy(loc, scale), [[0.5, -1.0], [2.0, 0.5]]),
    ("Laplace", lambda loc, scale: D.Laplace(loc, scale), [[0.5, -1.0], [2.0, 0.5]]),
    ("Gumbel", lambda loc, scale: D.Gumbel(loc, scale), [[0.5, -1.0], [2.0, 0.5]]),
    ("LogNormal", lambda loc, scale: D.LogNormal(loc, scale), [[0.5, -1.0], [0.3, 0.5]]),
    ("ContinuousBernoulli", lambda probs: D.ContinuousBernoulli(probs), [[0.2, 0.7]]),
    ("Bernoulli", lambda probs: D.Bernoulli(probs), [[0.2, 0.7]]),
    ("MultivariateNormal", lambda loc, tril: D.MultivariateNormal(loc, scale_tril=tril),
     [[0.5, -1.0], [[1.0, 0.0], [0.3, 0.8]]]),
    ("TransformedDistribution", lambda loc, scale, shift: D.TransformedDistribution(
        D.Normal(loc, scale), [D.TanhTransform(), D.AffineTransform(shift, scale)]),
     [[0.5, -1.0], [2.0, 0.5], [1.0, 2.0]]),
]


@pytest.mark.parametrize("name,make,values", RSAMPLE, ids=[r[0] for r in RSAMPLE])
def test_rsample_gradient(name, make, values):
    """d sum(w * rsample) / d parameters by autograd and by central differences, each evaluation
    drawing the same noise (oar.seed)."""
    arrays = [np.array(v, dtype=np.float64) for v in values]

    def loss(arrays, grad=False):
        params = [oar.to_tensor(a, stop_gradient=not grad) for a in arrays]
        oar.seed(7)
        x = make(*params).rsample([6])
        value = (x * _weights(x.shape)).sum()
        return (value, params) if grad else value.item()

    value, params = loss(arrays, grad=True)
    grads = oar.grad(value, params)
    h = 1e-6
    for i, a in enumerate(arrays):
        numeric = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            plus, minus = [b.copy() for b in arrays], [b.copy() for b in arrays]
            plus[i][idx] += h
            minus[i][idx] -= h
            numeric[idx] = (loss(plus) - loss(minus)) / (2 * h)
        np.testing.assert_allclose(grads[i].numpy(), numeric, rtol=1e-5, atol=1e-6, err_msg=f"{name} parameter {i}")


def test_gamma_rsample_is_differentiable_in_rate():
    """rsample = standard_gamma(concentration) / rate: d sum(w x) / d rate = -sum(w x) / rate."""
    rate = oar.to_tensor([1.0, 2.5], dtype="float64", stop_gradient=False)
    x = D.Gamma(oar.to_tensor([0.5, 3.0], dtype="float64"), rate).rsample([5])
    w = _weights(x.shape)
    (g,) = oar.grad((x * w).sum(), [rate])
    np.testing.assert_allclose(g.numpy(), -(x * w).numpy().sum(0) / np.array([1.0, 2.5]), rtol=1e-10)


def test_geometric_rsample_is_integer_valued():
    x = D.Geometric(f64([0.3, 0.8])).rsample([100]).numpy()
    np.testing.assert_array_equal(x, np.floor(x))
    assert (x >= 0).all()
