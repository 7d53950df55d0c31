"""oar.onnx.export on the models of tests/python/test_onnx_export.py (full-size VGG-11 here): per
model the export time, the max abs difference between onnxruntime and oar's eager outputs, and
the latency of onnxruntime against oar's predictor (jit.save -> oar.inference) at batch 1 and 32,
both with the same thread count (OMP_NUM_THREADS, default 2), on the CPU named in the output.
    .venv/bin/python bench/bench_onnx_export.py [--models lenet,resnet18] [--repeat 7]
"""
import argparse
import os
import sys
import tempfile
import time
import timeit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

import numpy as np  # noqa: E402


def models():
    import oar
    import oar.nn as nn

    class Recurrent(nn.Layer):
        def __init__(self, cell):
            super().__init__()
            self.rnn, self.fc = cell(8, 16, num_layers=2), nn.Linear(16, 4)

        def forward(self, x):
            return self.fc(self.rnn(x)[0])

    V = oar.vision.models
    return {
        "lenet": (V.LeNet, [1, 28, 28]),
        "resnet18": (lambda: V.resnet18(num_classes=10), [3, 32, 32]),
        "mobilenet_v2": (lambda: V.mobilenet_v2(num_classes=10), [3, 32, 32]),
        "mobilenet_v3_small": (lambda: V.mobilenet_v3_small(num_classes=10), [3, 64, 64]),
        "vgg11": (lambda: V.vgg11(num_classes=10), [3, 32, 32]),
        "transformer_encoder": (lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0), 2),
                                [5, 32]),
        "lstm": (lambda: Recurrent(nn.LSTM), [6, 8]),
        "gru": (lambda: Recurrent(nn.GRU), [6, 8]),
    }


def measure(name, make, shape, tmp, threads, repeat):
    import oar
    import onnxruntime as ort
    from oar.static import InputSpec

    oar.seed(0)
    model = make()
    model.eval()
    spec = [InputSpec([None] + shape, "float32", "x")]
    prefix = os.path.join(tmp, name)
    t0 = time.perf_counter()
    oar.onnx.export(model, prefix, input_spec=spec)
    export_s = time.perf_counter() - t0
    oar.jit.save(model, prefix, input_spec=spec)

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(prefix + ".onnx", opts, providers=["CPUExecutionProvider"])
    pred = oar.inference.create_predictor(oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams"))
    handle = pred.get_input_handle(pred.get_input_names()[0])
    out = pred.get_output_handle(pred.get_output_names()[0])

    def run_pred(x):
        handle.copy_from_cpu(x)
        pred.run()
        return out.copy_to_cpu()

    row = {"export": export_s}
    rng = np.random.RandomState(0)
    diff = 0.0
    for batch in (1, 32):
        x = rng.standard_normal([batch] + shape).astype("float32")
        got = sess.run(None, {"x": x})[0]
        diff = max(diff, float(np.abs(got - model(oar.to_tensor(x)).numpy()).max()))
        number = 20 if batch == 1 else 3
        row[f"ort{batch}"] = min(timeit.repeat(lambda: sess.run(None, {"x": x}), number=number,
                                               repeat=repeat)) / number
        run_pred(x)  # warm-up
        row[f"pred{batch}"] = min(timeit.repeat(lambda: run_pred(x), number=number, repeat=repeat)) / number
    row["diff"] = diff
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="", help="comma-separated subset (default: all)")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    threads = int(os.environ.get("OMP_NUM_THREADS", "2"))
    import oar
    import onnxruntime as ort
    oar.set_num_threads(threads)
    table = models()
    names = [n for n in args.models.split(",") if n] or list(table)
    print(f"CPU: {harness.cpu_name()}, {os.cpu_count()} cores, {threads} threads; oar {oar.__version__}, "
          f"onnxruntime {ort.__version__}")
    print("ratio = predictor time / onnxruntime time (above 1: onnxruntime is faster)")
    print(f"{'model':20s} {'export':>9s} {'max|diff|':>9s} {'ort b1':>9s} {'pred b1':>9s} {'ratio':>6s} "
          f"{'ort b32':>9s} {'pred b32':>9s} {'ratio':>6s}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            make, shape = table[name]
            r = measure(name, make, shape, tmp, threads, args.repeat)
            f = harness.fmt
            print(f"{name:20s} {f(r['export']):>9s} {r['diff']:9.1e} {f(r['ort1']):>9s} {f(r['pred1']):>9s} "
                  f"{r['pred1'] / r['ort1']:6.2f} {f(r['ort32']):>9s} {f(r['pred32']):>9s} "
                  f"{r['pred32'] / r['ort32']:6.2f}", flush=True)


if __name__ == "__main__":
    main()
