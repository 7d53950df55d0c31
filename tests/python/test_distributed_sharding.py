"""fleet and ZeRO sharding on 2 ranks: fleet.init + distributed_model/optimizer equal plain
DataParallel; gradient merge equals one step on the concatenated batches; group_sharded_parallel
levels 'os', 'os_g', 'p_g_os' equal DataParallel (Adam, Momentum, global-norm clipping), hold the
expected share of parameters / gradients / optimizer states per rank, and save a whole state
dict (model.pdmodel, model.pdopt) that loads in one process; bad configurations are clear errors."""
import numpy as np
import pytest

import oar
from dist_util import all_ok, run_job

pytestmark = [pytest.mark.host_only,
              pytest.mark.skipif(not oar._C._dist.available, reason="oar was built without Gloo")]

COMMON = """
from oar.distributed import fleet
from oar.distributed.sharding import group_sharded_parallel, save_group_sharded_model
F = oar.nn.functional
rng = np.random.default_rng(0)
X = rng.standard_normal((6, 16, 8)).astype("float32")  # 6 batches of 16 rows (8 per rank)
Y = rng.standard_normal((6, 16, 4)).astype("float32")

def make(seed):
    oar.seed(seed)
    return oar.nn.Sequential(oar.nn.Linear(8, 32), oar.nn.ReLU(), oar.nn.Linear(32, 32), oar.nn.ReLU(),
                             oar.nn.Linear(32, 4))

def shard(a, r):
    return oar.to_tensor(a[8 * r:8 * (r + 1)])

def train(model, opt, r, steps=4, batches=None):
    for step in range(steps):
        k = step if batches is None else batches[step]
        F.mse_loss(model(shard(X[k], r)), shard(Y[k], r)).backward()
        opt.step()
        opt.clear_grad()

def same(a, b, what):
    for (name, x), y in zip(a.state_dict().items(), b.state_dict().values()):
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=2e-5, atol=2e-6, err_msg=f"{what}: {name}")

def nbytes(ts):
    return sum(t.numel() * t.element_size() for t in ts if t is not None)

def opt_bytes(opt):
    return nbytes([v for v in opt.state_dict().values() if isinstance(v, oar.Tensor)])

def expect_error(kind, words, fn):
    try:
        fn()
    except kind as e:
        for w in words:
            assert w in str(e), (w, str(e))
    else:
        raise AssertionError(f"expected {kind.__name__} mentioning {words}")
"""

FLEET = COMMON + """
strategy = fleet.DistributedStrategy()
strategy.hybrid_configs = {"dp_degree": 2, "mp_degree": 1, "pp_degree": 1, "sharding_degree": 1}
fleet.init(is_collective=True, strategy=strategy)
r = fleet.worker_index()
assert fleet.worker_num() == 2 and fleet.is_first_worker() == (r == 0)
hcg = fleet.get_hybrid_communicate_group()
assert hcg.get_data_parallel_rank() == r and hcg.get_data_parallel_world_size() == 2
assert hcg.get_sharding_parallel_world_size() == 1 and hcg.get_data_parallel_group().nranks == 2
assert hcg.get_parallel_mode() == dist.ParallelMode.DATA_PARALLEL
fleet.barrier_worker()

# fleet's data parallel equals plain DataParallel (Adam).
ref = oar.DataParallel(make(1))
train(ref, oar.optimizer.Adam(0.01, parameters=ref.parameters()), r)
model = fleet.distributed_model(make(1 if r == 0 else 9))  # rank 0's weights are broadcast
assert isinstance(model, oar.DataParallel)
opt = fleet.distributed_optimizer(oar.optimizer.Adam(0.01, parameters=model.parameters()))
train(model, opt, r)
same(model, ref, "fleet dp")

# Gradient merge, k_steps=2, avg: equals one process stepping on the two batches concatenated.
merge = fleet.DistributedStrategy()
merge.hybrid_configs = {"dp_degree": 2}
merge.gradient_merge = True
merge.gradient_merge_configs = {"k_steps": 2, "avg": True}
model = fleet.distributed_model(make(2))
import warnings
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    opt = fleet.distributed_optimizer(oar.optimizer.Momentum(0.1, momentum=0.9, parameters=model.parameters()),
                                      strategy=merge)
train(model, opt, r, steps=6)
one = make(2)
o1 = oar.optimizer.Momentum(0.1, momentum=0.9, parameters=one.parameters())
for k in range(3):
    F.mse_loss(one(oar.to_tensor(np.concatenate([X[2 * k], X[2 * k + 1]]))),
               oar.to_tensor(np.concatenate([Y[2 * k], Y[2 * k + 1]]))).backward()
    o1.step(); o1.clear_grad()
same(model, one, "gradient merge")

# Bad configurations.
s = fleet.DistributedStrategy()
expect_error(ValueError, ["dp_degre", "hybrid_configs"], lambda: setattr(s, "hybrid_configs", {"dp_degre": 2}))
expect_error(ValueError, ["sharding_degree"], lambda: setattr(s, "hybrid_configs", {"sharding_degree": 0}))
expect_error(TypeError, ["dp_degree"], lambda: setattr(s, "hybrid_configs", {"dp_degree": "2"}))
expect_error(ValueError, ["k_steps"], lambda: setattr(s, "gradient_merge_configs", {"k_steps": 0}))
expect_error(ValueError, ["k_step"], lambda: setattr(s, "gradient_merge_configs", {"k_step": 2}))
bad = fleet.DistributedStrategy(); bad.hybrid_configs = {"mp_degree": 2, "dp_degree": 1}
expect_error(NotImplementedError, ["mp_degree"], lambda: fleet.init(is_collective=True, strategy=bad))
bad = fleet.DistributedStrategy(); bad.hybrid_configs = {"dp_degree": 3}
expect_error(ValueError, ["dp_degree", "ranks (2)"], lambda: fleet.init(is_collective=True, strategy=bad))
amp = fleet.DistributedStrategy(); amp.hybrid_configs = {"dp_degree": 2}; amp.amp = True
fleet.init(is_collective=True, strategy=amp)
expect_error(NotImplementedError, ["amp"], lambda: fleet.distributed_model(make(1)))
net = make(1)
expect_error(ValueError, ["level"], lambda: group_sharded_parallel(net, oar.optimizer.SGD(0.1, parameters=net.parameters()), "p_g"))
expect_error(NotImplementedError, ["offload"], lambda: group_sharded_parallel(
    net, oar.optimizer.SGD(0.1, parameters=net.parameters()), "os", offload=True))
expect_error(ValueError, ["not the model's"], lambda: group_sharded_parallel(
    net, oar.optimizer.SGD(0.1, parameters=make(3).parameters()), "os_g"))
print("ok", r)
"""


def test_fleet_data_parallel_gradient_merge_and_bad_configs(tmp_path):
    all_ok(run_job(tmp_path, 2, FLEET, timeout=120))


SHARDING = COMMON + """
import os, sys
out_dir = OUT_DIR
strategy = fleet.DistributedStrategy()
strategy.hybrid_configs = {"dp_degree": 1, "sharding_degree": 2}
fleet.init(is_collective=True, strategy=strategy)
r = dist.get_rank()
hcg = fleet.get_hybrid_communicate_group()
assert hcg.get_sharding_parallel_rank() == r and hcg.get_sharding_parallel_world_size() == 2
assert hcg.get_parallel_mode() == dist.ParallelMode.SHARDING_PARALLEL

full_params = nbytes(make(1).parameters())

def dp_run(make_opt, clip=None):
    m = oar.DataParallel(make(1))
    o = make_opt(m.parameters(), clip)
    train(m, o, r)
    return m, o

adam = lambda ps, clip=None: oar.optimizer.Adam(0.01, parameters=ps, grad_clip=clip)
momentum = lambda ps, clip=None: oar.optimizer.Momentum(0.05, momentum=0.9, parameters=ps, grad_clip=clip)
ref_adam, ref_adam_opt = dp_run(adam)
print("MEM dp", nbytes(ref_adam.parameters()), opt_bytes(ref_adam_opt), flush=True)

# fleet with sharding_degree=2: ZeRO-1 through distributed_optimizer.
model = fleet.distributed_model(make(1 if r == 0 else 5))
opt = fleet.distributed_optimizer(adam(model.parameters()))
train(model, opt, r)
same(model, ref_adam, "fleet sharding")
assert opt_bytes(opt) < 0.75 * opt_bytes(ref_adam_opt), (opt_bytes(opt), opt_bytes(ref_adam_opt))

clip = lambda: oar.nn.ClipGradByGlobalNorm(0.05)
for make_opt, name in ((adam, "adam"), (momentum, "momentum")):
    ref, ref_opt = (ref_adam, ref_adam_opt) if name == "adam" else dp_run(make_opt)
    ref_clip, _ = dp_run(make_opt, clip())
    for level in ("os", "os_g", "p_g_os"):
        for clipped in (False, True):
            net = make(1 if r == 0 else 3)
            model, opt, _ = group_sharded_parallel(net, make_opt(net.parameters(), clip() if clipped else None),
                                                   level, segment_size=0)
            for step in range(4):
                F.mse_loss(model(shard(X[step], r)), shard(Y[step], r)).backward()
                if step == 3:
                    grads = nbytes([p.grad for p in model.parameters()])
                opt.step()
                opt.clear_grad()
            params, states = nbytes(model.parameters()), opt_bytes(opt)
            if level == "p_g_os":
                model.get_all_parameters()
            same(model, ref_clip if clipped else ref, f"{level} {name} clip={clipped}")
            if not clipped:
                print("MEM", level, name, params, states, grads, flush=True)
            if level == "p_g_os":
                assert params <= 0.5 * full_params + 64, (params, full_params)  # ~1/2 (shards padded)
            else:
                assert params == full_params
            if name == "adam" and not clipped:
                assert states < 0.75 * opt_bytes(ref_opt), (level, states, opt_bytes(ref_opt))
            if level in ("os_g", "p_g_os"):
                assert grads < 0.75 * full_params, (level, grads)

# ZeRO-3: per-rank shard checkpoint round trip, then the whole checkpoint (names from a fresh
# generator, so that a second model below gets the same ones, as after a restart).
with oar.utils.unique_name.guard():
    net = make(1 if r == 0 else 3)
    model, opt, _ = group_sharded_parallel(net, adam(net.parameters()), "p_g_os", segment_size=0)
train(model, opt, r)
mine = {k: v.numpy().copy() for k, v in model.state_dict().items()}
assert all(v.size <= 520 for v in mine.values()), {k: v.shape for k, v in mine.items()}
model.set_state_dict({k: oar.to_tensor(v * 0) for k, v in mine.items()})
model.set_state_dict({k: oar.to_tensor(v) for k, v in mine.items()})
for k, v in model.state_dict().items():
    np.testing.assert_array_equal(v.numpy(), mine[k])
save_group_sharded_model(model, os.path.join(out_dir, "zero3"), optimizer=opt)
# The whole checkpoint loaded into a new ZeRO-3 job and saved again before any step: every state
# is kept (the loaded ones that no step has claimed yet included).
with oar.utils.unique_name.guard():
    net = make(7)
    model_again, opt_again, _ = group_sharded_parallel(net, adam(net.parameters()), "p_g_os", segment_size=0)
model_again.set_state_dict(oar.load(os.path.join(out_dir, "zero3", "model.pdmodel")))
opt_again.set_state_dict(oar.load(os.path.join(out_dir, "zero3", "model.pdopt")))
save_group_sharded_model(model_again, os.path.join(out_dir, "zero3_again"), optimizer=opt_again)
net = make(1 if r == 0 else 3)
model2, opt2, _ = group_sharded_parallel(net, adam(net.parameters()), "os_g")
train(model2, opt2, r)
save_group_sharded_model(model2, os.path.join(out_dir, "zero2"), optimizer=opt2)
if r == 0:
    import json
    names = {"ref": {k: p.name for k, p in ref_adam._layers.named_parameters()},
             "zero3": {k: p.name for k, p in model._layer.named_parameters()},
             "zero2": {k: p.name for k, p in model2._layer.named_parameters()}}
    with open(os.path.join(out_dir, "names.json"), "w") as f:
        json.dump(names, f)
    oar.save(ref_adam.state_dict(), os.path.join(out_dir, "ref.pdparams"))
    oar.save(ref_adam_opt.state_dict(), os.path.join(out_dir, "ref.pdopt"))
print("ok", r)
"""

LOAD = """
import json, numpy as np, oar, sys
out = sys.argv[1]
names = json.load(open(out + "/names.json"))
def make(seed):
    oar.seed(seed)
    return oar.nn.Sequential(oar.nn.Linear(8, 32), oar.nn.ReLU(), oar.nn.Linear(32, 32), oar.nn.ReLU(),
                             oar.nn.Linear(32, 4))
def by_slot(state, level):
    # {(structured parameter name, state kind): array}: state names are <param name>_<kind>_<n>
    out = {}
    for k, v in state.items():
        if not isinstance(v, oar.Tensor):
            continue
        for slot, pname in names[level].items():
            if k.startswith(pname + "_"):
                out[(slot, k[len(pname) + 1:].rsplit("_", 1)[0])] = v.numpy()
                break
        else:
            raise AssertionError(f"{level}: state {k} names no parameter")
    return out
ref = oar.load(out + "/ref.pdparams")
ref_opt = by_slot(oar.load(out + "/ref.pdopt"), "ref")
for level in ("zero3", "zero2"):
    net = make(0)
    net.set_state_dict(oar.load(f"{out}/{level}/model.pdmodel"))
    for k, v in net.state_dict().items():
        np.testing.assert_allclose(v.numpy(), ref[k].numpy(), rtol=2e-5, atol=2e-6, err_msg=f"{level} {k}")
    state = oar.load(f"{out}/{level}/model.pdopt")
    got = by_slot(state, level)
    assert sorted(got) == sorted(ref_opt), (level, sorted(got), sorted(ref_opt))
    for k, v in ref_opt.items():
        np.testing.assert_allclose(got[k], v, rtol=2e-5, atol=2e-6, err_msg=f"{level} {k}")
    # Loads into a single-process optimizer of the same parameters (names as saved) and steps.
    for slot, p in net.named_parameters():
        p.name = names[level][slot]
    opt = oar.optimizer.Adam(0.01, parameters=net.parameters())
    opt.set_state_dict(state)
    net(oar.to_tensor(np.ones((2, 8), "float32"))).sum().backward()
    opt.step()
again = by_slot(oar.load(f"{out}/zero3_again/model.pdopt"), "zero3")
first = by_slot(oar.load(f"{out}/zero3/model.pdopt"), "zero3")
assert sorted(again) == sorted(first), (sorted(again), sorted(first))
for k, v in first.items():
    np.testing.assert_array_equal(again[k], v, err_msg=f"loaded and saved again: {k}")
print("loaded")
"""


def test_zero_stages_equal_data_parallel_and_save(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    results = run_job(tmp_path, 2, SHARDING.replace("OUT_DIR", repr(str(out))), timeout=240)
    all_ok(results)
    mem = [line for line in results[0][1].splitlines() if line.startswith("MEM")]
    print("\n".join(mem))
    import subprocess
    import sys
    script = tmp_path / "load.py"
    script.write_text(LOAD)
    done = subprocess.run([sys.executable, str(script), str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "loaded" in done.stdout, done.stdout + done.stderr
