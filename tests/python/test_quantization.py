"""oar.quantization: PTQ and QAT of Linear/Conv2D, checked against the numbers real Paddle 3.3
gives for the same weights and inputs, the quantize/dequantize arithmetic against NumPy, the
straight-through gradient, configs, convert, export through jit.save and the predictor, and the
errors."""
import os

import numpy as np
import pytest

import oar
from oar import _C
from oar.quantization import PTQ, QAT, QuantConfig, BaseQuanter, quanter
from oar.quantization.observers import AbsmaxObserver, GroupWiseWeightObserver
from oar.quantization.quanters import FakeQuanterWithAbsMaxObserver

W = np.array([[0.5, -1.0, 0.25], [0.1, 0.2, -0.3], [-0.7, 0.05, 0.9], [1.27, -0.01, 0.33]], "float32")
B = np.array([0.1, -0.2, 0.3], "float32")
X1 = np.array([[1.0, -2.0, 0.5, 3.0], [0.3, 0.7, -1.1, 0.2]], "float32")
X2 = np.array([[-4.0, 1.0, 0.0, 0.5]], "float32")


class M(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = oar.nn.Linear(4, 3)
        self.relu = oar.nn.ReLU()
        self.fc.weight.set_value(W)
        self.fc.bias.set_value(B)

    def forward(self, x):
        return self.relu(self.fc(x))


def qdq_even(v, s, bits=8):  # quantize_linear then dequantize_linear
    qmax = 2 ** (bits - 1) - 1
    return np.clip(np.round(v / s * qmax), -qmax - 1, qmax) * s / qmax


def _predict(prefix, x, ir_optim):
    """The saved model at prefix run by the predictor on x (with or without its passes)."""
    config = oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    config.switch_ir_optim(ir_optim)
    pred = oar.inference.create_predictor(config)
    h = pred.get_input_handle(pred.get_input_names()[0])
    h.copy_from_cpu(x)
    pred.run()
    return pred.get_output_handle(pred.get_output_names()[0]).copy_to_cpu()


# ---- the arithmetic ---------------------------------------------------------------------------
def test_kernels_match_paddles_rounding_and_ranges():
    x = oar.to_tensor([0.5, 1.5, 2.5, -0.5, -2.5, 126.5, 127.4, -127.5, -128.0, -200.0])
    s = oar.to_tensor([127.0])
    # QAT's fake quant: halves away from zero, clipped to [-s, s] first: ints in [-127, 127].
    assert _C.fake_quantize_dequantize(x, s, 8, 1).numpy().tolist() == \
        [1, 2, 3, -1, -3, 127, 127, -127, -127, -127]
    # quantize_linear: halves to even, ints in [-128, 127].
    assert _C.quantize_linear(x, s, None, -1, 8, 0).numpy().tolist() == \
        [0, 2, 2, -0.0, -2, 126, 127, -128, -128, -128]
    four = oar.to_tensor([3.5, -9.0, 9.0, -8.0, 0.49])
    assert _C.quantize_linear(four, oar.to_tensor([7.0]), None, -1, 4, 0).numpy().tolist() == [4, -8, 7, -8, 0]
    # Per channel (axis 1).
    x2 = oar.to_tensor([[0.5, 0.5], [1.0, -2.0]])
    sc = oar.to_tensor([1.0, 2.0])
    q = _C.quantize_linear(x2, sc, None, 1, 8, 0)
    assert q.numpy().tolist() == [[64, 32], [127, -127]]
    np.testing.assert_allclose(_C.dequantize_linear(q, sc, None, 1, 8).numpy(),
                               [[0.503937, 0.503937], [1, -2]], rtol=1e-6)
    # A zero scale quantizes to zero (not nan).
    assert _C.quantize_linear(x2, oar.to_tensor([0.0]), None, -1, 8, 0).numpy().tolist() == [[0, 0], [0, 0]]
    rng = np.random.default_rng(0)
    v = rng.standard_normal((5, 7)).astype(np.float32) * 3
    np.testing.assert_allclose(
        _C.dequantize_linear(_C.quantize_linear(oar.to_tensor(v), oar.to_tensor([2.0]), None, -1, 8, 0),
                             oar.to_tensor([2.0]), None, -1, 8).numpy(), qdq_even(v, 2.0), rtol=1e-6)


def test_kernel_argument_errors():
    x = oar.ones([2, 3])
    with pytest.raises(ValueError, match="'scale' must have shape \\[3\\]"):
        _C.quantize_linear(x, oar.ones([2]), None, 1, 8, 0)
    with pytest.raises(IndexError, match="quant_axis"):
        _C.quantize_linear(x, oar.ones([3]), None, 2, 8, 0)
    with pytest.raises(ValueError, match="bit_length"):
        _C.fake_quantize_dequantize(x, oar.ones([1]), 40, 1)
    with pytest.raises(TypeError, match="'x'"):
        _C.quantize_linear(oar.ones([2], "int32"), oar.ones([1]), None, -1, 8, 0)


def test_fake_quant_gradient_is_straight_through_and_bf16_works():
    x = oar.to_tensor([10.0, -10.0, 1.0, 0.5], stop_gradient=False)
    out = _C.fake_quantize_dequantize(x, oar.to_tensor([2.0]), 8, 1)
    (g,) = oar.grad([out.sum()], [x])
    assert g.numpy().tolist() == [1, 1, 1, 1]  # outside the clip range too, as Paddle
    xb = oar.to_tensor([1.0, -0.3], dtype="bfloat16")
    assert _C.fake_quantize_dequantize(xb, oar.to_tensor([1.0]), 8, 1).dtype == oar.bfloat16


# ---- PTQ ---------------------------------------------------------------------------------------
def test_ptq_matches_paddle():
    m = M()
    m.eval()
    ref = m(oar.to_tensor(X1)).numpy()
    ptq = PTQ(QuantConfig(activation=AbsmaxObserver(), weight=AbsmaxObserver()))
    qm = ptq.quantize(m)
    assert type(qm.fc).__name__ == "QuantedLinear" and type(qm.relu).__name__ == "ObserveWrapper"
    assert type(m.fc).__name__ == "Linear"  # not in place
    np.testing.assert_array_equal(qm(oar.to_tensor(X1)).numpy(), ref)  # calibration leaves values alone
    qm(oar.to_tensor(X2))
    assert float(qm.fc.activation_quanter._max) == 4.0
    assert float(qm.fc.weight_quanter._max) == pytest.approx(1.27)
    assert float(qm.relu._observer._max) == pytest.approx(3.9949996)
    cm = ptq.convert(qm)
    assert not qm.fc.converted and cm.fc.converted
    np.testing.assert_array_equal(cm.fc.weight.numpy().ravel(), [50, -100, 25, 10, 20, -30, -70, 5, 90, 127, -1, 33])
    # Real Paddle 3.3.1: [[3.837716, 0, 2.6109052], [1.3526376, 0, 0]].
    np.testing.assert_allclose(cm(oar.to_tensor(X1)).numpy(), [[3.837716, 0, 2.6109052], [1.3526376, 0, 0]],
                               rtol=1e-6)
    keys = set(cm.state_dict())
    assert {"fc.weight", "fc.bias", "fc.weight_quanter._dequanter._scales",
            "fc.activation_quanter._quanter._scales", "relu._observer._quanter._scales"} <= keys
    # remain_weight keeps float weights and gives the same outputs.
    kept = ptq.convert(qm, remain_weight=True)
    np.testing.assert_array_equal(kept.fc.weight.numpy(), W)
    np.testing.assert_allclose(kept(oar.to_tensor(X1)).numpy(), cm(oar.to_tensor(X1)).numpy(), rtol=1e-6)
    with pytest.raises(AssertionError, match="converted only once"):
        cm.fc._convert()


def test_ptq_conv_matches_paddle():
    class C(oar.nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = oar.nn.Conv2D(1, 2, 2, bias_attr=False)
            self.pool = oar.nn.AvgPool2D(2)
            self.flat = oar.nn.Flatten()

        def forward(self, x):
            return self.flat(self.pool(self.conv(x)))
    c = C()
    c.conv.weight.set_value(np.array([[[[1.0, -0.5], [0.25, 0.0]]], [[[0.3, 0.6], [-0.9, 0.1]]]], "float32"))
    c.eval()
    x = oar.to_tensor((np.arange(9, dtype="float32").reshape(1, 1, 3, 3)) / 4 - 1)
    ptq = PTQ(QuantConfig(activation=AbsmaxObserver(), weight=AbsmaxObserver()))
    qc = ptq.quantize(c)
    qc(x)
    assert float(qc.pool._observer._max) == pytest.approx(0.6875)
    cc = ptq.convert(qc)
    np.testing.assert_array_equal(cc.conv.weight.numpy().ravel(), [127, -64, 32, 0, 38, 76, -114, 13])
    np.testing.assert_allclose(cc(x).numpy(), [[-0.310433, -0.47126]], rtol=1e-5)


def test_ptq_errors():
    m = M()
    with pytest.raises(AssertionError, match="should not work on training models"):
        PTQ(QuantConfig(activation=AbsmaxObserver(), weight=AbsmaxObserver())).quantize(m)
    m.eval()
    ptq = PTQ(QuantConfig(activation=AbsmaxObserver(), weight=AbsmaxObserver()))
    qm = ptq.quantize(m)
    with pytest.raises(RuntimeError, match="no data was observed"):  # Paddle: AttributeError on None
        ptq.convert(qm)
    with pytest.raises(TypeError, match="'activation' should be a quanter or observer factory"):
        QuantConfig(activation="abc", weight=None)
    with pytest.raises(TypeError, match="should be a QuantConfig"):
        PTQ(None)


# ---- QAT ---------------------------------------------------------------------------------------
def test_qat_matches_paddle_and_converts():
    m = M()
    q = FakeQuanterWithAbsMaxObserver(moving_rate=0.9)
    qm = QAT(QuantConfig(activation=q, weight=q)).quantize(m)
    out = qm(oar.to_tensor(X1))
    # Real Paddle 3.3.1, one training forward from fresh quanters.
    np.testing.assert_allclose(out.numpy(), [[1.7364545, 0, 1.7364545], [1.3125955, 0, 0]], rtol=1e-6)
    assert float(qm.fc.weight_quanter._scale) == pytest.approx((0.9 + 1.27) / 1.9)
    assert float(qm.fc.activation_quanter._scale) == pytest.approx((0.9 + 3) / 1.9)
    out.sum().backward()
    np.testing.assert_allclose(qm.fc.weight.grad.numpy(),
                               [[1.3091587, 0, 1.0020721], [-1.3091587, 0, -2.0041442],
                                [-0.5980108, 0, 0.50103605], [2.246581, 0, 2.0526316]], rtol=1e-6)
    qm.eval()  # scales frozen
    np.testing.assert_allclose(qm(oar.to_tensor(X1)).numpy(), out.numpy(), rtol=1e-6)
    keys = set(qm.state_dict())
    assert {"fc.weight_quanter._scale", "fc.weight_quanter._state", "fc.weight_quanter._accum",
            "fc.activation_quanter._scale", "relu._observer._scale"} <= keys
    # Paddle 3.3.1's convert raises TypeError here (zero_points() is None); oar uses zero.
    cm = QAT(QuantConfig(activation=q, weight=q)).convert(qm)
    np.testing.assert_allclose(cm(oar.to_tensor(X1)).numpy(), out.numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(AssertionError, match="should work on training models"):
        QAT(QuantConfig(activation=q, weight=q)).quantize(M().eval())


def test_fake_quanter_moving_average():
    fq = FakeQuanterWithAbsMaxObserver(moving_rate=0.9)._instance(None)
    np.testing.assert_allclose(fq(oar.to_tensor([4.0, -2.0, 1.0, 0.0])).numpy(),
                               [2.5789475, -1.990054, 0.995027, 0.0], rtol=1e-6)
    np.testing.assert_allclose(fq(oar.to_tensor([1.0, -0.5])).numpy(), [1.0060145, -0.50300723], rtol=1e-6)
    assert float(fq._state) == pytest.approx(2.71) and float(fq._accum) == pytest.approx(5.41)
    fq.eval()
    np.testing.assert_allclose(fq(oar.to_tensor([10.0, -10.0, 1.0, 0.5])).numpy(),
                               [1.9963099, -1.9963099, 1.0060145, 0.50300723], rtol=1e-6)
    assert str(FakeQuanterWithAbsMaxObserver()) == \
        "FakeQuanterWithAbsMaxObserver(name=None,moving_rate=0.9,bit_length=8,dtype=float32)"
    assert str(AbsmaxObserver()) == "AbsmaxObserver(quant_bits=8)"


def test_config_priority_matches_paddle():
    class N(oar.nn.Layer):
        def __init__(self):
            super().__init__()
            self.a, self.b = oar.nn.Linear(2, 2), oar.nn.Linear(2, 2)
            self.seq = oar.nn.Sequential(oar.nn.Linear(2, 2), oar.nn.ReLU())
            self.sig = oar.nn.Sigmoid()

        def forward(self, x):
            return self.sig(self.seq(self.b(self.a(x))))
    n = N()
    cfg = QuantConfig(None, None)
    ob8, ob4 = AbsmaxObserver(8), AbsmaxObserver(4)
    cfg.add_type_config(oar.nn.Linear, activation=ob8, weight=ob8)
    cfg.add_name_config(n.b.full_name(), activation=ob4, weight=None)
    cfg.add_layer_config(n.seq, activation=ob4, weight=ob4)
    qn = QAT(cfg).quantize(n)
    assert qn.a.weight_quanter.bit_length() == 8 and qn.a.activation_quanter.bit_length() == 8
    assert qn.b.weight_quanter is None and qn.b.activation_quanter.bit_length() == 4
    assert qn.seq[0].weight_quanter.bit_length() == 8  # its type's config beats seq's
    assert type(qn.seq[1]).__name__ == "ObserveWrapper" and qn.seq[1]._observer.bit_length() == 4
    assert type(qn.sig).__name__ == "Sigmoid"
    with pytest.raises(AssertionError, match="source layer"):
        cfg.add_qat_layer_mapping(int, oar.nn.Linear)


def test_custom_quanter_and_groupwise():
    @quanter("MyQuanter")
    class MyQuanterLayer(BaseQuanter):
        def __init__(self, layer, bits=8):
            super().__init__()
            self._bits = bits

        def forward(self, x):
            return _C.fake_quantize_dequantize(x, oar.to_tensor([1.0]), self._bits, 1)

        def scales(self):
            return oar.to_tensor([1.0])

        def zero_points(self):
            return oar.to_tensor([0.0])

        def quant_axis(self):
            return -1

        def bit_length(self):
            return self._bits
    factory = globals()["MyQuanter"](bits=4)
    assert str(factory) == "MyQuanter(bits=4)"
    qm = QAT(QuantConfig(activation=factory, weight=factory)).quantize(M())
    assert qm.fc.weight_quanter.bit_length() == 4
    with pytest.raises(TypeError, match="abstract"):
        BaseQuanter()
    # Group-wise weight scales: abs-max over each group of 64 input rows.
    lin = oar.nn.Linear(128, 3)
    obs = GroupWiseWeightObserver(quant_bits=8, group_size=64)._instance(lin)
    obs(lin.weight)
    w = np.abs(lin.weight.numpy()).reshape(2, 64, 3).max(1)
    np.testing.assert_allclose(obs.scales().numpy(), w)
    with pytest.raises(ValueError, match="group_size"):
        GroupWiseWeightObserver(group_size=32)._instance(lin)


def test_converted_model_exports_and_runs_in_the_predictor(tmp_path):
    m = M()
    m.eval()
    ptq = PTQ(QuantConfig(activation=AbsmaxObserver(), weight=AbsmaxObserver()))
    qm = ptq.quantize(m)
    qm(oar.to_tensor(X1))
    qm(oar.to_tensor(X2))
    cm = ptq.convert(qm)
    prefix = str(tmp_path / "q")
    oar.jit.save(cm, prefix, input_spec=[oar.static.InputSpec([None, 4], "float32", "x")])
    program = open(prefix + ".pdmodel").read()
    assert "quantize_linear" in program and "dequantize_linear" in program
    pred = oar.inference.create_predictor(oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams"))
    h = pred.get_input_handle(pred.get_input_names()[0])
    h.copy_from_cpu(X1)
    pred.run()
    np.testing.assert_allclose(pred.get_output_handle(pred.get_output_names()[0]).copy_to_cpu(),
                               [[3.837716, 0, 2.6109052], [1.3526376, 0, 0]], rtol=1e-6)


@pytest.mark.host_only  # a training run; the device pass covers the ops above
def test_qat_lenet_keeps_accuracy():
    """PTQ and QAT LeNet on the bundled digits: int8 within a point of float32's accuracy."""
    from oar.vision import transforms as T
    from oar.vision.datasets import Digits
    from oar.vision.models import LeNet
    transform = T.Compose([T.Resize((28, 28)), T.ToTensor(), T.Normalize(mean=[0.5], std=[0.5])])
    train, test = Digits(mode="train", transform=transform), Digits(mode="test", transform=transform)

    def fit(net):
        model = oar.Model(net)
        model.prepare(oar.optimizer.Adam(learning_rate=2e-3, parameters=net.parameters()),
                      oar.nn.CrossEntropyLoss(), oar.metric.Accuracy())
        model.fit(train, epochs=12, batch_size=64, verbose=0)
        return model.evaluate(test, batch_size=256, verbose=0)["acc"]
    oar.seed(2024)
    float_net = LeNet(num_classes=10)
    float_acc = fit(float_net)
    # PTQ of the float model: calibrated on a few training batches.
    float_net.eval()
    ptq = PTQ(QuantConfig(activation=AbsmaxObserver(), weight=AbsmaxObserver()))
    calibrated = ptq.quantize(float_net)
    for i in range(4):
        calibrated(oar.to_tensor(np.stack([np.asarray(train[j][0]) for j in range(i * 64, i * 64 + 64)])))
    ptq_model = oar.Model(ptq.convert(calibrated))
    ptq_model.prepare(metrics=oar.metric.Accuracy())
    assert ptq_model.evaluate(test, batch_size=256, verbose=0)["acc"] >= float_acc - 0.01
    oar.seed(2024)
    q = FakeQuanterWithAbsMaxObserver(moving_rate=0.9)
    qnet = QAT(QuantConfig(activation=q, weight=q)).quantize(LeNet(num_classes=10))
    qat_acc = fit(qnet)
    assert qat_acc >= float_acc - 0.01, (qat_acc, float_acc)
    converted = QAT(QuantConfig(activation=q, weight=q)).convert(qnet.eval())
    model = oar.Model(converted)
    model.prepare(metrics=oar.metric.Accuracy())
    assert model.evaluate(test, batch_size=256, verbose=0)["acc"] >= float_acc - 0.01


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("round_type", [0, 1])
def test_fake_quantize_dequantize_against_numpy(dtype, round_type):
    op = getattr(_C, "fake_quantize_dequantize")
    v = np.random.default_rng(1).standard_normal((6, 5)).astype(dtype) * 2
    s, qmax = 1.5, 127
    t = np.clip(v, -s, s) / s * qmax
    r = np.round(t) if round_type == 0 else np.sign(t) * np.floor(np.abs(t) + 0.5)
    np.testing.assert_allclose(op(oar.to_tensor(v), oar.to_tensor([s], dtype=dtype), 8, round_type).numpy(),
                               r * s / qmax, rtol=1e-6)


def test_predictor_runs_converted_linears_in_int8(tmp_path, capsys):
    """The predictor's passes turn each converted Linear (dequantize(quantize(x)) times the
    dequantized integer weight) into one int8 GEMM; its results are the float program's up to
    rounding-boundary flips of the next quantizer (one integer step)."""
    from oar.amp import debugging
    oar.seed(0)
    net = oar.nn.Sequential(oar.nn.Linear(64, 128), oar.nn.ReLU(), oar.nn.Linear(128, 32), oar.nn.ReLU(),
                            oar.nn.Linear(32, 10, bias_attr=False))
    net.eval()
    ptq = PTQ(QuantConfig(activation=AbsmaxObserver(), weight=AbsmaxObserver()))
    qn = ptq.quantize(net)
    rng = np.random.default_rng(0)
    for _ in range(3):
        qn(oar.to_tensor(rng.standard_normal((16, 64)).astype(np.float32)))
    cn = ptq.convert(qn)
    prefix = str(tmp_path / "q")
    oar.jit.save(cn, prefix, input_spec=[oar.static.InputSpec([None, 64], "float32", "x")])
    x = rng.standard_normal((40, 64)).astype(np.float32)

    capsys.readouterr()
    with debugging.collect_operator_stats():
        int8 = _predict(prefix, x, True)
    table = capsys.readouterr().out
    assert "quantized_linear" in table and " linear " not in table
    float_qdq = _predict(prefix, x, False)
    np.testing.assert_allclose(float_qdq, cn(oar.to_tensor(x)).numpy(), rtol=1e-6, atol=1e-6)
    step = float(cn[3]._observer._dequanter._scales) / 127  # the last observer's integer step
    assert np.abs(int8 - float_qdq).max() <= 2 * step * np.abs(cn[4].weight.numpy()).sum(0).max() / 127 + 1e-5


def test_layers_keeping_cpp_functions_deep_copy_and_quantize():
    """TransformerEncoderLayer keeps F.relu (a C++ function) as its activation: quantize() deep
    copies the model, which used to fail with "cannot pickle nanobind.nb_func"."""
    import copy
    import pickle
    layer = oar.nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0)
    assert copy.deepcopy(layer).activation is layer.activation
    assert pickle.loads(pickle.dumps(oar.nn.functional.relu)) is oar.nn.functional.relu
    layer.eval()
    ptq = PTQ(QuantConfig(activation=AbsmaxObserver(), weight=AbsmaxObserver()))
    q = ptq.quantize(layer)
    x = oar.to_tensor(np.random.default_rng(0).standard_normal((2, 5, 16)).astype(np.float32))
    ref = layer(x).numpy()
    np.testing.assert_array_equal(q(x).numpy(), ref)
    converted = ptq.convert(q)
    assert np.abs(converted(x).numpy() - ref).max() < 0.1 * np.abs(ref).max()


def test_quantized_linear_op_edges():
    one = oar.to_tensor([1.0])
    b = oar.to_tensor([1.0, 2.0, 3.0])
    out = _C.quantized_linear(oar.ones([2, 0]), one, one, oar.ones([0, 3]), one, b)
    assert out.numpy().tolist() == [[1, 2, 3], [1, 2, 3]]  # an empty sum: the bias
    assert _C.quantized_linear(oar.ones([0, 4]), one, one, oar.ones([4, 3]), one, None).shape == [0, 3]
    x = oar.to_tensor(np.array([[1.0, -2.0, 0.5]], np.float32))
    w = oar.to_tensor(np.array([[127.0, -5.0], [3.0, 64.0], [-128.0, 0.0]], np.float32))
    ws = oar.to_tensor([2.0, 0.5])  # one scale per output column
    got = _C.quantized_linear(x, one, one, w, ws, None).numpy()
    xq = np.clip(np.round(x.numpy() * 127), -128, 127) / 127
    np.testing.assert_allclose(got, xq @ (w.numpy() * ws.numpy() / 127), rtol=1e-6)
    with pytest.raises(ValueError, match="weight_scale"):
        _C.quantized_linear(x, one, one, w, oar.ones([3]), None)
    with pytest.raises(ValueError, match=r"x \[..., K\] and weight \[K, N\]"):
        _C.quantized_linear(oar.ones([2, 4]), one, one, w, one, None)


@pytest.mark.parametrize("groups,stride,padding,per_channel", [(1, 1, 1, False), (2, 2, 0, True), (4, 1, 2, True)])
def test_quantized_convolution_matches_the_float_program(groups, stride, padding, per_channel):
    rng = np.random.default_rng(groups)
    x = oar.to_tensor(rng.standard_normal((2, 4, 9, 9)).astype(np.float32))
    w = oar.to_tensor(np.round(rng.uniform(-128, 127, (8, 4 // groups, 3, 3))).astype(np.float32))
    ws = oar.to_tensor(rng.uniform(0.5, 2, 8).astype(np.float32) if per_channel else np.array([1.5], np.float32))
    b = oar.to_tensor(rng.standard_normal(8).astype(np.float32))
    sx, dx = oar.to_tensor([2.5]), oar.to_tensor([2.5])
    got = getattr(_C, "quantized_conv2d")(x, sx, dx, w, ws, b, [stride], [padding], [1], groups, "NCHW", "EXPLICIT")
    xd = _C.dequantize_linear(_C.quantize_linear(x, sx, None, -1, 8, 0), dx, None, -1, 8)
    wd = _C.dequantize_linear(w, ws, None, 0 if per_channel else -1, 8)
    ref = oar.nn.functional.conv2d(xd, wd, b, stride=stride, padding=padding, groups=groups)
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-5, atol=1e-4)
    # The op the composite runs, called with its resolved geometry (NCHW, explicit 4-sided padding).
    direct = getattr(_C, "quantized_convolution")(x, sx, dx, w, ws, b, [stride, stride], [padding] * 4, [1, 1],
                                                  groups, False)
    np.testing.assert_array_equal(direct.numpy(), got.numpy())


def test_predictor_runs_converted_convolutions_in_int8(tmp_path, capsys):
    from oar.amp import debugging
    oar.seed(0)
    net = oar.nn.Sequential(oar.nn.Conv2D(3, 8, 3, padding=1), oar.nn.ReLU(), oar.nn.Conv2D(8, 4, 3, stride=2),
                            oar.nn.Flatten(), oar.nn.Linear(4 * 3 * 3, 5))
    net.eval()
    ptq = PTQ(QuantConfig(activation=AbsmaxObserver(), weight=AbsmaxObserver()))
    qn = ptq.quantize(net)
    rng = np.random.default_rng(1)
    qn(oar.to_tensor(rng.standard_normal((4, 3, 8, 8)).astype(np.float32)))
    cn = ptq.convert(qn)
    prefix = str(tmp_path / "c")
    oar.jit.save(cn, prefix, input_spec=[oar.static.InputSpec([None, 3, 8, 8], "float32", "x")])
    x = rng.standard_normal((3, 3, 8, 8)).astype(np.float32)

    capsys.readouterr()
    with debugging.collect_operator_stats():
        int8 = _predict(prefix, x, True)
    table = capsys.readouterr().out
    # (the composite quantized_conv2d runs quantized_convolution inside; observers see the composite)
    assert "quantized_conv2d" in table and "quantized_linear" in table
    float_qdq = _predict(prefix, x, False)
    # Equal up to rounding-boundary flips of the quantizers between the layers.
    assert np.abs(int8 - float_qdq).max() <= 0.05 * np.abs(float_qdq).max()


@pytest.mark.parametrize("round_type", [0, 1])
def test_quantize_dequantize_is_the_pair_in_one_pass(round_type):
    x = oar.to_tensor(np.random.default_rng(3).standard_normal((4, 33)).astype(np.float32) * 3)
    s, d = oar.to_tensor([2.0]), oar.to_tensor([2.5])
    pair = _C.dequantize_linear(_C.quantize_linear(x, s, None, -1, 8, round_type), d, None, -1, 8)
    np.testing.assert_array_equal(getattr(_C, "quantize_dequantize")(x, s, d, 8, round_type).numpy(), pair.numpy())
    with pytest.raises(ValueError, match="dequant_scale"):
        _C.quantize_dequantize(x, s, oar.ones([2]), 8, 0)
