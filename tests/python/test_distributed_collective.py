"""oar.distributed's collectives across real processes on loopback: every collective, dtype and
reduce op on 2 and 3 ranks against NumPy, groups, asynchronous tasks, objects, and the faults a
job must survive with a clear error (a rank that dies, one that never arrives, a port in use)."""
import os
import socket
import subprocess
import sys
import time

import pytest

import oar
from dist_util import all_ok, free_port, run_job

pytestmark = [pytest.mark.host_only,
              pytest.mark.skipif(not oar._C._dist.available, reason="oar was built without Gloo")]


COLLECTIVES = """
dist.init_parallel_env()
r, n = dist.get_rank(), dist.get_world_size()
assert dist.is_initialized() and dist.get_group(0).nranks == n

def data(rank, dtype, shape=(2, 3)):
    return (np.arange(int(np.prod(shape))).reshape(shape) % 3 + rank + 1).astype(dtype)

def tensor(a, dtype):
    return oar.to_tensor(a.astype("float32")).astype(dtype) if dtype == "bfloat16" else oar.to_tensor(a)

def value(t):
    return t.astype("float32").numpy() if str(t.dtype).endswith("bfloat16") else t.numpy()

ranks = range(n)
for dtype in ["float32", "float64", "int32", "int64", "float16", "bfloat16", "int8", "uint8"]:
    np_dtype = "float32" if dtype == "bfloat16" else dtype
    everyone = [data(k, np_dtype) for k in ranks]
    refs = {dist.ReduceOp.SUM: sum(everyone), dist.ReduceOp.MAX: np.max(everyone, 0),
            dist.ReduceOp.MIN: np.min(everyone, 0), dist.ReduceOp.PROD: np.prod(everyone, 0)}
    if dtype.startswith("float") or dtype == "bfloat16":
        refs[dist.ReduceOp.AVG] = np.mean(np.array(everyone, "float64"), 0)
    for op, ref in refs.items():
        x = tensor(data(r, np_dtype), dtype)
        task = dist.all_reduce(x, op=op)
        task.wait()
        np.testing.assert_allclose(value(x), ref.astype(value(x).dtype), rtol=1e-2, err_msg=f"{dtype} op {op}")
    # reduce: only dst holds the result
    x = tensor(data(r, np_dtype), dtype)
    dist.reduce(x, dst=n - 1)
    np.testing.assert_allclose(value(x), (refs[dist.ReduceOp.SUM] if r == n - 1 else data(r, np_dtype)).astype(value(x).dtype), rtol=1e-2)
    # broadcast from every rank
    for src in ranks:
        x = tensor(data(r, np_dtype), dtype)
        dist.broadcast(x, src=src)
        np.testing.assert_array_equal(value(x), data(src, np_dtype).astype(value(x).dtype))
    # all_gather into an empty list and into given tensors
    got = []
    dist.all_gather(got, tensor(data(r, np_dtype), dtype))
    assert len(got) == n
    for k in ranks:
        np.testing.assert_array_equal(value(got[k]), data(k, np_dtype).astype(value(got[k]).dtype))

# reduce_scatter, scatter, gather, alltoall
mine = oar.zeros([2], dtype="float32")
dist.reduce_scatter(mine, [oar.to_tensor(np.array([r, 10 * k], "float32")) for k in ranks])
np.testing.assert_array_equal(mine.numpy(), [sum(ranks), 10 * r * n])
out = oar.zeros([3], dtype="int64")
dist.scatter(out, [oar.to_tensor(np.array([k, k, k])) for k in ranks] if r == 0 else None, src=0)
np.testing.assert_array_equal(out.numpy(), [r, r, r])
gl = []
dist.gather(oar.to_tensor([float(r)]), gl, dst=1)
if r == 1:
    assert [g.item() for g in gl] == [float(k) for k in ranks]
outs = []
dist.alltoall(outs, [oar.to_tensor([100 * r + k]) for k in ranks])
assert [o.item() for o in outs] == [100 * k + r for k in ranks]
# alltoall_single with unequal parts: rank r sends k+1 rows to rank k
rows = [k + 1 for k in ranks]
src = oar.to_tensor(np.full([sum(rows), 2], r, "float32"))
dst = oar.zeros([n * (r + 1), 2])
dist.alltoall_single(dst, src, in_split_sizes=rows, out_split_sizes=[r + 1] * n)
np.testing.assert_array_equal(dst.numpy()[:, 0], np.repeat(np.arange(n), r + 1))

# a strided view is written back in place
base = oar.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
view = base.t()
dist.all_reduce(view)
np.testing.assert_array_equal(base.numpy(), np.arange(6).reshape(2, 3) * n)

# point to point around a ring, blocking and not
right, left = (r + 1) % n, (r - 1) % n
if r % 2 == 0:
    dist.send(oar.to_tensor([float(r)]), dst=right)
    got = oar.zeros([1]); dist.recv(got, src=left)
else:
    got = oar.zeros([1]); dist.recv(got, src=left)
    dist.send(oar.to_tensor([float(r)]), dst=right)
assert got.item() == left
t = dist.isend(oar.to_tensor([7.0 + r]), right)
g = oar.zeros([1]); u = dist.irecv(g, left)
t.wait(); u.wait()
assert u.is_completed() and g.item() == 7.0 + left

# objects
objs = []
dist.all_gather_object(objs, {"rank": r, "name": "x" * r})
assert objs == [{"rank": k, "name": "x" * k} for k in ranks]
lst = [r, "from"] if r == 1 else [None, None]
dist.broadcast_object_list(lst, src=1)
assert lst == [1, "from"]

# a group of the first and last ranks
sub = dist.new_group([0, n - 1])
x = oar.to_tensor([1.0])
dist.all_reduce(x, group=sub)
assert x.item() == (2.0 if r in (0, n - 1) else 1.0)
assert sub.is_member() == (r in (0, n - 1)) and dist.get_rank(sub) == ([0, n - 1].index(r) if r in (0, n - 1) else -1)

# bad arguments: typed errors
for bad, err in [(lambda: dist.all_reduce([1.0]), TypeError), (lambda: dist.broadcast(oar.ones([1]), src=n), ValueError),
                 (lambda: dist.all_reduce(oar.ones([1], dtype="int64"), op=dist.ReduceOp.AVG), TypeError),
                 (lambda: dist.all_reduce(oar.ones([1]), op=9), ValueError)]:
    try:
        bad()
    except err:
        pass
    else:
        raise AssertionError(f"expected {err.__name__}")
dist.barrier()
print("ok", r)
"""


@pytest.mark.parametrize("n", [2, 3])
def test_every_collective_and_dtype_matches_numpy(tmp_path, n):
    all_ok(run_job(tmp_path, n, COLLECTIVES))


def test_a_rank_that_dies_makes_the_others_raise(tmp_path):
    results = run_job(tmp_path, 2, """
        import os, time
        dist.init_parallel_env()
        if dist.get_rank() == 1:
            os._exit(0)  # dies without a word
        start = time.monotonic()
        try:
            dist.all_reduce(oar.ones([4]))
            dist.all_reduce(oar.ones([4]))
        except OSError as e:
            assert "all_reduce" in str(e), e
            print("raised after", round(time.monotonic() - start, 1), "s:", e)
        else:
            raise AssertionError("all_reduce with a dead rank must raise")
    """, pg_timeout_ms=4000)
    all_ok(results)
    assert "raised after" in results[0][1]


def test_a_rank_that_never_arrives_is_a_timeout(tmp_path):
    port = free_port()
    script = tmp_path / "lonely.py"
    script.write_text("import oar.distributed as dist\ndist.init_parallel_env()\n")
    env = dict(os.environ, PADDLE_TRAINER_ID="0", PADDLE_TRAINERS_NUM="2", PADDLE_MASTER=f"127.0.0.1:{port}",
               PADDLE_PG_TIMEOUT="2000")
    start = time.monotonic()
    p = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode != 0 and time.monotonic() - start < 30
    assert "rank 0 of 2" in p.stderr or "no rank has set" in p.stderr, p.stderr


def test_a_port_in_use_is_a_clear_error(tmp_path):
    with socket.socket() as busy:
        busy.bind(("0.0.0.0", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        results = run_job(tmp_path, 1, """
            try:
                dist.init_parallel_env()
            except ValueError as e:
                assert "holds the port" in str(e), e
                print("clear:", e)
            else:
                raise AssertionError("serving the store on a busy port must fail")
        """, port=port)
    all_ok(results)


def test_single_process_job_and_environment():
    env = oar.distributed.ParallelEnv()
    assert env.world_size >= 1 and env.nranks == env.world_size
    assert oar.distributed.get_world_size() == env.world_size
    assert oar.distributed.ReduceOp.SUM == 0 and oar.distributed.ReduceOp.AVG == 4


def test_launcher_and_spawn_start_jobs_that_communicate(tmp_path):
    script = tmp_path / "job.py"
    script.write_text("import os, oar, oar.distributed as dist\n"
                      "def run(scale=1.0):\n"
                      "    dist.init_parallel_env()\n"
                      "    x = oar.to_tensor([float(dist.get_rank() + 1) * scale])\n"
                      "    dist.all_reduce(x)\n"
                      "    os.write(1, f'sum {x.item()} of {dist.get_world_size()}\\n'.encode())  # one write\n"
                      "if __name__ == '__main__':\n"
                      "    run()\n")
    env = dict(os.environ)
    env.pop("OAR_TEST_DEVICE", None)
    p = subprocess.run([sys.executable, "-m", "oar.distributed.launch", "--nproc_per_node", "3", "--log_dir",
                        str(tmp_path / "log"), str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    for k in range(3):
        assert "sum 6.0 of 3" in (tmp_path / "log" / f"workerlog.{k}").read_text()
    spawner = tmp_path / "spawner.py"
    spawner.write_text(f"import sys\nsys.path.insert(0, {str(tmp_path)!r})\nimport oar.distributed as dist\nimport job\n"
                       "if __name__ == '__main__':\n    dist.spawn(job.run, args=(2.0,), nprocs=2)\n")
    p = subprocess.run([sys.executable, str(spawner)], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stdout.count("sum 6.0 of 2") == 2, p.stdout + p.stderr
