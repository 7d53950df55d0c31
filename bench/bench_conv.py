"""conv2d speed on ResNet-shaped layers: forward, and forward + backward (gradients of x, weight
and bias), float32 NCHW, oar beside PyTorch and Paddle in the same run.
Usage: bash tools/setup_bench.sh && .venv/bin/python bench/bench_conv.py
"""
from harness import compare

# (name, N, C_in, C_out, H=W, kernel, stride, padding)
LAYERS = [
    ("N=32 64->64 3x3 56x56", 32, 64, 64, 56, 3, 1, 1),
    ("N=32 128->128 3x3 28x28", 32, 128, 128, 28, 3, 1, 1),
    ("N=8 3->64 7x7 s2 224x224", 8, 3, 64, 224, 7, 2, 3),
]

BODY = "LAYERS = " + repr(LAYERS) + r'''
rng = np.random.default_rng(0)
for name, n, ci, co, hw, k, s, p in LAYERS:
    x = T(rng.standard_normal((n, ci, hw, hw)).astype(np.float32), True)
    w = T((rng.standard_normal((co, ci, k, k)) * 0.05).astype(np.float32), True)
    b = T(np.zeros(co, np.float32), True)
    def fwd():
        with no_grad():
            return NF.conv2d(x, w, b, stride=s, padding=p)
    g = T(np.ones(tuple(fwd().shape), np.float32))
    res[name + " fwd"] = best(fwd, 1, 5)
    res[name + " fwd+bwd"] = best(lambda: grad(NF.conv2d(x, w, b, stride=s, padding=p), [x, w, b], g), 1, 4)
'''


def gflops(case, secs):
    """oar's GFLOP/s on a conv row (forward: 2*N*Co*Ci*K*K*Ho*Wo; backward twice that)."""
    for name, n, ci, co, hw, k, s, p in LAYERS:
        if case.startswith(name):
            o = (hw + 2 * p - k) // s + 1
            f = 2.0 * n * co * ci * k * k * o * o * (3 if case.endswith("fwd+bwd") else 1)
            return f"   oar {f / secs / 1e9:.0f} GFLOP/s"
    return ""


if __name__ == "__main__":
    compare(BODY, gflops)
