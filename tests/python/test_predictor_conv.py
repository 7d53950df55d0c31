"""Predictor convolutions (the blocked_conv pass: oneDNN post-ops and channel-blocked activations
between convolutions and pools) give eager's results on LeNet- and ResNet-like models, with channel
counts that are not multiples of the block (16), at batch 1 and above, and with oneDNN switched off
(the fallback kernels)."""
import os
import subprocess
import sys

import numpy as np
import pytest


import oar
import oar.nn as nn
from oar.static import InputSpec

# Host predictor behaviour (test_device_custom_cpu.py runs the predictor on a device).
pytestmark = pytest.mark.host_only


class Block(nn.Layer):
    def __init__(self, ci, co, stride):
        super().__init__()
        self.c1, self.b1 = nn.Conv2D(ci, co, 3, stride=stride, padding=1, bias_attr=False), nn.BatchNorm2D(co)
        self.c2, self.b2 = nn.Conv2D(co, co, 3, padding=1, bias_attr=False), nn.BatchNorm2D(co)
        self.down = None
        if stride != 1 or ci != co:
            self.down = nn.Sequential(nn.Conv2D(ci, co, 1, stride=stride, bias_attr=False), nn.BatchNorm2D(co))

    def forward(self, x):
        y = nn.functional.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        return nn.functional.relu(y + (x if self.down is None else self.down(x)))


def resnet_like():
    # Widths 17 (convs read it NCHW: padding it to 32 lanes costs more than it saves), 70 and 96 (blocked,
    # 70 with a partial block); identity and downsampling residuals; max pools with padding and
    # ceil_mode on NCHW and on blocked activations.
    return nn.Sequential(nn.Conv2D(3, 17, 3, padding=1), nn.BatchNorm2D(17), nn.ReLU(),
                         nn.MaxPool2D(3, 2, padding=1, ceil_mode=True),
                         Block(17, 17, 1), Block(17, 70, 2), Block(70, 70, 1),
                         nn.MaxPool2D(3, 2, padding=1, ceil_mode=True), Block(70, 96, 2),
                         nn.AdaptiveAvgPool2D(1), nn.Flatten(), nn.Linear(96, 5))


def lenet_like():
    return nn.Sequential(nn.Conv2D(1, 6, 3, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
                         nn.Conv2D(6, 16, 5), nn.ReLU(), nn.MaxPool2D(2, 2), nn.Flatten(),
                         nn.Linear(16 * 5 * 5, 20), nn.Linear(20, 10))


def mobilenet_like():
    # Depthwise (groups = channels, 32 and 70) and grouped (groups = 2) convolutions between
    # blocked activations, a residual over them, and a strided pointwise conv.
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2D(3, 32, 3, stride=2, padding=1)
            self.dw1 = nn.Conv2D(32, 32, 3, padding=1, groups=32)
            self.pw1 = nn.Conv2D(32, 70, 1)
            self.dw2 = nn.Conv2D(70, 70, 3, padding=1, groups=70)
            self.g2 = nn.Conv2D(70, 70, 3, padding=1, groups=2)
            self.pw2 = nn.Conv2D(70, 96, 1, stride=2)

        def forward(self, x):
            y = nn.functional.relu(self.stem(x))
            y = nn.functional.relu(self.pw1(nn.functional.relu(self.dw1(y))))
            y = nn.functional.relu(self.g2(nn.functional.relu(self.dw2(y))) + y)
            return self.pw2(y).mean(axis=[2, 3])
    return Net()


def conv_then_elementwise():
    # A blocked conv output read by an op that wants NCHW (the sigmoid, then a second reader).
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv2D(3, 70, 3, padding=1)
            self.c2 = nn.Conv2D(70, 5, 1)

        def forward(self, x):
            y = self.c1(x)
            return self.c2(y) * 2.0, nn.functional.sigmoid(y).mean()
    return Net()


def _randomise_batch_norm(model, rng):
    for layer in model.sublayers():
        if isinstance(layer, nn.BatchNorm2D):
            c = layer._mean.shape[0]
            layer._mean.set_value(rng.standard_normal(c).astype("float32") * 0.1)
            layer._variance.set_value(rng.random(c).astype("float32") + 0.5)
            layer.weight.set_value(rng.random(c).astype("float32") + 0.5)
            layer.bias.set_value(rng.standard_normal(c).astype("float32") * 0.1)


def _check(tmp_path, make, shape, batches):
    oar.seed(3)
    rng = np.random.default_rng(3)
    model = make()
    _randomise_batch_norm(model, rng)
    model.eval()
    prefix = str(tmp_path / "model")
    oar.jit.save(model, prefix, input_spec=[InputSpec([None, *shape], "float32", "x")])
    predictor = oar.inference.create_predictor(oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams"))
    for batch in batches:
        x = rng.standard_normal((batch, *shape)).astype("float32")
        predictor.get_input_handle("x").copy_from_cpu(x)
        predictor.run()
        with oar.no_grad():
            ref = model(oar.to_tensor(x))
        refs = ref if isinstance(ref, (list, tuple)) else [ref]
        for name, r in zip(predictor.get_output_names(), refs):
            out = predictor.get_output_handle(name).copy_to_cpu()
            np.testing.assert_allclose(out, r.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("make,shape", [(lenet_like, (1, 28, 28)), (resnet_like, (3, 19, 21)),
                                        # 1x1 and 2x2 maps at the end: kernels cropped to their used taps
                                        (resnet_like, (3, 9, 9)),
                                        (mobilenet_like, (3, 15, 17)), (conv_then_elementwise, (3, 9, 7))])
def test_predictor_conv_matches_eager(tmp_path, make, shape):
    _check(tmp_path, make, shape, batches=(1, 3))


def _check_nan_relu(tmp_path):
    # conv + bias + relu (oneDNN post-op, or the fallback) with NaN in the input: relu maps the NaN
    # results to 0 as the eager relu does (and Paddle); +inf stays +inf.
    oar.seed(2)
    model = nn.Sequential(nn.Conv2D(3, 20, 3, padding=1), nn.ReLU(), nn.Conv2D(20, 4, 1))
    model.eval()
    prefix = str(tmp_path / "nan")
    oar.jit.save(model, prefix, input_spec=[InputSpec([None, 3, 6, 6], "float32", "x")])
    predictor = oar.inference.create_predictor(oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams"))
    x = np.random.default_rng(0).standard_normal((2, 3, 6, 6)).astype("float32")
    x[0, 1, 2, 2] = np.nan
    x[1, 0, 4, 4] = np.inf
    predictor.get_input_handle("x").copy_from_cpu(x)
    predictor.run()
    out = predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()
    with oar.no_grad():
        ref = model(oar.to_tensor(x)).numpy()
    assert not np.isnan(ref[0]).any()  # the eager relu zeroed the NaN conv results
    np.testing.assert_array_equal(np.isnan(out), np.isnan(ref))
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_predictor_conv_relu_maps_nan_to_zero(tmp_path):
    _check_nan_relu(tmp_path)


def test_predictor_conv_fallback_without_onednn(tmp_path):
    # OAR_CONV_ONEDNN=0 is read once per process: run the same checks in a child.
    code = ("import sys, pathlib; sys.path.insert(0, %r); import test_predictor_conv as t; "
            "p = pathlib.Path(%r); [t._check(p / n, m, s, (1, 2)) for n, m, s in "
            "(('a', t.lenet_like, (1, 28, 28)), ('b', t.resnet_like, (3, 9, 9)))]; t._check_nan_relu(p)"
            % (os.path.dirname(__file__), str(tmp_path)))
    for n in ("a", "b"):
        (tmp_path / n).mkdir()
    env = dict(os.environ, OAR_CONV_ONEDNN="0")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]


def test_predictor_program_keeps_blocked_layout(tmp_path):
    # The ResNet-like program after the predictor's passes: activations stay blocked from the
    # first convolution to the global pool; one conversion back, before flatten.
    _ir = oar._C._ir
    oar.seed(0)
    model = resnet_like()
    model.eval()
    prefix = str(tmp_path / "m")
    oar.jit.save(model, prefix, input_spec=[InputSpec([None, 3, 16, 16], "float32", "x")])
    program, params, _ = _ir.load_model(prefix + ".pdmodel", prefix + ".pdiparams")
    _ir.optimize_for_inference(program, params)
    text = str(program)
    # The stem (3 -> 17 channels, 27 taps) and its pool are one conv2d_max_pool_fused writing NCHW,
    # which the next convs read (17 channels are not worth blocking).
    assert text.count("conv2d_max_pool_fused(") == 1 and text.count("conv2d_fused(") == 10, text
    assert "conv2d(" not in text and "to_blocked_layout(" not in text, text
    # Blocked from the first 70-channel conv on; one conversion, before flatten.
    assert text.count("to_plain_layout(") == 1, text
    assert "max_pool2d(" not in text and text.count("max_pool2d_blocked(") == 1, text
    assert "global_avg_pool2d_blocked(" in text, text


def _conv_pool(ci, co, k, padding, pool_k, pool_s, pool_p, ceil_mode, relu):
    layers = [nn.Conv2D(ci, co, k, padding=padding)] + ([nn.ReLU()] if relu else [])
    return nn.Sequential(*layers, nn.MaxPool2D(pool_k, pool_s, padding=pool_p, ceil_mode=ceil_mode))


@pytest.mark.parametrize("ci,co,k,padding,pool,shape,relu", [
    (1, 6, 3, 1, (2, 2, 0, False), (28, 28), True),     # LeNet's first layer: the vector pair path
    (1, 6, 5, 2, (2, 2, 0, True), (13, 35), False),     # odd sizes: the last window is clipped
    (3, 17, 3, 1, (3, 2, 1, True), (19, 21), True),     # overlapping padded windows, 5 filter groups
    (2, 5, 3, 0, (3, 1, 0, False), (9, 40), False),     # stride-1 pool, rows of two column groups
    (3, 9, (2, 3), (0, 1), (2, 2, 0, False), (8, 70), True),  # rectangular kernel, 3 column groups
])
def test_first_layer_conv_and_pool_fused(tmp_path, ci, co, k, padding, pool, shape, relu):
    # A few-channel conv and the max pool reading it become one conv2d_max_pool_fused (its
    # full-resolution output never exists); results equal eager's, NaN and -inf included.
    oar.seed(1)
    model = _conv_pool(ci, co, k, padding, *pool, relu)
    model.eval()
    prefix = str(tmp_path / "m")
    oar.jit.save(model, prefix, input_spec=[InputSpec([None, ci, *shape], "float32", "x")])
    program, params, _ = oar._C._ir.load_model(prefix + ".pdmodel", prefix + ".pdiparams")
    oar._C._ir.optimize_for_inference(program, params)
    text = str(program)
    assert "conv2d_max_pool_fused(" in text and "max_pool2d" not in text, text
    predictor = oar.inference.create_predictor(oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams"))
    rng = np.random.default_rng(0)
    for batch in (1, 3):
        x = rng.standard_normal((batch, ci, *shape)).astype("float32")
        x[0, 0, 2, 3] = np.nan
        x[-1, -1, 4, 5] = np.inf
        x[-1, 0, 1, :] = -np.inf
        predictor.get_input_handle("x").copy_from_cpu(x)
        predictor.run()
        out = predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()
        with oar.no_grad():
            ref = model(oar.to_tensor(x)).numpy()
        assert out.shape == ref.shape
        np.testing.assert_array_equal(np.isnan(out), np.isnan(ref))
        np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
