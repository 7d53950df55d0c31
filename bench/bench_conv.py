"""conv2d speed on ResNet-shaped layers: forward, and forward + backward (gradients of x, weight
and bias), float32 NCHW, beside PyTorch and Paddle measured in the same run.

Each framework runs in its own interpreter: oar from the project venv, PyTorch and Paddle from
the reference venv made by tools/setup_bench.sh (.venv-bench here, else /work/main's;
TORCH_PYTHON / PADDLE_PYTHON override). Ratios matter, not absolute times (shared machines).
Usage: bash tools/setup_bench.sh && .venv/bin/python bench/bench_conv.py
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF_PYTHON = os.path.join(ROOT, ".venv-bench", "bin", "python")
if not os.path.exists(REF_PYTHON):
    REF_PYTHON = "/work/main/.venv-bench/bin/python"

# (name, N, C_in, C_out, H=W, kernel, stride, padding)
LAYERS = [
    ("N=32 64->64 3x3 56x56", 32, 64, 64, 56, 3, 1, 1),
    ("N=32 128->128 3x3 28x28", 32, 128, 128, 28, 3, 1, 1),
    ("N=8 3->64 7x7 s2 224x224", 8, 3, 64, 224, 7, 2, 3),
]

CASES = r'''
import json, sys, timeit
import numpy as np
FW, LAYERS = sys.argv[1], json.loads(sys.argv[2])
if FW == "oar":
    import oar
    import oar.nn.functional as F
    def T(a, grad=False):
        t = oar.to_tensor(a)
        t.stop_gradient = not grad
        return t
    no_grad = oar.no_grad
elif FW == "paddle":
    import paddle as oar
    import paddle.nn.functional as F
    oar.set_device("cpu")
    def T(a, grad=False):
        return oar.to_tensor(a, stop_gradient=not grad)
    no_grad = oar.no_grad
else:
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(2)
    def T(a, grad=False):
        return torch.tensor(a, requires_grad=grad)
    no_grad = torch.no_grad

def best(fn, repeat):
    fn()  # warm-up (primitive creation, allocator caches)
    return min(timeit.repeat(fn, number=1, repeat=repeat))

res = {}
rng = np.random.default_rng(0)
for name, n, ci, co, hw, k, s, p in LAYERS:
    x = T(rng.standard_normal((n, ci, hw, hw)).astype(np.float32), True)
    w = T((rng.standard_normal((co, ci, k, k)) * 0.05).astype(np.float32), True)
    b = T(np.zeros(co, np.float32), True)
    def fwd():
        with no_grad():
            return F.conv2d(x, w, b, stride=s, padding=p)
    out = fwd()
    g = T(np.ones(tuple(out.shape), np.float32))
    def fwd_bwd():
        y = F.conv2d(x, w, b, stride=s, padding=p)
        y.backward(g)
    res[name + " fwd"] = best(fwd, 5)
    res[name + " fwd+bwd"] = best(fwd_bwd, 4)
print(json.dumps(res))
'''


def run(python, fw):
    if not os.path.exists(python):
        return None, f"{python} not found (run tools/setup_bench.sh)"
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "2"))
    r = subprocess.run([python, "-c", CASES, fw, json.dumps(LAYERS)], capture_output=True,
                       text=True, env=env)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr else "failed"
    return json.loads(r.stdout.strip().splitlines()[-1]), None


def flops(name, fwd_bwd):
    for lname, n, ci, co, hw, k, s, p in LAYERS:
        if name.startswith(lname):
            o = (hw + 2 * p - k) // s + 1
            f = 2.0 * n * co * ci * k * k * o * o
            return f * (3 if fwd_bwd else 1)
    return None


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
    print("conv2d float32 NCHW; ratio = other's time / oar's time (above 1: oar is faster)")
    print(f"{'case':36s} {'oar':>9s} {'torch':>9s} {'paddle':>9s} {'torch/oar':>9s} "
          f"{'paddle/oar':>10s} {'oar GFLOP/s':>11s}")
    for k, v in oar_res.items():
        t = (others["torch"] or {}).get(k)
        p = (others["paddle"] or {}).get(k)
        ratio = lambda o: f"{o / v:.2f}" if o else "n/a"
        ms = lambda s: f"{s * 1e3:.1f}ms" if s else "n/a"
        gf = flops(k, k.endswith("fwd+bwd")) / v / 1e9
        print(f"{k:36s} {ms(v):>9s} {ms(t):>9s} {ms(p):>9s} {ratio(t):>9s} {ratio(p):>10s} "
              f"{gf:>11.0f}")


if __name__ == "__main__":
    main()
