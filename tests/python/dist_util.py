"""Running a multi-process job of oar.distributed from a test: n processes on loopback, one
PADDLE_* environment each, a time bound, and the exit code and output of every rank."""
import os
import socket
import subprocess
import sys
import textwrap
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_job(tmp_path, n, body, timeout=90, pg_timeout_ms=15000, port=None):
    """Runs `body` in n processes of one job; returns [(exit code, output)] in rank order."""
    script = tmp_path / "worker.py"
    script.write_text("import numpy as np\nimport oar\nimport oar.distributed as dist\n" + textwrap.dedent(body))
    port = port or free_port()
    procs = []
    for r in range(n):
        env = dict(os.environ, PADDLE_TRAINER_ID=str(r), PADDLE_TRAINERS_NUM=str(n),
                   PADDLE_MASTER=f"127.0.0.1:{port}", PADDLE_PG_TIMEOUT=str(pg_timeout_ms))
        env.pop("OAR_TEST_DEVICE", None)
        procs.append(subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT))
    out = []
    deadline = time.monotonic() + timeout
    for p in procs:
        try:
            text = p.communicate(timeout=max(1, deadline - time.monotonic()))[0].decode()
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise AssertionError(f"the job did not finish within {timeout} s")
        out.append((p.returncode, text))
    return out


def all_ok(results):
    for r, (code, text) in enumerate(results):
        assert code == 0, f"rank {r} failed (exit {code}):\n{text}"
