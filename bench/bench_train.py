"""Training-step speed: one step (forward, loss, backward, optimizer update, clear gradients) of an
MLP (784-512-512-10, batch 128), LeNet (batch 64), ResNet-18 on 32x32 inputs (batch 32) and a 4-layer
Transformer encoder (d_model 256, 8 heads, FFN 1024, sequence 128, batch 16), oar beside PyTorch and
Paddle in the same run; then how long oar's DataLoader with 2 workers keeps LeNet waiting.
Usage: bash tools/setup_bench.sh && .venv/bin/python bench/bench_train.py [--feed-only]
(--feed-only runs just the DataLoader part.)
"""
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

import contextlib
def step_fn(model, x, y, forward_context=contextlib.nullcontext):
    """One training step; the forward and loss run inside forward_context() (bench_amp: autocast)."""
    params = list(model.parameters())
    opt = F.optim.Adam(params, lr=1e-3) if torch else F.optimizer.Adam(learning_rate=1e-3, parameters=params)
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
def labels(n):
    return T(rng.integers(0, 10, n).astype(np.int64))
cases = [
    ("MLP 784-512-512-10 b128", nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                                             nn.Linear(512, 10)), (128, 784), 20),
    ("LeNet b64", LeNet(), (64, 1, 28, 28), 20),
    ("ResNet-18 32x32 b32", ResNet18(), (32, 3, 32, 32), 3),
    ("Transformer enc 4x256 s128 b16", EncoderModel(), (16, 128, 256), 2),
]
for name, model, shape, number in cases:
    x = T(rng.standard_normal(shape, dtype=np.float32))
    res[name] = best(step_fn(model, x, labels(shape[0])), number, 5)
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


if __name__ == "__main__":
    import sys
    if "--feed-only" not in sys.argv[1:]:
        compare(BODY)
    wait, compute = dataloader_feed()
    print(f"\nDataLoader(num_workers=2) feeding LeNet b64 on 28x28 images: waiting for data was "
          f"{100 * wait / (wait + compute):.1f}% of the step time ({wait * 1e3:.0f} ms of "
          f"{(wait + compute) * 1e3:.0f} ms over 59 steps)")
