"""oar.onnx.export: models exported with a dynamic batch and run by onnxruntime match oar's own
outputs (eager and the predictor on a jit.save'd copy); the ONNX graph has a symbolic batch dim,
weights as initializers and passes onnx.checker; opsets, paths, configs and unmapped ops give the
documented behaviour (docs/onnx.md)."""
import os
import re
import warnings

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import oar  # noqa: E402
import oar.nn as nn  # noqa: E402
from oar.static import InputSpec  # noqa: E402

pytestmark = pytest.mark.host_only  # onnxruntime runs on the host; the device pass has nothing here

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _close(got, ref):
    """float32 agreement: max |got - ref| <= 1e-5 * (1 + max |ref|) (absolute near 0, relative
    to the output's scale otherwise)."""
    assert got.shape == ref.shape and got.dtype == ref.dtype
    err, scale = float(np.abs(got - ref).max()), float(np.abs(ref).max())
    assert err <= 1e-5 * (1 + scale), f"max abs diff {err} at output scale {scale}"


def _randomize_norms(model):
    """Batch norms with non-trivial statistics and affine parameters (fresh ones are near the
    identity, which would hide a wrong operand order)."""
    rng = np.random.RandomState(7)
    for layer in model.sublayers(include_self=True):
        if isinstance(layer, (nn.BatchNorm1D, nn.BatchNorm2D)):
            c = layer._mean.shape[0]
            layer._mean.set_value(rng.normal(0, 0.1, c).astype("float32"))
            layer._variance.set_value(rng.uniform(0.5, 2.0, c).astype("float32"))
            layer.weight.set_value(rng.uniform(0.5, 1.5, c).astype("float32"))
            layer.bias.set_value(rng.normal(0, 0.1, c).astype("float32"))
    return model


def _session(path):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    return ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])


def _predict(prefix, x):
    config = oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    pred = oar.inference.create_predictor(config)
    h = pred.get_input_handle(pred.get_input_names()[0])
    h.copy_from_cpu(x)
    pred.run()
    return pred.get_output_handle(pred.get_output_names()[0]).copy_to_cpu()


# ---- the models -----------------------------------------------------------------------------------
class Recurrent(nn.Layer):
    def __init__(self, cell, **kwargs):
        super().__init__()
        self.rnn = cell(8, 16, num_layers=2, **kwargs)
        self.fc = nn.Linear(16 * (2 if kwargs.get("direction") == "bidirect" else 1), 4)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y)


def _vgg11():
    """VGG-11's features and pool, with its classifier 64 wide instead of 4096 (the 4096-wide one
    is 500 MB of weights: the same ops, seconds of CI)."""
    from oar.vision.models.vgg import VGG, cfgs, make_layers
    model = VGG(make_layers(cfgs["A"]), num_classes=0)
    model.num_classes = 10
    model.classifier = nn.Sequential(nn.Linear(512 * 7 * 7, 64), nn.ReLU(), nn.Dropout(),
                                     nn.Linear(64, 64), nn.ReLU(), nn.Dropout(), nn.Linear(64, 10))
    return model


V = oar.vision.models
MODELS = {
    "lenet": (lambda: V.LeNet(), [1, 28, 28]),
    "resnet18": (lambda: V.resnet18(num_classes=10), [3, 32, 32]),
    "mobilenet_v2": (lambda: V.mobilenet_v2(num_classes=10), [3, 32, 32]),
    "mobilenet_v3_small": (lambda: V.mobilenet_v3_small(num_classes=10), [3, 64, 64]),
    "vgg11": (_vgg11, [3, 32, 32]),
    "transformer_encoder": (lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0), 2),
                            [5, 32]),
    "lstm": (lambda: Recurrent(nn.LSTM), [6, 8]),
    "gru": (lambda: Recurrent(nn.GRU, direction="bidirect"), [6, 8]),
}


def _build(name):
    make, shape = MODELS[name]
    oar.seed(0)
    model = _randomize_norms(make())
    model.eval()
    return model, shape


@pytest.mark.parametrize("name", list(MODELS))
def test_model_matches_onnxruntime_at_two_batch_sizes(name, tmp_path):
    model, shape = _build(name)
    spec = [InputSpec([None] + shape, "float32", "x")]
    prefix = str(tmp_path / name)
    oar.onnx.export(model, prefix, input_spec=spec)

    proto = onnx.load(prefix + ".onnx")
    onnx.checker.check_model(proto)
    assert proto.opset_import[0].version == 9
    (x_info,) = proto.graph.input  # the weights are initializers, not inputs
    assert x_info.name == "x"
    dims = x_info.type.tensor_type.shape.dim
    assert dims[0].dim_param and not dims[0].HasField("dim_value")
    assert [d.dim_value for d in dims[1:]] == shape
    assert [o.name for o in proto.graph.output] == ["output_0"]
    assert proto.graph.output[0].type.tensor_type.shape.dim[0].dim_param
    initialized = sum(int(np.prod(t.dims)) for t in proto.graph.initializer)
    assert initialized >= sum(int(np.prod(p.shape)) for p in model.parameters())
    if name not in ("lstm", "gru"):  # the recurrent weights are stored in ONNX's gate order
        assert {p.name for p in model.parameters()} <= {t.name for t in proto.graph.initializer}

    sess = _session(prefix + ".onnx")
    rng = np.random.RandomState(1)
    for batch in (1, 3):
        x = rng.standard_normal([batch] + shape).astype("float32")
        ref = model(oar.to_tensor(x)).numpy()
        (got,) = sess.run(None, {"x": x})
        _close(got, ref)
    # the predictor on a jit.save'd copy: the deployed oar model and the ONNX one agree
    oar.jit.save(model, prefix, input_spec=spec)
    _close(sess.run(None, {"x": x})[0], _predict(prefix, x))


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU, nn.SimpleRNN])
def test_a_recurrent_layer_exports_its_outputs_and_final_states(cls, tmp_path):
    oar.seed(0)
    net = cls(3, 4, num_layers=2, direction="bidirect", time_major=True)
    prefix = str(tmp_path / "rnn")
    oar.onnx.export(net, prefix, input_spec=[InputSpec([5, None, 3], "float32", "x")], opset_version=13)
    x = np.random.RandomState(0).standard_normal([5, 2, 3]).astype("float32")
    out, states = net(oar.to_tensor(x))
    want = [out] + (list(states) if isinstance(states, (list, tuple)) else [states])
    got = _session(prefix + ".onnx").run(None, {"x": x})
    assert len(got) == len(want)
    for g, w in zip(got, want):
        _close(g, w.numpy())


# ---- opsets -------------------------------------------------------------------------------------
class Mixed(nn.Layer):
    """Ops whose ONNX form depends on the opset: GELU (Gelu 20), softmax on a middle axis (Softmax
    13), hardswish (14), layer norm (17), squeeze/unsqueeze/split (axes as inputs from 13), a
    reduction (axes input from 18), a channel-last conv and an avg pool with padding."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(4, 6, 3, padding=1, data_format="NHWC")
        self.pool = nn.AvgPool2D(3, 2, padding=1, exclusive=False)
        self.norm = nn.LayerNorm([6])
        self.fc = nn.Linear(6, 6)

    def forward(self, x):
        y = self.conv(x)                                    # [B, 8, 8, 6]
        y = oar.transpose(y, [0, 3, 1, 2])
        y = self.pool(y)                                    # [B, 6, 4, 4]
        y = oar.nn.functional.softmax(y, axis=1)
        y = oar.transpose(y, [0, 2, 3, 1])
        y = self.fc(self.norm(oar.nn.functional.gelu(y)))  # [B, 4, 4, 6]
        a, b = oar.split(y, [2, 4], axis=-1)
        z = oar.unsqueeze(oar.nn.functional.hardswish(a).mean(axis=[1, 2]), 1)
        return oar.concat([oar.squeeze(z, 1), b.sum(axis=[1, 2])], axis=-1) * 0.5 + 1.0


@pytest.mark.parametrize("opset", [9, 11, 13, 14, 17, 18, 20])
def test_opset_dependent_forms_agree_with_oar(opset, tmp_path):
    oar.seed(0)
    model = Mixed()
    model.eval()
    prefix = str(tmp_path / "mixed")
    oar.onnx.export(model, prefix, input_spec=[InputSpec([None, 8, 8, 4], "float32", "x")],
                    opset_version=opset)
    proto = onnx.load(prefix + ".onnx")
    assert proto.opset_import[0].version == opset
    types = {n.op_type for n in proto.graph.node}
    assert ("LayerNormalization" in types) == (opset >= 17)
    assert ("HardSwish" in types) == (opset >= 14)
    assert ("Gelu" in types) == (opset >= 20)
    x = np.random.RandomState(0).standard_normal([2, 8, 8, 4]).astype("float32")
    _close(_session(prefix + ".onnx").run(None, {"x": x})[0], model(oar.to_tensor(x)).numpy())


class CeilPool(nn.Layer):
    def forward(self, x):
        return oar.nn.functional.max_pool2d(x, 2, 2, ceil_mode=True)


def test_an_op_that_needs_a_newer_opset_raises_it_with_a_warning(tmp_path):
    prefix = str(tmp_path / "ceil")
    spec = [InputSpec([None, 3, 5, 5], "float32", "x")]
    with pytest.warns(UserWarning, match=r"opset_version 9 is raised to 10: 'max_pool2d' \(ceil_mode"):
        oar.onnx.export(CeilPool(), prefix, input_spec=spec)
    proto = onnx.load(prefix + ".onnx")
    assert proto.opset_import[0].version == 10
    x = np.random.RandomState(0).standard_normal([2, 3, 5, 5]).astype("float32")
    _close(_session(prefix + ".onnx").run(None, {"x": x})[0], CeilPool()(oar.to_tensor(x)).numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # asked for enough: no warning
        oar.onnx.export(CeilPool(), prefix, input_spec=spec, opset_version=10)


def test_without_auto_upgrade_a_too_low_opset_is_a_value_error_naming_the_op(tmp_path):
    with pytest.raises(ValueError, match=r"'max_pool2d' \(ceil_mode of a pool.*needs opset 10.*opset_version is 9"):
        oar.onnx.export(CeilPool(), str(tmp_path / "m"), input_spec=[InputSpec([None, 3, 5, 5])],
                        auto_upgrade_opset=False)
    assert not os.path.exists(tmp_path / "m.onnx")


@pytest.mark.parametrize("opset", [8, 1000, "13", True])
def test_opset_version_out_of_range_or_not_an_int(opset, tmp_path):
    with pytest.raises(TypeError if not isinstance(opset, int) or isinstance(opset, bool) else ValueError,
                       match="opset_version"):
        oar.onnx.export(nn.Linear(2, 2), str(tmp_path / "m"), input_spec=[InputSpec([None, 2])],
                        opset_version=opset)


# ---- errors -------------------------------------------------------------------------------------
class Sorts(nn.Layer):
    def forward(self, x):
        return oar.sort(oar.nn.functional.relu(x), axis=-1)


def test_an_unmapped_op_is_not_implemented_naming_it_and_where(tmp_path):
    with pytest.raises(NotImplementedError) as info:
        oar.onnx.export(Sorts(), str(tmp_path / "m"), input_spec=[InputSpec([None, 4], "float32", "x")])
    text = str(info.value)
    assert "'sort'" in text and "opset 9" in text
    assert re.search(r"operation #\d+ 'sort'", text) and "= sort(" in text  # its line of the program
    assert not os.path.exists(tmp_path / "m.onnx")


@pytest.mark.parametrize("path", ["", "out/", 3])
def test_bad_paths_are_value_errors(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="path"):
        oar.onnx.export(nn.Linear(2, 2), path, input_spec=[InputSpec([None, 2])])


def test_path_is_a_prefix_with_directories_made_and_the_write_atomic(tmp_path):
    prefix = str(tmp_path / "a" / "b" / "net")
    model = nn.Linear(2, 3)
    oar.onnx.export(model, prefix, input_spec=[InputSpec([None, 2])])
    assert sorted(os.listdir(tmp_path / "a" / "b")) == ["net.onnx"]  # no temporaries left
    before = open(prefix + ".onnx", "rb").read()
    with pytest.raises(NotImplementedError):  # a failed export leaves the old file whole
        oar.onnx.export(Sorts(), prefix, input_spec=[InputSpec([None, 4])])
    assert open(prefix + ".onnx", "rb").read() == before
    with pytest.warns(UserWarning, match=r"net\.onnx\.onnx"):  # Paddle's rule: the suffix is added
        oar.onnx.export(model, prefix + ".onnx", input_spec=[InputSpec([None, 2])])
    assert os.path.exists(prefix + ".onnx.onnx")


@pytest.mark.parametrize("spec,error", [(InputSpec([None, 2]), TypeError), ([3], TypeError),
                                        ([InputSpec([None, 5])], ValueError)])
def test_bad_input_specs(spec, error, tmp_path):
    with pytest.raises(error):
        oar.onnx.export(nn.Linear(2, 2), str(tmp_path / "m"), input_spec=spec)


def test_no_input_spec_and_no_call_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="input_spec"):
        oar.onnx.export(nn.Linear(2, 2), str(tmp_path / "m"))


def test_an_unknown_config_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match=r"additional config \(dynamic_axes\)"):
        oar.onnx.export(nn.Linear(2, 2), str(tmp_path / "m"), input_spec=[InputSpec([None, 2])],
                        dynamic_axes={})


# ---- outputs, inputs and modes ------------------------------------------------------------------
class TwoHeads(nn.Layer):
    def __init__(self):
        super().__init__()
        self.a, self.b, self.emb = nn.Linear(4, 3), nn.Linear(4, 2), nn.Embedding(10, 2)

    def forward(self, x, ids):
        return self.a(x), x, self.b(x) + self.emb(ids).sum(axis=1)


def test_outputs_in_order_an_integer_input_and_output_spec(tmp_path):
    oar.seed(0)
    model = TwoHeads()
    specs = [InputSpec([None, 4], "float32", "x"), InputSpec([None, 3], "int64", "ids")]
    prefix = str(tmp_path / "heads")
    oar.onnx.export(model, prefix, input_spec=specs)
    x = np.random.RandomState(0).standard_normal([5, 4]).astype("float32")
    ids = np.random.RandomState(1).randint(0, 10, [5, 3]).astype("int64")
    refs = [t.numpy() for t in model(oar.to_tensor(x), oar.to_tensor(ids))]
    sess = _session(prefix + ".onnx")
    assert [i.name for i in sess.get_inputs()] == ["x", "ids"]
    assert [o.name for o in sess.get_outputs()] == ["output_0", "output_1", "output_2"]
    for got, ref in zip(sess.run(None, {"x": x, "ids": ids}), refs):
        _close(got, ref)

    oar.onnx.export(model, prefix, input_spec=specs, output_spec=[2])  # pruned to one output
    sess = _session(prefix + ".onnx")
    assert [o.name for o in sess.get_outputs()] == ["output_2"]
    _close(sess.run(None, {"x": x, "ids": ids})[0], refs[2])
    oar.onnx.export(model, prefix, input_spec=specs, output_spec=[0], input_names_after_prune=["x"])
    assert [i.name for i in _session(prefix + ".onnx").get_inputs()] == ["x"]
    with pytest.raises(ValueError, match="output_spec"):
        oar.onnx.export(model, prefix, input_spec=specs, output_spec=[3])
    with pytest.raises(ValueError, match="'ids'"):
        oar.onnx.export(model, prefix, input_spec=specs, output_spec=[2], input_names_after_prune=["x"])


def test_a_training_mode_layer_exports_its_inference_form_with_a_warning(tmp_path):
    oar.seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1D(8), nn.Dropout(0.5), nn.Linear(8, 2))
    _randomize_norms(model)
    prefix = str(tmp_path / "train")
    with pytest.warns(UserWarning, match="exported for inference.*batch norm.*dropout"):
        oar.onnx.export(model, prefix, input_spec=[InputSpec([None, 4], "float32", "x")])
    model.eval()
    x = np.random.RandomState(0).standard_normal([3, 4]).astype("float32")
    _close(_session(prefix + ".onnx").run(None, {"x": x})[0], model(oar.to_tensor(x)).numpy())


def test_the_docs_list_every_converted_op():
    with open(os.path.join(ROOT, "docs", "onnx.md")) as f:
        text = f.read()
    missing = [op for op in oar.onnx.supported_ops() if f"`{op}`" not in text]
    assert not missing, f"docs/onnx.md does not list {missing}"


# ---- one converter at a time --------------------------------------------------------------------
F = oar.nn.functional


def activations(x):
    return (F.relu6(x * 4) + F.hardtanh(x, -0.5, 0.7) + F.leaky_relu(x, 0.2) + F.elu(x, 0.8) + F.selu(x)
            + F.silu(x) + F.swish(x) + F.mish(x) + F.softsign(x) + F.log_sigmoid(x) + F.tanhshrink(x)
            + F.softshrink(x, 0.3) + F.hardshrink(x, 0.3) + F.thresholded_relu(x, 0.2) + F.hardsigmoid(x)
            + F.sigmoid(x) + oar.tanh(x))


def gelu_softplus(x):
    return F.gelu(x, approximate=True) + F.gelu(x) + F.softplus(x, 2.0, 5.0) + F.softplus(x) + F.celu(x, 1.5)


def unary_math(x):
    p = oar.abs(x) + 0.5
    return (oar.rsqrt(p) + oar.square(x) + oar.log1p(p) + oar.expm1(x) + oar.log2(p) + oar.log10(p)
            + oar.stanh(x) + oar.trunc(x * 3) + oar.sign(x) + oar.erf(x) + oar.sin(x) + oar.cos(x)
            + oar.exp(x) + oar.sqrt(p) + oar.floor(x) + oar.ceil(x) + oar.reciprocal(p) + (-x) + oar.atan(x))


def binary(x, y):
    return ((x / (oar.abs(y) + 0.5)) + oar.maximum(x, y) - oar.minimum(x, y) + oar.pow(oar.abs(x) + 0.5, 2.5)
            + oar.scale(x, 2.0, 1.0, bias_after_scale=False) + oar.clip(x, -0.3, 0.4)
            + oar.where(x > y, x, y) + (x >= y).astype("float32") + (x != y).astype("float32")
            + oar.logical_and(x < y, x <= 0).astype("float32") + (x == y).astype("float32"))


def reductions(x):
    parts = [x.sum(axis=1, keepdim=True), x.mean(axis=[1, 2], keepdim=True).expand([-1, 1, 5]),
             oar.amax(x, axis=1, keepdim=True), oar.prod(x, axis=1, keepdim=True),
             oar.logsumexp(x, axis=1, keepdim=True), oar.cumsum(x, axis=1), F.log_softmax(x, axis=1)]
    return oar.concat(parts, axis=1) + oar.argmax(x, axis=1, keepdim=True).astype("float32") + x.max() - x.min()


def shapes(x):
    parts = [oar.flatten(x, 0, 1).reshape([-1, 4, 5]), oar.flatten(x, 1, 2).reshape([-1, 4, 5]),
             oar.squeeze(oar.unsqueeze(x, [-1, 1]), [1, 4]), oar.flip(x, [1, 2]),
             oar.expand(x[:, :1, :], [-1, 4, 5]), oar.tile(x[:, :, :1], [1, 1, 5]),
             oar.broadcast_to(x[:, :, 2:3], [-1, 4, 5]), oar.stack(oar.unbind(x, axis=1), axis=1),
             oar.concat(oar.chunk(x, 2, axis=1)[::-1], axis=1),
             oar.concat(oar.split(x, [3, 2], axis=2)[::-1], axis=2),
             x[:, ::2, 1:4].tile([1, 2, 1])[:, :, :1].expand([-1, 4, 5]),
             oar.transpose(x, [0, 2, 1]).transpose([0, 2, 1]),
             oar.full_like(x, 0.5) + oar.zeros_like(x) + oar.arange(5).astype("float32"),
             oar.masked_fill(x, x > 0.5, 2.0), oar.gather(x, oar.to_tensor([3, 0, 1, 1]), axis=1),
             oar.index_select(x, oar.to_tensor([4, 0, 1, 2, 3]), axis=2), oar.tril(x, 1) + oar.triu(x, -1)]
    return oar.concat(parts, axis=1)


class ConvFamily(nn.Layer):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1D(3, 4, 3, padding="same")
        self.c2 = nn.Conv2D(3, 4, 3, stride=2, dilation=2, padding=[1, 2])
        self.c3 = nn.Conv2D(3, 6, 3, groups=3, padding="SAME", stride=2)
        self.t1 = nn.Conv2DTranspose(3, 4, 3, stride=2, padding=1)
        self.t2 = nn.Conv2DTranspose(3, 2, 4, stride=2, padding=1, output_padding=1)
        self.c4 = nn.Conv3D(3, 2, 2)

    def forward(self, x):
        return [self.c1(x.reshape([0, 3, 64])), self.c2(x), self.c3(x), self.t1(x), self.t2(x),
                self.t1(x, output_size=[16, 16]), self.c4(x.reshape([0, 3, 4, 4, 4]))]


def pool_family(x):
    return [F.max_pool1d(x.reshape([0, 3, 64]), 3, 2, 1), F.avg_pool2d(x, 3, 2, 1, ceil_mode=True),
            F.avg_pool2d(x, 2, padding=1, exclusive=False), F.max_pool2d(x, 3, 1, "SAME"),
            F.adaptive_avg_pool2d(x, [3, 5]), F.adaptive_max_pool2d(x, [3, 2]),
            F.adaptive_avg_pool1d(x.reshape([0, 3, 64]), 5), F.adaptive_max_pool2d(x, 4),
            F.adaptive_avg_pool3d(x.reshape([0, 3, 4, 4, 4]), [2, 3, 1])]


class NormFamily(nn.Layer):
    def __init__(self):
        super().__init__()
        self.gn, self.inorm = nn.GroupNorm(2, 4), nn.InstanceNorm2D(4)
        self.ln = nn.LayerNorm([6, 6], weight_attr=False, bias_attr=False)
        self.bn_last, self.bn1 = nn.BatchNorm2D(4, data_format="NHWC"), nn.BatchNorm1D(4)

    def forward(self, x):
        return [self.gn(x), self.inorm(x), self.ln(x), self.bn_last(x.transpose([0, 2, 3, 1])),
                self.bn1(x.reshape([0, 4, 36]))]


class PadEmbedAttention(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 8)

    def forward(self, x, ids):
        mask = x[:, :, :1, :1].transpose([0, 2, 3, 1]) > 0
        return [F.pad(x, [1, 2, 0, 1], mode="reflect"), F.pad(x, [2, 1, 1, 0], mode="replicate"),
                F.pad(x, [1, 1, 1, 1], value=0.5), F.scaled_dot_product_attention(x, x, x, is_causal=True),
                F.scaled_dot_product_attention(x, x, x, attn_mask=mask), self.emb(ids),
                F.dropout(x, 0.3, training=False, mode="downscale_in_infer")]


def dynamic_dims(x):
    return [oar.flatten(x, 0, 1), oar.flatten(x, 1, 2), F.softmax(x, axis=1), x.mean(axis=-1)]


# name -> (function or Layer class, input shapes without the batch dim (None: dynamic), opset)
OPS = {
    "activations": (activations, [[7, 3]], 9),
    "gelu_softplus": (gelu_softplus, [[7, 3]], 12),
    "unary_math": (unary_math, [[7, 3]], 9),
    "binary": (binary, [[4, 5], [4, 5]], 12),
    "reductions": (reductions, [[3, 5]], 11),
    "shapes": (shapes, [[4, 5]], 14),
    "conv_family": (ConvFamily, [[3, 8, 8]], 9),
    "pool_family": (pool_family, [[3, 8, 8]], 10),
    "norm_family": (NormFamily, [[4, 6, 6]], 9),
    "pad_embed_attention": (PadEmbedAttention, [[3, 4, 5], "ids"], 11),
    "dynamic_dims": (dynamic_dims, [[4, None]], 9),
}


@pytest.mark.parametrize("name", list(OPS))
def test_each_converter_agrees_with_oar(name, tmp_path):
    fn, shapes, opset = OPS[name]
    oar.seed(0)
    if isinstance(fn, type):
        fn = _randomize_norms(fn())
        fn.eval()
    rng = np.random.RandomState(3)
    specs, feeds = [], {}
    for i, shape in enumerate(shapes):
        if shape == "ids":
            specs.append(InputSpec([None, 3], "int64", f"in{i}"))
            feeds[f"in{i}"] = rng.randint(0, 10, [2, 3]).astype("int64")
        else:
            specs.append(InputSpec([None] + shape, "float32", f"in{i}"))
            feeds[f"in{i}"] = rng.standard_normal([2] + [d or 3 for d in shape]).astype("float32")
    prefix = str(tmp_path / name)
    oar.onnx.export(fn, prefix, input_spec=specs, opset_version=opset)
    got = _session(prefix + ".onnx").run(None, feeds)
    refs = fn(*[oar.to_tensor(v) for v in feeds.values()])
    refs = refs if isinstance(refs, (list, tuple)) else [refs]
    assert len(got) == len(refs)
    for g, r in zip(got, refs):
        _close(g, r.numpy())
