"""The profiler's overhead: one training step of an MLP (784-256-256-10, batch 64, Adam) and of a
small CNN, without a profiler and inside a recording profiler (oar.profiler / torch.profiler /
paddle.profiler, host events only, shapes recorded), in each framework in the same run.
Usage: bash tools/setup_bench.sh && .venv/bin/python bench/bench_profiler.py
The ratio that matters is each framework's own 'profiled' over 'plain' (printed below the table).
"""
from harness import compare

BODY = r'''
rng = np.random.default_rng(0)
nn = F.nn
def mlp():
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
def cnn():
    return nn.Sequential(nn.Conv2D(3, 16, 3, padding=1) if FW != "torch" else nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
                         nn.Conv2D(16, 16, 3, padding=1) if FW != "torch" else nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
                         nn.Flatten(), nn.Linear(16 * 16 * 16, 10))
def make_step(model, shape):
    x = T(rng.standard_normal(shape).astype(np.float32))
    if FW == "torch":
        opt = F.optim.Adam(model.parameters())
    else:
        opt = F.optimizer.Adam(parameters=model.parameters())
    def step():
        loss = model(x).mean()
        loss.backward()
        opt.step()
        if FW == "torch":
            opt.zero_grad()
        else:
            opt.clear_grad()
    return step
class Recording:
    """A recording profiler around the timed steps (its start and stop are not timed: the
    per-step cost is what a training loop pays)."""
    def __enter__(self):
        if FW == "torch":
            from torch.profiler import profile, ProfilerActivity
            self.p = profile(activities=[ProfilerActivity.CPU], record_shapes=True)
        else:
            self.p = F.profiler.Profiler(targets=[F.profiler.ProfilerTarget.CPU], record_shapes=True,
                                         on_trace_ready=lambda p: None)
        self.p.__enter__()
        return self
    def __exit__(self, *exc):
        self.p.__exit__(*exc)
    def step(self, step):
        step()
        if FW != "torch":
            self.p.step()
cases = [(name, make_step(make(), shape)) for name, make, shape in
         (("MLP b64", mlp, (64, 784)), ("CNN 3x16x16 b16", cnn, (16, 3, 16, 16)))]
for name, step in cases:
    res[f"{name} plain"] = best(step, 20, 5)
with Recording() as rec:  # one profiler for both (Paddle 3.3.1 cannot start a second one in a process)
    for name, step in cases:
        res[f"{name} profiled"] = best(lambda: rec.step(step), 20, 5)
'''

if __name__ == "__main__":
    oar_res, others = compare(BODY)
    print("\nprofiled / plain (the profiler's overhead when on; 1.00 = none):")
    for fw, res in (("oar", oar_res), *others.items()):
        cells = []
        for case in ("MLP b64", "CNN 3x16x16 b16"):
            if res and f"{case} plain" in res and f"{case} profiled" in res:
                cells.append(f"{case}: {res[f'{case} profiled'] / res[f'{case} plain']:.2f}")
        print(f"  {fw:7s} " + ("; ".join(cells) if cells else "n/a"))
