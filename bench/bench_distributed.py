"""all_reduce on 2 ranks, oar beside torch.distributed (gloo) and Paddle's CPU collectives, in one
run on this machine: float32 tensors of 4 KB ... 64 MB, bus bandwidth (GB/s, as nccl-tests
define it: size * 2(n-1)/n / time) and the ratio oar / torch (above 1: oar faster).

    .venv/bin/python bench/bench_distributed.py [--ranks 2] [--iters 20]

oar runs with .venv's Python; torch and Paddle with .venv-bench's (tools/setup_bench.sh). Each
framework runs as its own job of --ranks processes on loopback; rank 0 reports the median time
per size. The table says which CPU and what load average it was measured under."""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZES = [4 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20]

TIMING = """
import json, sys, time
import numpy as np
sizes, iters, out = json.loads(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
results = {}
for size in sizes:
    x = make(size // 4)
    for _ in range(3):
        allreduce(x)
    times = []
    for _ in range(iters if size < (16 << 20) else max(3, iters // 4)):
        barrier()
        t0 = time.perf_counter()
        allreduce(x)
        times.append(time.perf_counter() - t0)
    results[size] = float(np.median(times))
if rank == 0:
    json.dump(results, open(out, "w"))
"""

FRAMEWORKS = {
    "oar": ("""
import numpy as np, oar, oar.distributed as dist
dist.init_parallel_env()
rank = dist.get_rank()
make = lambda n: oar.to_tensor(np.ones(n, np.float32))
allreduce = lambda x: dist.all_reduce(x)
barrier = dist.barrier
""", "oar"),
    "torch": ("""
import torch, torch.distributed as dist
dist.init_process_group("gloo")
rank = dist.get_rank()
make = lambda n: torch.ones(n, dtype=torch.float32)
allreduce = lambda x: dist.all_reduce(x)
barrier = dist.barrier
""", "bench"),
    "paddle": ("""
import numpy as np, paddle, paddle.distributed as dist
dist.init_parallel_env()
rank = dist.get_rank()
make = lambda n: paddle.to_tensor(np.ones(n, np.float32))
allreduce = lambda x: dist.all_reduce(x)
barrier = dist.barrier
""", "bench"),
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(name, ranks, iters):
    body, venv = FRAMEWORKS[name]
    python = os.path.join(ROOT, ".venv" if venv == "oar" else ".venv-bench", "bin", "python")
    if not os.path.exists(python):
        return None, f"{python} is missing (tools/setup_bench.sh)"
    with tempfile.TemporaryDirectory() as tmp:
        script, out = os.path.join(tmp, "job.py"), os.path.join(tmp, "out.json")
        with open(script, "w") as f:
            f.write(textwrap.dedent(body) + textwrap.dedent(TIMING))
        port = free_port()
        procs = []
        for r in range(ranks):
            env = dict(os.environ, PADDLE_TRAINER_ID=str(r), PADDLE_TRAINERS_NUM=str(ranks),
                       PADDLE_MASTER=f"127.0.0.1:{port}", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                       RANK=str(r), WORLD_SIZE=str(ranks),
                       PADDLE_TRAINER_ENDPOINTS=",".join(f"127.0.0.1:{port + 1 + k}" for k in range(ranks)),
                       PADDLE_CURRENT_ENDPOINT=f"127.0.0.1:{port + 1 + r}", PADDLE_DISTRI_BACKEND="gloo",
                       OMP_NUM_THREADS="1")
            procs.append(subprocess.Popen([python, script, json.dumps(SIZES), str(iters), out], env=env,
                                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
        logs = []
        for p in procs:
            try:
                logs.append(p.communicate(timeout=600)[0].decode(errors="replace"))
            except subprocess.TimeoutExpired:
                for q in procs:
                    q.kill()
                return None, "timed out"
        if any(p.returncode for p in procs) or not os.path.exists(out):
            return None, "failed: " + logs[0].strip().splitlines()[-1][:120] if logs[0].strip() else "failed"
        with open(out) as f:
            return {int(k): v for k, v in json.load(f).items()}, ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--iters", type=int, default=20)
    args = ap.parse_args()
    print(f"CPU: {harness.cpu_name()}, {os.cpu_count()} cores; load average before: {os.getloadavg()[0]:.2f}")
    results, notes = {}, {}
    for name in FRAMEWORKS:
        results[name], notes[name] = run(name, args.ranks, args.iters)
    print(f"all_reduce float32, {args.ranks} ranks, bus bandwidth GB/s (median of {args.iters}); "
          f"load average after: {os.getloadavg()[0]:.2f}")
    factor = 2 * (args.ranks - 1) / args.ranks
    head = f"{'size':>8} | {'oar':>8} | {'torch':>8} | {'paddle':>8} | {'oar/torch':>9} | {'oar/paddle':>10}"
    print(head)
    print("-" * len(head))
    for size in SIZES:
        bw = {n: (size * factor / r[size] / 1e9 if r else None) for n, r in results.items()}
        cell = lambda v: f"{v:8.3f}" if v is not None else f"{'n/a':>8}"
        ratio = lambda a, b: f"{bw[a] / bw[b]:.2f}" if bw[a] and bw[b] else "n/a"
        label = f"{size >> 20} MB" if size >= 1 << 20 else f"{size >> 10} KB"
        print(f"{label:>8} | {cell(bw['oar'])} | {cell(bw['torch'])} | {cell(bw['paddle'])} | "
              f"{ratio('oar', 'torch'):>9} | {ratio('oar', 'paddle'):>10}")
    for name, note in notes.items():
        if note:
            print(f"{name}: {note}")


if __name__ == "__main__":
    sys.exit(main())
