"""oar.distribution (python/oar/distribution/): each distribution's mean, variance, entropy,
log_prob, prob, cdf/icdf and kl_divergence against NumPy references (math.lgamma and a series
digamma: no SciPy), in float32 and float64, and against Paddle where it is installed; how
constructors turn numbers, lists, arrays and tensors into parameters (batch shapes, dtypes), as
Paddle does; Paddle's exceptions for bad arguments; kl_divergence's dispatch; Paddle's signatures
for every constructor, method and property. Sampling (shapes,
moments, rsample gradients) is in tests/python/test_distribution_sampling.py, the transforms in
tests/python/test_distribution_transform.py."""
import math
import warnings

import numpy as np
import pytest

import oar
from oar import distribution as D

lgamma = np.vectorize(math.lgamma, otypes=[np.float64])
EULER = 0.5772156649015329
TOL = {"float32": 1e-4, "float64": 1e-9}


def digamma(x):
    """psi(x) for x > 0: the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 6, then the
    asymptotic series (error below 1e-13 there)."""
    x = np.array(x, dtype=np.float64)
    shift = np.zeros_like(x)
    while (x < 6).any():
        small = x < 6
        shift -= np.where(small, 1 / x, 0)
        x = np.where(small, x + 1, x)
    r = 1 / (x * x)
    return shift + np.log(x) - 0.5 / x - r * (1 / 12 - r * (1 / 120 - r * (1 / 252 - r * (1 / 240 - r / 132))))


def lbeta(a, b):
    return lgamma(a) + lgamma(b) - lgamma(a + b)


def normal_logp(x, mu, sigma):
    return -((x - mu) ** 2) / (2 * sigma ** 2) - np.log(sigma) - 0.5 * math.log(2 * math.pi)


def gamma_logp(x, a, b):
    return a * np.log(b) + (a - 1) * np.log(x) - b * x - lgamma(a)


def gamma_entropy(a, b):
    return a - np.log(b) + lgamma(a) + (1 - a) * digamma(a)


def binomial_logp(k, n, p):
    return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) + k * np.log(p) + (n - k) * np.log1p(-p)


def poisson_logp(k, rate):
    return k * np.log(rate) - rate - lgamma(k + 1)


def student_t_logp(x, df, loc, scale):
    y = (x - loc) / scale
    return (lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * np.log(df * math.pi) - np.log(scale)
            - (df + 1) / 2 * np.log1p(y * y / df))


def cb_log_norm(lam):
    return np.log(2 * np.arctanh(1 - 2 * lam) / (1 - 2 * lam))


def cb_mean(lam):
    return lam / (2 * lam - 1) + 1 / (2 * np.arctanh(1 - 2 * lam))


def dirichlet_logp(x, a):
    return ((a - 1) * np.log(x)).sum(-1) + lgamma(a.sum(-1)) - lgamma(a).sum(-1)


def dirichlet_entropy(a):
    a0 = a.sum(-1)
    k = a.shape[-1]
    return lgamma(a).sum(-1) - lgamma(a0) + (a0 - k) * digamma(a0) - ((a - 1) * digamma(a)).sum(-1)


def mvn_logp(x, mu, cov):
    d = x - mu
    k = mu.shape[-1]
    m = np.einsum("...i,...ij,...j->...", d, np.linalg.inv(cov), d)
    return -0.5 * (k * math.log(2 * math.pi) + np.linalg.slogdet(cov)[1] + m)


def multinomial_logp(x, n, p):
    p = p / p.sum(-1, keepdims=True)
    return lgamma(n + 1) - lgamma(x + 1).sum(-1) + (x * np.log(p)).sum(-1)


def multinomial_entropy(n, p):
    """By enumerating every count vector (small n and K only)."""
    p = p / p.sum()
    def vectors(n, k):
        if k == 1:
            yield (n,)
            return
        for i in range(n + 1):
            for rest in vectors(n - i, k - 1):
                yield (i,) + rest
    xs = np.array(list(vectors(n, len(p))), dtype=np.float64)
    logp = multinomial_logp(xs, n, p)
    return -(np.exp(logp) * logp).sum()


def lkj_logp(L, eta):
    """The LKJ density of a Cholesky factor (Lewandowski et al. 2009, with the Jacobian of
    C = L L^T): sum over i = 2..dim of (dim - i + 2 (eta - 1)) log L_ii, less the log normalizer
    p/2 log(pi) + log Gamma_p(alpha - 1/2) - p log Gamma(alpha), p = dim - 1,
    alpha = eta + p / 2 (Gamma_p: the multivariate gamma function)."""
    dim = L.shape[-1]
    p = dim - 1
    i = np.arange(2, dim + 1)
    unnormalized = ((dim - i + 2 * (eta - 1)) * np.log(np.diagonal(L)[1:])).sum()
    alpha = eta + 0.5 * p
    log_mvgamma = p * (p - 1) / 4 * math.log(math.pi) + sum(math.lgamma(alpha - 0.5 - (j - 1) / 2)
                                                            for j in range(1, p + 1))
    return unnormalized - (0.5 * p * math.log(math.pi) + log_mvgamma - p * math.lgamma(alpha))


def t(dtype):
    return lambda x: oar.to_tensor(np.asarray(x, dtype=dtype))


# ---- values against NumPy references ----
# Each case: a constructor (of D and a tensor maker), a value, and the NumPy references (of the
# parameters as float64 arrays). Missing keys are not checked.

def _normal():
    loc, scale = np.array([0.5, -1.0]), np.array([2.0, 0.5])
    return dict(make=lambda D, t: D.Normal(t(loc), t(scale)), value=[0.3, 1.7],
                mean=loc, variance=scale ** 2, entropy=0.5 + 0.5 * math.log(2 * math.pi) + np.log(scale),
                log_prob=lambda x: normal_logp(x, loc, scale), prob_method="probs",
                kl=(lambda D, t: D.Normal(t(0.0), t(1.0)), -np.log(scale) + (scale ** 2 + loc ** 2) / 2 - 0.5))


def _uniform():
    low, high = np.array([0.0, -1.0]), np.array([2.0, 3.0])
    return dict(make=lambda D, t: D.Uniform(t(low), t(high)), value=[0.5, 3.5],
                entropy=np.log(high - low), prob_method="probs",
                log_prob=lambda x: np.where((low < x) & (x < high), -np.log(high - low), -np.inf))


def _bernoulli():
    p = np.array([0.3, 0.9])
    return dict(make=lambda D, t: D.Bernoulli(t(p)), value=[1.0, 0.0],
                mean=p, variance=p * (1 - p), entropy=-(p * np.log(p) + (1 - p) * np.log1p(-p)),
                log_prob=lambda x: x * np.log(p) + (1 - x) * np.log1p(-p),
                cdf=lambda x: np.where(x < 0, 0.0, np.where(x < 1, 1 - p, 1.0)),
                kl=(lambda D, t: D.Bernoulli(t([0.5, 0.5])), p * np.log(p / 0.5) + (1 - p) * np.log((1 - p) / 0.5)))


def _beta():
    a, b = np.array([0.5, 2.0]), np.array([3.0, 1.5])
    return dict(make=lambda D, t: D.Beta(t(a), t(b)), value=[0.3, 0.6],
                mean=a / (a + b), variance=a * b / ((a + b) ** 2 * (a + b + 1)),
                entropy=lbeta(a, b) - (a - 1) * digamma(a) - (b - 1) * digamma(b) + (a + b - 2) * digamma(a + b),
                log_prob=lambda x: (a - 1) * np.log(x) + (b - 1) * np.log1p(-x) - lbeta(a, b))


def _binomial():
    n, p = np.array([10.0, 4.0]), np.array([0.3, 0.6])

    def entropy(n, p):
        logp = binomial_logp(np.arange(n + 1), n, p)
        return -(np.exp(logp) * logp).sum()
    return dict(make=lambda D, t: D.Binomial(t(n), t(p)), value=[3.0, 4.0],
                mean=n * p, variance=n * p * (1 - p), entropy=np.array([entropy(*np_) for np_ in zip(n, p)]),
                log_prob=lambda k: binomial_logp(k, n, p))


def _categorical():
    logits = np.array([[0.1, 0.2, 0.7], [1.0, 2.0, 3.0]])
    softmax = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    return dict(make=lambda D, t: D.Categorical(t(logits)), value=[[2], [0]], value_dtype="int64",
                entropy=-(softmax * np.log(softmax)).sum(-1), prob_method="probs",
                # probs and log_prob read logits as unnormalized probabilities, as Paddle does.
                log_prob=lambda k: np.log(np.take_along_axis(logits / logits.sum(-1, keepdims=True),
                                                             k.astype(int), -1)))


def _cauchy():
    loc, scale = np.array([0.0, 1.0]), np.array([2.0, 0.5])
    return dict(make=lambda D, t: D.Cauchy(t(loc), t(scale)), value=[0.5, 3.0],
                entropy=np.log(4 * math.pi * scale),
                log_prob=lambda x: -np.log(math.pi * scale * (1 + ((x - loc) / scale) ** 2)),
                cdf=lambda x: np.arctan((x - loc) / scale) / math.pi + 0.5,
                kl=(lambda D, t: D.Cauchy(t(0.5), t(1.0)),
                    np.log(((scale + 1) ** 2 + (loc - 0.5) ** 2) / (4 * scale))))


def _chi2():
    df = np.array([2.0, 5.0])
    return dict(make=lambda D, t: D.Chi2(t(df)), value=[0.5, 3.0],
                mean=df, variance=2 * df, entropy=gamma_entropy(df / 2, 0.5),
                log_prob=lambda x: gamma_logp(x, df / 2, 0.5))


def _continuous_bernoulli():
    lam = np.array([0.2, 0.7])  # and 0.5, inside lims: the Taylor expansions
    return dict(
        make=lambda D, t: D.ContinuousBernoulli(t([0.2, 0.7, 0.5])), value=[0.3, 0.9, 0.4],
        mean=np.r_[cb_mean(lam), 0.5],
        variance=np.r_[lam * (lam - 1) / (1 - 2 * lam) ** 2 + 1 / np.log((1 - lam) / lam) ** 2, 1 / 12],
        entropy=np.r_[-cb_log_norm(lam) - cb_mean(lam) * np.log(lam / (1 - lam)) - np.log1p(-lam), 0.0],
        log_prob=lambda x: (np.r_[cb_log_norm(lam), math.log(2)]
                            + x * np.log([0.2, 0.7, 0.5]) + (1 - x) * np.log([0.8, 0.3, 0.5])),
        cdf=lambda x: np.r_[(lam ** x[:2] * (1 - lam) ** (1 - x[:2]) + lam - 1) / (2 * lam - 1), x[2]],
        icdf=lambda u: np.r_[(np.log1p(-lam + u[:2] * (2 * lam - 1)) - np.log1p(-lam))
                             / (np.log(lam) - np.log1p(-lam)), u[2]])


def _dirichlet():
    c = np.array([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]])
    c0 = c.sum(-1, keepdims=True)
    return dict(make=lambda D, t: D.Dirichlet(t(c)), value=[[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]],
                mean=c / c0, variance=c * (c0 - c) / (c0 ** 2 * (c0 + 1)), entropy=dirichlet_entropy(c),
                log_prob=lambda x: dirichlet_logp(x, c))


def _exponential():
    rate = np.array([0.5, 2.0])
    return dict(make=lambda D, t: D.Exponential(t(rate)), value=[0.5, 3.0],
                mean=1 / rate, variance=1 / rate ** 2, entropy=1 - np.log(rate),
                log_prob=lambda x: np.log(rate) - rate * x, cdf=lambda x: 1 - np.exp(-rate * x),
                icdf=lambda u: -np.log1p(-u) / rate, icdf_value=[0.3, 0.9],
                kl=(lambda D, t: D.Exponential(t(1.0)), np.log(rate) + 1 / rate - 1))


def _gamma():
    a, b = np.array([0.5, 3.0]), np.array([1.0, 2.5])
    # KL(Gamma(a, b) || Gamma(2, 1))
    kl = (a - 2) * digamma(a) - lgamma(a) + math.lgamma(2.0) + 2 * np.log(b) + a * (1.0 - b) / b
    return dict(make=lambda D, t: D.Gamma(t(a), t(b)), value=[0.5, 3.0],
                mean=a / b, variance=a / b ** 2, entropy=gamma_entropy(a, b),
                log_prob=lambda x: gamma_logp(x, a, b), kl=(lambda D, t: D.Gamma(t(2.0), t(1.0)), kl))


def _geometric():
    p = np.array([0.3, 0.8])
    return dict(make=lambda D, t: D.Geometric(t(p)), value=[2.0, 0.0], pmf=True,
                mean=1 / p - 1, variance=(1 - p) / p ** 2,
                entropy=-((1 - p) * np.log1p(-p) + p * np.log(p)) / p,
                log_prob=lambda k: k * np.log1p(-p) + np.log(p), cdf=lambda k: 1 - (1 - p) ** (k + 1),
                kl=(lambda D, t: D.Geometric(t(0.5)), p * np.log(p / 0.5) + (1 - p) * np.log((1 - p) / 0.5)))


def _gumbel():
    loc, scale = np.array([0.0, 1.0]), np.array([1.0, 2.0])

    def log_prob(x):
        z = (x - loc) / scale
        return -(z + np.exp(-z)) - np.log(scale)
    return dict(make=lambda D, t: D.Gumbel(t(loc), t(scale)), value=[0.5, -3.0],
                mean=loc + EULER * scale, variance=math.pi ** 2 / 6 * scale ** 2,
                entropy=np.log(scale) + 1 + EULER, log_prob=log_prob,
                cdf=lambda x: np.exp(-np.exp(-(x - loc) / scale)))


def _laplace():
    loc, scale = np.array([0.0, 1.0]), np.array([1.0, 2.0])
    return dict(make=lambda D, t: D.Laplace(t(loc), t(scale)), value=[0.5, -3.0],
                mean=loc, variance=2 * scale ** 2, entropy=1 + np.log(2 * scale),
                log_prob=lambda x: -np.log(2 * scale) - np.abs(x - loc) / scale,
                cdf=lambda x: np.where(x < loc, 0.5 * np.exp((x - loc) / scale), 1 - 0.5 * np.exp(-(x - loc) / scale)),
                icdf=lambda u: loc - scale * np.sign(u - 0.5) * np.log1p(-2 * np.abs(u - 0.5)), icdf_value=[0.2, 0.7],
                kl=(lambda D, t: D.Laplace(t(1.0), t(1.0)),
                    scale * np.exp(-np.abs(loc - 1) / scale) + np.abs(loc - 1) - np.log(scale) - 1))


def _lognormal():
    loc, scale = np.array([0.0, 1.0]), np.array([1.0, 0.5])
    return dict(make=lambda D, t: D.LogNormal(t(loc), t(scale)), value=[0.5, 3.0],
                mean=np.exp(loc + scale ** 2 / 2), variance=np.expm1(scale ** 2) * np.exp(2 * loc + scale ** 2),
                entropy=0.5 + 0.5 * math.log(2 * math.pi) + np.log(scale) + loc,
                log_prob=lambda x: normal_logp(np.log(x), loc, scale) - np.log(x), prob_method="probs",
                kl=(lambda D, t: D.LogNormal(t(0.0), t(1.0)), -np.log(scale) + (scale ** 2 + loc ** 2) / 2 - 0.5))


def _multinomial():
    p = np.array([0.2, 0.3, 0.5])
    return dict(make=lambda D, t: D.Multinomial(4, t(p)), value=[1.0, 2.0, 1.0],
                mean=4 * p, variance=4 * p * (1 - p), entropy=multinomial_entropy(4, p),
                log_prob=lambda x: multinomial_logp(x, 4, p))


def _multivariate_normal():
    loc, cov = np.array([0.0, 1.0]), np.array([[2.0, 0.5], [0.5, 1.0]])
    # KL to N([1, 0], L L^T), L = [[1, 0], [0.5, 2]]
    loc_q, cov_q = np.array([1.0, 0.0]), np.array([[1.0, 0.5], [0.5, 4.25]])
    diff = loc_q - loc
    kl = 0.5 * (np.trace(np.linalg.solve(cov_q, cov)) + diff @ np.linalg.solve(cov_q, diff) - 2
                + np.linalg.slogdet(cov_q)[1] - np.linalg.slogdet(cov)[1])
    return dict(make=lambda D, t: D.MultivariateNormal(t(loc), covariance_matrix=t(cov)),
                value=[[0.5, 3.0], [0.0, 0.0]], mean=loc, variance=np.diag(cov),
                entropy=0.5 * np.linalg.slogdet(2 * math.pi * math.e * cov)[1],
                log_prob=lambda x: mvn_logp(x, loc, cov),
                kl=(lambda D, t: D.MultivariateNormal(t(loc_q), scale_tril=t([[1.0, 0.0], [0.5, 2.0]])), kl))


def _poisson():
    rate, other = np.array([0.5, 3.0, 20.0]), np.array([1.0, 2.0, 19.0])
    k = np.arange(200.0)[:, None]
    return dict(make=lambda D, t: D.Poisson(t(rate)), value=[0.0, 3.0, 18.0],
                mean=rate, variance=rate,
                entropy=-(np.exp(poisson_logp(k, rate)) * poisson_logp(k, rate)).sum(0),
                log_prob=lambda x: poisson_logp(x, rate),
                kl=(lambda D, t: D.Poisson(t(other)), rate * np.log(rate / other) - rate + other))


def _student_t():
    df, loc, scale = np.array([0.5, 1.5, 3.0, 10.0]), 1.0, 2.0
    entropy = (np.log(scale) + (df + 1) / 2 * (digamma((df + 1) / 2) - digamma(df / 2))
               + 0.5 * np.log(df) + lbeta(df / 2, 0.5))
    return dict(make=lambda D, t: D.StudentT(t(df), t(loc), t(scale)), value=[0.5, 3.0, 1.0, -1.0],
                mean=np.where(df > 1, loc, np.nan),
                variance=np.where(df > 2, scale ** 2 * df / (df - 2), np.where(df > 1, np.inf, np.nan)),
                entropy=entropy, log_prob=lambda x: student_t_logp(x, df, loc, scale))


def _lkj_cholesky():
    corr = np.array([[1.0, 0.3, 0.2], [0.3, 1.0, 0.1], [0.2, 0.1, 1.0]])
    return dict(make=lambda D, t: D.LKJCholesky(3, t(1.5)), value=np.linalg.cholesky(corr),
                log_prob=lambda L: lkj_logp(L, 1.5))


CASES = {"Normal": _normal(), "Uniform": _uniform(), "Bernoulli": _bernoulli(), "Beta": _beta(),
         "Binomial": _binomial(), "Categorical": _categorical(), "Cauchy": _cauchy(), "Chi2": _chi2(),
         "ContinuousBernoulli": _continuous_bernoulli(), "Dirichlet": _dirichlet(), "Exponential": _exponential(),
         "Gamma": _gamma(), "Geometric": _geometric(), "Gumbel": _gumbel(), "Laplace": _laplace(),
         "LogNormal": _lognormal(), "Multinomial": _multinomial(), "MultivariateNormal": _multivariate_normal(),
         "Poisson": _poisson(), "StudentT": _student_t(), "LKJCholesky": _lkj_cholesky()}
PROPERTIES = ["mean", "variance"]


def _check(got, want, dtype, what):
    assert isinstance(got, oar.Tensor), what
    assert got.dtype == dtype, f"{what}: dtype {got.dtype}, expected {dtype}"
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == list(want.shape), f"{what}: shape {got.shape}, expected {list(want.shape)}"
    np.testing.assert_allclose(got.numpy().astype(np.float64), want, rtol=TOL[dtype], atol=TOL[dtype],
                               equal_nan=True, err_msg=what)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_numpy(name, dtype):
    case = CASES[name]
    mk = t(dtype)
    d = case["make"](D, mk)
    for prop in PROPERTIES:
        if prop in case:
            _check(getattr(d, prop), case[prop], dtype, f"{name}.{prop}")
    if "entropy" in case:
        _check(d.entropy(), case["entropy"], dtype, f"{name}.entropy")
    value = np.asarray(case["value"], dtype=np.float64)
    log_prob = case["log_prob"](value)
    vt = t(case.get("value_dtype", dtype))(value)
    if case.get("pmf"):
        _check(d.log_pmf(vt), log_prob, dtype, f"{name}.log_pmf")
        _check(d.pmf(vt), np.exp(log_prob), dtype, f"{name}.pmf")
    else:
        _check(d.log_prob(vt), log_prob, dtype, f"{name}.log_prob")
        _check(getattr(d, case.get("prob_method", "prob"))(vt), np.exp(log_prob), dtype, f"{name}.prob")
    if "cdf" in case:
        _check(d.cdf(mk(value)), case["cdf"](value), dtype, f"{name}.cdf")
    if "icdf" in case:
        u = np.asarray(case.get("icdf_value", value), dtype=np.float64)
        _check(d.icdf(mk(u)), case["icdf"](u), dtype, f"{name}.icdf")
    if "kl" in case:
        make_q, kl = case["kl"]
        q = make_q(D, mk)
        _check(d.kl_divergence(q), kl, dtype, f"{name}.kl_divergence")
        _check(D.kl_divergence(d, q), kl, dtype, f"kl_divergence({name}, {name})")


# ---- against Paddle ----

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_paddle(name, dtype):
    paddle = pytest.importorskip("paddle")
    case = CASES[name]
    pd_mk = lambda x: paddle.to_tensor(np.asarray(x, dtype=dtype))  # noqa: E731
    ours, theirs = case["make"](D, t(dtype)), case["make"](paddle.distribution, pd_mk)
    if hasattr(theirs, "_batch_shape"):  # Paddle's Categorical has none
        assert ours.batch_shape == theirs.batch_shape and ours.event_shape == theirs.event_shape
    value = case["value"]
    calls = [(prop, None) for prop in PROPERTIES if prop in case]
    calls += [("entropy", ())] if "entropy" in case else []
    if case.get("pmf"):
        calls += [("pmf", (value,)), ("log_pmf", (value,)), ("cdf", (value,))]
    else:
        calls += [("log_prob", (value,)), (case.get("prob_method", "prob"), (value,))]
        calls += [(m, (value,)) for m in ("cdf",) if m in case]
        calls += [("icdf", (case.get("icdf_value", value),))] if "icdf" in case else []
    if "kl" in case:
        calls.append(("kl_divergence", "kl"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method, args in calls:
            if args == "kl":
                got = ours.kl_divergence(case["kl"][0](D, t(dtype)))
                want = theirs.kl_divergence(case["kl"][0](paddle.distribution, pd_mk))
            elif args is None:
                got, want = getattr(ours, method), getattr(theirs, method)
            else:
                vdt = case.get("value_dtype", dtype)
                got = getattr(ours, method)(*[t(vdt)(a) for a in args])
                want = getattr(theirs, method)(*[paddle.to_tensor(np.asarray(a, dtype=vdt)) for a in args])
            what = f"{name}.{method}"
            assert str(got.dtype) == str(want.dtype), f"{what}: dtype {got.dtype}, Paddle {want.dtype}"
            assert got.shape == list(want.shape), f"{what}: shape {got.shape}, Paddle {list(want.shape)}"
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10,
                                       equal_nan=True, err_msg=what)


# How the constructors take numbers, lists, NumPy arrays and tensors: batch and event shapes and
# the dtypes of the results, as Paddle's.
CONSTRUCTIONS = [
    ("Normal(0., 1.)", lambda D, T: D.Normal(0., 1.)),
    ("Normal(0, 1)", lambda D, T: D.Normal(0, 1)),
    ("Normal([0., 1.], [1., 2.])", lambda D, T: D.Normal([0., 1.], [1., 2.])),
    ("Normal(0., [1., 2.])", lambda D, T: D.Normal(0., [1., 2.])),
    ("Normal(float64 arrays)", lambda D, T: D.Normal(np.array([0., 1.]), np.array([1., 2.]))),
    ("Normal(float64 tensors)", lambda D, T: D.Normal(T([0., 1.], "float64"), T([[1.], [2.]], "float64"))),
    ("Normal(complex)", lambda D, T: D.Normal(1 + 2j, 2.)),
    ("Normal(complex list)", lambda D, T: D.Normal([1 + 2j, 0j], [1., 2.])),
    ("Uniform(0, 2)", lambda D, T: D.Uniform(0, 2)),
    ("Uniform(3., [5., 6., 7.])", lambda D, T: D.Uniform(3., [5., 6., 7.])),
    ("Bernoulli(0.3)", lambda D, T: D.Bernoulli(0.3)),
    ("Bernoulli(float64)", lambda D, T: D.Bernoulli(T([0.3, 0.6], "float64"))),
    ("Beta(0.5, 1)", lambda D, T: D.Beta(0.5, 1)),
    ("Binomial(10, 0.3)", lambda D, T: D.Binomial(10, 0.3)),
    ("Binomial(int64 tensor, float64)", lambda D, T: D.Binomial(T([3, 8]), T([0.3, 0.6], "float64"))),
    ("Categorical([0.2, 0.8])", lambda D, T: D.Categorical([0.2, 0.8])),
    ("Cauchy(0, 1)", lambda D, T: D.Cauchy(0, 1)),
    ("Chi2(3.)", lambda D, T: D.Chi2(3.)),
    ("ContinuousBernoulli(0.3)", lambda D, T: D.ContinuousBernoulli(0.3)),
    ("Exponential(0.5)", lambda D, T: D.Exponential(0.5)),
    ("Gamma(2., 3.)", lambda D, T: D.Gamma(2., 3.)),
    ("Geometric(0.5)", lambda D, T: D.Geometric(0.5)),
    ("Gumbel(0., 2)", lambda D, T: D.Gumbel(0., 2)),
    ("Laplace(0, 1.)", lambda D, T: D.Laplace(0, 1.)),
    ("LogNormal([0.], [1.])", lambda D, T: D.LogNormal([0.], [1.])),
    ("LKJCholesky(3)", lambda D, T: D.LKJCholesky(3)),
    ("LKJCholesky(3, batch)", lambda D, T: D.LKJCholesky(3, T([1.0, 2.0], "float32"), "cvine")),
    ("MultivariateNormal(1.0, [[2.]])", lambda D, T: D.MultivariateNormal(1.0, covariance_matrix=T([[2.]], "float32"))),
    ("MultivariateNormal(batch precision)",
     lambda D, T: D.MultivariateNormal(T([[0., 1.], [1., 2.]], "float32"),
                                       precision_matrix=T([[2., .5], [.5, 1.]], "float32"))),
    ("Poisson(2)", lambda D, T: D.Poisson(2)),
    ("StudentT(3., 0., 1.)", lambda D, T: D.StudentT(3., 0., 1.)),
    ("StudentT(tensor df, floats)", lambda D, T: D.StudentT(T([3., 4.], "float64"), 0., 1.)),
    ("Independent(Normal, 1)", lambda D, T: D.Independent(D.Normal(T([[0., 1.]], "float32"), T([[1., 2.]], "float32")), 1)),
]


@pytest.mark.parametrize("label,make", CONSTRUCTIONS, ids=[c[0] for c in CONSTRUCTIONS])
def test_constructors_as_paddle(label, make):
    paddle = pytest.importorskip("paddle")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = make(D, lambda x, dt=None: oar.to_tensor(np.asarray(x, dtype=dt)))
        theirs = make(paddle.distribution, lambda x, dt=None: paddle.to_tensor(np.asarray(x, dtype=dt)))
        if hasattr(theirs, "_batch_shape"):  # Paddle's Categorical has none
            assert ours.batch_shape == theirs.batch_shape
            assert ours.event_shape == theirs.event_shape
        if hasattr(theirs, "dtype"):  # a name ('float32'), a NumPy dtype or a dtype object, as Paddle's
            assert str(ours.dtype).replace("paddle.", "") == str(theirs.dtype).replace("paddle.", "")
        for prop in ("mean", "variance"):
            try:
                want = getattr(theirs, prop)
            except (NotImplementedError, ValueError):
                continue
            got = getattr(ours, prop)
            assert str(got.dtype) == str(want.dtype) and got.shape == list(want.shape), prop
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, err_msg=prop)
        if not isinstance(theirs, paddle.distribution.LKJCholesky):
            got, want = ours.entropy(), theirs.entropy()
            assert str(got.dtype) == str(want.dtype) and got.shape == list(want.shape), "entropy"
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, err_msg="entropy")


# ---- particular behaviours ----

def test_normal_complex():
    """The circularly-symmetric complex normal: complex log_prob, real entropy."""
    d = D.Normal(1 + 2j, 2.0)
    assert d.dtype == "complex64" and d.scale.dtype == oar.float32
    value = oar.to_tensor(np.array(1 + 1j, dtype=np.complex64))
    np.testing.assert_allclose(d.log_prob(value).numpy(), -1 / 4 - math.log(math.pi * 4), rtol=1e-6)
    np.testing.assert_allclose(d.entropy().numpy(), math.log(math.pi * math.e * 4), rtol=1e-6)
    np.testing.assert_allclose(d.kl_divergence(D.Normal(0j, 1.0)).numpy(), 4 + 5 - 1 - math.log(4), rtol=1e-6)
    with pytest.raises(ValueError, match="same number field"):
        d.kl_divergence(D.Normal(0.0, 1.0))


def test_value_dtype_is_cast_with_a_warning():
    d = D.Normal(oar.to_tensor([0.0], dtype="float64"), oar.to_tensor([1.0], dtype="float64"))
    with pytest.warns(UserWarning, match="dtype of input 'value'"):
        out = d.log_prob(oar.to_tensor([0.5], dtype="float32"))
    assert out.dtype == oar.float64


def test_numbers_become_float32_and_other_dtypes_warn():
    with pytest.warns(UserWarning, match="only support float32 and float64"):
        d = D.Normal(np.array([0, 1]), np.array([1, 2]))
    assert d.loc.dtype == oar.float32 and d.batch_shape == (2,)


def test_categorical_batch_shape():
    """Paddle 3.3 never sets Categorical's batch shape (its batch_shape raises AttributeError); oar
    gives the leading axes of logits."""
    d = D.Categorical(oar.to_tensor([[0.1, 0.9], [0.5, 0.5], [0.3, 0.7]]))
    assert d.batch_shape == (3,) and d.event_shape == ()


def test_categorical_probs_of_a_1d_value_in_every_batch_element():
    d = D.Categorical(oar.to_tensor([[1.0, 3.0], [1.0, 1.0]]))
    np.testing.assert_allclose(d.probs(oar.to_tensor([0, 1, 1])).numpy(), [[0.25, 0.75, 0.75], [0.5, 0.5, 0.5]])


def test_discrete_log_prob_outside_the_support_is_minus_inf():
    """Paddle 3.3 returns -eps (a probability of about 1) for these; oar returns -inf."""
    b = D.Binomial(oar.to_tensor([2.0, 5.0]), oar.to_tensor([0.3, 0.5]))
    assert np.isneginf(b.log_prob(oar.to_tensor([4.0, 6.0])).numpy()).all()
    np.testing.assert_allclose(b.prob(oar.to_tensor([3.0, 5.0])).numpy(), [0.0, 0.5 ** 5], rtol=1e-6)
    p = D.Poisson(oar.to_tensor([0.0, 2.0]))
    np.testing.assert_array_equal(p.log_prob(oar.to_tensor([1.0, -1.0])).numpy(), [-np.inf, -np.inf])
    np.testing.assert_allclose(p.log_prob(oar.to_tensor([0.0, 0.0])).numpy(), [0.0, -2.0], rtol=1e-6)


def test_binomial_entropy_and_kl_with_different_counts_in_a_batch():
    counts, probs = np.array([2.0, 7.0]), np.array([0.3, 0.6])
    b = D.Binomial(oar.to_tensor(counts, dtype="float64"), oar.to_tensor(probs))
    want = [-(np.exp(binomial_logp(np.arange(n + 1), n, p)) * binomial_logp(np.arange(n + 1), n, p)).sum()
            for n, p in zip(counts, probs)]
    np.testing.assert_allclose(b.entropy().numpy(), want, rtol=1e-10)
    q = D.Binomial(oar.to_tensor(counts, dtype="float64"), oar.to_tensor([0.5, 0.5], dtype="float64"))
    want = [(np.exp(binomial_logp(np.arange(n + 1), n, p))
             * (binomial_logp(np.arange(n + 1), n, p) - binomial_logp(np.arange(n + 1), n, 0.5))).sum()
            for n, p in zip(counts, probs)]
    np.testing.assert_allclose(b.kl_divergence(q).numpy(), want, rtol=1e-10)
    # q gives probability 0 to counts p can take: infinite divergence.
    assert np.isposinf(b.kl_divergence(D.Binomial(oar.to_tensor([1.0, 7.0], dtype="float64"), q.probs)).numpy()[0])


def test_poisson_of_rate_zero():
    p = D.Poisson(oar.to_tensor([0.0, 2.0], dtype="float64"))
    entropy = p.entropy().numpy()
    assert entropy[0] == 0.0 and np.isfinite(entropy[1])


def test_multinomial_with_a_zero_probability():
    d = D.Multinomial(3, oar.to_tensor([0.0, 0.5, 0.5], dtype="float64"))
    np.testing.assert_allclose(d.log_prob(oar.to_tensor([0, 2, 1])).numpy(), math.log(3 / 8), rtol=1e-12)
    assert np.isneginf(d.log_prob(oar.to_tensor([1.0, 1.0, 1.0])).numpy())


def test_lkj_density_integrates_to_one_in_two_dimensions():
    """For dim 2 the Cholesky factor is [[1, 0], [r, sqrt(1 - r^2)]]: the density over r sums to 1."""
    r = np.linspace(-1, 1, 20001)[1:-1]
    L = np.zeros((r.size, 2, 2))
    L[:, 0, 0], L[:, 1, 0], L[:, 1, 1] = 1.0, r, np.sqrt(1 - r * r)
    for eta in (0.7, 1.0, 3.0):
        density = D.LKJCholesky(2, oar.to_tensor(eta, dtype="float64")).log_prob(oar.to_tensor(L)).exp().numpy()
        np.testing.assert_allclose(np.trapezoid(density, r), 1.0, rtol=2e-3)


def test_student_t_variance_does_not_differentiate_through_df():
    df = oar.to_tensor([3.0, 5.0], stop_gradient=False)
    scale = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    v = D.StudentT(df, oar.to_tensor([0.0, 0.0]), scale).variance
    df_grad, scale_grad = oar.grad(v.sum(), [df, scale], allow_unused=True)
    assert df_grad is None
    df, s = np.array([3.0, 5.0]), np.array([1.0, 2.0])
    np.testing.assert_allclose(scale_grad.numpy(), 2 * s * df / (df - 2))  # d/ds s^2 df / (df - 2)


def test_entropy_and_log_prob_are_differentiable():
    """Gradients of entropy and log_prob reach the parameters (Normal: d entropy/d scale = 1/scale,
    d log_prob/d loc = (x - loc)/scale^2)."""
    loc = oar.to_tensor([0.5], dtype="float64", stop_gradient=False)
    scale = oar.to_tensor([2.0], dtype="float64", stop_gradient=False)
    d = D.Normal(loc, scale)
    (g,) = oar.grad(d.entropy().sum(), [scale])
    np.testing.assert_allclose(g.numpy(), [0.5])
    (g,) = oar.grad(d.log_prob(oar.to_tensor([1.5], dtype="float64")).sum(), [loc])
    np.testing.assert_allclose(g.numpy(), [0.25])


def test_exponential_family_entropy_is_the_bregman_one():
    """ExponentialFamily.entropy (through the gradient of the log normalizer) equals the closed
    forms of Gamma and Exponential (whose carrier measure is 0)."""
    f64 = t("float64")
    for d in (D.Gamma(f64([0.5, 3.0]), f64([1.0, 2.5])), D.Exponential(f64([0.5, 2.0]))):
        type(d)._mean_carrier_measure = 0.0
        try:
            np.testing.assert_allclose(D.ExponentialFamily.entropy(d).numpy(), d.entropy().numpy(), rtol=1e-10)
        finally:
            del type(d)._mean_carrier_measure


# ---- KL divergence ----

KL_PAIRS = [
    ("Bernoulli", lambda D, T: (D.Bernoulli(T([0.3, 0.8])), D.Bernoulli(T([0.5, 0.1])))),
    ("Beta", lambda D, T: (D.Beta(T([0.5, 2.0]), T([0.5, 1.0])), D.Beta(T([0.3, 1.5]), T([0.7, 2.0])))),
    ("Binomial", lambda D, T: (D.Binomial(T([5.0, 8.0]), T([0.3, 0.6])), D.Binomial(T([5.0, 8.0]), T([0.5, 0.2])))),
    ("Categorical", lambda D, T: (D.Categorical(T([0.1, 0.2, 0.7])), D.Categorical(T([0.3, 0.3, 0.4])))),
    ("Cauchy", lambda D, T: (D.Cauchy(T([0.0, 1.0]), T([1.0, 2.0])), D.Cauchy(T([0.5, 0.5]), T([2.0, 1.0])))),
    ("ContinuousBernoulli", lambda D, T: (D.ContinuousBernoulli(T([0.2, 0.5])), D.ContinuousBernoulli(T([0.7, 0.3])))),
    ("Dirichlet", lambda D, T: (D.Dirichlet(T([1.0, 2.0, 3.0])), D.Dirichlet(T([2.0, 2.0, 0.5])))),
    ("Exponential", lambda D, T: (D.Exponential(T([0.5, 2.0])), D.Exponential(T([1.0, 3.0])))),
    ("Gamma", lambda D, T: (D.Gamma(T([0.5, 2.0]), T([1.0, 2.0])), D.Gamma(T([1.5, 1.0]), T([2.0, 0.5])))),
    ("Chi2-Gamma", lambda D, T: (D.Chi2(T([3.0, 4.0])), D.Gamma(T([2.0, 1.0]), T([1.0, 1.0])))),
    ("Geometric", lambda D, T: (D.Geometric(T([0.3, 0.8])), D.Geometric(T([0.5, 0.5])))),
    ("Laplace", lambda D, T: (D.Laplace(T([0.0, 1.0]), T([1.0, 2.0])), D.Laplace(T([1.0, 1.0]), T([1.0, 3.0])))),
    ("LogNormal", lambda D, T: (D.LogNormal(T([0.0, 1.0]), T([1.0, 2.0])), D.LogNormal(T([1.0, 0.0]), T([2.0, 1.0])))),
    ("MultivariateNormal", lambda D, T: (
        D.MultivariateNormal(T([0.0, 1.0]), covariance_matrix=T([[2.0, 0.5], [0.5, 1.0]])),
        D.MultivariateNormal(T([1.0, 0.0]), precision_matrix=T([[1.0, 0.2], [0.2, 2.0]])))),
    ("Normal", lambda D, T: (D.Normal(T([0.0, 1.0]), T([1.0, 2.0])), D.Normal(T([1.0, 0.0]), T([2.0, 1.0])))),
    ("Poisson", lambda D, T: (D.Poisson(T([0.5, 3.0])), D.Poisson(T([1.0, 2.0])))),
]


@pytest.mark.parametrize("name,make", KL_PAIRS, ids=[p[0] for p in KL_PAIRS])
def test_kl_divergence_against_paddle(name, make):
    paddle = pytest.importorskip("paddle")
    p, q = make(D, t("float64"))
    pp, pq = make(paddle.distribution, lambda x: paddle.to_tensor(np.asarray(x, dtype="float64")))
    got, want = D.kl_divergence(p, q), paddle.distribution.kl_divergence(pp, pq)
    assert got.dtype == oar.float64 and got.shape == list(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-8, atol=1e-10)


def test_kl_divergence_of_beta_and_dirichlet_against_numpy():
    a, b, c, d = 0.5, 0.5, 0.3, 0.7
    want = (lbeta(c, d) - lbeta(a, b) + (a - c) * digamma(a) + (b - d) * digamma(b)
            + (c - a + d - b) * digamma(a + b))
    got = D.kl_divergence(D.Beta(oar.to_tensor(a, dtype="float64"), oar.to_tensor(b, dtype="float64")),
                          D.Beta(oar.to_tensor(c, dtype="float64"), oar.to_tensor(d, dtype="float64")))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10)
    p, q = np.array([1.0, 2.0, 3.0]), np.array([2.0, 2.0, 0.5])
    want = (math.lgamma(p.sum()) - math.lgamma(q.sum()) - (lgamma(p) - lgamma(q)).sum()
            + ((p - q) * (digamma(p) - digamma(p.sum()))).sum())
    got = D.kl_divergence(D.Dirichlet(oar.to_tensor(p)), D.Dirichlet(oar.to_tensor(q)))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10)


def test_kl_divergence_dispatch():
    class MyNormal(D.Normal):
        pass

    p, q = MyNormal(0.0, 1.0), D.Normal(1.0, 2.0)
    np.testing.assert_allclose(D.kl_divergence(p, q).numpy(), p.kl_divergence(q).numpy())  # the parent's pair
    with pytest.raises(NotImplementedError):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Uniform(0.0, 1.0))
    with pytest.raises(NotImplementedError):  # exponential families of different classes
        D.kl_divergence(D.Beta(1.0, 1.0), D.Dirichlet(oar.to_tensor([1.0, 1.0])))
    with pytest.raises(TypeError, match="subclass of Distribution"):
        D.register_kl(int, D.Normal)

    @D.register_kl(MyNormal, D.Normal)
    def _zero(p, q):
        return oar.zeros([])

    try:
        assert D.kl_divergence(p, q).item() == 0.0
    finally:
        from oar.distribution import kl
        del kl._REGISTER_TABLE[MyNormal, D.Normal]


def test_kl_divergence_ambiguous_registrations_warn():
    class A(D.Distribution):
        pass

    class B(A):
        pass

    from oar.distribution import kl
    first, second = (lambda p, q: 1), (lambda p, q: 2)
    kl._REGISTER_TABLE[B, A] = first
    kl._REGISTER_TABLE[A, B] = second
    try:
        with pytest.warns(RuntimeWarning, match="Ambiguous"):
            assert D.kl_divergence(B(), B()) == 1
    finally:
        del kl._REGISTER_TABLE[B, A], kl._REGISTER_TABLE[A, B]


def test_kl_divergence_bregman_fallback():
    """A user's exponential family without a registered pair: the Bregman divergence of its log
    normalizer, here equal to the exponential distribution's closed form (and differentiable)."""
    class Exp(D.ExponentialFamily):
        def __init__(self, rate):
            self.rate = rate
            super().__init__(rate.shape)

        @property
        def _natural_parameters(self):
            return (-self.rate,)

        def _log_normalizer(self, x):
            return -(-x).log()

    rate = oar.to_tensor([0.5, 2.0], dtype="float64", stop_gradient=False)
    other = oar.to_tensor([1.0, 3.0], dtype="float64")
    got = D.kl_divergence(Exp(rate), Exp(other))
    want = D.Exponential(rate).kl_divergence(D.Exponential(other))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    (g,) = oar.grad(got.sum(), [rate])
    rate, other = np.array([0.5, 2.0]), np.array([1.0, 3.0])
    np.testing.assert_allclose(g.numpy(), 1 / rate - other / rate ** 2)  # d/dp (log(p/q) + q/p - 1)


# ---- bad arguments: Paddle's exception types ----

ERRORS = [
    ("Exponential(int)", lambda D, T: D.Exponential(2), TypeError, "must be float, list"),
    ("Normal(str)", lambda D, T: D.Normal("a", 1.0), TypeError, "must be float, list"),
    ("Normal(Tensor, float)", lambda D, T: D.Normal(T(0.0), 1.0), ValueError, "all arguments should be Tensor"),
    ("Gamma(Tensor, float)", lambda D, T: D.Gamma(T(1.0), 1.0), ValueError, "all arguments should be Tensor"),
    ("Uniform(Tensor, float)", lambda D, T: D.Uniform(T(0.0), 1.0), ValueError, "all arguments should be Tensor"),
    ("Laplace(list)", lambda D, T: D.Laplace([0.0], 1.0), TypeError, "Expected type of loc"),
    ("Cauchy(list)", lambda D, T: D.Cauchy(0.0, [1.0]), TypeError, "Expected type of scale"),
    ("Gumbel(list)", lambda D, T: D.Gumbel([0.0], 1.0), TypeError, "Expected type of loc"),
    ("Geometric(list)", lambda D, T: D.Geometric([0.5]), TypeError, "Expected type of probs"),
    ("Chi2(-1)", lambda D, T: D.Chi2(-1.0), ValueError, "must be positive"),
    ("StudentT(df < 0)", lambda D, T: D.StudentT(-1.0, 0.0, 1.0), ValueError, "`df` should be nonnegative"),
    ("StudentT(scale < 0)", lambda D, T: D.StudentT(1.0, 0.0, -1.0), ValueError, "`scale` should be nonnegative"),
    ("StudentT(int)", lambda D, T: D.StudentT(1, 0, 1), TypeError, "must be float, list"),
    ("Multinomial(0)", lambda D, T: D.Multinomial(0, T([0.5, 0.5])), ValueError, "total_count must be int"),
    ("Multinomial(2.0)", lambda D, T: D.Multinomial(2.0, T([0.5, 0.5])), ValueError, "total_count must be int"),
    ("Multinomial(0-d)", lambda D, T: D.Multinomial(2, T(0.5)), ValueError, "over one dimension"),
    ("Dirichlet(0-d)", lambda D, T: D.Dirichlet(T(0.5)), ValueError, "at least one dimensional"),
    ("MVN(no matrix)", lambda D, T: D.MultivariateNormal(T([0.0, 0.0])), ValueError, "Exactly one of"),
    ("MVN(two matrices)", lambda D, T: D.MultivariateNormal(T([0.0]), T([[1.0]]), T([[1.0]])), ValueError, "Exactly one of"),
    ("MVN(1-d covariance)", lambda D, T: D.MultivariateNormal(T([0.0, 0.0]), covariance_matrix=T([1.0, 1.0])),
     ValueError, "at least two-dimensional"),
    ("LKJCholesky(1)", lambda D, T: D.LKJCholesky(1), ValueError, "greater than or equal to 2"),
    ("LKJCholesky(2.5)", lambda D, T: D.LKJCholesky(2.5), TypeError, "to be an integer"),
    ("LKJCholesky(eta < 0)", lambda D, T: D.LKJCholesky(2, -1.0), ValueError, "must be positive"),
    ("LKJCholesky(method)", lambda D, T: D.LKJCholesky(2, 1.0, "foo"), ValueError, "'cvine' or 'onion'"),
    ("Independent(rank too big)", lambda D, T: D.Independent(D.Normal(0.0, 1.0), 1), ValueError, "reinterpreted_batch_rank"),
    ("Independent(not a Distribution)", lambda D, T: D.Independent(3, 1), TypeError, "Expected type of 'base'"),
    ("Cauchy.sample(int)", lambda D, T: D.Cauchy(0.0, 1.0).sample(3), TypeError, "Sequence"),
    ("Normal.sample(int)", lambda D, T: D.Normal(0.0, 1.0).sample(3), TypeError, "Iterable"),
    ("Poisson.sample(int)", lambda D, T: D.Poisson(1.0).sample(3), TypeError, "Sequence"),
    ("Binomial.sample(int)", lambda D, T: D.Binomial(3, 0.5).sample(3), TypeError, "Sequence"),
    ("LKJCholesky.sample(int)", lambda D, T: D.LKJCholesky(2, 1.0).sample(3), TypeError, "Sequence"),
    ("Cauchy.log_prob(float)", lambda D, T: D.Cauchy(0.0, 1.0).log_prob(0.5), TypeError, "Expected type of value"),
    ("Cauchy.kl_divergence(Normal)", lambda D, T: D.Cauchy(0.0, 1.0).kl_divergence(D.Normal(0.0, 1.0)),
     TypeError, "Expected type of other is Cauchy"),
    ("Exponential.kl_divergence(Normal)", lambda D, T: D.Exponential(1.0).kl_divergence(D.Normal(0.0, 1.0)),
     TypeError, "Expected type of other"),
    ("Geometric.pmf(float)", lambda D, T: D.Geometric(0.5).pmf(0.5), TypeError, "Expected type of k"),
    ("Geometric.kl_divergence(Normal)", lambda D, T: D.Geometric(0.5).kl_divergence(D.Normal(0.0, 1.0)),
     TypeError, "geometric.Geometric"),
    ("ContinuousBernoulli.kl(batch)", lambda D, T: D.ContinuousBernoulli(0.5).kl_divergence(
        D.ContinuousBernoulli(T([0.2, 0.3]))), ValueError, "same `batch_shape`"),
    ("Poisson.kl(batch)", lambda D, T: D.Poisson(0.5).kl_divergence(D.Poisson(T([0.2, 0.3]))),
     ValueError, "same `batch_shape`"),
    ("Cauchy.mean", lambda D, T: D.Cauchy(0.0, 1.0).mean, ValueError, "no mean"),
    ("Cauchy.variance", lambda D, T: D.Cauchy(0.0, 1.0).variance, ValueError, "no variance"),
    ("Cauchy.stddev", lambda D, T: D.Cauchy(0.0, 1.0).stddev, ValueError, "no stddev"),
    ("Uniform.mean", lambda D, T: D.Uniform(0.0, 1.0).mean, NotImplementedError, None),
    # Paddle registers (Uniform, Uniform) but Uniform has no kl_divergence.
    ("kl_divergence(Uniform, Uniform)", lambda D, T: D.kl_divergence(D.Uniform(0.0, 1.0), D.Uniform(0.0, 2.0)),
     NotImplementedError, None),
    ("Distribution.sample", lambda D, T: D.Distribution().sample(), NotImplementedError, None),
    ("TransformedDistribution(transform)", lambda D, T: D.TransformedDistribution(D.Normal(0.0, 1.0), D.ExpTransform()),
     TypeError, "Expected type of 'transforms'"),
    ("TransformedDistribution([3])", lambda D, T: D.TransformedDistribution(D.Normal(0.0, 1.0), [3]),
     TypeError, "must be Transform type"),
]


@pytest.mark.parametrize("label,call,error,match", ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_arguments(label, call, error, match):
    with pytest.raises(error, match=match):
        call(D, lambda x: oar.to_tensor(x))


@pytest.mark.parametrize("label,call,error,match", ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_arguments_as_paddle(label, call, error, match):
    paddle = pytest.importorskip("paddle")
    with pytest.raises(error, match=match):
        call(paddle.distribution, lambda x: paddle.to_tensor(x))


def test_namespace_is_paddles():
    import inspect
    names = ['Bernoulli', 'Beta', 'Categorical', 'Cauchy', 'Chi2', 'ContinuousBernoulli', 'Dirichlet',
             'Distribution', 'Exponential', 'ExponentialFamily', 'Multinomial', 'MultivariateNormal', 'Normal',
             'Uniform', 'kl_divergence', 'register_kl', 'Independent', 'TransformedDistribution', 'Laplace',
             'LogNormal', 'LKJCholesky', 'Gamma', 'Gumbel', 'Geometric', 'Binomial', 'Poisson', 'StudentT',
             'Transform', 'AbsTransform', 'AffineTransform', 'ChainTransform', 'ExpTransform',
             'IndependentTransform', 'PowerTransform', 'ReshapeTransform', 'SigmoidTransform',
             'SoftmaxTransform', 'StackTransform', 'StickBreakingTransform', 'TanhTransform']
    assert sorted(D.__all__) == sorted(names)
    assert all(inspect.isclass(getattr(D, n)) for n in names if n not in ("kl_divergence", "register_kl"))


def _signature(fn):
    """(name, kind, default) of each parameter; an empty list or tuple default compares as ()."""
    import inspect
    out = []
    for p in inspect.signature(fn).parameters.values():
        default = p.default
        if isinstance(default, (list, tuple)) and not default:
            default = ()
        out.append((p.name, p.kind, default))
    return out


def test_signatures_are_paddles():
    """Every class of the namespace takes Paddle's constructor arguments, and has each public method
    and property of Paddle's class with Paddle's arguments and defaults."""
    paddle = pytest.importorskip("paddle")
    import inspect
    for name in D.__all__:
        ours, theirs = getattr(D, name), getattr(paddle.distribution, name)
        if not inspect.isclass(theirs):
            assert _signature(ours) == _signature(theirs), name
            continue
        assert _signature(ours.__init__) == _signature(theirs.__init__), f"{name}.__init__"
        for attr in dir(theirs):
            if attr.startswith("_"):
                continue
            theirs_attr = inspect.getattr_static(theirs, attr)
            assert hasattr(ours, attr), f"{name}.{attr} is missing"
            ours_attr = inspect.getattr_static(ours, attr)
            if isinstance(theirs_attr, property):
                assert isinstance(ours_attr, property), f"{name}.{attr} is not a property"
            elif callable(theirs_attr):
                assert _signature(getattr(ours, attr)) == _signature(getattr(theirs, attr)), f"{name}.{attr}"
