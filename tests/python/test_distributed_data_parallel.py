"""oar.DataParallel on 2 ranks equals one process training on the whole batch: the same
parameters after several steps, with and without no_sync() gradient accumulation; ranks start
from rank 0's weights; a parameter without gradient is an error unless find_unused_parameters."""
import pytest

import oar
from dist_util import all_ok, run_job

pytestmark = [pytest.mark.host_only,
              pytest.mark.skipif(not oar._C._dist.available, reason="oar was built without Gloo")]

TRAIN = """
dist.init_parallel_env()
r, n = dist.get_rank(), dist.get_world_size()
F = oar.nn.functional
rng = np.random.default_rng(0)
X = rng.standard_normal((4, 8 * n, 5)).astype("float32")  # 4 micro-batches of 8 rows per rank
Y = rng.standard_normal((4, 8 * n, 2)).astype("float32")

def make(seed):
    oar.seed(seed)
    return oar.nn.Sequential(oar.nn.Linear(5, 16), oar.nn.ReLU(), oar.nn.Linear(16, 2))

def shard(a):
    return oar.to_tensor(a[8 * r:8 * (r + 1)])

# One process on the whole batches (every rank computes it, to compare with).
ref = make(1)
opt = oar.optimizer.SGD(learning_rate=0.1, parameters=ref.parameters())
for step in range(2):
    for k in range(2):  # two micro-batches accumulated, then one step
        F.mse_loss(ref(oar.to_tensor(X[2 * step + k])), oar.to_tensor(Y[2 * step + k])).backward()
    opt.step(); opt.clear_grad()

# Data parallel: each rank starts from its own weights; DataParallel takes rank 0's.
dp = oar.DataParallel(make(1 if r == 0 else 77 + r))
opt = oar.optimizer.SGD(learning_rate=0.1, parameters=dp.parameters())
for step in range(2):
    with dp.no_sync():
        F.mse_loss(dp(shard(X[2 * step])), shard(Y[2 * step])).backward()
    F.mse_loss(dp(shard(X[2 * step + 1])), shard(Y[2 * step + 1])).backward()
    opt.step(); opt.clear_grad()
for (name, a), b in zip(dp.state_dict().items(), ref.state_dict().values()):
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)
assert list(dp.state_dict()) == list(ref.state_dict())  # Paddle's keys, without a wrapper prefix

# A branch that gets no gradient: an error naming it, unless find_unused_parameters.
class TwoHeads(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.used, self.unused = oar.nn.Linear(5, 2), oar.nn.Linear(5, 2)
    def forward(self, x):
        return self.used(x)

m = oar.DataParallel(TwoHeads())
try:
    m(shard(X[0])).sum().backward()
except RuntimeError as e:
    assert "unused" in str(e), e
else:
    raise AssertionError("a parameter without gradient must be reported")
m = oar.DataParallel(TwoHeads(), find_unused_parameters=True)
m(shard(X[0])).sum().backward()
assert m._layers.used.weight.grad is not None
np.testing.assert_array_equal(m._layers.unused.weight.grad.numpy(), 0)
print("ok", r)
"""


def test_data_parallel_equals_one_process_on_the_whole_batch(tmp_path):
    all_ok(run_job(tmp_path, 2, TRAIN))


FIT = """
import os, sys
dist.init_parallel_env()
r = dist.get_rank()
rng = np.random.default_rng(3)
xs = rng.standard_normal((96, 4)).astype("float32")
ys = (xs @ np.array([1.0, -2.0, 0.5, 0.0], "float32") > 0).astype("int64").reshape(-1, 1)
data = oar.io.TensorDataset([oar.to_tensor(xs), oar.to_tensor(ys)])
oar.seed(5 + r)  # different starting weights: the Model's DataParallel takes rank 0's
net = oar.nn.Sequential(oar.nn.Linear(4, 16), oar.nn.ReLU(), oar.nn.Linear(16, 2))
model = oar.Model(net)
model.prepare(oar.optimizer.Adam(learning_rate=0.05, parameters=net.parameters()), oar.nn.CrossEntropyLoss(),
              oar.metric.Accuracy())
model.fit(data, epochs=3, batch_size=8, verbose=1, shuffle=False)
# The replicas stayed equal.
for name, p in net.state_dict().items():
    lo, hi = p.clone(), p.clone()
    dist.all_reduce(lo, op=dist.ReduceOp.MIN)
    dist.all_reduce(hi, op=dist.ReduceOp.MAX)
    np.testing.assert_array_equal(lo.numpy(), hi.numpy(), err_msg=name)
# evaluate's accuracy covers every rank's share: it equals the accuracy over the whole set.
acc = model.evaluate(data, batch_size=8, verbose=0)["acc"]
with oar.no_grad():
    whole = (net(oar.to_tensor(xs)).numpy().argmax(1) == ys[:, 0]).mean()
assert abs(acc - whole) < 1e-6, (acc, whole)
assert acc > 0.8, acc
# Only rank 0 writes a checkpoint.
path = os.path.join(sys.argv[1] if len(sys.argv) > 1 else ".", f"ckpt_rank{r}")
model.save(path)
assert os.path.exists(path + ".pdparams") == (r == 0)
print("ok", r)
"""


def test_model_fit_trains_data_parallel(tmp_path):
    results = run_job(tmp_path, 2, FIT.replace('sys.argv[1] if len(sys.argv) > 1 else "."', repr(str(tmp_path))))
    all_ok(results)
    assert "step" in results[0][1] and "step" not in results[1][1]  # progress from rank 0 only
