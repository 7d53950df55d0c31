"""Mixed precision on the CPU: bfloat16 against float32 in oar, beside PyTorch (torch.autocast on
the CPU) and Paddle (whose CPU build ignores paddle.amp.auto_cast, so only its matmul runs in
bfloat16) in the same run.

Cases: matmul 1024^3 and 4096^3 in float32 and bfloat16; one training step (forward, loss,
backward, Adam) of the MLP, ResNet-18 on 32x32 inputs and the 4-layer Transformer encoder of
bench_train.py, in float32 and under auto_cast(dtype='bfloat16').
Then the int8 predictor: models quantized with oar.quantization.PTQ (abs-max observers), saved
with jit.save and run by the predictor, against the float32 predictor of the same model.
Usage: bash tools/setup_bench.sh && .venv/bin/python bench/bench_amp.py [--int8-only]
Targets (issue 16): on a CPU with AVX512_BF16, bfloat16 matmul >= 1.8x float32's GFLOP/s and
training steps >= 1.3x faster; on an AVX2-only CPU, bfloat16 no slower than 1.2x float32; the
int8 predictor >= 1.5x the float32 predictor.
"""
import os
import sys

from bench_train import BODY as TRAIN_BODY
from harness import REF_PYTHON, fmt, machine_line, run

# The models and step function of bench_train.py, then this benchmark's cases.
MODELS = TRAIN_BODY.split("rng = np.random.default_rng(0)")[0]

BODY = MODELS + r'''
def autocast(on):
    if torch:
        return F.autocast("cpu", dtype=F.bfloat16, enabled=on)
    import contextlib
    if FW == "paddle":  # Paddle's CPU build ignores auto_cast (it warns): no bfloat16 step to time
        return contextlib.nullcontext()
    return F.amp.auto_cast(enable=on, dtype="bfloat16")

rng = np.random.default_rng(0)
def cast(t, dtype):
    return t.to(getattr(F, dtype)) if torch else t.astype(dtype)
for n, number, repeat in ((1024, 5, 5), (4096, 1, 3)):
    a = T(rng.standard_normal((n, n), dtype=np.float32))
    b = T(rng.standard_normal((n, n), dtype=np.float32))
    for dtype in ("float32", "bfloat16"):
        aa, bb = cast(a, dtype), cast(b, dtype)
        try:
            res[f"matmul {n}^3 {dtype}"] = best(lambda: F.matmul(aa, bb), number, repeat)
        except Exception:  # Paddle's CPU build has no bfloat16 matmul kernel
            pass
cases = [
    ("MLP b128", lambda: nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                                       nn.Linear(512, 10)), (128, 784), 20),
    ("ResNet-18 32x32 b32", ResNet18, (32, 3, 32, 32), 2),
    ("Transformer enc 4x256 s128 b16", EncoderModel, (16, 128, 256), 2),
]
for name, make, shape, number in cases:
    x = T(rng.standard_normal(shape, dtype=np.float32))
    y = T(rng.integers(0, 10, shape[0]).astype(np.int64))
    for on in (False, True):
        if on and FW == "paddle":
            continue
        F.seed(0) if not torch else F.manual_seed(0)
        res[f"{name} {'bf16' if on else 'fp32'} step"] = best(step_fn(make(), x, y, lambda: autocast(on)), number, 3)
'''


def main():
    print(machine_line())
    oar_res, err = run(sys.executable, "oar", BODY)
    if oar_res is None:
        sys.exit(f"oar benchmark failed: {err}")
    others = {}
    for fw, var in (("torch", "TORCH_PYTHON"), ("paddle", "PADDLE_PYTHON")):
        res, ferr = run(os.environ.get(var, REF_PYTHON), fw, BODY)
        others[fw] = res or {}
        if res is None:
            print(f"({fw} not measured: {ferr})")
    print("ratio = other's time / oar's time (above 1: oar is faster); "
          "bf16 gain = the same framework's float32 time / its bfloat16 time")
    print(f"{'case':42s} {'oar':>9s} {'torch':>9s} {'paddle':>9s} {'torch/oar':>9s} {'paddle/oar':>10s} "
          f"{'oar bf16 gain':>13s} {'torch bf16 gain':>15s}")
    for case, v in oar_res.items():
        t, p = others["torch"].get(case), others["paddle"].get(case)
        ratio = lambda o: f"{o / v:.2f}" if o else "n/a"
        gain, tgain = "", ""
        if "bfloat16" in case or "bf16" in case:
            twin = case.replace("bfloat16", "float32").replace("bf16", "fp32")
            gain = f"{oar_res[twin] / v:.2f}"
            if t and others["torch"].get(twin):
                tgain = f"{others['torch'][twin] / t:.2f}"
        print(f"{case:42s} {fmt(v):>9s} {fmt(t):>9s} {fmt(p):>9s} {ratio(t):>9s} {ratio(p):>10s} "
              f"{gain:>13s} {tgain:>15s}")


def int8_predictor():
    """oar's predictor on PTQ-int8 models against its float32 predictor (same run, same inputs)."""
    import tempfile
    import timeit

    import numpy as np

    import oar
    from oar.quantization import PTQ, QuantConfig
    from oar.quantization.observers import AbsmaxObserver

    class Encoder(oar.nn.Layer):
        def __init__(self):
            super().__init__()
            self.enc = oar.nn.TransformerEncoder(oar.nn.TransformerEncoderLayer(256, 8, 1024, dropout=0.0), 4)
            self.head = oar.nn.Linear(256, 10)

        def forward(self, x):
            return self.head(self.enc(x).mean(1))

    def mlp():
        return oar.nn.Sequential(oar.nn.Linear(784, 512), oar.nn.ReLU(), oar.nn.Linear(512, 512), oar.nn.ReLU(),
                                 oar.nn.Linear(512, 10))
    rng = np.random.default_rng(0)
    cases = [("MLP 784-512-512-10 b128", mlp, (128, 784)), ("Transformer enc 4x256 s128 b8", Encoder, (8, 128, 256)),
             ("ResNet-18 32x32 b32", lambda: oar.vision.models.resnet18(num_classes=10), (32, 3, 32, 32))]
    print("\nint8 predictor (PTQ, abs-max) vs float32 predictor; ratio above 1: int8 is faster")
    print(f"{'case':38s} {'float32':>10s} {'int8':>10s} {'ratio':>7s} {'same top-1':>11s}")
    with tempfile.TemporaryDirectory() as d:
        for name, make, shape in cases:
            oar.seed(0)
            net = make()
            net.eval()
            ptq = PTQ(QuantConfig(activation=AbsmaxObserver(), weight=AbsmaxObserver()))
            q = ptq.quantize(net)
            for _ in range(2):
                q(oar.to_tensor(rng.standard_normal(shape).astype(np.float32)))
            x = rng.standard_normal(shape).astype(np.float32)
            spec = [oar.static.InputSpec([None] + list(shape[1:]), "float32", "x")]
            runs = {}
            for kind, model in (("float32", net), ("int8", ptq.convert(q))):
                prefix = os.path.join(d, kind + name.split()[0])
                oar.jit.save(model, prefix, input_spec=spec)
                pred = oar.inference.create_predictor(oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams"))
                handle = pred.get_input_handle(pred.get_input_names()[0])

                def run(pred=pred, handle=handle):
                    handle.copy_from_cpu(x)
                    pred.run()
                    return pred.get_output_handle(pred.get_output_names()[0]).copy_to_cpu()
                out = run()
                runs[kind] = (min(timeit.repeat(run, number=3, repeat=5)) / 3, out)
            (tf, of), (tq, oq) = runs["float32"], runs["int8"]
            same = float((of.argmax(-1) == oq.argmax(-1)).mean())
            print(f"{name:38s} {fmt(tf):>10s} {fmt(tq):>10s} {tf / tq:7.2f} {same:11.2f}")


if __name__ == "__main__":
    if "--int8-only" not in sys.argv[1:]:
        main()
    else:
        print(machine_line())
    int8_predictor()
