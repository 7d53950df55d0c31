"""Paddle's model files both ways. Models written by real Paddle (paddle.jit.save: a PIR `<prefix>.json` + Paddle's `.pdiparams`)
run in oar: jit.load, static.load_inference_model and the C++ predictor, each compared output for
output with Paddle (its jit.load and Paddle Inference) on the same files."""
import os
import warnings

import numpy as np
import pytest

import oar

paddle = pytest.importorskip("paddle")


def _encoder():
    layer = paddle.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0)
    return paddle.nn.TransformerEncoder(layer, 2)


class _Recurrent(paddle.nn.Layer):
    def __init__(self, kind, **kwargs):
        super().__init__()
        self.rnn = getattr(paddle.nn, kind)(16, 24, **kwargs)
        self.fc = paddle.nn.Linear(24 * (2 if kwargs.get("direction") == "bidirect" else 1), 4)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y)


class _Mixed(paddle.nn.Layer):
    """Ops the zoo does not reach: concat, split, reductions, activations, reshape by -1."""

    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(12, 12)

    def forward(self, x):
        a, b = paddle.split(self.fc(x), 2, axis=-1)
        y = paddle.concat([paddle.nn.functional.gelu(a), paddle.nn.functional.sigmoid(b) * 3.0 - 1.0], axis=-1)
        y = y.reshape([-1, 3, 4]).transpose([0, 2, 1])
        return y.mean(axis=-1, keepdim=True) + paddle.nn.functional.leaky_relu(y).sum(axis=1, keepdim=True).unsqueeze(-1).squeeze(-1)


def _vision(name, **kwargs):
    from paddle.vision import models
    return getattr(models, name)(**kwargs)


def _vgg_features():
    from paddle.vision.models import vgg
    return vgg.VGG(vgg.make_layers(vgg.cfgs["A"], batch_norm=True), num_classes=0)


# name: (constructor, input shape with -1 for the batch)
MODELS = {
    "lenet": (lambda: _vision("LeNet"), [-1, 1, 28, 28]),
    "resnet18": (lambda: _vision("resnet18", num_classes=10), [-1, 3, 64, 64]),
    "resnet50": (lambda: _vision("resnet50", num_classes=10), [-1, 3, 64, 64]),
    "mobilenet_v2": (lambda: _vision("mobilenet_v2", num_classes=10), [-1, 3, 64, 64]),
    "mobilenet_v3_small": (lambda: _vision("mobilenet_v3_small", num_classes=10), [-1, 3, 64, 64]),
    "vgg11_bn_features": (_vgg_features, [-1, 3, 32, 32]),
    "transformer_encoder": (_encoder, [-1, 16, 32]),
    "lstm": (lambda: _Recurrent("LSTM", num_layers=2), [-1, 10, 16]),
    "gru_bidirect": (lambda: _Recurrent("GRU", direction="bidirect"), [-1, 7, 16]),
    "mixed_ops": (_Mixed, [-1, 12]),
}


@pytest.fixture(scope="module")
def paddle_models(tmp_path_factory):
    """Each model saved by real Paddle, with random weights (batch norms get non-trivial statistics)."""
    root = tmp_path_factory.mktemp("paddle_models")
    paddle.seed(7)
    saved = {}
    for name, (make, shape) in MODELS.items():
        net = make()
        for sub in net.sublayers():
            if isinstance(sub, paddle.nn.BatchNorm2D):
                sub._mean.set_value(paddle.rand(sub._mean.shape) * 0.2 - 0.1)
                sub._variance.set_value(paddle.rand(sub._variance.shape) + 0.5)
        net.eval()
        prefix = str(root / name)
        paddle.jit.save(net, prefix, input_spec=[paddle.static.InputSpec(shape, "float32", "x")])
        saved[name] = (prefix, shape)
    return saved


def _inputs(shape, batch, seed=0):
    return np.random.RandomState(seed).standard_normal([batch] + shape[1:]).astype("float32")


def _paddle_jit(prefix, x):
    layer = paddle.jit.load(prefix)
    layer.eval()
    return layer(paddle.to_tensor(x)).numpy()


def _close(got, want, what):
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=2e-5 * scale, err_msg=what)


@pytest.mark.parametrize("name", list(MODELS))
def test_jit_load_of_paddle_model_matches_paddle(paddle_models, name):
    prefix, shape = paddle_models[name]
    assert os.path.exists(prefix + ".json") and not os.path.exists(prefix + ".pdmodel")
    layer = oar.jit.load(prefix)
    for batch in (1, 3):  # the batch dim is dynamic in the file
        x = _inputs(shape, batch, seed=batch)
        _close(layer(oar.to_tensor(x)).numpy(), _paddle_jit(prefix, x), f"{name}, batch {batch}")


@pytest.mark.parametrize("name", ["lenet", "resnet18", "mobilenet_v3_small", "transformer_encoder", "lstm"])
def test_predictor_on_paddle_model_matches_paddle_inference(paddle_models, name):
    prefix, shape = paddle_models[name]
    x = _inputs(shape, 2, seed=5)

    config = oar.inference.Config(prefix + ".json", prefix + ".pdiparams")
    predictor = oar.inference.create_predictor(config)
    handle = predictor.get_input_handle(predictor.get_input_names()[0])
    handle.reshape(list(x.shape))
    handle.copy_from_cpu(x)
    predictor.run()
    got = predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()

    pconfig = paddle.inference.Config(prefix + ".json", prefix + ".pdiparams")
    pconfig.disable_glog_info()
    ppred = paddle.inference.create_predictor(pconfig)
    ph = ppred.get_input_handle(ppred.get_input_names()[0])
    ph.reshape(list(x.shape))
    ph.copy_from_cpu(x)
    ppred.run()
    want = ppred.get_output_handle(ppred.get_output_names()[0]).copy_to_cpu()
    _close(got, want, name)
    assert predictor.get_input_names() == ppred.get_input_names()


def test_model_dir_with_inference_json_loads_in_predictor_with_paddle(paddle_models, tmp_path):
    prefix, shape = paddle_models["lenet"]
    for ext in (".json", ".pdiparams"):
        with open(prefix + ext, "rb") as src, open(tmp_path / ("inference" + ext), "wb") as dst:
            dst.write(src.read())
    predictor = oar.inference.create_predictor(oar.inference.Config(str(tmp_path)))
    x = _inputs(shape, 2)
    h = predictor.get_input_handle("x")
    h.reshape(list(x.shape))
    h.copy_from_cpu(x)
    predictor.run()
    out = predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()
    _close(np.asarray(out), _paddle_jit(prefix, x), "lenet from a model directory")


def test_static_load_inference_model_reads_paddle_files_with_paddle(paddle_models):
    prefix, shape = paddle_models["resnet18"]
    x = _inputs(shape, 2, seed=3)
    oar.enable_static()
    try:
        exe = oar.static.Executor(oar.CPUPlace())
        program, feeds, fetches = oar.static.load_inference_model(prefix, exe)
        assert feeds == ["x"]
        (got,) = exe.run(program, feed={"x": x}, fetch_list=fetches)
    finally:
        oar.disable_static()
    _close(got, _paddle_jit(prefix, x), "resnet18 through static.load_inference_model")


def test_loaded_paddle_model_trains_in_oar_with_paddle(paddle_models):
    """jit.load gives a layer whose parameters are trainable, as Paddle's TranslatedLayer."""
    prefix, shape = paddle_models["mixed_ops"]
    layer = oar.jit.load(prefix)
    assert sorted(p.name for p in layer.parameters()) == ["linear_0.b_0", "linear_0.w_0"] or len(layer.parameters()) == 2
    opt = oar.optimizer.SGD(learning_rate=0.1, parameters=layer.parameters())
    x = oar.to_tensor(_inputs(shape, 4))
    before = float(layer(x).square().mean())
    for _ in range(3):
        loss = layer(x).square().mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
    assert float(layer(x).square().mean()) < before


def test_unsupported_paddle_op_names_the_op_and_layer_with_paddle(tmp_path):
    class Cum(paddle.nn.Layer):
        def forward(self, x):
            return paddle.cumsum(x, axis=1) * 2.0

    prefix = str(tmp_path / "cum")
    paddle.jit.save(Cum(), prefix, input_spec=[paddle.static.InputSpec([-1, 4], "float32", "x")])
    with pytest.raises(NotImplementedError, match=r"pd_op\.cumsum.*no oar translation"):
        oar.jit.load(prefix)


def test_truncated_or_foreign_paddle_files_raise_clear_errors_with_paddle(paddle_models, tmp_path):
    prefix, _ = paddle_models["lenet"]
    text = open(prefix + ".json", "rb").read()
    params = open(prefix + ".pdiparams", "rb").read()
    cut = tmp_path / "cut"
    open(str(cut) + ".json", "wb").write(text[: len(text) // 2])
    open(str(cut) + ".pdiparams", "wb").write(params)
    with pytest.raises(ValueError, match=r"cut\.json.*not valid JSON"):
        oar.jit.load(str(cut))
    open(str(cut) + ".json", "wb").write(text)
    open(str(cut) + ".pdiparams", "wb").write(params[: len(params) - 100])
    with pytest.raises(ValueError, match=r"cut\.pdiparams.*truncated"):
        oar.jit.load(str(cut))
    other, _ = paddle_models["mixed_ops"]
    open(str(cut) + ".pdiparams", "wb").write(open(other + ".pdiparams", "rb").read())
    with pytest.raises(ValueError, match=r"holds 2 tensors but the program reads 10"):
        oar.jit.load(str(cut))


# ---- the other direction: models oar saves, run by real Paddle ----------------------------------

class _OarRecurrent(oar.nn.Layer):
    def __init__(self, kind, **kwargs):
        super().__init__()
        self.rnn = getattr(oar.nn, kind)(16, 24, **kwargs)
        self.fc = oar.nn.Linear(24 * (2 if kwargs.get("direction") == "bidirect" else 1), 4)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y)


class _OarReductions(oar.nn.Layer):
    """Reductions (global pooling by mean, sum, max, min) on a conv's output."""

    def __init__(self):
        super().__init__()
        self.conv = oar.nn.Conv2D(3, 4, 3)

    def forward(self, x):
        y = self.conv(x)
        return (y.mean([2, 3]) + y.sum(axis=[2, 3]) * 0.01 + y.max(axis=-1).max(axis=-1) - y.min(axis=[2, 3])
                + y.sum(axis=[2, 3], keepdim=True).squeeze([2, 3]) * 0.001)


def _oar_encoder():
    return oar.nn.TransformerEncoder(oar.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0), 2)


def _oar_vision(name, **kwargs):
    return getattr(oar.vision.models, name)(**kwargs)


OAR_MODELS = {
    "lenet": (lambda: _oar_vision("LeNet"), [-1, 1, 28, 28]),
    "resnet18": (lambda: _oar_vision("resnet18", num_classes=10), [-1, 3, 64, 64]),
    "mobilenet_v2": (lambda: _oar_vision("mobilenet_v2", num_classes=10), [-1, 3, 64, 64]),
    "mobilenet_v3_small": (lambda: _oar_vision("mobilenet_v3_small", num_classes=10), [-1, 3, 64, 64]),
    "vgg11_bn": (lambda: _oar_vision("vgg11", batch_norm=True, num_classes=10), [-1, 3, 32, 32]),
    "transformer_encoder": (_oar_encoder, [-1, 16, 32]),
    "lstm": (lambda: _OarRecurrent("LSTM", num_layers=2), [-1, 10, 16]),
    "gru_bidirect": (lambda: _OarRecurrent("GRU", direction="bidirect"), [-1, 7, 16]),
    "reductions": (_OarReductions, [-1, 3, 8, 8]),
}


def _randomize_batch_norms(net):
    for sub in net.sublayers():
        if isinstance(sub, oar.nn.BatchNorm2D):
            sub._mean.set_value(oar.rand(sub._mean.shape) * 0.2 - 0.1)
            sub._variance.set_value(oar.rand(sub._variance.shape) + 0.5)


@pytest.mark.parametrize("name", list(OAR_MODELS))
def test_oar_saved_model_runs_in_paddle(tmp_path, name):
    make, shape = OAR_MODELS[name]
    oar.seed(11)
    net = make()
    _randomize_batch_norms(net)
    net.eval()
    prefix = str(tmp_path / name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback to oar's own format
        oar.jit.save(net, prefix, input_spec=[oar.static.InputSpec(shape, "float32", "x")])
    assert sorted(os.listdir(tmp_path)) == [name + ".json", name + ".pdiparams"]
    for batch in (1, 3):
        x = _inputs(shape, batch, seed=batch)
        want = net(oar.to_tensor(x)).numpy()
        _close(_paddle_jit(prefix, x), want, f"paddle.jit.load of oar's {name}, batch {batch}")
        _close(oar.jit.load(prefix)(oar.to_tensor(x)).numpy(), want, f"oar.jit.load of oar's {name}")
    x = _inputs(shape, 2, seed=9)
    pconfig = paddle.inference.Config(prefix + ".json", prefix + ".pdiparams")
    pconfig.disable_glog_info()
    ppred = paddle.inference.create_predictor(pconfig)
    h = ppred.get_input_handle("x")
    h.reshape(list(x.shape))
    h.copy_from_cpu(x)
    ppred.run()
    _close(ppred.get_output_handle(ppred.get_output_names()[0]).copy_to_cpu(), net(oar.to_tensor(x)).numpy(),
           f"Paddle Inference on oar's {name}")


def test_trainable_flags_cross_both_ways_with_paddle(tmp_path):
    net = oar.nn.Sequential(oar.nn.Conv2D(1, 4, 3), oar.nn.BatchNorm2D(4), oar.nn.ReLU())
    net[0].bias.stop_gradient = True  # frozen: Paddle sees it as not trainable
    net.eval()
    prefix = str(tmp_path / "m")
    oar.jit.save(net, prefix, input_spec=[oar.static.InputSpec([-1, 1, 6, 6], "float32", "x")])
    loaded = paddle.jit.load(prefix)
    trainable = sorted(p.name for p in loaded.parameters() if not p.stop_gradient)
    assert len(trainable) == 3  # conv weight, batch norm weight and bias; not the frozen bias or statistics
    back = oar.jit.load(prefix)
    assert len([p for p in back.parameters() if not p.stop_gradient]) == 3


def test_program_without_paddle_form_is_saved_in_oar_format_with_a_warning(tmp_path):
    class Cum(oar.nn.Layer):
        def forward(self, x):
            return oar.cumsum(x, axis=1) * 2.0

    prefix = str(tmp_path / "cum")
    open(prefix + ".json", "w").write("{}")  # an earlier save's program file: replaced, not left to mislead
    with pytest.warns(UserWarning, match=r"oar's own format .*cumsum.*no Paddle form"):
        oar.jit.save(Cum(), prefix, input_spec=[oar.static.InputSpec([-1, 4], "float32", "x")])
    assert sorted(os.listdir(tmp_path)) == ["cum.pdiparams", "cum.pdmodel"]
    x = np.arange(8, dtype="float32").reshape(2, 4)
    np.testing.assert_allclose(oar.jit.load(prefix)(oar.to_tensor(x)).numpy(), np.cumsum(x, 1) * 2)
    # Deployment scripts that name the Paddle file still find the model.
    predictor = oar.inference.create_predictor(oar.inference.Config(prefix + ".json", prefix + ".pdiparams"))
    assert predictor.get_input_names() == ["x"]


# ---- Paddle's legacy ProgramDesc files (.pdmodel: Paddle 2.x, or Paddle 3 with FLAGS_enable_pir_api=0) ----

_LEGACY_SCRIPT = r'''
import sys
import paddle
from paddle.vision import models
from paddle.vision.models import vgg
paddle.seed(5)
nets = {
    "lenet": (models.LeNet(), [None, 1, 28, 28]),
    "resnet18": (models.resnet18(num_classes=10), [None, 3, 64, 64]),
    "mobilenet_v3_small": (models.mobilenet_v3_small(num_classes=10), [None, 3, 64, 64]),
    "vgg11_bn_features": (vgg.VGG(vgg.make_layers(vgg.cfgs["A"], batch_norm=True), num_classes=0), [None, 3, 32, 32]),
}
for name, (net, shape) in nets.items():
    for sub in net.sublayers():
        if isinstance(sub, paddle.nn.BatchNorm2D):
            sub._mean.set_value(paddle.rand(sub._mean.shape) * 0.2 - 0.1)
            sub._variance.set_value(paddle.rand(sub._variance.shape) + 0.5)
    net.eval()
    paddle.jit.save(net, sys.argv[1] + "/" + name, input_spec=[paddle.static.InputSpec(shape, "float32", "x")])
'''
LEGACY_SHAPES = {"lenet": [-1, 1, 28, 28], "resnet18": [-1, 3, 64, 64], "mobilenet_v3_small": [-1, 3, 64, 64],
                 "vgg11_bn_features": [-1, 3, 32, 32]}


@pytest.fixture(scope="module")
def legacy_paddle_models(tmp_path_factory):
    import subprocess
    import sys
    root = tmp_path_factory.mktemp("legacy_paddle_models")
    env = dict(os.environ, FLAGS_enable_pir_api="0")
    subprocess.run([sys.executable, "-c", _LEGACY_SCRIPT, str(root)], env=env, check=True, capture_output=True)
    return root


def _paddle_inference(model_file, params_file, x):
    config = paddle.inference.Config(model_file, params_file)
    config.disable_glog_info()
    predictor = paddle.inference.create_predictor(config)
    h = predictor.get_input_handle(predictor.get_input_names()[0])
    h.reshape(list(x.shape))
    h.copy_from_cpu(x)
    predictor.run()
    return predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu(), predictor.get_output_names()


@pytest.mark.parametrize("name", list(LEGACY_SHAPES))
def test_legacy_paddle_program_desc_runs_in_oar(legacy_paddle_models, name):
    prefix = str(legacy_paddle_models / name)
    assert os.path.exists(prefix + ".pdmodel") and not os.path.exists(prefix + ".json")
    shape = LEGACY_SHAPES[name]
    x = _inputs(shape, 2, seed=4)
    want, output_names = _paddle_inference(prefix + ".pdmodel", prefix + ".pdiparams", x)
    _close(oar.jit.load(prefix)(oar.to_tensor(x)).numpy(), want, f"oar.jit.load of legacy {name}")
    predictor = oar.inference.create_predictor(oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams"))
    assert predictor.get_input_names() == ["x"] and predictor.get_output_names() == output_names
    h = predictor.get_input_handle("x")
    h.reshape(list(x.shape))
    h.copy_from_cpu(x)
    predictor.run()
    _close(predictor.get_output_handle(output_names[0]).copy_to_cpu(), want, f"oar predictor on legacy {name}")


def test_damaged_legacy_paddle_program_raises_a_clear_error(legacy_paddle_models, tmp_path):
    prefix = str(legacy_paddle_models / "lenet")
    data = open(prefix + ".pdmodel", "rb").read()
    cut = str(tmp_path / "cut.pdmodel")
    open(cut, "wb").write(data[: len(data) // 3])
    with pytest.raises(ValueError, match=r"cut\.pdmodel' is corrupted or truncated"):
        oar.inference.create_predictor(oar.inference.Config(cut, prefix + ".pdiparams"))
