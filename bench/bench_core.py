"""Core speed: eager overhead of a small op, elementwise and reductions on 4M floats, matmul;
oar beside PyTorch and Paddle measured in the same run (ratios matter, not absolute times: the
machines are shared and noisy).
Usage: bash tools/setup_bench.sh && .venv/bin/python bench/bench_core.py
"""
import os
import subprocess

from harness import ROOT, compare

BODY = r'''
axis = {"dim": 1} if FW == "torch" else {"axis": 1}
a, b = T(np.ones(4, np.float32)), T(np.ones(4, np.float32))
res["add 4 floats (no grad)"] = best(lambda: a + b, 20000)
ga, gb = T(np.ones(4, np.float32), True), T(np.ones(4, np.float32), True)
res["add 4 floats (recording grad)"] = best(lambda: ga + gb, 20000)
big = np.random.rand(4 * 1024 * 1024).astype(np.float32)
x, y = T(big), T(big[::-1].copy())
res["add 4M"] = best(lambda: x + y, 20)
res["mul 4M"] = best(lambda: x * y, 20)
res["exp 4M"] = best(lambda: F.exp(x), 20)
res["tanh 4M"] = best(lambda: F.tanh(x), 20)
res["log 4M"] = best(lambda: F.log(x), 20)
res["sigmoid 4M"] = best(lambda: F.sigmoid(x), 20)
res["sum 4M"] = best(lambda: F.sum(x), 20)
res["max 4M"] = best(lambda: F.max(x), 20)
x2 = T(big.reshape(2048, 2048))
res["sum 2048x2048 axis=1"] = best(lambda: F.sum(x2, **axis), 20)
res["mean 2048x2048"] = best(lambda: F.mean(x2), 20)
m = T(np.random.rand(1024, 1024).astype(np.float32))
res["matmul 1024^3"] = best(lambda: F.matmul(m, m), 5, 5)
'''


def fma_peak():
    """GFLOP/s of the machine's float32 FMA peak (build/release/fma_peak), or None."""
    exe = os.path.join(ROOT, "build", "release", "fma_peak")
    if not os.path.exists(exe):
        return None
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "2"))
    out = subprocess.run([exe], capture_output=True, text=True, env=env).stdout.strip()
    return float(out) if out and float(out) > 0 else None


def main():
    peak = fma_peak()

    def note(case, secs):
        if not case.startswith("matmul"):
            return ""
        gf = 2 * 1024 ** 3 / secs / 1e9
        return f"   oar {gf:.0f} GFLOP/s" + (f" = {100 * gf / peak:.0f}% of the FMA peak {peak:.0f}" if peak else "")

    compare(BODY, note)


if __name__ == "__main__":
    main()
