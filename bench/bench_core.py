"""Core speed: eager overhead of a small op, elementwise and reductions on 4M floats, matmul.

Prints one table with oar beside PyTorch measured in the same run on the same machine
(ratios matter, not absolute times: the machines are shared and noisy).
PyTorch runs in its own interpreter (TORCH_PYTHON, default /usr/bin/python3 with Debian's
python3-torch) because it may not share oar's venv.
Usage: .venv/bin/python bench/bench_core.py
"""
import json
import os
import subprocess
import sys
import timeit

CASES = r'''
import timeit, json, sys
FW = sys.argv[1]
if FW == "oar":
    import oar as F
    def T(a, grad=False):
        t = F.to_tensor(a)
        t.stop_gradient = not grad
        return t
    mm = F.matmul
    def red(x): return F.sum(x)
    def redax(x): return F.sum(x, axis=1)
    no_grad = F.no_grad
else:
    import torch as F
    F.set_num_threads(2)
    def T(a, grad=False):
        return F.tensor(a, requires_grad=grad)
    mm = F.matmul
    def red(x): return F.sum(x)
    def redax(x): return F.sum(x, dim=1)
    no_grad = F.no_grad
import numpy as np
res = {}
def best(fn, number, repeat=7):
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number
a, b = T(np.ones(4, np.float32)), T(np.ones(4, np.float32))
res["add 4 floats (no grad)"] = best(lambda: a + b, 20000)
ga, gb = T(np.ones(4, np.float32), True), T(np.ones(4, np.float32), True)
res["add 4 floats (recording grad)"] = best(lambda: ga + gb, 20000)
big = np.random.rand(4 * 1024 * 1024).astype(np.float32)
x, y = T(big), T(big[::-1].copy())
res["add 4M"] = best(lambda: x + y, 20)
res["exp 4M"] = best(lambda: F.exp(x), 20)
res["sum 4M"] = best(lambda: red(x), 20)
x2 = T(big.reshape(2048, 2048))
res["sum 2048x2048 axis=1"] = best(lambda: redax(x2), 20)
m = T(np.random.rand(1024, 1024).astype(np.float32))
res["matmul 1024^3"] = best(lambda: mm(m, m), 5, 5)
print(json.dumps(res))
'''


def run(python, fw):
    r = subprocess.run([python, "-c", CASES, fw], capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr else "failed"
    return json.loads(r.stdout.strip().splitlines()[-1]), None


def main():
    oar_res, err = run(sys.executable, "oar")
    if oar_res is None:
        sys.exit(f"oar benchmark failed: {err}")
    torch_py = os.environ.get("TORCH_PYTHON", "/usr/bin/python3")
    torch_res, terr = run(torch_py, "torch")
    print(f"{'case':34s} {'oar':>12s} {'torch':>12s} {'torch/oar':>10s}")
    for k, v in oar_res.items():
        t = torch_res.get(k) if torch_res else None
        extra = ""
        if k.startswith("matmul"):
            extra = f"   oar {2 * 1024 ** 3 / v / 1e9:.0f} GFLOP/s"
        fmt = lambda s: f"{s * 1e6:10.2f}us" if s < 1e-3 else f"{s * 1e3:10.2f}ms"
        print(f"{k:34s} {fmt(v):>12s} {fmt(t) if t else 'n/a':>12s} {t / v if t else float('nan'):10.2f}{extra}")
    if torch_res is None:
        print(f"(PyTorch not measured: {terr})")


if __name__ == "__main__":
    main()
