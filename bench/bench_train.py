"""Training-step speed: one step (forward, loss, backward, optimizer update, clear gradients) of an
MLP (784-512-512-10, batch 128), LeNet (batch 64), ResNet-18 on 32x32 inputs (batch 32), a 4-layer
Transformer encoder (d_model 256, 8 heads, FFN 1024, sequence 128, batch 16) and a GPT-style decoder
(6 pre-norm causal layers, d_model 384, 6 heads, FFN 1536, GELU, sequence 256, batch 8, vocabulary
4096, AdamW), oar beside PyTorch and Paddle in the same run; then each model's peak memory in a
training step (each framework and model in a fresh process: peak RSS minus the RSS after import);
then how long oar's DataLoader with 2 workers keeps LeNet waiting.
Usage: bash tools/setup_bench.sh && .venv/bin/python bench/bench_train.py [--feed-only] [--no-memory]
(--feed-only runs just the DataLoader part; --no-memory skips the memory table.)
"""
import os
import sys
import time

import numpy as np

from harness import compare

BODY = r'''
nn = F.nn
torch = FW == "torch"
Layer = nn.Module if torch else nn.Layer
Conv = nn.Conv2d if torch else nn.Conv2D
BN = nn.BatchNorm2d if torch else nn.BatchNorm2D
Pool = nn.MaxPool2d if torch else nn.MaxPool2D
Adaptive = nn.AdaptiveAvgPool2d if torch else nn.AdaptiveAvgPool2D
F.seed(0) if not torch else F.manual_seed(0)

def conv(cin, cout, k, s=1, p=0):
    return Conv(cin, cout, k, stride=s, padding=p, bias=False) if torch else \
        Conv(cin, cout, k, stride=s, padding=p, bias_attr=False)

class Basic(Layer):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1, self.b1 = conv(cin, cout, 3, stride, 1), BN(cout)
        self.c2, self.b2 = conv(cout, cout, 3, 1, 1), BN(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(conv(cin, cout, 1, stride), BN(cout))
        self.relu = nn.ReLU()
    def forward(self, x):
        y = self.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        return self.relu(y + (x if self.down is None else self.down(x)))

class ResNet18(Layer):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(conv(3, 64, 3, 1, 1), BN(64), nn.ReLU())
        blocks, cin = [], 64
        for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            blocks += [Basic(cin, cout, stride), Basic(cout, cout, 1)]
            cin = cout
        self.blocks = nn.Sequential(*blocks)
        self.pool = Adaptive(1)
        self.fc = nn.Linear(512, classes)
    def forward(self, x):
        return self.fc(self.pool(self.blocks(self.stem(x))).flatten(1))

class LeNet(Layer):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(Conv(1, 6, 3, stride=1, padding=1), nn.ReLU(), Pool(2, 2),
                                      Conv(6, 16, 5, stride=1, padding=0), nn.ReLU(), Pool(2, 2))
        self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, 10))
    def forward(self, x):
        return self.fc(self.features(x).flatten(1))

def encoder():
    if torch:
        layer = nn.TransformerEncoderLayer(256, 8, 1024, dropout=0.0, batch_first=True)
        return nn.TransformerEncoder(layer, 4)
    return nn.TransformerEncoder(nn.TransformerEncoderLayer(256, 8, 1024, dropout=0.0), 4)

class EncoderModel(Layer):
    def __init__(self):
        super().__init__()
        self.enc = encoder()
        self.head = nn.Linear(256, 10)
    def forward(self, x):
        return self.head(self.enc(x).mean(1))

class GPT(Layer):
    """A GPT-style decoder: token + position embeddings, pre-norm causal self-attention blocks, a
    final norm and a language-model head; the loss is next-token cross-entropy over every token."""
    def __init__(self, vocab=4096, d=384, heads=6, layers=6, seq=256):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
        if torch:
            block = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, activation="gelu",
                                               batch_first=True, norm_first=True)
            self.blocks = nn.TransformerEncoder(block, layers, enable_nested_tensor=False)
            self.head = nn.Linear(d, vocab, bias=False)
            self.mask = F.triu(F.full((seq, seq), float("-inf")), 1)
            self.positions = F.arange(seq)
        else:
            block = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, activation="gelu",
                                               normalize_before=True)
            self.blocks = nn.TransformerEncoder(block, layers)
            self.head = nn.Linear(d, vocab, bias_attr=False)
            self.mask = F.triu(F.full((seq, seq), float("-inf")), 1)
            self.positions = F.arange(seq)
        self.norm = nn.LayerNorm(d)
    def forward(self, ids):
        h = self.tok(ids) + self.pos(self.positions)
        h = self.blocks(h, mask=self.mask) if torch else self.blocks(h, src_mask=self.mask)
        logits = self.head(self.norm(h))
        return logits.reshape([-1, logits.shape[-1]])

import contextlib
def step_fn(model, x, y, forward_context=contextlib.nullcontext, adamw=False):
    """One training step; the forward and loss run inside forward_context() (bench_amp: autocast)."""
    params = list(model.parameters())
    if torch:
        opt = (F.optim.AdamW(params, lr=1e-3, weight_decay=0.01) if adamw else F.optim.Adam(params, lr=1e-3))
    elif adamw:
        opt = F.optimizer.AdamW(learning_rate=1e-3, parameters=params, weight_decay=0.01)
    else:
        opt = F.optimizer.Adam(learning_rate=1e-3, parameters=params)
    loss_fn = nn.CrossEntropyLoss()
    def step():
        with forward_context():
            loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        if torch:
            opt.zero_grad()
        else:
            opt.clear_grad()
    return step

rng = np.random.default_rng(0)
def labels(n, classes=10):
    return T(rng.integers(0, classes, n).astype(np.int64))
def images(shape):
    return T(rng.standard_normal(shape, dtype=np.float32)), labels(shape[0])
def tokens(batch, seq=256, vocab=4096):
    return T(rng.integers(0, vocab, (batch, seq)).astype(np.int64)), labels(batch * seq, vocab)
# (name, model maker, (input, labels) maker, steps per timing, AdamW?)
cases = [
    ("MLP 784-512-512-10 b128", lambda: nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512),
                                                      nn.ReLU(), nn.Linear(512, 10)),
     lambda: images((128, 784)), 20, False),
    ("LeNet b64", LeNet, lambda: images((64, 1, 28, 28)), 20, False),
    ("ResNet-18 32x32 b32", ResNet18, lambda: images((32, 3, 32, 32)), 3, False),
    ("Transformer enc 4x256 s128 b16", EncoderModel, lambda: images((16, 128, 256)), 2, False),
    ("GPT decoder 6x384 s256 b8 AdamW", GPT, lambda: tokens(8), 1, True),
]
def rss_mb(field):
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith(field + ":")) / 1024
only = os.environ.get("BENCH_MEMORY_CASE")  # one case, run for its peak memory instead of timed
base = rss_mb("VmRSS")
for name, make, data, number, adamw in cases:
    if only and name != only:
        continue
    step = step_fn(make(), *data(), adamw=adamw)
    if only:
        for _ in range(3):
            step()
        res[name] = rss_mb("VmHWM") - base
    else:
        res[name] = best(step, number, 5)
'''


def dataloader_feed():
    """Seconds LeNet waits for each batch from a 2-worker DataLoader (MNIST-sized images through
    ToTensor + Normalize), beside the seconds of one training step on that batch."""
    import oar
    from oar.vision import transforms as T
    from oar.vision.models import LeNet

    class Images(oar.io.Dataset):
        def __init__(self, n):
            self.images = np.random.default_rng(0).integers(0, 256, (n, 28, 28, 1), dtype=np.uint8)
            self.transform = T.Compose([T.ToTensor(), T.Normalize(mean=[127.5], std=[127.5])])

        def __getitem__(self, i):
            return self.transform(self.images[i]), np.array([i % 10], np.int64)

        def __len__(self):
            return len(self.images)

    model = LeNet()
    opt = oar.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    loss_fn = oar.nn.CrossEntropyLoss()
    loader = oar.io.DataLoader(Images(64 * 60), batch_size=64, shuffle=True, num_workers=2, drop_last=True)
    wait = compute = 0.0
    it = iter(loader)
    next(it)  # start-up of the workers is not per-step cost
    t = time.perf_counter()
    for x, y in it:
        t1 = time.perf_counter()
        wait += t1 - t
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        t = time.perf_counter()
        compute += t - t1
    return wait, compute


def memory_table():
    """Peak RSS of three training steps above the RSS after import, each framework and model in a
    fresh process (so no model inherits another's allocator caches)."""
    import re
    from harness import REF_PYTHON, run
    names = re.findall(r'^    \("([^"]+)", ', BODY.split("cases = [")[1], re.M)
    print("\nPeak memory of a training step (MB above the process's RSS after import; ratio above 1: oar uses less)")
    print(f"{'case':34s} {'oar':>8s} {'torch':>8s} {'paddle':>8s} {'torch/oar':>9s} {'paddle/oar':>10s}")
    for name in names:
        mb = {}
        for fw, python in (("oar", sys.executable), ("torch", os.environ.get("TORCH_PYTHON", REF_PYTHON)),
                           ("paddle", os.environ.get("PADDLE_PYTHON", REF_PYTHON))):
            os.environ["BENCH_MEMORY_CASE"] = name
            res, _ = run(python, fw, BODY)
            mb[fw] = (res or {}).get(name)
        del os.environ["BENCH_MEMORY_CASE"]
        cell = lambda v: f"{v:8.0f}" if v is not None else f"{'n/a':>8s}"
        ratio = lambda v: f"{v / mb['oar']:.2f}" if v and mb["oar"] else "n/a"
        print(f"{name:34s} {cell(mb['oar'])} {cell(mb['torch'])} {cell(mb['paddle'])} {ratio(mb['torch']):>9s} "
              f"{ratio(mb['paddle']):>10s}")


if __name__ == "__main__":
    if "--feed-only" not in sys.argv[1:]:
        compare(BODY)
        if "--no-memory" not in sys.argv[1:]:
            memory_table()
    wait, compute = dataloader_feed()
    print(f"\nDataLoader(num_workers=2) feeding LeNet b64 on 28x28 images: waiting for data was "
          f"{100 * wait / (wait + compute):.1f}% of the step time ({wait * 1e3:.0f} ms of "
          f"{(wait + compute) * 1e3:.0f} ms over 59 steps)")
