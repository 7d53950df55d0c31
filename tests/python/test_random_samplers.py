"""standard_gamma, poisson and binomial (oar/kernels/cpu/random_samplers.h): each distribution's
frequencies against its exact probabilities (a chi-square bound), moments, reproducibility under a
seed and any thread count, shapes, dtypes, broadcasting, errors, and static programs."""
import math

import numpy as np
import pytest

import oar

N = 40000


def _chi_square(samples, pmf, support):
    """Pearson's statistic over `support` (the rest pooled) and its degrees of freedom."""
    counts = np.array([(samples == k).sum() for k in support] + [(~np.isin(samples, support)).sum()], float)
    probs = np.array([pmf(k) for k in support] + [1.0 - sum(pmf(k) for k in support)])
    keep = probs * len(samples) > 5
    expected = probs[keep] * len(samples)
    return float(((counts[keep] - expected) ** 2 / expected).sum()), int(keep.sum()) - 1


def _chi_square_bound(dof):
    return dof + 5 * math.sqrt(2 * dof)  # about 5 standard deviations above the mean: no flaky failures


@pytest.mark.parametrize("rate", [0.7, 4.0, 9.5, 12.0, 80.0])
def test_poisson_frequencies(rate):
    oar.seed(11)
    s = oar.poisson(oar.full([N], rate, dtype="float64")).numpy()
    assert np.all(s == np.round(s)) and s.min() >= 0
    stat, dof = _chi_square(s, lambda k: math.exp(k * math.log(rate) - rate - math.lgamma(k + 1)),
                            range(int(rate + 6 * math.sqrt(rate)) + 2))
    assert stat < _chi_square_bound(dof), (stat, dof)


@pytest.mark.parametrize("n,p", [(8, 0.3), (60, 0.1), (200, 0.4), (500, 0.93), (40, 0.5)])
def test_binomial_frequencies(n, p):
    oar.seed(12)
    s = oar.binomial(oar.full([N], n, dtype="int64"), oar.full([N], p, dtype="float64")).numpy()
    assert s.dtype == np.int64 and s.min() >= 0 and s.max() <= n
    pmf = lambda k: math.comb(n, k) * p ** k * (1 - p) ** (n - k)  # noqa: E731
    stat, dof = _chi_square(s, pmf, range(n + 1))
    assert stat < _chi_square_bound(dof), (stat, dof)


@pytest.mark.parametrize("alpha", [0.2, 1.0, 3.5, 40.0])
def test_standard_gamma_distribution(alpha):
    oar.seed(13)
    s = oar.standard_gamma(oar.full([N], alpha, dtype="float64")).numpy()
    assert s.min() > 0 or alpha < 0.5  # tiny shapes can round to 0 in float64 only rarely
    # Frequencies in 20 equal-probability bins of the exact CDF (the regularised lower gamma function).
    cdf = oar.gammainc(oar.full([N], alpha, dtype="float64"), oar.to_tensor(s)).numpy()  # P(a, x)
    counts, _ = np.histogram(cdf, bins=20, range=(0, 1))
    expected = N / 20
    stat = float(((counts - expected) ** 2 / expected).sum())
    assert stat < _chi_square_bound(19), stat
    np.testing.assert_allclose([s.mean(), s.var()], [alpha, alpha], rtol=0.05)


def test_reproducible_under_a_seed_and_any_thread_count():
    x = oar.full([5000], 2.5, dtype="float32")
    threads = oar._C.get_num_threads()
    draws = []
    for n in (1, 2):
        oar._C.set_num_threads(n)
        oar.seed(5)
        draws.append([oar.standard_gamma(x).numpy(), oar.poisson(x).numpy(),
                      oar.binomial(oar.full([5000], 30, dtype="int64"), x / 10).numpy()])
    oar._C.set_num_threads(threads)
    for a, b in zip(*draws):
        np.testing.assert_array_equal(a, b)
    oar.seed(6)
    assert not np.array_equal(oar.poisson(x).numpy(), draws[0][1])


def test_dtypes_shapes_and_broadcasting():
    for dt in ("float16", "bfloat16", "float32", "float64"):
        x = oar.full([2, 3], 4.0, dtype=dt)
        assert oar.standard_gamma(x).dtype == x.dtype and oar.poisson(x).shape == [2, 3]
    out = oar.binomial(oar.to_tensor([[10], [20]]), oar.to_tensor([0.0, 1.0, 0.5], dtype="float32"))
    assert out.shape == [2, 3] and out.dtype == oar.int64
    np.testing.assert_array_equal(out.numpy()[:, :2], [[0, 10], [0, 20]])
    assert oar.binomial(oar.to_tensor([7.0]), oar.to_tensor([1.0])).numpy().tolist() == [7]  # float counts too
    assert oar.poisson(oar.zeros([0])).shape == [0]
    x = oar.full([3], 2.0)
    x.stop_gradient = False
    assert oar.standard_gamma(x).stop_gradient  # not differentiable, as Paddle's


def test_errors():
    with pytest.raises(ValueError, match="standard_gamma: argument 'x' .* must be positive and finite, got 0"):
        oar.standard_gamma(oar.to_tensor([1.0, 0.0]))
    with pytest.raises(ValueError, match="poisson: argument 'x' .* non-negative and finite, got nan"):
        oar.poisson(oar.to_tensor([float("nan")]))
    with pytest.raises(ValueError, match="binomial: argument 'prob' must be in \\[0, 1\\], got 1.5"):
        oar.binomial(oar.to_tensor([3]), oar.to_tensor([1.5]))
    with pytest.raises(ValueError, match="binomial: argument 'count' must be non-negative, got -2"):
        oar.binomial(oar.to_tensor([-2]), oar.to_tensor([0.5]))
    with pytest.raises(TypeError, match="standard_gamma: argument 'x' must be a float tensor, got int64"):
        oar.standard_gamma(oar.to_tensor([1, 2]))
    with pytest.raises(TypeError, match="binomial: argument 'prob' must be a float tensor"):
        oar.binomial(oar.to_tensor([3]), oar.to_tensor([1]))


def test_static_program_draws_each_run():
    oar.enable_static()
    try:
        main, startup = oar.static.Program(), oar.static.Program()
        with oar.static.program_guard(main, startup):
            rate = oar.static.data("rate", [1000], "float32")
            outs = [oar.poisson(rate), oar.standard_gamma(rate + 1.0), oar.binomial(oar.full([1000], 9, "int64"),
                                                                                  rate / 10.0)]
        exe = oar.static.Executor()
        first = exe.run(main, feed={"rate": np.full(1000, 3.0, np.float32)}, fetch_list=outs)
        second = exe.run(main, feed={"rate": np.full(1000, 3.0, np.float32)}, fetch_list=outs)
    finally:
        oar.disable_static()
    assert abs(first[0].mean() - 3.0) < 0.3 and abs(first[1].mean() - 4.0) < 0.3 and abs(first[2].mean() - 2.7) < 0.3
    assert not np.array_equal(first[0], second[0])
