"""linspace: the same float32/float64 bits as Paddle's kernel (a step in the output dtype, the
first half counted from start, the second from stop, products and sums rounded separately)."""
import numpy as np
import pytest

import oar


def reference(lo, hi, n, t):
    """Paddle's CPU linspace, in NumPy."""
    lo, hi = t(lo), t(hi)
    if n == 1:
        return np.array([lo], t)
    step = t((hi - lo) / t(n - 1))
    i = np.arange(n)
    return np.where(i < n // 2, lo + step * i.astype(t), hi - step * (n - 1 - i).astype(t)).astype(t)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linspace_bits_match_paddles_rule(dtype):
    rng = np.random.default_rng(0)
    t = np.dtype(dtype).type
    for _ in range(300):
        lo, hi = rng.uniform(-10, 10, 2)
        n = int(rng.integers(1, 40))
        got = oar.linspace(float(t(lo)), float(t(hi)), n, dtype).numpy()
        np.testing.assert_array_equal(got, reference(lo, hi, n, t))
        assert got[-1] == t(hi) or n == 1


def test_linspace_matches_paddle_when_installed():
    paddle = pytest.importorskip("paddle")
    rng = np.random.default_rng(1)
    for dtype in ("float32", "float64", "int32", "int64"):
        for _ in range(50):
            lo, hi = (rng.uniform(-10, 10, 2) if dtype.startswith("float") else rng.integers(-20, 20, 2))
            n = int(rng.integers(1, 30))
            np.testing.assert_array_equal(oar.linspace(lo.item(), hi.item(), n, dtype).numpy(),
                                          paddle.linspace(lo.item(), hi.item(), n, dtype).numpy())
