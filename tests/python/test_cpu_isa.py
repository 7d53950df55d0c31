"""One build, every vector path: the kernels that pick AVX-512 or AVX2 at run time
(oar/core/cpu_isa.h) give the same results on each path. OAR_CPU_ISA lowers the path a process
takes, so this machine runs the narrower paths too; each path's results are compared with NumPy
and with the widest path this CPU has."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import oar

# Runs in a child process (the path is fixed when the library first asks): prints the results.
CHILD = r'''
import json, numpy as np, oar
rng = np.random.default_rng(0)
out = {"isa": oar.version.cpu_isa()}
x32 = rng.uniform(-3, 3, 1000 + 13).astype(np.float32)   # a tail past whole vectors
x64 = x32.astype(np.float64)
pos32, pos64 = np.abs(x32) + 0.1, np.abs(x64) + 0.1
for name in ["exp", "tanh", "sin", "cos", "atan", "erf", "sigmoid", "expm1"]:
    f = getattr(oar, name) if hasattr(oar, name) else getattr(oar.nn.functional, name)
    out[name + "32"] = f(oar.to_tensor(x32)).numpy().tolist()
    out[name + "64"] = f(oar.to_tensor(x64)).numpy().tolist()
for name in ["log", "log2", "log10", "log1p"]:
    out[name + "32"] = getattr(oar, name)(oar.to_tensor(pos32)).numpy().tolist()
    out[name + "64"] = getattr(oar, name)(oar.to_tensor(pos64)).numpy().tolist()
out["gelu32"] = oar.nn.functional.gelu(oar.to_tensor(x32)).numpy().tolist()
out["silu32"] = oar.nn.functional.silu(oar.to_tensor(x32)).numpy().tolist()
big = rng.uniform(0, 1, (64, 4099)).astype(np.float32)
out["sum_rows"] = oar.sum(oar.to_tensor(big), axis=1).numpy().tolist()
out["softmax"] = oar.nn.functional.softmax(oar.to_tensor(big[:8, :100]), axis=-1).numpy().tolist()
a, b = rng.standard_normal((37, 53)), rng.standard_normal((53, 29))
out["matmul64"] = oar.matmul(oar.to_tensor(a), oar.to_tensor(b)).numpy().tolist()
# CSR x dense products at widths that reach each part of the row kernel (register blocks,
# single vectors, scalar tail), and their NumPy references.
dense = rng.standard_normal((60, 45))
dense[rng.random((60, 45)) > 0.3] = 0
for n in (1, 7, 16, 33, 64, 100, 130):
    rhs = rng.standard_normal((45, n))
    for dt in ("float32", "float64"):
        csr = oar.to_tensor(dense.astype(dt)).to_sparse_csr()
        out[f"csr_matmul_{n}_{dt[-2:]}"] = oar.sparse.matmul(csr, oar.to_tensor(rhs.astype(dt))).numpy().tolist()
        out[f"csr_matmul_{n}_{dt[-2:]}_numpy"] = (dense @ rhs).tolist()
# The predictor's blocked layout (max pool over 16-channel blocks) and its fused first
# convolution + pool (LeNet's), against eager mode in the same process.
import os, tempfile
import oar.nn as nn
from oar.static import InputSpec
oar.seed(1)
models = {
    "conv_pool": (nn.Sequential(nn.Conv2D(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2D(2, 2)), (1, 28, 28)),
    "blocked_pool": (nn.Sequential(nn.Conv2D(3, 40, 3, padding=1), nn.MaxPool2D(3, 2, padding=1),
                                   nn.Conv2D(40, 40, 3, padding=1), nn.MaxPool2D(2, 2)), (3, 18, 18)),
}
with tempfile.TemporaryDirectory() as d:
    for key, (model, shape) in models.items():
        model.eval()
        prefix = os.path.join(d, key)
        oar.jit.save(model, prefix, input_spec=[InputSpec([None, *shape], "float32", "x")])
        pred = oar.inference.create_predictor(oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams"))
        x = rng.standard_normal((2, *shape)).astype(np.float32)
        x[0, 0, 3, 4] = np.nan
        pred.get_input_handle("x").copy_from_cpu(x)
        pred.run()
        got = pred.get_output_handle(pred.get_output_names()[0]).copy_to_cpu()
        with oar.no_grad():
            ref = model(oar.to_tensor(x)).numpy()
        out[key] = got.tolist()
        out[key + "_eager"] = ref.tolist()
print(json.dumps(out))
'''


def run_with(isa):
    env = dict(os.environ)
    if isa:
        env["OAR_CPU_ISA"] = isa
    else:
        env.pop("OAR_CPU_ISA", None)
    r = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def widest():
    return run_with(None)


def test_version_reports_target_and_path():
    assert oar.version.build_target() in ("x86-64-v3", "native")
    assert oar.version.cpu_isa() in ("avx512", "avx2", "baseline")


@pytest.mark.parametrize("isa", ["avx2", "baseline"])
def test_narrower_paths_match(widest, isa):
    got = run_with(isa)
    order = ["baseline", "avx2", "avx512"]
    assert got["isa"] == (isa if order.index(isa) <= order.index(widest["isa"]) else widest["isa"])
    rng = np.random.default_rng(0)
    x32 = rng.uniform(-3, 3, 1000 + 13).astype(np.float32)
    for key, ref in widest.items():
        if key == "isa":
            continue
        a, b = np.array(got[key], dtype=np.float64), np.array(ref, dtype=np.float64)
        tol = 1e-12 if key.endswith("64") else 2e-6
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol, equal_nan=True, err_msg=f"{key} on {isa}")
    # And against NumPy, so that a path cannot agree with another one on a wrong answer.
    np.testing.assert_allclose(np.array(got["exp32"]), np.exp(x32.astype(np.float64)), rtol=2e-6)
    np.testing.assert_allclose(np.array(got["tanh64"]), np.tanh(x32.astype(np.float64)), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(np.array(got["log32"]), np.log(np.abs(x32.astype(np.float64)) + 0.1), rtol=2e-6,
                               atol=2e-7)
    for key in [k for k in got if k.startswith("csr_matmul") and not k.endswith("numpy")]:
        tol = 1e-12 if key.endswith("64") else 2e-5
        np.testing.assert_allclose(np.array(got[key]), np.array(got[key + "_numpy"]), rtol=tol, atol=tol,
                                   err_msg=f"{key} on {isa}")
    for key in ("conv_pool", "blocked_pool"):  # the predictor's fused kernels against eager mode
        np.testing.assert_allclose(np.array(got[key], dtype=np.float64), np.array(got[key + "_eager"], dtype=np.float64),
                                   rtol=1e-4, atol=1e-4, equal_nan=True, err_msg=f"{key} on {isa}")
    assert np.isnan(np.array(got["blocked_pool"])).any()  # no ReLU there: the NaN pixel reaches the output
