"""The predictor's memory plan: an inference run of a Transformer encoder and of a conv net
needs less memory at its peak than the eager forward of the same batch (in-place elementwise
steps, linear layers with their bias and activation in one buffer, attention without the
[B, H, S, S] scores, inference dropout gone), and computes the same numbers."""
import numpy as np
import pytest


import oar
from oar.static import InputSpec

# Host predictor behaviour (test_device_custom_cpu.py runs the predictor on a device).
pytestmark = pytest.mark.host_only

nn = oar.nn


def _peaks(tmp_path, model, x):
    model.eval()
    path = str(tmp_path / "m")
    oar.jit.save(model, path, input_spec=[InputSpec([None, *x.shape[1:]], "float32", "x")])
    cfg = oar.inference.Config(path + ".pdmodel", path + ".pdiparams")
    pred = oar.inference.create_predictor(cfg)
    h_in = pred.get_input_handle("x")
    h_out = pred.get_output_handle(pred.get_output_names()[0])
    h_in.copy_from_cpu(x)
    pred.run()  # the first run packs weights
    oar._C._reset_peak_memory()
    base = oar._C._memory_stats()["allocated"]
    pred.run()
    pred_peak = oar._C._memory_stats()["peak_allocated"] - base
    got = h_out.copy_to_cpu()
    stats = pred.last_run_stats()
    xt = oar.to_tensor(x)
    oar._C._reset_peak_memory()
    base = oar._C._memory_stats()["allocated"]
    with oar.no_grad():
        ref = model(xt)
    eager_peak = oar._C._memory_stats()["peak_allocated"] - base
    return got, ref.numpy(), pred_peak, eager_peak, stats


def test_encoder_predictor_peak_is_below_eager(tmp_path):
    np.random.seed(0)
    model = nn.TransformerEncoder(nn.TransformerEncoderLayer(64, 4, 256, dropout=0.1), 2)
    x = np.random.rand(2, 16, 64).astype("float32")
    got, ref, pred_peak, eager_peak, stats = _peaks(tmp_path, model, x)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)
    assert stats["ops_in_place"] > 0
    assert pred_peak < eager_peak, (pred_peak, eager_peak)


def test_lenet_predictor_peak_is_below_eager(tmp_path):
    np.random.seed(1)
    model = nn.Sequential(nn.Conv2D(1, 6, 3, 1, 1), nn.ReLU(), nn.MaxPool2D(2, 2), nn.Conv2D(6, 16, 5), nn.ReLU(),
                          nn.MaxPool2D(2, 2), nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 10))
    x = np.random.rand(8, 1, 28, 28).astype("float32")
    got, ref, pred_peak, eager_peak, _ = _peaks(tmp_path, model, x)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5)
    assert pred_peak < eager_peak, (pred_peak, eager_peak)
