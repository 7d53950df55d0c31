"""nn.Layer, containers, Parameter, ParamAttr and initializers (no Paddle needed; the Paddle-measured
facts are written in as constants)."""
import collections.abc
import math

import numpy as np
import pytest

import oar
import oar.nn as nn
from oar.nn import initializer as I


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.bn = nn.BatchNorm1D(3)
        self.seq = nn.Sequential(nn.Linear(3, 2, bias_attr=False))
        self.register_buffer("steps", oar.zeros([1]), persistable=True)
        self.scratch = oar.zeros([2])  # a plain tensor attribute: a non-persistable buffer

    def forward(self, x):
        return self.seq(self.bn(self.fc(x)))


def test_names_and_state_dict_follow_paddle():
    with oar.utils.unique_name.guard():
        net = Net()
        # Paddle 3.3.1: these global names and this key order.
        assert net.full_name() == "net_0"
        assert [p.name for p in net.parameters()] == [
            "linear_0.w_0", "linear_0.b_0", "batch_norm1d_0.w_0", "batch_norm1d_0.b_0", "batch_norm1d_0.w_1",
            "batch_norm1d_0.w_2", "linear_1.w_0"]
    assert list(net.state_dict().keys()) == [
        "steps", "fc.weight", "fc.bias", "bn.weight", "bn.bias", "bn._mean", "bn._variance", "seq.0.weight"]
    assert [n for n, _ in net.named_buffers()] == ["steps", "scratch"]
    assert [n for n, _ in net.named_sublayers()] == ["fc", "bn", "seq", "seq.0"]
    assert list(net.state_dict(structured_name_prefix="m.").keys())[0] == "m.steps"
    assert net.bn._mean.stop_gradient and not net.fc.weight.stop_gradient
    assert net.fc.weight.optimize_attr == {"learning_rate": 1.0} and net.fc.weight.need_clip
    assert net.fc.weight.persistable and not oar.zeros([1]).persistable


def test_repr_matches_paddle():
    net = Net()
    assert repr(net) == (
        "Net(\n"
        "  (fc): Linear(in_features=4, out_features=3, dtype=float32)\n"
        "  (bn): BatchNorm1D(num_features=3, momentum=0.9, epsilon=1e-05, data_format=NCL)\n"
        "  (seq): Sequential(\n"
        "    (0): Linear(in_features=3, out_features=2, dtype=float32)\n"
        "  )\n"
        ")")
    assert repr(nn.Layer()) == "Layer()"
    assert repr(net.fc.weight).startswith("Parameter containing:\nTensor(shape=[4, 3], dtype=float32")


def test_forward_backward_train_eval():
    net = Net()
    x = oar.randn([5, 4])
    net.train()
    y = net(x)
    y.sum().backward()
    assert net.fc.weight.grad.shape == [4, 3] and net.seq[0].weight.grad.shape == [3, 2]
    assert not np.allclose(net.bn._mean.numpy(), 0)  # running statistics moved in training
    net.clear_gradients()
    assert float(net.fc.weight.grad.abs().sum()) == 0.0
    net.eval()
    assert not net.training and not net.bn.training
    np.testing.assert_allclose(net(x).numpy(), net(x).numpy())


def test_setattr_rules():
    net = Net()
    with pytest.raises(TypeError, match="assignment to parameter 'weight' should be of type Parameter or None"):
        net.fc.weight = oar.zeros([4, 3])
    net.fc.bias = None
    assert "fc.bias" not in net.state_dict()

    class NoInit(nn.Layer):
        def __init__(self):
            self.fc = nn.Linear(2, 2)

    with pytest.raises(ValueError, match="super\\(\\).__init__\\(\\) should be called first"):
        NoInit()
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'nothing'"):
        net.nothing
    with pytest.raises(NotImplementedError):
        nn.Layer()(oar.zeros([1]))


def test_setattr_routes_parameters_and_sublayers_like_paddle():
    """Parameters and sublayers share one routing rule in Layer.__setattr__: each kind moves a
    name out of the other dicts, and a wrong type for a name of either kind is the same
    TypeError text as Paddle's."""
    paddle = pytest.importorskip("paddle")
    for lib in (oar, paddle):
        layer = lib.nn.Layer()
        layer.a = lib.nn.Linear(2, 2)
        layer.a = lib.create_parameter([2], "float32")  # a parameter replaces the sublayer
        assert list(layer._sub_layers) == [] and list(layer._parameters) == ["a"]
        layer.a = None
        assert layer._parameters["a"] is None
        layer.b = lib.nn.ReLU()
        layer.b = None
        assert layer._sub_layers["b"] is None
    messages = []
    for lib in (oar, paddle):
        layer = lib.nn.Layer()
        layer.sub = lib.nn.ReLU()
        layer.p = lib.create_parameter([2], "float32")
        # a name already held by one kind takes only that kind (or None), even another member kind
        for name, value in (("sub", 3), ("p", 3), ("p", lib.nn.ReLU()),
                            ("sub", lib.create_parameter([2], "float32"))):
            try:
                setattr(layer, name, value)
                messages.append((name, "accepted", sorted(layer._parameters), sorted(layer._sub_layers)))
            except TypeError as e:
                messages.append((name, str(e)))
    assert messages[:4] == messages[4:]
    assert "assignment to sublayer 'sub' should be of type Layer or None, but got 'int'" in messages[0]


def test_every_hook_kind_registers_and_removes():
    fc = nn.Linear(2, 2)
    seen = []
    helpers = [fc.register_forward_pre_hook(lambda layer, inputs: seen.append("pre")),
               fc.register_forward_post_hook(lambda layer, inputs, out: seen.append("post")),
               fc.register_state_dict_hook(lambda state: seen.append("state"))]
    assert len({h._hook_id for h in helpers}) == 3  # ids are unique across the tables
    fc(oar.ones([1, 2]))
    fc.state_dict()
    assert seen == ["pre", "post", "state"]
    for helper in helpers:
        helper.remove()
    fc(oar.ones([1, 2]))
    fc.state_dict()
    assert seen == ["pre", "post", "state"]


def test_hooks_and_apply():
    fc = nn.Linear(2, 2)
    calls = []
    pre = fc.register_forward_pre_hook(lambda layer, inputs: (inputs[0] * 0,))
    post = fc.register_forward_post_hook(lambda layer, inputs, out: calls.append(out.shape) or out + 1)
    out = fc(oar.ones([1, 2]))
    np.testing.assert_allclose(out.numpy(), fc.bias.numpy()[None] + 1)
    assert calls == [[1, 2]]
    pre.remove()
    post.remove()
    np.testing.assert_allclose(fc(oar.ones([1, 2])).numpy(), (np.ones([1, 2]) @ fc.weight.numpy()) + fc.bias.numpy(),
                               rtol=1e-6)
    seen = []
    Net().apply(lambda layer: seen.append(type(layer).__name__))
    assert seen == ["Linear", "BatchNorm1D", "Linear", "Sequential", "Net"]


def test_set_state_dict_round_trip_and_mismatch():
    a, b = Net(), Net()
    missing, unexpected = b.set_state_dict(a.state_dict())
    assert missing == [] and unexpected == []
    for (k, va), vb in zip(a.state_dict().items(), b.state_dict().values()):
        np.testing.assert_array_equal(va.numpy(), vb.numpy(), err_msg=k)
    state = {k: v.numpy() for k, v in a.state_dict().items()}
    state["fc.weight"] = np.zeros([5, 3], np.float32)
    state["bn.bias"] = np.zeros([7], np.float32)
    with pytest.raises(ValueError) as err:
        b.set_state_dict(state)
    # Every mismatched key is named, with both shapes.
    assert "fc.weight: expected shape [4, 3], got [5, 3]" in str(err.value)
    assert "bn.bias: expected shape [3], got [7]" in str(err.value)
    state = {k: v for k, v in a.state_dict().items() if k != "bn.weight"}
    state["extra"] = oar.zeros([1])
    with pytest.warns(UserWarning):
        missing, unexpected = b.set_state_dict(state)
    assert missing == ["bn.weight"] and unexpected == ["extra"]


def test_to_dtype_keeps_parameter_objects():
    net = Net()
    w = net.fc.weight
    net.to(dtype="float64")
    assert net.fc.weight is w and w.dtype == oar.float64 and isinstance(w, nn.Parameter)
    assert net.bn._mean.dtype == oar.float64
    assert repr(net.fc) == "Linear(in_features=4, out_features=3, dtype=float64)"
    y = net(oar.randn([2, 4], dtype="float64"))
    assert y.dtype == oar.float64
    with pytest.raises(ValueError, match="gpu"):
        net.to("gpu:0")


def test_containers():
    seq = nn.Sequential(("a", nn.Linear(2, 3)), ("b", nn.Linear(3, 1)))
    assert isinstance(seq["a"], nn.Linear) and seq[-1] is seq["b"] and len(seq) == 2
    assert isinstance(seq[0:1], nn.Sequential) and len(seq[0:1]) == 1
    with pytest.raises(IndexError):
        seq[2]
    layers = nn.LayerList([nn.Linear(2, 2) for _ in range(3)])
    layers.append(nn.Linear(2, 4))
    del layers[0]
    assert [k for k, _ in layers.named_children()] == ["0", "1", "2"] and layers[-1].weight.shape == [2, 4]
    layers.insert(0, nn.Identity())
    assert isinstance(layers[0], nn.Identity) and len(layers) == 4
    d = nn.LayerDict({"x": nn.Linear(1, 1)})
    d["y"] = nn.Identity()
    assert list(d.keys()) == ["x", "y"] and "x" in d
    params = nn.ParameterList([oar.create_parameter([2], "float32") for _ in range(2)])
    assert list(params.state_dict().keys()) == ["0", "1"]
    with pytest.raises(TypeError):
        params.append(oar.zeros([1]))


# Bad container arguments, and the exception Paddle 3.3.1 raises for each (measured; compared live
# in test_nn_layers_vs_paddle.py). Where Paddle asserts, oar raises an error that is both a TypeError
# and an AssertionError.
CONTAINER_ERRORS = [
    ("LayerDict(1)", AssertionError, "The type of sublayers is not iterable of key/value pairs"),
    ("LayerDict(nn.Linear(1, 1))", AssertionError, "the type of sublayers is Linear"),
    ("LayerDict().update(5)", AssertionError, "the type of sublayers is int"),
    ("LayerDict([1])", TypeError, None),
    ("LayerDict([('a', nn.Identity(), 3)])", ValueError, "0's element in sublayers is 3, which must be 2"),
    ("LayerDict('ab')", ValueError, "The length of the 0's element in sublayers is 1"),
    ("LayerDict([('a', 3)])", AssertionError, "'sublayer' must be a Layer"),
    ("LayerDict({'a': 3})", AssertionError, "'sublayer' must be a Layer"),
    ("ParameterDict(1)", AssertionError, "The type of parameters is not iterable of key/value pairs"),
    ("ParameterDict([1])", TypeError, None),
    ("ParameterDict([('a',)])", ValueError, "0's element in parameters is 1, which must be 2"),
    ("ParameterDict({'a': 3})", TypeError, "must be Parameters"),
    ("ParameterList([1])", AssertionError, "must be Parameters"),
    ("LayerList([1])", AssertionError, "'sublayer' must be a Layer"),
    ("LayerList().append(1)", AssertionError, "'sublayer' must be a Layer"),
    ("Sequential(1)", AssertionError, "'sublayer' must be a Layer"),
    ("LayerList(1)", TypeError, "not iterable"),
]


@pytest.mark.parametrize("call,error,message", CONTAINER_ERRORS)
def test_container_argument_errors_are_paddles(call, error, message):
    with pytest.raises(error, match=message) as info:
        eval("nn." + call)
    if error is AssertionError:
        assert isinstance(info.value, TypeError)  # oar's own type too


def test_layer_dict_takes_any_mapping():
    class Layers(collections.abc.Mapping):
        def __init__(self, **layers):
            self.layers = layers

        def __getitem__(self, key):
            return self.layers[key]

        def __iter__(self):
            return iter(self.layers)

        def __len__(self):
            return len(self.layers)

    d = nn.LayerDict(Layers(fc=nn.Linear(2, 2), act=nn.ReLU()))
    assert list(d.keys()) == ["fc", "act"]
    d.update(nn.LayerDict([("out", nn.Linear(2, 1))]))
    assert list(d.keys()) == ["fc", "act", "out"]
    p = nn.ParameterDict([("w", oar.create_parameter([2], "float32"))])
    assert list(nn.ParameterDict(p).keys()) == ["w"]


def test_param_attr_controls_creation():
    fc = nn.Linear(3, 2, weight_attr=oar.ParamAttr(name="my_w", initializer=I.Constant(0.5), learning_rate=0.1,
                                                  trainable=False), bias_attr=False)
    assert fc.weight.name == "my_w" and fc.bias is None and fc.weight.stop_gradient
    assert fc.weight.optimize_attr["learning_rate"] == 0.1
    np.testing.assert_array_equal(fc.weight.numpy(), np.full([3, 2], 0.5, np.float32))
    fc = nn.Linear(3, 2, weight_attr=I.Constant(2.0), bias_attr=I.Constant(1.0))
    assert fc.weight.numpy().min() == 2.0 and fc.bias.numpy().min() == 1.0
    with pytest.raises(TypeError):
        oar.ParamAttr(learning_rate="fast")


def _draw(init, shape, dtype="float32"):
    return oar.create_parameter(shape, dtype, default_initializer=init).numpy()


def test_initializer_distributions():
    oar.seed(7)
    w = _draw(I.XavierUniform(), [400, 300])
    bound = math.sqrt(6 / 700)
    assert np.abs(w).max() <= bound and abs(w.std() - bound / math.sqrt(3)) < 0.02 * bound
    w = _draw(I.XavierNormal(), [400, 300])
    assert abs(w.std() - math.sqrt(2 / 700)) < 0.02 * math.sqrt(2 / 700)
    w = _draw(I.KaimingNormal(), [64, 32, 3, 3])  # fan_in = 32 * 9
    assert abs(w.std() - math.sqrt(2 / 288)) < 0.03 * math.sqrt(2 / 288)
    w = _draw(I.KaimingUniform(mode="fan_out"), [64, 32, 3, 3])  # fan_out = 64 * 9
    assert np.abs(w).max() <= math.sqrt(6 / 576)
    w = _draw(I.TruncatedNormal(mean=1.0, std=2.0, a=-1.0, b=2.0), [20000])
    assert w.min() >= -1.0 and w.max() <= 2.0 and w.min() < -0.95 and w.max() > 1.95
    w = _draw(I.Uniform(-0.5, 0.25), [10000], "float64")
    assert w.dtype == np.float64 and w.min() >= -0.5 and w.max() <= 0.25
    w = _draw(I.Orthogonal(gain=2.0), [5, 3])
    np.testing.assert_allclose(w.T @ w, 4 * np.eye(3), atol=1e-5)
    w = _draw(I.Dirac(), [4, 2, 3])
    np.testing.assert_array_equal(w[:, :, 1], [[1, 0], [0, 1], [0, 0], [0, 0]])
    w = _draw(I.Assign(np.arange(6).reshape(2, 3)), [2, 3])
    np.testing.assert_array_equal(w, np.arange(6).reshape(2, 3))
    with pytest.raises(ValueError):
        _draw(I.Assign(np.arange(5)), [2, 3])
    oar.seed(3)
    a = _draw(I.Normal(0, 1), [8])
    oar.seed(3)
    np.testing.assert_array_equal(a, _draw(I.Normal(0, 1), [8]))


def test_calculate_gain_and_default_inits():
    # Paddle 3.3.1's values.
    assert I.calculate_gain("tanh") == 5.0 / 3 and I.calculate_gain("selu") == 0.75
    assert abs(I.calculate_gain("leaky_relu", 0.2) - 1.3867504905630728) < 1e-12
    with pytest.raises(ValueError, match="nonlinearity function foo is not supported now."):
        I.calculate_gain("foo")
    oar.seed(1)
    conv = nn.Conv2D(16, 32, 3)  # Normal(0, sqrt(2 / (16 * 9)))
    assert abs(conv.weight.numpy().std() - math.sqrt(2 / 144)) < 0.01
    assert conv.bias.numpy().max() == 0
    emb = nn.Embedding(10, 4, padding_idx=-1)
    np.testing.assert_array_equal(emb.weight.numpy()[9], 0)
    I.set_global_initializer(I.Constant(3.0), I.Constant(-1.0))
    try:
        fc = nn.Linear(2, 2)
        assert fc.weight.numpy().min() == 3.0 and fc.bias.numpy().max() == -1.0
    finally:
        I.set_global_initializer(None)
    assert nn.Linear(2, 2).bias.numpy().max() == 0


def test_spectral_norm_value_and_gradient():
    rng = np.random.default_rng(0)
    layer = nn.SpectralNorm([3, 2, 4], dim=1, power_iters=2, dtype="float64")
    w = rng.standard_normal([3, 2, 4])
    u0, v0 = layer.weight_u.numpy(), layer.weight_v.numpy()

    def reference(w):
        m = np.moveaxis(w, 1, 0).reshape(2, -1)
        u, v = u0, v0
        for _ in range(2):
            v = m.T @ u
            v = v / (np.linalg.norm(v) + 1e-12)
            u = m @ v
            u = u / (np.linalg.norm(u) + 1e-12)
        return w / (u @ m @ v)

    x = oar.to_tensor(w, stop_gradient=False)
    out = layer(x)
    np.testing.assert_allclose(out.numpy(), reference(w), rtol=1e-12)
    np.testing.assert_array_equal(layer.weight_u.numpy(), u0)  # the vectors are not written back
    g = rng.standard_normal(w.shape)
    (out * oar.to_tensor(g)).sum().backward()
    numeric = np.zeros_like(w)
    for idx in np.ndindex(w.shape):
        d = np.zeros_like(w)
        d[idx] = 1e-6
        numeric[idx] = ((reference(w + d) - reference(w - d)) * g).sum() / 2e-6
    np.testing.assert_allclose(x.grad.numpy(), numeric, rtol=1e-6, atol=1e-8)


def test_lp_pool_matches_numpy():
    x = np.random.default_rng(1).random([2, 3, 7]) + 0.1
    out = oar.nn.functional.lp_pool1d(oar.to_tensor(x), 3, 2)
    windows = x[:, :, :6].reshape(2, 3, 3, 2)
    np.testing.assert_allclose(out.numpy(), (windows ** 3).sum(-1) ** (1 / 3), rtol=1e-12)
    with pytest.raises(ValueError, match="norm_type"):
        oar.nn.functional.lp_pool2d(oar.to_tensor(np.ones([1, 1, 2, 2])), 0, 2)
