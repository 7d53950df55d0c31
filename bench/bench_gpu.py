"""GPU benchmark through oar's Python API beside PyTorch, in one process on the same GPU (the GPU
machine has torch but no network and no Paddle GPU build, so the ratio is to PyTorch only):
eager launch cost of a small add, a bf16 GEMM, and training steps of an MLP, ResNet-18 (32x32)
and a Transformer encoder, in float32 (no TF32 on either side; mixed precision is issue 16's).
A case oar cannot run yet prints why (the missing kernel) instead of a time.
Usage (a machine with a GPU, oar importable, torch installed): python bench/bench_gpu.py
tools/gpu_check.sh runs it after the tests. Ratio = torch's time / oar's (above 1: oar faster).
OAR_BENCH_DEVICE=custom_cpu:0 runs oar's half on the test device (a check of the script itself).
"""
import os
import sys
import time

import numpy as np


def timed(fn, sync, number, repeat=3):
    """Best seconds per call of fn over `repeat` runs of `number` calls, the device drained."""
    fn()
    sync()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        sync()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def host_cost(fn, sync, number=500):
    """Seconds per call the host spends issuing fn (the device not drained in between)."""
    for _ in range(100):
        fn()
    sync()
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    t = (time.perf_counter() - t0) / number
    sync()
    return t


class Oar:
    name = "oar"

    def __init__(self):
        import oar
        self.m = oar
        self.device = os.environ.get("OAR_BENCH_DEVICE", "gpu:0")
        if self.device.startswith("custom_cpu"):
            oar.device.load_custom_device(os.path.join(os.path.dirname(oar.__file__), "liboar_custom_cpu.so"))
        oar.set_device(self.device)
        self.nn = oar.nn

    def sync(self):
        self.m.device.synchronize()

    def tensor(self, a):
        return self.m.to_tensor(a)

    def cast(self, t, dt):
        return t.astype(dt)

    def seed(self, s):
        self.m.seed(s)

    def adam(self, params):
        return self.m.optimizer.Adam(learning_rate=1e-4, parameters=params)

    def sgd(self, params):
        return self.m.optimizer.Momentum(learning_rate=0.01, momentum=0.9, parameters=params)

    def step(self, opt, loss):
        loss.backward()
        opt.step()
        opt.clear_grad()

    def resnet18(self):
        return self.m.vision.models.resnet18(num_classes=10)

    def encoder(self, d, heads, ffn, layers):
        layer = self.nn.TransformerEncoderLayer(d, heads, ffn, dropout=0.0)
        return self.nn.TransformerEncoder(layer, layers)

    def cross_entropy(self, logits, labels):
        return self.nn.functional.cross_entropy(logits, labels)


class Torch:
    name = "torch"

    def __init__(self):
        import torch
        self.m = torch
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cudnn.benchmark = True
        self.nn = torch.nn

    def sync(self):
        self.m.cuda.synchronize()

    def tensor(self, a):
        return self.m.from_numpy(np.ascontiguousarray(a)).cuda()

    def cast(self, t, dt):
        return t.to(getattr(self.m, dt))

    def seed(self, s):
        self.m.manual_seed(s)

    def adam(self, params):
        return self.m.optim.Adam(params, lr=1e-4)

    def sgd(self, params):
        return self.m.optim.SGD(params, lr=0.01, momentum=0.9)

    def step(self, opt, loss):
        loss.backward()
        opt.step()
        opt.zero_grad()

    def resnet18(self):
        import torchvision
        return torchvision.models.resnet18(num_classes=10)

    def encoder(self, d, heads, ffn, layers):
        layer = self.nn.TransformerEncoderLayer(d, heads, ffn, dropout=0.0, batch_first=True)
        return self.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)

    def cross_entropy(self, logits, labels):
        return self.nn.functional.cross_entropy(logits, labels)


def to_device(fw, model):
    return model.cuda() if fw.name == "torch" else model.to(fw.device)


def cases(fw):
    """{case: seconds} for framework fw; a case that raises gives its error's first line."""
    rng = np.random.default_rng(0)
    out = {}

    def run(name, fn):
        try:
            out[name] = fn()
        except Exception as e:  # a missing kernel: report it, keep going
            out[name] = f"{type(e).__name__}: {str(e).splitlines()[0][:150]}"

    def add_small():
        x, y = fw.tensor(rng.random(1000, np.float32)), fw.tensor(rng.random(1000, np.float32))
        return host_cost(lambda: x + y, fw.sync)
    run("add f32 1000, host us/call", add_small)

    def add_throughput():
        x, y = fw.tensor(rng.random(1000, np.float32)), fw.tensor(rng.random(1000, np.float32))
        return timed(lambda: x + y, fw.sync, 5000, repeat=2)
    run("add f32 1000, us/call drained", add_throughput)

    def gemm():
        a = fw.cast(fw.tensor(rng.random((8192, 8192), np.float32) - 0.5), "bfloat16")
        b = fw.cast(fw.tensor(rng.random((8192, 8192), np.float32) - 0.5), "bfloat16")
        return timed(lambda: a @ b, fw.sync, 10)
    run("matmul bf16 8192^3", gemm)

    def mlp():
        fw.seed(0)
        nn = fw.nn
        model = to_device(fw, nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 4096),
                                            nn.ReLU(), nn.Linear(4096, 1024)))
        opt = fw.adam(model.parameters())
        x = fw.tensor(rng.random((512, 1024), np.float32))
        y = fw.tensor(rng.random((512, 1024), np.float32))
        return timed(lambda: fw.step(opt, ((model(x) - y) ** 2).mean()), fw.sync, 20)
    run("MLP 1024-4096-4096-1024 b512 Adam, step", mlp)

    def resnet():
        fw.seed(0)
        model = to_device(fw, fw.resnet18())
        opt = fw.sgd(model.parameters())
        x = fw.tensor(rng.random((128, 3, 32, 32), np.float32))
        labels = fw.tensor(rng.integers(0, 10, 128).astype(np.int64))
        return timed(lambda: fw.step(opt, fw.cross_entropy(model(x), labels)), fw.sync, 10)
    run("ResNet-18 32x32 b128 SGD, step", resnet)

    def encoder():
        fw.seed(0)
        model = to_device(fw, fw.encoder(512, 8, 2048, 4))
        opt = fw.adam(model.parameters())
        x = fw.tensor(rng.random((32, 256, 512), np.float32))
        return timed(lambda: fw.step(opt, (model(x) ** 2).mean()), fw.sync, 10)
    run("Transformer encoder 4x512 s256 b32 Adam, step", encoder)
    return out


def main():
    results = {}
    for cls in (Oar, Torch):
        try:
            fw = cls()
        except Exception as e:
            print(f"{cls.name}: cannot start ({e})")
            continue
        results[fw.name] = cases(fw)
    oar_r, torch_r = results.get("oar", {}), results.get("torch", {})
    print(f"\n| case | oar | torch | torch / oar |\n|---|---|---|---|")
    for case in list(oar_r) + [c for c in torch_r if c not in oar_r]:
        o, t = oar_r.get(case), torch_r.get(case)
        scale, unit = (1e6, "us") if "us/" in case else (1e3, "ms")
        fmt = lambda v: f"{v * scale:.3f} {unit}" if isinstance(v, float) else str(v)
        ratio = f"{t / o:.2f}" if isinstance(o, float) and isinstance(t, float) else "n/a"
        print(f"| {case} | {fmt(o)} | {fmt(t)} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
