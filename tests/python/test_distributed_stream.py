"""oar.distributed.communication.stream (paddle.distributed.stream): every collective with
sync_op/use_calc_stream, in list and tensor forms, across 2 real processes on loopback."""
import pytest

import oar
from dist_util import all_ok, run_job

pytestmark = [pytest.mark.host_only,
              pytest.mark.skipif(not oar._C._dist.available, reason="oar was built without Gloo")]

BODY = """
import warnings
S = dist.stream
assert S is dist.communication.stream
dist.init_parallel_env()
r, n = dist.get_rank(), dist.get_world_size()

x = oar.to_tensor([1.0 + r, 2.0])
t = S.all_reduce(x, sync_op=False)
t.wait()
np.testing.assert_array_equal(x.numpy(), [3.0, 4.0])
x = oar.to_tensor([1.0 + r])
S.all_reduce(x, op=dist.ReduceOp.MAX, use_calc_stream=True)
assert x.item() == 2.0
try:
    S.all_reduce(x, sync_op=False, use_calc_stream=True)
    raise AssertionError("no error")
except RuntimeError as e:
    assert "use_calc_stream can only be true in sync op behavior" in str(e)

x = oar.to_tensor([float(r)])
S.broadcast(x, src=1)
assert x.item() == 1.0
x = oar.to_tensor([1.0 + r])
S.reduce(x, dst=1)
assert x.item() == (3.0 if r == 1 else 1.0)

# all_gather: into a list and into one tensor (joined along dim 0)
got = []
S.all_gather(got, oar.to_tensor([[r, r]]))
assert [g.numpy().tolist() for g in got] == [[[0, 0]], [[1, 1]]]
out = oar.zeros([2, 2], dtype="int64")
S.all_gather(out, oar.to_tensor([[r, 10 + r]]), sync_op=False).wait()
np.testing.assert_array_equal(out.numpy(), [[0, 10], [1, 11]])

# reduce_scatter from a list and from one tensor
o = oar.zeros([2])
S.reduce_scatter(o, [oar.to_tensor([1.0, 2.0]) * (k + 1) for k in range(n)])
np.testing.assert_array_equal(o.numpy(), np.array([1.0, 2.0]) * (r + 1) * n)
o = oar.zeros([1])
S.reduce_scatter(o, oar.to_tensor([10.0 * r, 1.0 + r]))
assert o.item() == ([0.0 + 10.0, 1.0 + 2.0][r])

# scatter from a tensor; a non-src input warns and is ignored
o = oar.zeros([2], dtype="int64")
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    S.scatter(o, oar.to_tensor([5, 6, 7, 8]), src=0)
assert o.numpy().tolist() == [[5, 6], [7, 8]][r]
assert (len(w) == 1) == (r == 1)

# gather into the dst's list
gl = [] if r == 0 else None
S.gather(oar.to_tensor([float(r)]), gl, dst=0)
if r == 0:
    assert [g.item() for g in gl] == [0.0, 1.0]

# alltoall: lists, tensors, and a mix (RuntimeError)
outs = []
S.alltoall(outs, [oar.to_tensor([100 * r + k]) for k in range(n)])
assert [o.item() for o in outs] == [100 * k + r for k in range(n)]
ot = oar.zeros([2], dtype="int64")
S.alltoall(ot, oar.to_tensor([100 * r, 100 * r + 1]))
assert ot.numpy().tolist() == [r, 100 + r]
try:
    S.alltoall([], oar.to_tensor([1, 2]))
    raise AssertionError("no error")
except RuntimeError as e:
    assert "both tensor or tensor list" in str(e)
# alltoall_single: out_split_sizes comes before in_split_sizes
src = oar.to_tensor(np.full([3, 1], r, "float32"))
dst = oar.zeros([4 if r == 0 else 2, 1])
S.alltoall_single(dst, src, [2, 2] if r == 0 else [1, 1], [2, 1] if r == 0 else [2, 1])
expect = [[0, 0, 1, 1], [0, 1]][r]
np.testing.assert_array_equal(dst.numpy().ravel(), expect)

# send / recv
if r == 0:
    S.send(oar.to_tensor([42.0]), dst=1, sync_op=False).wait()
else:
    y = oar.zeros([1])
    S.recv(y, src=0)
    assert y.item() == 42.0
print("ok", r)
"""


def test_stream_collectives_on_two_ranks(tmp_path):
    res = run_job(tmp_path, 2, BODY)
    all_ok(res)
    assert all(f"ok {r}" in text for r, (_, text) in enumerate(res))


def test_signatures_match_paddle():
    import inspect
    from oar.distributed.communication import stream as S
    assert list(inspect.signature(S.alltoall_single).parameters) == [
        "out_tensor", "in_tensor", "out_split_sizes", "in_split_sizes", "group", "sync_op", "use_calc_stream"]
    for name in S.__all__:
        params = inspect.signature(getattr(S, name)).parameters
        assert params["sync_op"].default is True and params["use_calc_stream"].default is False
