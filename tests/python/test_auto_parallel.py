"""oar.distributed's auto-parallel API: ProcessMesh and placements, distributed tensors in one
process (a mesh of one rank: every result equals the dense one, gradients included), and across
2 processes on loopback: shard_tensor splits, reshard communicates (all-gather, all-reduce,
slicing) with the adjoint communication in backward, parallelize / shard_layer give the same
losses as one process, shard_optimizer with ZeRO and the data-parallel average, shard_dataloader,
DistModel, and the distributed checkpoint saved on 2 ranks and loaded into other placements."""
import os
import pathlib

import numpy as np
import pytest

import oar
import oar.distributed as dist
from dist_util import all_ok, run_job

pytestmark = pytest.mark.host_only
needs_gloo = pytest.mark.skipif(not oar._C._dist.available, reason="oar was built without Gloo")


# ---------------------------------------------------------------- one process

def test_process_mesh():
    m = dist.ProcessMesh([[0, 1], [2, 3]], dim_names=["x", "y"])
    assert m.shape == [2, 2] and m.process_ids == [0, 1, 2, 3] and m.ndim == 2 and m.size == 4
    assert str(m) == "shape [2, 2], process_ids [0, 1, 2, 3], dim_names ['x', 'y']"
    assert str(m.get_mesh_with_dim("y")) == "shape [2, 2], process_ids [0, 2, 1, 3], dim_names ['y', 'x']"
    assert str(m.get_submesh_with_dim("x")) == "shape [2], process_ids [0, 2], dim_names ['x']"
    assert m.get_dim_size("y") == 2 and m.contains(3) and not m.contains(4)
    assert m == dist.ProcessMesh([[0, 1], [2, 3]], dim_names=["x", "y"]) and len({m, m}) == 1
    assert dist.ProcessMesh([0, 1]).dim_names == ["d0"]
    assert str(m[:, 1]) == "shape [2], process_ids [1, 3], dim_names ['x']"
    with pytest.raises(ValueError, match="dim_names"):
        dist.ProcessMesh([[0, 1], [2, 3]], dim_names=["x"])
    with pytest.raises(ValueError, match="unique"):
        dist.ProcessMesh([0, 0])
    with pytest.raises(ValueError, match="no dimension named"):
        m.get_dim_size("z")


def test_placements_and_dist_attr():
    assert repr(dist.Shard(1)) == "Shard(dim=1)" and dist.Shard(1).get_dim() == 1
    assert repr(dist.Partial()) == "Partial(reduce_type=SUM)"
    assert repr(dist.Partial(dist.ReduceType.kRedMax)) == "Partial(reduce_type=MAX)"
    assert dist.Replicate() == dist.Replicate() and dist.Shard(0) != dist.Replicate()
    assert dist.Partial() == dist.Partial(dist.ReduceType.kRedSum)
    assert dist.Shard(0).is_shard() and dist.Replicate().is_replicated() and dist.Partial().is_partial()
    assert [int(v) for v in dist.ReduceType] == list(range(7))
    with pytest.raises(TypeError):
        dist.Shard("a")
    m = dist.ProcessMesh([[0, 1], [2, 3]], dim_names=["x", "y"])
    a = dist.DistAttr(m, ["y", None])
    assert a.dims_mapping == [1, -1] and a.placements == [dist.Replicate(), dist.Shard(0)]
    with pytest.raises(ValueError):
        dist.DistAttr(m, ["z", None])
    # what Paddle says about the same objects
    try:
        import paddle.distributed as pd
    except ImportError:
        return
    assert repr(pd.Shard(1)) == repr(dist.Shard(1)) and repr(pd.Partial()) == repr(dist.Partial())
    assert str(pd.ProcessMesh([[0, 1], [2, 3]], dim_names=["x", "y"])) == str(m)


def test_dist_tensor_in_one_process_equals_dense():
    mesh = dist.ProcessMesh([0], dim_names=["x"])
    a = np.random.RandomState(0).randn(4, 3)
    x = dist.shard_tensor(a, mesh, [dist.Shard(0)], stop_gradient=False)
    assert x.is_dist() and x.placements == [dist.Shard(0)] and x.process_mesh == mesh
    assert x._local_shape == [4, 3] and x.shape == [4, 3] and x.dtype == oar.float64
    assert not oar.ones([1]).is_dist() and oar.ones([1]).placements is None
    w = oar.to_tensor(np.ones((3, 2)))
    (x @ w).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones((4, 3)) * 2)
    r = dist.reshard(x, mesh, [dist.Replicate()])
    np.testing.assert_allclose(r.numpy(), a)
    np.testing.assert_allclose(dist.unshard_dtensor(x).numpy(), a)
    assert "placements=[Shard(dim=0)]" in repr(x) and "GlobalDenseTensor" in repr(x)
    f = dist.dtensor_from_fn(oar.ones, mesh, [dist.Replicate()], shape=[2, 2])
    assert f.placements == [dist.Replicate()] and f.numpy().sum() == 4
    with pytest.raises(ValueError, match="axis"):
        dist.shard_tensor(oar.ones([2]), mesh, [dist.Shard(3)])
    with pytest.raises(TypeError, match="mesh"):
        dist.shard_tensor(oar.ones([2]), [0], [dist.Shard(0)])
    with pytest.raises(TypeError):
        dist.reshard(np.ones(2), mesh, [dist.Replicate()])
    # a mesh of 2 ranks in a process that is in no job: this rank's shard; communicating is an error
    m2 = dist.ProcessMesh([0, 1], dim_names=["x"])
    s = dist.shard_tensor(np.arange(5.0), m2, [dist.Shard(0)])
    assert s._local_value().numpy().tolist() == [0.0, 1.0, 2.0] and s._global_shape == [5]
    with pytest.raises(RuntimeError, match="init_parallel_env"):
        dist.reshard(s, m2, [dist.Replicate()])


def test_shard_tensor_is_differentiable_for_non_leaves():
    mesh = dist.ProcessMesh([0], dim_names=["x"])
    a = oar.to_tensor(np.arange(4.0), stop_gradient=False)
    d = dist.shard_tensor(a * 3, mesh, [dist.Replicate()])
    (d * d).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 18 * np.arange(4.0))


def test_local_map_and_local_layer():
    mesh = dist.ProcessMesh([0], dim_names=["x"])
    x = dist.shard_tensor(oar.ones([4]), mesh, [dist.Shard(0)])
    f = dist.local_map(lambda t: t.sum(), out_placements=[[dist.Partial()]], in_placements=[[dist.Shard(0)]])
    out = f(x)
    assert out.placements == [dist.Partial()] and float(out) == 4.0
    g = dist.local_map(lambda t: t * 2, out_placements=[[dist.Replicate()]], in_placements=[[dist.Replicate()]])
    with pytest.raises(ValueError, match="reshard_inputs"):
        g(x)
    g2 = dist.local_map(lambda t: t * 2, out_placements=[[dist.Replicate()]], in_placements=[[dist.Replicate()]],
                        reshard_inputs=True)
    assert g2(x).numpy().tolist() == [2.0] * 4
    assert dist.local_map(lambda t: t + 1, [[dist.Replicate()]])(oar.ones([1])).numpy().tolist() == [2.0]

    class Sum(dist.LocalLayer):
        def __init__(self):
            super().__init__([(mesh, [dist.Partial()])], [None])

        def forward(self, t):
            assert not t.is_dist()
            return t.sum()
    assert Sum()(x).placements == [dist.Partial()]


def _mlp(seed=3):
    oar.seed(seed)
    return oar.nn.Sequential(oar.nn.Linear(6, 8), oar.nn.ReLU(), oar.nn.Linear(8, 3))


def test_shard_layer_parallelize_and_dist_model_match_dense():
    x = oar.to_tensor(np.linspace(-1, 1, 24).reshape(4, 6).astype("float32"))
    y = oar.zeros([4, 3])
    dense = _mlp()
    opt = oar.optimizer.SGD(0.1, parameters=dense.parameters())
    ref = []
    for _ in range(3):
        loss = oar.nn.functional.mse_loss(dense(x), y)
        loss.backward(); opt.step(); opt.clear_grad()
        ref.append(float(loss))
    mesh = dist.ProcessMesh([[0]], dim_names=["dp", "mp"])
    net = _mlp()
    opt = oar.optimizer.SGD(0.1, parameters=net.parameters())
    plan = {"0": dist.ColWiseParallel(), "2": dist.RowWiseParallel()}
    net, opt = dist.parallelize(net, opt, mesh, {"dp_config": {"sharding_level": 1},
                                                 "mp_config": {"parallelize_plan": plan}})
    assert net[0].weight.placements == [dist.Replicate(), dist.Shard(1)]
    assert net[2].bias.placements == [dist.Replicate(), dist.Replicate()]
    model = dist.to_static(net, None, oar.nn.MSELoss(), opt)
    got = [float(model(x, y)) for _ in range(3)]
    np.testing.assert_allclose(got, ref, rtol=1e-6)
    model.eval()
    assert float(model(x, y)) < ref[-1]
    model.predict()
    assert model(x).shape == [4, 3]
    assert "0.weight" in model.state_dict("param")
    # shard_layer with a shard_fn
    net2 = dist.shard_layer(_mlp(), dist.ProcessMesh([0], dim_names=["x"]),
                            lambda name, sub, m: setattr(sub, "weight", dist.shard_tensor(sub.weight, m, [dist.Shard(0)]))
                            if isinstance(sub, oar.nn.Linear) else None)
    assert net2[0].weight.placements == [dist.Shard(0)] and net2[0].bias.placements == [dist.Replicate()]
    np.testing.assert_allclose(net2(x).numpy(), _mlp()(x).numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="'mp'"):
        dist.parallelize(_mlp(), None, dist.ProcessMesh([0], dim_names=["x"]),
                         {"mp_config": {"parallelize_plan": {"0": dist.ColWiseParallel()}}})
    with pytest.raises(TypeError):
        dist.parallelize(_mlp(), None, mesh, {"mp_config": {"parallelize_plan": {"0": "col"}}})


def test_strategy_gradient_merge_and_dataloader():
    s = dist.Strategy({"gradient_merge": {"enable": True, "k_steps": 2}})
    assert s.gradient_merge.k_steps == 2 and s.sharding.enable is False and s.pipeline.schedule_mode == "1F1B"
    with pytest.raises(ValueError, match="unknown setting"):
        s.sharding.nonsense = 1
    with pytest.raises(ValueError):
        dist.Strategy("x")
    net = oar.nn.Linear(2, 1)
    w0 = net.weight.numpy().copy()
    model = dist.to_static(net, None, oar.nn.MSELoss(), oar.optimizer.SGD(0.5, parameters=net.parameters()), s)
    model(oar.ones([2, 2]), oar.zeros([2, 1]))
    np.testing.assert_array_equal(net.weight.numpy(), w0)  # the step comes every 2 calls
    model(oar.ones([2, 2]), oar.zeros([2, 1]))
    assert not np.array_equal(net.weight.numpy(), w0)

    class Data(oar.io.Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            return np.full([2], i, "float32"), np.array([i], "int64")
    loader = oar.io.DataLoader(Data(), batch_size=3)
    mesh = dist.ProcessMesh([0], dim_names=["dp"])
    batches = list(dist.shard_dataloader(loader, mesh, shard_dims="dp"))
    assert len(batches) == 2 and batches[0][0].placements == [dist.Shard(0)]
    assert batches[1][1].numpy().ravel().tolist() == [3, 4, 5]
    with pytest.raises(ValueError, match="shard_dims"):
        dist.shard_dataloader(loader, mesh, is_dataset_splitted=True)


def test_checkpoint_one_process(tmp_path):
    mesh = dist.ProcessMesh([0], dim_names=["x"])
    sd = {"w": dist.shard_tensor(np.arange(6.0).reshape(2, 3), mesh, [dist.Shard(1)]), "b": oar.ones([3])}
    dist.save_state_dict(sd, str(tmp_path))
    assert sorted(os.listdir(tmp_path)) == ["0.metadata", "0_0.distcp"]
    dist.save_state_dict({"w": oar.zeros([2, 3])}, str(tmp_path))  # the next id
    assert "1.metadata" in os.listdir(tmp_path)
    target = {"w": oar.zeros([2, 3]), "b": oar.zeros([3])}
    dist.load_state_dict(target, str(tmp_path), unique_id=0)
    np.testing.assert_array_equal(target["w"].numpy(), np.arange(6.0).reshape(2, 3))
    merged = dist.load_merged_state_dict(str(tmp_path), unique_id=0)
    assert sorted(merged) == ["b", "w"]
    assert dist.load_merged_state_dict(str(tmp_path))["w"].numpy().sum() == 0  # the last one
    with pytest.raises(KeyError, match="nope"):
        dist.load_state_dict({"nope": oar.zeros([1])}, str(tmp_path))
    with pytest.raises(ValueError, match="shape"):
        dist.load_state_dict({"b": oar.zeros([4])}, str(tmp_path), unique_id=0)
    with pytest.raises(FileNotFoundError):
        dist.load_state_dict({}, str(tmp_path / "missing"))
    # no temporaries are left behind, and the files load with the safe loader only
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]
    sw = dist.build_sharded_state_dict({"w": oar.ones([2, 2])}, prefix="m.")
    assert isinstance(sw["m.w"], dist.ShardedWeight) and sw["m.w"].global_offset == (0, 0)
    with pytest.raises(ValueError, match="does not fit"):
        dist.ShardedWeight("k", oar.ones([2]), (2,), (2,), (1,))


# ---------------------------------------------------------------- 2 processes

TWO_RANKS = """
dist.init_parallel_env()
r, n = dist.get_rank(), dist.get_world_size()
mesh = dist.ProcessMesh(list(range(n)), dim_names=["x"])
full = np.arange(5 * 3, dtype="float32").reshape(5, 3)
d = dist.shard_tensor(full, mesh, [dist.Shard(0)])
np.testing.assert_array_equal(d._local_value().numpy(), full[r * 3:(r + 1) * 3])
assert d._global_shape == [5, 3] and d._local_shape == ([3, 3] if r == 0 else [2, 3])
np.testing.assert_array_equal(dist.reshard(d, mesh, [dist.Replicate()])._local_value().numpy(), full)
np.testing.assert_array_equal(dist.reshard(d, mesh, [dist.Shard(1)])._local_value().numpy(), full[:, r * 2:(r + 1) * 2])
p = dist.shard_tensor(full, mesh, [dist.Partial()])
np.testing.assert_array_equal(p._local_value().numpy(), full if r == 0 else 0 * full)
np.testing.assert_array_equal(dist.reshard(p, mesh, [dist.Replicate()])._local_value().numpy(), full)
np.testing.assert_array_equal(dist.reshard(p, mesh, [dist.Shard(0)])._local_value().numpy(), full[r * 3:(r + 1) * 3])
np.testing.assert_array_equal(dist.unshard_dtensor(d).numpy(), full)
# backward: Shard -> Replicate gives each shard its part; Replicate -> Shard gathers the gradient
x = dist.shard_tensor(full, mesh, [dist.Shard(0)], stop_gradient=False)
(dist.reshard(x, mesh, [dist.Replicate()])._local_value() * oar.to_tensor(full)).sum().backward()
np.testing.assert_array_equal(x.grad.numpy(), full[r * 3:(r + 1) * 3])
rx = dist.shard_tensor(full, mesh, [dist.Replicate()], stop_gradient=False)
(dist.reshard(rx, mesh, [dist.Shard(0)])._local_value() * 2).sum().backward()
np.testing.assert_array_equal(rx.grad.numpy(), np.full_like(full, 2))
# a 2-D mesh
if n == 2:
    m2 = dist.ProcessMesh([[0, 1]], dim_names=["dp", "mp"])
    e = dist.shard_tensor(full, m2, [dist.Replicate(), dist.Shard(1)])
    assert e._local_shape == ([5, 2] if r == 0 else [5, 1])
    np.testing.assert_array_equal(dist.unshard_dtensor(e).numpy(), full)
# tensor parallelism (Col -> Row), with sequence-parallel norms around it: the one-rank losses
def losses(seed):
    oar.seed(seed)
    net = oar.nn.Sequential(oar.nn.Linear(6, 8), oar.nn.ReLU(), oar.nn.Linear(8, 6), oar.nn.LayerNorm(6))
    opt = oar.optimizer.Adam(0.05, parameters=net.parameters())
    return net, opt
xs = oar.to_tensor(np.linspace(-1, 1, 2 * 4 * 6).reshape(2, 4, 6).astype("float32"))
net, opt = losses(7)
mp = dist.ProcessMesh(list(range(n)), dim_names=["mp"])
plan = {"0": dist.ColWiseParallel(), "2": [dist.RowWiseParallel(), dist.SequenceParallelBegin()],
        "3": [dist.SequenceParallelEnable(), dist.SequenceParallelEnd()]}
# LayerNorm '3' runs on the rank's half of the sequence; the loss is taken after gathering it back
net, opt = dist.parallelize(net, opt, mp, {"mp_config": {"parallelize_plan": plan}})
assert net[0].weight._local_shape == [6, 8 // n]
got = []
for _ in range(3):
    out = net(xs)
    loss = (dist.unshard_dtensor(out) ** 2).mean() if out.is_dist() else (out ** 2).mean()
    loss.backward(); opt.step(); opt.clear_grad()
    got.append(float(loss))
print("TP", got)
# data parallelism + ZeRO-1 through shard_dataloader / DistModel: the one-rank losses
class Data(oar.io.Dataset):
    def __len__(self): return 8
    def __getitem__(self, i):
        return np.linspace(-1, 1, 4).astype("float32") * (i + 1), np.array([i % 3], "float32")
dp = dist.ProcessMesh(list(range(n)), dim_names=["dp"])
oar.seed(5)
lin = oar.nn.Sequential(oar.nn.Linear(4, 4), oar.nn.Tanh(), oar.nn.Linear(4, 1))
loader = dist.shard_dataloader(oar.io.DataLoader(Data(), batch_size=4), dp, shard_dims="dp")
strategy = dist.Strategy(); strategy.sharding.enable = True; strategy.sharding.stage = 2
model = dist.to_static(dist.shard_layer(lin, dp), loader, oar.nn.MSELoss(),
                       oar.optimizer.Adam(0.05, parameters=lin.parameters()), strategy)
dl = []
for _ in range(2):
    for a, b in loader:
        dl.append(float(model(a, b)))
print("DP", dl)
# object lists
out = []
dist.scatter_object_list(out, [{"k": k} for k in range(n)] if r == 0 else None, src=0)
assert out == [{"k": r}]
if r == 0:
    dist.send_object_list([1, "two", {"three": 3}], dst=1)
else:
    got = [None] * 3
    dist.recv_object_list(got, src=0)
    assert got == [1, "two", {"three": 3}]
# the distributed checkpoint: saved sharded on 2 ranks, loaded with other placements
import os
path = os.environ["CKPT"]
w = dist.shard_tensor(full, mesh, [dist.Shard(0)])
b = dist.shard_tensor(full[0], mesh, [dist.Replicate()])
dist.save_state_dict({"w": w, "b": b}, path)
assert sorted(os.listdir(path)) == ["0.metadata", "0_0.distcp", "1_0.distcp"]
tw = dist.shard_tensor(np.zeros((5, 3), "float32"), mesh, [dist.Shard(1)])
tb = dist.shard_tensor(np.zeros(3, "float32"), mesh, [dist.Shard(0)])
dist.load_state_dict({"w": tw, "b": tb}, path)
np.testing.assert_array_equal(tw._local_value().numpy(), full[:, r * 2:(r + 1) * 2])
np.testing.assert_array_equal(tb._local_value().numpy(), full[0][r * 2:(r + 1) * 2])
np.testing.assert_array_equal(dist.load_merged_state_dict(path)["w"].numpy(), full)
dist.barrier()
print("ok", r)
"""


def _values(text, tag):
    line = next(l for l in text.splitlines() if l.startswith(tag + " "))
    return eval(line[len(tag) + 1:])


@needs_gloo
def test_two_ranks_match_one(tmp_path):
    body = "import os\n" + TWO_RANKS
    one_dir, two_dir = tmp_path / "one", tmp_path / "two"
    one_dir.mkdir(), two_dir.mkdir()
    os.environ["CKPT"] = str(two_dir / "ckpt")
    try:
        two = run_job(two_dir, 2, body, timeout=150)
    finally:
        del os.environ["CKPT"]
    all_ok(two)
    # the same script in one process (mesh of one rank): the reference losses
    ref_body = body.split("# object lists")[0].replace("full[r * 3:(r + 1) * 3]", "full").replace(
        "([3, 3] if r == 0 else [2, 3])", "[5, 3]").replace("full[:, r * 2:(r + 1) * 2]", "full").replace(
        "full if r == 0 else 0 * full", "full").replace("[6, 8 // n]", "[6, 8]")
    one = run_job(one_dir, 1, ref_body, timeout=120)
    all_ok(one)
    for tag in ("TP", "DP"):
        np.testing.assert_allclose(_values(two[0][1], tag), _values(one[0][1], tag), rtol=2e-5, atol=1e-6)
        np.testing.assert_allclose(_values(two[1][1], tag), _values(one[0][1], tag), rtol=2e-5, atol=1e-6)
