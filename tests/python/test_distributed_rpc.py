"""oar.distributed.rpc across 2 real processes on loopback: sync and async calls with scalars,
containers, arrays and tensors, errors raised remotely, worker infos, and the safe reading of
what arrives (a pickled global is refused, a connection without the job's token is ignored)."""
import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

import oar
from dist_util import all_ok, free_port

pytestmark = [pytest.mark.host_only,
              pytest.mark.skipif(not oar._C._dist.available, reason="oar was built without Gloo")]

WORKER = r'''
import os, sys
import numpy as np
import oar
import oar.distributed.rpc as rpc

def add(a, b):
    return a + b

def scale(t, k=2.0):
    return t * k

def info(x):
    return {"rank": int(os.environ["PADDLE_TRAINER_ID"]), "got": x}

def fails(x):
    raise ValueError(f"bad value {x}")

def returns_object():
    return object()

rank, n = int(os.environ["PADDLE_TRAINER_ID"]), int(os.environ["PADDLE_TRAINERS_NUM"])
rpc.init_rpc(f"worker{rank}", master_endpoint=os.environ["MASTER"])
me = rpc.get_current_worker_info()
assert me.name == f"worker{rank}" and me.rank == rank and me.ip == "127.0.0.1", me
infos = rpc.get_all_worker_infos()
assert [i.name for i in infos] == [f"worker{k}" for k in range(n)]
assert rpc.get_worker_info("worker0").rank == 0
peer = f"worker{(rank + 1) % n}"
assert rpc.rpc_sync(peer, add, args=(2, 3)) == 5
assert rpc.rpc_sync(peer, info, args=([1, "a", (2.5,)],)) == {"rank": (rank + 1) % n, "got": [1, "a", (2.5,)]}
t = oar.to_tensor(np.arange(4, dtype="float32"))
out = rpc.rpc_sync(peer, scale, args=(t,), kwargs={"k": 3.0})
assert isinstance(out, oar.Tensor) and out.numpy().tolist() == [0.0, 3.0, 6.0, 9.0]
arr = rpc.rpc_sync(peer, np.add, args=(np.ones(3), 1))
assert arr.tolist() == [2.0, 2.0, 2.0]
futs = [rpc.rpc_async(peer, add, args=(k, k)) for k in range(5)]
assert [f.wait() for f in futs] == [0, 2, 4, 6, 8]
try:
    rpc.rpc_sync(peer, fails, args=(7,))
except ValueError as e:
    assert "bad value 7" in str(e) and peer in str(e), e
else:
    raise AssertionError("the remote error must be raised")
try:
    rpc.rpc_sync(peer, returns_object)
except TypeError as e:  # the answer is not something the safe reader admits
    assert "cannot be received safely" in str(e), e
else:
    raise AssertionError("an arbitrary object must not be sent")
try:
    rpc.rpc_sync(peer, add, args=(object(), 1))
except RuntimeError as e:  # nor are such arguments
    assert "UnsafePickleError" in str(e), e
else:
    raise AssertionError("an arbitrary object must not be received")
try:
    rpc.rpc_sync(peer, lambda: 1)
except TypeError as e:
    assert "module level" in str(e)
else:
    raise AssertionError("a lambda cannot be sent by name")
try:
    rpc.get_worker_info("nobody")
except ValueError:
    pass
else:
    raise AssertionError("unknown worker")
rpc.shutdown()
print("ok", rank)
'''


def _run(tmp_path, n=2, timeout=90):
    script = tmp_path / "rpc_worker.py"
    script.write_text(WORKER)
    master = f"127.0.0.1:{free_port()}"
    procs = []
    for r in range(n):
        env = dict(os.environ, PADDLE_TRAINER_ID=str(r), PADDLE_TRAINERS_NUM=str(n), MASTER=master,
                   FLAGS_stop_check_timeout="60")
        env.pop("OAR_TEST_DEVICE", None)
        procs.append(subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT))
    out = []
    deadline = time.monotonic() + timeout
    for p in procs:
        try:
            out.append((p.wait(timeout=max(1, deadline - time.monotonic())), p.stdout.read().decode()))
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise AssertionError("the rpc job did not finish in time")
    return out


def test_rpc_between_two_processes(tmp_path):
    results = _run(tmp_path)
    all_ok(results)
    assert all("ok" in text for _, text in results)


def test_what_arrives_is_read_safely():
    from oar.distributed.rpc import _dumps, _loads
    from oar.framework.safe_pickle import UnsafePickleError
    import pickle
    t = oar.to_tensor([1.0, 2.0])
    back = _loads(_dumps({"t": t, "a": np.arange(3), "s": "x"}))
    assert back["t"].numpy().tolist() == [1.0, 2.0] and back["a"].tolist() == [0, 1, 2]
    with pytest.raises(UnsafePickleError):
        _loads(pickle.dumps(os.system))
    with pytest.raises(TypeError):
        _dumps(lambda: 1)


def test_errors_before_init():
    import oar.distributed.rpc as rpc
    with pytest.raises(RuntimeError, match="init_rpc"):
        rpc.rpc_sync("w", max, args=(1, 2))
    with pytest.raises(RuntimeError, match="init_rpc"):
        rpc.get_current_worker_info()
    with pytest.raises(ValueError, match="rank"):
        rpc.init_rpc("w", rank=3, world_size=2, master_endpoint="127.0.0.1:1")
