"""Shared by the benchmarks: runs one benchmark body in each framework's own interpreter (oar
from the project venv; PyTorch and Paddle from the reference venv made by tools/setup_bench.sh,
or TORCH_PYTHON / PADDLE_PYTHON) and prints one table of times and ratios.

A body is Python source run after PRELUDE: FW ("oar", "torch" or "paddle"), the framework as F and
its nn.functional as NF, T(array, grad) for tensors, grad(out, ins, g) for gradients, no_grad,
best(fn, number) for timing; it fills the dict `res` (case name -> seconds)."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF_PYTHON = os.path.join(ROOT, ".venv-bench", "bin", "python")

PRELUDE = r'''
import json, sys, timeit
import numpy as np
FW = sys.argv[1]
import os
if FW == "oar":
    import oar as F
    import oar.nn.functional as NF
elif FW == "paddle":
    import paddle as F
    import paddle.nn.functional as NF
    F.set_device("cpu")
else:
    import torch as F
    import torch.nn.functional as NF
    F.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
no_grad = F.no_grad
def grad(out, ins, g=None):
    """Gradients of out w.r.t. ins (the functional API of each framework, no accumulation)."""
    if FW == "torch":
        return F.autograd.grad([out], ins, None if g is None else [g])
    return F.grad([out], ins, None if g is None else [g])
def T(a, grad=False):
    """A tensor of framework FW from a NumPy array."""
    if FW == "torch":
        return F.tensor(a, requires_grad=grad)
    t = F.to_tensor(a)
    t.stop_gradient = not grad
    return t
def best(fn, number, repeat=7):
    fn()  # warm-up (lazy initialisation, allocator caches)
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number
res = {}
'''
EPILOGUE = "\nprint(json.dumps(res))\n"


def run(python, fw, body):
    """{case: seconds} of body run under `python` for framework fw, or (None, why)."""
    if not os.path.exists(python):
        return None, f"{python} not found (run tools/setup_bench.sh)"
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "2"))
    r = subprocess.run([python, "-c", PRELUDE + body + EPILOGUE, fw], capture_output=True, text=True,
                       env=env)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "failed"
    return json.loads(r.stdout.strip().splitlines()[-1]), None


def cpu_name():
    """The CPU's model name (lscpu's "Model name", else /proc/cpuinfo's "model name")."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, env=dict(os.environ, LC_ALL="C")).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform
    return platform.processor() or "?"


def isa_flags():
    """The vector-instruction flags of this CPU that decide oar's kernel paths (from /proc/cpuinfo)."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        flags = []
    return [f for f in ("avx2", "fma", "avx512f", "avx512_bf16", "avx512_vnni", "avx_vnni", "amx_bf16")
            if f in flags]


def machine_line():
    """One line naming the CPU, its vector ISA, the cores and the current load: every table carries
    it, since a ratio means little without the machine and how busy it was."""
    return (f"CPU: {cpu_name()}, {os.cpu_count()} cores, {' '.join(isa_flags()) or 'no AVX2'}; "
            f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


def fmt(s):
    if s is None:
        return "n/a"
    return f"{s * 1e6:.2f}us" if s < 1e-3 else f"{s * 1e3:.2f}ms"


def compare(body, extra=None):
    """Runs body in oar, PyTorch and Paddle and prints the table; extra(case, oar_seconds) may
    add a note to a row."""
    print(machine_line(), flush=True)
    oar_res, err = run(sys.executable, "oar", body)
    if oar_res is None:
        sys.exit(f"oar benchmark failed: {err}")
    others = {}
    for fw, var in (("torch", "TORCH_PYTHON"), ("paddle", "PADDLE_PYTHON")):
        res, ferr = run(os.environ.get(var, REF_PYTHON), fw, body)
        others[fw] = res or {}
        if res is None:
            print(f"({fw} not measured: {ferr})")
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print("ratio = other's time / oar's time (above 1: oar is faster)")
    print(f"{'case':34s} {'oar':>10s} {'torch':>10s} {'paddle':>10s} {'torch/oar':>9s} {'paddle/oar':>10s}")
    for k, v in oar_res.items():
        t, p = others["torch"].get(k), others["paddle"].get(k)
        ratio = lambda o: f"{o / v:.2f}" if o else "n/a"
        note = extra(k, v) if extra else ""
        print(f"{k:34s} {fmt(v):>10s} {fmt(t):>10s} {fmt(p):>10s} {ratio(t):>9s} {ratio(p):>10s}{note}")
    return oar_res, others
