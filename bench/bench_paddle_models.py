"""Models saved by real Paddle (paddle.jit.save: `<prefix>.json` PIR program + `.pdiparams`) run by
oar's C++ predictor (oar.inference) against Paddle Inference on the same files, inputs and thread
count: LeNet (28x28), ResNet-18, ResNet-50, MobileNetV2, MobileNetV3-small and VGG-11 (full, 1000
classes) at 224x224, a 4-layer TransformerEncoder (d_model 256, 8 heads, ff 1024, seq 128) and a
2-layer LSTM (hidden 256, seq 128) + Linear, each at batch 1 and 32.

Paddle Inference is timed twice: with its default CPU settings, in which Paddle 3.x turns oneDNN
(mkldnn) on by itself (its recommended x86 setting), and with disable_mkldnn() (its plain CPU
kernels); the ratio is taken against the faster of the two. Both predictors get
set_cpu_math_library_num_threads(--threads, default all cores) and OMP_NUM_THREADS of the same;
oar's thread-count tuner is pinned to that count (OAR_PREDICTOR_ADAPTIVE_THREADS=0) unless
--adaptive. Each framework runs in its own process (harness.run), one model at a time, so
neither's OpenMP threads spin while the other is timed. Times are the median of --repeat repeats
after two warm-up runs (fewer repeats, not under 3, where they would take over 15 s); max|diff|
is the largest absolute difference between oar's output and either Paddle config's, rel =
max|diff| / max|Paddle output|. --quick: LeNet, MobileNetV3-small and the LSTM, 2 short repeats.
    .venv/bin/python bench/bench_paddle_models.py [--quick] [--models lenet,lstm] [--repeat 5] [--adaptive]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

import numpy as np  # noqa: E402

# name: input shape without the batch dimension
SHAPES = {
    "lenet": [1, 28, 28],
    "resnet18": [3, 224, 224],
    "resnet50": [3, 224, 224],
    "mobilenet_v2": [3, 224, 224],
    "mobilenet_v3_small": [3, 224, 224],
    "vgg11": [3, 224, 224],
    "transformer_encoder": [128, 256],
    "lstm": [128, 256],
}
BATCHES = (1, 32)
QUICK = ["lenet", "mobilenet_v3_small", "lstm"]

def generate(tmp, names):
    """Builds each model with Paddle and saves it to tmp (run in a process of its own: Paddle's
    dynamic-to-static conversion reads the forward methods' source, so not from `python -c`)."""
    import paddle
    from paddle.vision import models as V
    nn = paddle.nn

    class Recurrent(nn.Layer):
        def __init__(self):
            super().__init__()
            self.rnn, self.fc = nn.LSTM(256, 256, num_layers=2), nn.Linear(256, 10)

        def forward(self, x):
            return self.fc(self.rnn(x)[0])

    build = {
        "lenet": V.LeNet,
        "resnet18": V.resnet18,
        "resnet50": V.resnet50,
        "mobilenet_v2": V.mobilenet_v2,
        "mobilenet_v3_small": V.mobilenet_v3_small,
        "vgg11": V.vgg11,
        "transformer_encoder": lambda: nn.TransformerEncoder(
            nn.TransformerEncoderLayer(256, 8, 1024, dropout=0.0), 4),
        "lstm": Recurrent,
    }
    paddle.set_device("cpu")
    paddle.seed(7)
    for name in names:
        net = build[name]()
        for sub in net.sublayers():  # batch norms with non-trivial statistics, as in the import tests
            if isinstance(sub, nn.BatchNorm2D):
                sub._mean.set_value(paddle.rand(sub._mean.shape) * 0.2 - 0.1)
                sub._variance.set_value(paddle.rand(sub._variance.shape) + 0.5)
        net.eval()
        paddle.jit.save(net, os.path.join(tmp, name),
                        input_spec=[paddle.static.InputSpec([-1] + SHAPES[name], "float32", "x")])


# Run by oar and by Paddle: each predictor config on the inputs CFG["tmp"]/<name>_b<batch>_x.npy,
# writing its outputs beside them and its median times to res.
RUN_BODY = r'''
import statistics, time
THREADS, REPEAT, TARGET, BUDGET = CFG["threads"], CFG["repeat"], CFG["target"], CFG["budget"]

def median_time(fn):
    """(median seconds of one run, repeats): two warm-up runs (oneDNN primitives, allocator caches,
    shape-dependent plans; one when a run takes over a second), then REPEAT repeats of enough runs
    to last TARGET seconds, fewer repeats (not under 3) where they would take over BUDGET seconds."""
    t0 = time.perf_counter()
    fn()
    t = time.perf_counter() - t0
    if t < 1.0:
        t0 = time.perf_counter()
        fn()
        t = time.perf_counter() - t0
    number = max(1, int(TARGET / max(t, 1e-6)))
    reps = REPEAT if t * number * REPEAT <= BUDGET else min(REPEAT, max(3, int(BUDGET / (t * number))))
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times), reps

if FW == "oar":
    import oar.inference as inf
    CONFIGS = {"oar": lambda c: None}
else:
    import paddle.inference as inf
    CONFIGS = {"default": lambda c: None, "plain": lambda c: c.disable_mkldnn()}

for name, batches in CFG["models"].items():
    prefix = os.path.join(CFG["tmp"], name)
    for conf, setup in CONFIGS.items():
        config = inf.Config(prefix + ".json", prefix + ".pdiparams")
        config.disable_gpu()
        config.disable_glog_info()
        config.set_cpu_math_library_num_threads(THREADS)
        setup(config)
        res[f"{conf} mkldnn"] = config.mkldnn_enabled()
        t0 = time.perf_counter()
        pred = inf.create_predictor(config)
        res[f"{name} {conf} load"] = time.perf_counter() - t0
        h_in = pred.get_input_handle(pred.get_input_names()[0])
        h_out = pred.get_output_handle(pred.get_output_names()[0])
        for batch in batches:
            x = np.load(f"{prefix}_b{batch}_x.npy")
            h_in.reshape(list(x.shape))
            def run():
                h_in.copy_from_cpu(x)
                pred.run()
                return h_out.copy_to_cpu()
            np.save(f"{prefix}_b{batch}_{conf}.npy", run())
            res[f"{name} b{batch} {conf}"], res[f"{name} b{batch} {conf} repeats"] = median_time(run)
        del pred
'''


def body(template, cfg):
    return f"CFG = json.loads({json.dumps(cfg)!r})\n" + template


def run(fw, template, cfg):
    res, err = harness.run(sys.executable, fw, body(template, cfg))
    if res is None:
        print(f"({fw} failed on {', '.join(cfg['models'])}: {err})", flush=True)
    return res or {}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help=f"only {', '.join(QUICK)}, 2 repeats of ~0.05 s (a smoke run, not a measurement)")
    ap.add_argument("--models", default="", help="comma-separated subset (default: all)")
    ap.add_argument("--repeat", type=int, default=None, help="timed repeats per case (default 5, --quick 2)")
    ap.add_argument("--threads", type=int, default=os.cpu_count(), help="threads of both predictors (default: all cores)")
    ap.add_argument("--adaptive", action="store_true",
                    help="leave oar's thread-count tuner on (it may run fewer threads than Paddle; default: pinned)")
    ap.add_argument("--generate", metavar="DIR", help=argparse.SUPPRESS)  # the child process that saves the models
    args = ap.parse_args()
    names = [n for n in args.models.split(",") if n] or (QUICK if args.quick else list(SHAPES))
    unknown = [n for n in names if n not in SHAPES]
    if unknown:
        sys.exit(f"unknown models {unknown}; known: {', '.join(SHAPES)}")
    if args.generate:
        return generate(args.generate, names)
    repeat = args.repeat or (2 if args.quick else 5)
    target = 0.05 if args.quick else 0.3  # seconds per timed repeat (at least one run)
    budget = 1.0 if args.quick else 15.0  # seconds of timed repeats per case before fewer repeats
    # Both frameworks' OpenMP/BLAS pools at the same size as the predictors' math threads.
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    # oar's predictor picks its thread count per input shape from measured times (max, max/2, ..,
    # 1; inference/thread_tuner.h): pinned to the configured count unless --adaptive.
    if not args.adaptive:
        os.environ["OAR_PREDICTOR_ADAPTIVE_THREADS"] = "0"

    from importlib.metadata import version  # not imported here: each framework runs in its own process
    start = time.perf_counter()
    print(f"CPU: {harness.cpu_name()}, {os.cpu_count()} cores, {args.threads} threads per predictor "
          f"({'oar adaptive: up to' if args.adaptive else 'oar pinned:'} {args.threads}); "
          f"oar {version('oar')}, paddle {version('paddlepaddle')}; load average before: "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        gen = subprocess.run([sys.executable, os.path.abspath(__file__), "--generate", tmp, "--models", ",".join(names)],
                             capture_output=True, text=True)
        if gen.returncode != 0:
            sys.exit("Paddle could not save the models: " + (gen.stderr.strip().splitlines() or ["?"])[-1])
        rng = np.random.RandomState(0)
        batches = {n: list(BATCHES) for n in names}
        for n in names:
            for b in batches[n]:
                np.save(os.path.join(tmp, f"{n}_b{b}_x.npy"), rng.standard_normal([b] + SHAPES[n]).astype("float32"))
        notes, fewer = set(), set()
        for n in names:
            cfg = {"tmp": tmp, "models": {n: batches[n]}, "threads": args.threads, "repeat": repeat,
                   "target": target, "budget": budget}
            res = {**run("paddle", RUN_BODY, cfg), **run("oar", RUN_BODY, cfg)}
            if "default mkldnn" in res:
                notes.add(f"Paddle Inference configs: 'pd default' = Config(json, pdiparams) + disable_glog_info() + "
                          f"set_cpu_math_library_num_threads({args.threads}), mkldnn_enabled()={res['default mkldnn']}; "
                          f"'pd plain' = the same + disable_mkldnn(), mkldnn_enabled()={res['plain mkldnn']}")
            for b in batches[n]:
                t = {c: res.get(f"{n} b{b} {c}") for c in ("oar", "default", "plain")}
                outs = {c: os.path.join(tmp, f"{n}_b{b}_{c}.npy") for c in t}
                diff = rel = None
                if t["oar"] is not None:
                    mine = np.load(outs["oar"])
                    for c in ("default", "plain"):
                        if t[c] is not None:
                            want = np.load(outs[c])
                            d = float(np.abs(mine.astype(np.float64) - want).max())
                            r = d / max(float(np.abs(want).max()), 1e-30)
                            diff, rel = max(diff or 0.0, d), max(rel or 0.0, r)
                rows.append((n, b, t, diff, rel, os.getloadavg()[0]))
                fewer.update(f"{n} b{b} {c} ({res[f'{n} b{b} {c} repeats']})" for c in t
                             if res.get(f"{n} b{b} {c} repeats", repeat) < repeat)
                print_row(*rows[-1], header=len(rows) == 1)
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}; "
          f"{time.perf_counter() - start:.0f} s in all")
    for note in sorted(notes):
        print(note)
    if fewer:
        print(f"fewer than {repeat} repeats (where {repeat} would take over {budget:.0f} s): " + ", ".join(sorted(fewer)))
    print("ratio = faster Paddle config's time / oar's time (above 1: oar is faster); best pd = that config; "
          "rel = max|diff| / max|Paddle output|; load = 1-minute load average after the row")
    slower = [f"{n} b{b} ({best(t)[1] / t['oar']:.2f})" for n, b, t, *_ in rows
              if t["oar"] and best(t) and best(t)[1] < t["oar"]]
    if slower:
        print("oar slower than Paddle: " + ", ".join(slower))
    bad = [f"{n} b{b}" for n, b, _, _, rel, _ in rows if rel is not None and rel > 1e-4]
    if bad:
        print("outputs differ by more than 1e-4 relative: " + ", ".join(bad))


def best(t):
    """(config, seconds) of the faster Paddle config, or None."""
    got = [(c, t[c]) for c in ("default", "plain") if t[c] is not None]
    return min(got, key=lambda p: p[1]) if got else None


def print_row(name, batch, t, diff, rel, load, header=False):
    if header:
        print(f"{'model':20s} {'batch':>5s} {'oar':>10s} {'pd default':>10s} {'pd plain':>10s} {'ratio':>6s} "
              f"{'best pd':>7s} {'max|diff|':>9s} {'rel':>8s} {'load':>5s}")
    f = harness.fmt
    b = best(t)
    ratio = f"{b[1] / t['oar']:.2f}" if b and t["oar"] else "n/a"
    d = f"{diff:9.1e}" if diff is not None else f"{'n/a':>9s}"
    r = f"{rel:8.1e}" if rel is not None else f"{'n/a':>8s}"
    print(f"{name:20s} {batch:5d} {f(t['oar']):>10s} {f(t['default']):>10s} {f(t['plain']):>10s} "
          f"{ratio:>6s} {b[0] if b else 'n/a':>7s} {d} {r} {load:5.2f}", flush=True)


if __name__ == "__main__":
    main()
