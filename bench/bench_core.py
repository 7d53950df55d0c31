"""Core speed: eager overhead of a small op, elementwise and reductions on 4M floats, matmul.

Prints one table with oar beside PyTorch and Paddle, all measured in the same run on the same
machine (ratios matter, not absolute times: the machines are shared and noisy). Each framework
runs in its own interpreter: oar from the project venv, PyTorch and Paddle from the reference
venv made by tools/setup_bench.sh (TORCH_PYTHON / PADDLE_PYTHON override).
Usage: bash tools/setup_bench.sh && .venv/bin/python bench/bench_core.py
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF_PYTHON = os.path.join(ROOT, ".venv-bench", "bin", "python")

CASES = r'''
import timeit, json, sys
FW = sys.argv[1]
import numpy as np
if FW == "oar":
    import oar as F
    def T(a, grad=False):
        t = F.to_tensor(a)
        t.stop_gradient = not grad
        return t
    def redax(x): return F.sum(x, axis=1)
elif FW == "paddle":
    import paddle as F
    F.set_device("cpu")
    def T(a, grad=False):
        return F.to_tensor(a, stop_gradient=not grad)
    def redax(x): return F.sum(x, axis=1)
else:
    import torch as F
    F.set_num_threads(2)
    def T(a, grad=False):
        return F.tensor(a, requires_grad=grad)
    def redax(x): return F.sum(x, dim=1)
res = {}
def best(fn, number, repeat=7):
    fn()  # warm-up (lazy initialisation, allocator caches)
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number
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
res["sum 2048x2048 axis=1"] = best(lambda: redax(x2), 20)
res["mean 2048x2048"] = best(lambda: F.mean(x2), 20)
m = T(np.random.rand(1024, 1024).astype(np.float32))
res["matmul 1024^3"] = best(lambda: F.matmul(m, m), 5, 5)
print(json.dumps(res))
'''


def run(python, fw):
    if not os.path.exists(python):
        return None, f"{python} not found (run tools/setup_bench.sh)"
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "2"))
    r = subprocess.run([python, "-c", CASES, fw], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr else "failed"
    return json.loads(r.stdout.strip().splitlines()[-1]), None


def fmt(s):
    if s is None:
        return "n/a"
    return f"{s * 1e6:.2f}us" if s < 1e-3 else f"{s * 1e3:.2f}ms"


def fma_peak():
    """GFLOP/s of the machine's float32 FMA peak (build/release/fma_peak), or None."""
    exe = os.path.join(ROOT, "build", "release", "fma_peak")
    if not os.path.exists(exe):
        return None
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "2"))
    out = subprocess.run([exe], capture_output=True, text=True, env=env).stdout.strip()
    return float(out) if out and float(out) > 0 else None


def main():
    oar_res, err = run(sys.executable, "oar")
    if oar_res is None:
        sys.exit(f"oar benchmark failed: {err}")
    others = {}
    for fw, var in (("torch", "TORCH_PYTHON"), ("paddle", "PADDLE_PYTHON")):
        res, ferr = run(os.environ.get(var, REF_PYTHON), fw)
        others[fw] = res
        if res is None:
            print(f"({fw} not measured: {ferr})")
    peak = fma_peak()
    print("ratio = other's time / oar's time (above 1: oar is faster)")
    print(f"{'case':30s} {'oar':>10s} {'torch':>10s} {'paddle':>10s} {'torch/oar':>9s} {'paddle/oar':>10s}")
    for k, v in oar_res.items():
        t = (others["torch"] or {}).get(k)
        p = (others["paddle"] or {}).get(k)
        ratio = lambda o: f"{o / v:.2f}" if o else "n/a"
        extra = ""
        if k.startswith("matmul"):
            gf = 2 * 1024 ** 3 / v / 1e9
            extra = f"   oar {gf:.0f} GFLOP/s" + (f" = {100 * gf / peak:.0f}% of the FMA peak {peak:.0f}" if peak else "")
        print(f"{k:30s} {fmt(v):>10s} {fmt(t):>10s} {fmt(p):>10s} {ratio(t):>9s} {ratio(p):>10s}{extra}")


if __name__ == "__main__":
    main()
