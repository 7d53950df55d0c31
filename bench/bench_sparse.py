"""Sparse × dense matmul speed: oar.sparse.matmul (CSR kernels of oar/kernels/cpu/sparse_matmul.cc)
beside torch.sparse (CSR), Paddle (its CPU build has no sparse matmul kernel: n/a) and
scipy.sparse (csr_matrix @ ndarray, single-threaded), forward and forward + backward (gradients
of the sparse values and the dense operand), plus masked_matmul (SDDMM) and a submanifold
convolution.
Usage: bash tools/setup_bench.sh && .venv/bin/python bench/bench_sparse.py
"""
import json
import os
import subprocess

from harness import REF_PYTHON, compare

CASES = [(4096, 4096, 64, 0.01), (4096, 4096, 256, 0.001), (16384, 16384, 64, 0.001), (2048, 2048, 512, 0.05)]

BODY = r'''
CASES = %r
rng = np.random.default_rng(0)
for m, k, n, density in CASES:
    nnz = int(m * k * density)
    flat = np.unique(rng.integers(0, m * k, nnz))
    rows, cols = (flat // k).astype(np.int64), (flat %% k).astype(np.int64)
    crows = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=m))]).astype(np.int64)
    vals = rng.standard_normal(len(flat)).astype(np.float32)
    dense = rng.standard_normal((k, n)).astype(np.float32)
    name = f"{m}x{k} d={density} @ {k}x{n}"
    if FW == "oar":
        a = F.sparse.sparse_csr_tensor(T(crows), T(cols), T(vals, True), [m, k], stop_gradient=False)
        b = T(dense, True)
        mm = lambda: F.sparse.matmul(a, b)
        ins = [a.values(), b]
    elif FW == "torch":
        a = F.sparse_csr_tensor(T(crows), T(cols), T(vals), (m, k), requires_grad=True)
        b = T(dense, True)
        mm = lambda: F.sparse.mm(a, b)
        ins = [a, b]
    else:
        a = F.sparse.sparse_csr_tensor(T(crows), T(cols), T(vals), [m, k], stop_gradient=False)
        b = T(dense, True)
        mm = lambda: F.sparse.matmul(a, b)
        ins = [a, b]
    try:
        mm()
    except Exception:
        continue
    g = T(rng.standard_normal((m, n)).astype(np.float32))
    res[name + " fwd"] = best(mm, 3)
    res[name + " fwd+bwd"] = best(lambda: grad(mm(), ins, g), 3)
# masked_matmul (SDDMM) at a 1%% pattern of 4096x4096, inner dim 64
m, r, density = 4096, 64, 0.01
flat = np.unique(rng.integers(0, m * m, int(m * m * density)))
rows, cols = (flat // m).astype(np.int64), (flat %% m).astype(np.int64)
crows = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=m))]).astype(np.int64)
xd, yd = rng.standard_normal((m, r)).astype(np.float32), rng.standard_normal((r, m)).astype(np.float32)
if FW == "oar":
    mask = F.sparse.sparse_csr_tensor(T(crows), T(cols), T(np.ones(len(flat), np.float32)), [m, m])
    res["masked_matmul 4096^2 d=0.01 r=64"] = best(lambda: F.sparse.masked_matmul(T(xd), T(yd), mask), 3)
elif FW == "torch":
    mask = F.sparse_csr_tensor(T(crows), T(cols), T(np.ones(len(flat), np.float32)), (m, m))
    res["masked_matmul 4096^2 d=0.01 r=64"] = best(lambda: F.sparse.sampled_addmm(mask, T(xd), T(yd), beta=0.0), 3)
'''

SCIPY = r'''
import json, sys, timeit
import numpy as np
import scipy.sparse as sp
CASES = %r
rng = np.random.default_rng(0)
res = {}
for m, k, n, density in CASES:
    nnz = int(m * k * density)
    flat = np.unique(rng.integers(0, m * k, nnz))
    rows, cols = flat // k, flat %% k
    a = sp.csr_matrix((rng.standard_normal(len(flat)).astype(np.float32), (rows, cols)), shape=(m, k))
    dense = rng.standard_normal((k, n)).astype(np.float32)
    rng.standard_normal((m, n))
    a @ dense
    res[f"{m}x{k} d={density} @ {k}x{n} fwd"] = min(timeit.repeat(lambda: a @ dense, number=3, repeat=7)) / 3
print(json.dumps(res))
'''


def scipy_times():
    r = subprocess.run([os.environ.get("PADDLE_PYTHON", REF_PYTHON), "-c", SCIPY % (CASES,)], capture_output=True,
                       text=True)
    return json.loads(r.stdout.strip().splitlines()[-1]) if r.returncode == 0 else {}


if __name__ == "__main__":
    sc = scipy_times()
    compare(BODY % (CASES,), extra=lambda case, t: f"   scipy/oar {sc[case] / t:.2f}" if case in sc else "")
