"""Inference through each framework's deployment path, in one run on one machine: LeNet (28x28),
ResNet-18 (32x32 inputs) and a 4-layer Transformer encoder (d_model 256, seq 128) at batch 1
(latency) and batch 32 (throughput; the encoder at batch 8), with the same architecture and
weights layout in each framework:

  oar:    oar.jit.save -> oar.inference predictor (C++ executor); also oar eager (no_grad)
  torch:  eager (inference_mode) and TorchScript (torch.jit.trace + freeze)
  ort:    onnxruntime on the ONNX export of the PyTorch model
  paddle: paddle.jit.save -> Paddle Inference predictor

Also the peak memory of oar's predictor run against oar's eager forward of the same batch.
    bash tools/setup_bench.sh && .venv/bin/python bench/bench_inference.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

BODY = r'''
import tempfile
TMP = tempfile.mkdtemp()
THREADS = int(os.environ.get("OMP_NUM_THREADS", "2"))
np.random.seed(0)
if FW == "torch":
    nn = F.nn
    Conv = lambda ci, co, k, s=1, p=0, bias=True: nn.Conv2d(ci, co, k, stride=s, padding=p, bias=bias)
    BN, Lin, ReLU, Seq, Flat = nn.BatchNorm2d, nn.Linear, nn.ReLU, nn.Sequential, nn.Flatten
    MaxPool = lambda k, s: nn.MaxPool2d(k, s)
    AvgPool1 = lambda: nn.AdaptiveAvgPool2d(1)
    Module = nn.Module
    def encoder():
        layer = nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, batch_first=True)
        return nn.TransformerEncoder(layer, 4, enable_nested_tensor=False)
else:
    nn = F.nn
    Conv = lambda ci, co, k, s=1, p=0, bias=True: nn.Conv2D(ci, co, k, stride=s, padding=p,
                                                            bias_attr=None if bias else False)
    BN, Lin, ReLU, Seq, Flat = nn.BatchNorm2D, nn.Linear, nn.ReLU, nn.Sequential, nn.Flatten
    MaxPool = lambda k, s: nn.MaxPool2D(k, s)
    AvgPool1 = lambda: nn.AdaptiveAvgPool2D(1)
    Module = nn.Layer
    def encoder():
        return nn.TransformerEncoder(nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0), 4)

def lenet():
    return Seq(Conv(1, 6, 3, 1, 1), ReLU(), MaxPool(2, 2), Conv(6, 16, 5), ReLU(), MaxPool(2, 2), Flat(),
               Lin(400, 120), Lin(120, 84), Lin(84, 10))

class Block(Module):
    def __init__(self, ci, co, s):
        super().__init__()
        self.c1, self.b1 = Conv(ci, co, 3, s, 1, False), BN(co)
        self.c2, self.b2 = Conv(co, co, 3, 1, 1, False), BN(co)
        self.relu = ReLU()
        self.down = Seq(Conv(ci, co, 1, s, 0, False), BN(co)) if s != 1 or ci != co else None
    def forward(self, x):
        y = self.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        return self.relu(y + (x if self.down is None else self.down(x)))

def resnet18():
    layers = [Conv(3, 64, 7, 2, 3, False), BN(64), ReLU(), MaxPool(3, 2)]
    ci = 64
    for co, s in ((64, 1), (128, 2), (256, 2), (512, 2)):
        layers += [Block(ci, co, s), Block(co, co, 1)]
        ci = co
    return Seq(*layers, AvgPool1(), Flat(), Lin(512, 10))

MODELS = [("lenet", lenet, (1, 28, 28), 32), ("resnet18", resnet18, (3, 32, 32), 32),
          ("encoder", encoder, (128, 256), 8)]

def timed(fn, batch):
    n = 20 if batch == 1 else 5
    return best(fn, n, repeat=5)

for name, make, shape, big in MODELS:
    model = make()
    model.eval()
    for batch in (1, big):
        x = np.random.rand(batch, *shape).astype("float32")
        key = f"{name} b{batch}"
        if FW == "oar":
            from oar.static import InputSpec
            path = os.path.join(TMP, name)
            if batch == 1:
                F.jit.save(model, path, input_spec=[InputSpec([None, *shape], "float32", "x")])
                cfg = F.inference.Config(path + ".pdmodel", path + ".pdiparams")
                cfg.set_cpu_math_library_num_threads(THREADS)
                pred = F.inference.create_predictor(cfg)
                h_in = pred.get_input_handle("x")
                h_out = pred.get_output_handle(pred.get_output_names()[0])
            def run():
                h_in.copy_from_cpu(x)
                pred.run()
                return h_out.copy_to_cpu()
            res[key + " predictor"] = timed(run, batch)
            # Peak of the allocator during one run, measured the same way as for eager below.
            F._C._reset_peak_memory()
            base = F._C._memory_stats()["allocated"]
            pred.run()
            res[key + " predictor peak MB"] = (F._C._memory_stats()["peak_allocated"] - base) / 2**20
            xt = F.to_tensor(x)
            def eager():
                with F.no_grad():
                    return model(xt).numpy()
            res[key + " eager"] = timed(eager, batch)
            F._C._reset_peak_memory()
            base = F._C._memory_stats()["allocated"]
            with F.no_grad():
                out = model(xt)
            res[key + " eager peak MB"] = (F._C._memory_stats()["peak_allocated"] - base) / 2**20
            del out
        elif FW == "torch":
            xt = F.from_numpy(x)
            def eager():
                with F.inference_mode():
                    return model(xt).numpy()
            res[key + " eager"] = timed(eager, batch)
            with F.no_grad():
                traced = F.jit.freeze(F.jit.trace(model, xt))
            def jit():
                with F.inference_mode():
                    return traced(xt).numpy()
            res[key + " torch.jit"] = timed(jit, batch)
            try:
                import onnxruntime as ort
                path = os.path.join(TMP, f"{name}_{batch}.onnx")
                with F.no_grad():
                    F.onnx.export(model, xt, path, input_names=["x"], output_names=["y"],
                                  dynamic_axes={"x": {0: "n"}, "y": {0: "n"}}, opset_version=14)
                so = ort.SessionOptions()
                so.intra_op_num_threads = THREADS
                sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
                res[key + " onnxruntime"] = timed(lambda: sess.run(None, {"x": x})[0], batch)
            except Exception as e:  # noqa: BLE001
                print(f"onnxruntime not measured for {key}: {e}", file=sys.stderr)
        else:  # paddle
            import paddle.inference as pi
            from paddle.static import InputSpec
            path = os.path.join(TMP, name)
            if batch == 1:
                F.jit.save(model, path, input_spec=[InputSpec([None, *shape], "float32", "x")])
                prog = path + (".json" if os.path.exists(path + ".json") else ".pdmodel")
                cfg = pi.Config(prog, path + ".pdiparams")
                cfg.disable_gpu()
                cfg.set_cpu_math_library_num_threads(THREADS)
                cfg.disable_glog_info()
                pred = pi.create_predictor(cfg)
                h_in = pred.get_input_handle(pred.get_input_names()[0])
                h_out = pred.get_output_handle(pred.get_output_names()[0])
            def run():
                h_in.copy_from_cpu(x)
                pred.run()
                return h_out.copy_to_cpu()
            res[key + " inference"] = timed(run, batch)
'''


def main():
    print(harness.machine_line(), flush=True)
    oar_res, err = harness.run(sys.executable, "oar", BODY)
    if oar_res is None:
        sys.exit(f"oar benchmark failed: {err}")
    torch_res, terr = harness.run(os.environ.get("TORCH_PYTHON", harness.REF_PYTHON), "torch", BODY)
    paddle_res, perr = harness.run(os.environ.get("PADDLE_PYTHON", harness.REF_PYTHON), "paddle", BODY)
    for fw, e in (("torch", terr), ("paddle", perr)):
        if e:
            print(f"({fw} not measured: {e})")
    torch_res, paddle_res = torch_res or {}, paddle_res or {}
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print("Inference, time per batch; ratio = other's time / oar predictor's time (above 1: oar is faster)")
    cols = [("oar eager", oar_res, "eager"), ("torch eager", torch_res, "eager"),
            ("torch.jit", torch_res, "torch.jit"), ("onnxruntime", torch_res, "onnxruntime"),
            ("paddle infer", paddle_res, "inference")]
    print(f"{'case':14s} {'oar pred':>10s} " + " ".join(f"{c:>17s}" for c, _, _ in cols))
    for key in sorted({k.rsplit(' ', 1)[0] for k in oar_res if k.endswith("predictor")}, key=lambda s: (s.split()[0], len(s))):
        mine = oar_res[f"{key} predictor"]
        cells = []
        for _, res, suffix in cols:
            t = res.get(f"{key} {suffix}")
            cells.append(f"{harness.fmt(t)} ({t / mine:.2f}x)" if t else "n/a")
        print(f"{key:14s} {harness.fmt(mine):>10s} " + " ".join(f"{c:>17s}" for c in cells))
    print("\nPeak memory of one forward (MB, allocator peak above the live bytes before it): oar predictor vs oar eager")
    for key in sorted({k.rsplit(' ', 3)[0] for k in oar_res if k.endswith("peak MB")}):
        p, e = oar_res[key + ' predictor peak MB'], oar_res[key + ' eager peak MB']
        print(f"{key:14s} predictor {p:8.3f}   eager {e:8.3f}   predictor/eager {p / e:5.2f}")


if __name__ == "__main__":
    main()
