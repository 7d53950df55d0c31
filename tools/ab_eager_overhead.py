"""A/B of eager overhead between two oar builds (run once per build, alternating, on a quiet
machine): PYTHONPATH=<dir holding that build's oar package> python tools/ab_eager_overhead.py.
Prints best-of-5 per-call times of small ops, a small graph's forward+backward and an MLP
training step: the host path's cost, which the device dispatch must not raise."""
import time, numpy as np, oar
def best(f, n, reps=5):
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        for _ in range(n): f()
        ts.append((time.perf_counter() - t) / n)
    return min(ts)
x = oar.to_tensor(np.ones(4, np.float32)); y = oar.to_tensor(np.ones(4, np.float32))
a = oar.to_tensor(np.random.rand(64, 64).astype(np.float32))
big = oar.to_tensor(np.random.rand(1 << 20).astype(np.float32))
model = oar.nn.Sequential(oar.nn.Linear(784, 512), oar.nn.ReLU(), oar.nn.Linear(512, 512), oar.nn.ReLU(), oar.nn.Linear(512, 10))
opt = oar.optimizer.SGD(0.01, parameters=model.parameters())
xb = oar.to_tensor(np.random.rand(128, 784).astype(np.float32)); yb = oar.to_tensor(np.random.randint(0, 10, (128, 1)))
def step():
    loss = oar.nn.functional.cross_entropy(model(xb), yb); loss.backward(); opt.step(); opt.clear_grad()
wg = oar.to_tensor(np.random.rand(256, 256).astype(np.float32), stop_gradient=False)
def small_graph():
    (oar.tanh(wg * 2.0 + 1.0)).sum().backward()
r = {"add 4 (us)": best(lambda: x + y, 20000) * 1e6, "matmul 64 (us)": best(lambda: oar.matmul(a, a), 5000) * 1e6,
     "sum 1M (us)": best(lambda: big.sum(), 500) * 1e6, "MLP b128 step (ms)": best(step, 20) * 1e3,
     "small fwd+bwd 256^2 (us)": best(small_graph, 500) * 1e6}
print(" ".join(f"{k}={v:.3f}" for k, v in r.items()))
