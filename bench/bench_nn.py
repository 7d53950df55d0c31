"""nn.functional speed: batch_norm, layer_norm, cross_entropy (forward + backward) and the
embedding backward, oar beside PyTorch and Paddle in the same run.

As bench_core.py: each framework runs in its own interpreter (oar from the project venv, PyTorch
and Paddle from the reference venv: REF_PYTHON, or TORCH_PYTHON / PADDLE_PYTHON). Gradients are
taken with the functional grad API of each framework (no accumulation into .grad).
Usage: REF_PYTHON=/path/to/.venv-bench/bin/python .venv/bin/python bench/bench_nn.py
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF_PYTHON = os.environ.get("REF_PYTHON", os.path.join(ROOT, ".venv-bench", "bin", "python"))

CASES = r'''
import timeit, json, sys
FW = sys.argv[1]
import numpy as np
if FW == "oar":
    import oar as P
    import oar.nn.functional as F
    def T(a, grad=False):
        t = P.to_tensor(a)
        t.stop_gradient = not grad
        return t
    def grad(out, ins, g=None):
        return P.grad([out], ins, None if g is None else [g])
    bn = lambda x, rm, rv, w, b: F.batch_norm(x, rm, rv, w, b, training=True)
    ln = lambda x, w, b: F.layer_norm(x, 256, w, b)
    ce = lambda x, l: F.cross_entropy(x, l)
    emb = lambda i, w: F.embedding(i, w)
elif FW == "paddle":
    import paddle as P
    import paddle.nn.functional as F
    P.set_device("cpu")
    def T(a, grad=False):
        return P.to_tensor(a, stop_gradient=not grad)
    def grad(out, ins, g=None):
        return P.grad([out], ins, None if g is None else [g])
    bn = lambda x, rm, rv, w, b: F.batch_norm(x, rm, rv, w, b, training=True)
    ln = lambda x, w, b: F.layer_norm(x, 256, w, b)
    ce = lambda x, l: F.cross_entropy(x, l)
    emb = lambda i, w: F.embedding(i, w)
else:
    import torch as P
    import torch.nn.functional as F
    import os
    P.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
    def T(a, grad=False):
        return P.tensor(a, requires_grad=grad)
    def grad(out, ins, g=None):
        return P.autograd.grad([out], ins, None if g is None else [g])
    bn = lambda x, rm, rv, w, b: F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.1)
    ln = lambda x, w, b: F.layer_norm(x, [256], w, b)
    ce = lambda x, l: F.cross_entropy(x, l)
    emb = lambda i, w: F.embedding(i, w)
res = {}
def best(fn, number, repeat=5):
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number
rng = np.random.default_rng(0)
# batch_norm: [32, 64, 56, 56], training, forward + backward (x, weight, bias)
x = T(rng.standard_normal((32, 64, 56, 56), dtype=np.float32), True)
w, b = T(np.ones(64, np.float32), True), T(np.zeros(64, np.float32), True)
rm, rv = T(np.zeros(64, np.float32)), T(np.ones(64, np.float32))
g = T(rng.standard_normal((32, 64, 56, 56), dtype=np.float32))
res["batch_norm 32x64x56x56 fwd"] = best(lambda: bn(x, rm, rv, w, b), 3)
res["batch_norm 32x64x56x56 fwd+bwd"] = best(lambda: grad(bn(x, rm, rv, w, b), [x, w, b], g), 3)
del x, g
# layer_norm: [2048, 256], forward + backward (x, weight, bias)
x = T(rng.standard_normal((16 * 128, 256), dtype=np.float32), True)
w, b = T(np.ones(256, np.float32), True), T(np.zeros(256, np.float32), True)
g = T(rng.standard_normal((16 * 128, 256), dtype=np.float32))
res["layer_norm 2048x256 fwd"] = best(lambda: ln(x, w, b), 20)
res["layer_norm 2048x256 fwd+bwd"] = best(lambda: grad(ln(x, w, b), [x, w, b], g), 20)
# cross_entropy: [4096, 1000] logits, int64 labels, mean, forward + backward
x = T(rng.standard_normal((4096, 1000), dtype=np.float32), True)
lab = T(rng.integers(0, 1000, 4096).astype(np.int64))
res["cross_entropy 4096x1000 fwd"] = best(lambda: ce(x, lab), 10)
res["cross_entropy 4096x1000 fwd+bwd"] = best(lambda: grad(ce(x, lab), [x]), 10)
# embedding: [30000, 256] table, [64, 128] ids, forward + backward (dense weight grad)
wt = T(rng.standard_normal((30000, 256), dtype=np.float32), True)
ids = T(rng.integers(0, 30000, (64, 128)).astype(np.int64))
g = T(rng.standard_normal((64, 128, 256), dtype=np.float32))
res["embedding fwd"] = best(lambda: emb(ids, wt), 20)
res["embedding fwd+bwd"] = best(lambda: grad(emb(ids, wt), [wt], g), 10)
print(json.dumps(res))
'''


def run(python, fw):
    if not os.path.exists(python):
        return None, f"{python} not found (set REF_PYTHON or run tools/setup_bench.sh)"
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "2"))
    r = subprocess.run([python, "-c", CASES, fw], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr else "failed"
    return json.loads(r.stdout.strip().splitlines()[-1]), None


def fmt(s):
    if s is None:
        return "n/a"
    return f"{s * 1e6:.1f}us" if s < 1e-3 else f"{s * 1e3:.2f}ms"


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
    print("ratio = other's time / oar's time (above 1: oar is faster)")
    print(f"{'case':34s} {'oar':>10s} {'torch':>10s} {'paddle':>10s} {'torch/oar':>9s} {'paddle/oar':>10s}")
    for k, v in oar_res.items():
        t = (others["torch"] or {}).get(k)
        p = (others["paddle"] or {}).get(k)
        ratio = lambda o: f"{o / v:.2f}" if o else "n/a"
        print(f"{k:34s} {fmt(v):>10s} {fmt(t):>10s} {fmt(p):>10s} {ratio(t):>9s} {ratio(p):>10s}")


if __name__ == "__main__":
    main()
