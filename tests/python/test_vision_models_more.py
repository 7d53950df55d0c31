"""DenseNet, GoogLeNet, InceptionV3 and ShuffleNetV2 of oar.vision.models against Paddle 3.3.1:
state-dict keys/order/shapes/dtypes, output shapes of the num_classes/with_pool variants, outputs and
gradients with the same weights (eval, and train where batch norm statistics matter), checkpoints both
ways, refusal of pretrained=True and Paddle's argument errors.

The constants were measured from the real paddle.vision.models (Paddle 3.3.1, CPU) so the tests mean
something where paddle is not installed; the live tests compare with paddle when it is. The helpers
(weights, inputs, tolerances) are those of test_vision_models.py."""
import numpy as np
import pytest

import oar
from oar.nn import initializer as I
from oar.vision import models as M
from oar.vision.models.shufflenetv2 import channel_shuffle
from test_vision_models import _close, _input, _random_state, _rows, _signature

# (factory, kwargs, state-dict entries, trainable elements, first key, last key, sha1 of "key:shape:dtype;...")
# measured from paddle.vision.models with every parameter constant-initialised.
STRUCTURE = [
    ('densenet121', {}, 606, 8062504, 'conv1_func._conv.weight', 'out.bias', '4e17cb7daf2fbccd'),
    ('densenet121', {'num_classes': 0}, 604, 7037504, 'conv1_func._conv.weight', 'batch_norm._variance',
     '8e336d069fe7f023'),
    ('densenet161', {'num_classes': 10}, 806, 26714026, 'conv1_func._conv.weight', 'out.bias', 'cacd96d4c6fbf4c8'),
    ('densenet169', {'num_classes': 10}, 846, 12659530, 'conv1_func._conv.weight', 'out.bias', '44b8e35ef7925d21'),
    ('densenet201', {'num_classes': 10}, 1006, 18341194, 'conv1_func._conv.weight', 'out.bias', '2217b903ed9ec0f0'),
    ('densenet264', {'num_classes': 10}, 1326, 31074122, 'conv1_func._conv.weight', 'out.bias', '12abf8b6e9c085c9'),
    ('DenseNet', {'layers': 169, 'bn_size': 2, 'dropout': 0.2, 'num_classes': 10}, 846, 6971722,
     'conv1_func._conv.weight', 'out.bias', '5ce3de4cdf15b501'),
    ('googlenet', {}, 69, 11535736, '_conv._conv.weight', '_out2.bias', '33b62d50a33b365d'),
    ('googlenet', {'num_classes': 0}, 57, 5966272, '_conv._conv.weight', '_ince5b._convprj._conv.weight',
     '3b1c515c0c362c1c'),
    ('GoogLeNet', {'num_classes': 10, 'with_pool': False}, 69, 8491486, '_conv._conv.weight', '_out2.bias',
     '4d4f74b82e0f051f'),
    ('inception_v3', {}, 472, 23869000, 'inception_stem.conv_1a_3x3.0.weight', 'fc.bias', '45c58cd766a19b41'),
    ('inception_v3', {'num_classes': 0}, 470, 21820000, 'inception_stem.conv_1a_3x3.0.weight',
     'inception_block_list.10.branch_pool_conv.1._variance', '58a0f852c7df5f1b'),
    ('shufflenet_v2_x0_25', {}, 282, 607712, '_conv1.0.weight', '_fc.bias', '38138424f53eab19'),
    ('shufflenet_v2_x0_33', {}, 282, 652264, '_conv1.0.weight', '_fc.bias', 'daec381cc9e891eb'),
    ('shufflenet_v2_x0_5', {}, 282, 1374744, '_conv1.0.weight', '_fc.bias', '4dced060f768f944'),
    ('shufflenet_v2_x1_0', {}, 282, 2294784, '_conv1.0.weight', '_fc.bias', '1156f64f159d863b'),
    ('shufflenet_v2_x1_5', {}, 282, 3527064, '_conv1.0.weight', '_fc.bias', '8b4a083ff7e0073a'),
    ('shufflenet_v2_x2_0', {}, 282, 7399952, '_conv1.0.weight', '_fc.bias', '5fcd2032cd97bb1c'),
    ('shufflenet_v2_swish', {'num_classes': 10}, 282, 1280034, '_conv1.0.weight', '_fc.bias', '3b72da53dc0b4fc0'),
    ('shufflenet_v2_x1_0', {'num_classes': 0, 'with_pool': False}, 280, 1269784, '_conv1.0.weight',
     '_last_conv.1._variance', '73303f9648b7882e'),
    ('ShuffleNetV2', {'scale': 0.5, 'act': None, 'num_classes': 10}, 282, 359994, '_conv1.0.weight', '_fc.bias',
     'b6420a2e6fbab23c'),
]

FACTORIES = ['densenet121', 'densenet161', 'densenet169', 'densenet201', 'densenet264', 'googlenet',
             'inception_v3', 'shufflenet_v2_x0_25', 'shufflenet_v2_x0_33', 'shufflenet_v2_x0_5',
             'shufflenet_v2_x1_0', 'shufflenet_v2_x1_5', 'shufflenet_v2_x2_0', 'shufflenet_v2_swish']

# (factory, kwargs, input shape, output shape(s)) as Paddle 3.3.1 computes them; GoogLeNet returns three.
# The smallest inputs each architecture accepts in that configuration: InceptionV3 needs 75x75; GoogLeNet's
# pooled auxiliary heads need 3x3 maps after their 5x5/3 pool (192..224), its unpooled ones 3x3 maps (64).
SHAPES = [
    ('densenet121', {'num_classes': 10}, [1, 3, 32, 32], [1, 10]),
    ('densenet121', {'num_classes': 0}, [1, 3, 64, 64], [1, 1024, 1, 1]),
    ('googlenet', {'num_classes': 10}, [1, 3, 192, 192], ([1, 10], [1, 10], [1, 10])),
    ('googlenet', {'num_classes': 0}, [1, 3, 64, 64], ([1, 1024, 1, 1], [1, 512, 1, 1], [1, 528, 1, 1])),
    ('googlenet', {'num_classes': 0, 'with_pool': False}, [1, 3, 64, 64],
     ([1, 1024, 1, 1], [1, 512, 3, 3], [1, 528, 3, 3])),
    ('googlenet', {'num_classes': 10, 'with_pool': False}, [1, 3, 64, 64], ([1, 10], [1, 10], [1, 10])),
    ('inception_v3', {'num_classes': 10}, [2, 3, 75, 75], [2, 10]),
    ('inception_v3', {'num_classes': 0}, [1, 3, 75, 75], [1, 2048, 1, 1]),
    # without the pool Paddle reshapes to rows of 2048 features: one row per position
    ('inception_v3', {'num_classes': 10, 'with_pool': False}, [1, 3, 139, 139], [9, 10]),
    ('inception_v3', {'num_classes': 0, 'with_pool': False}, [1, 3, 139, 139], [1, 2048, 3, 3]),
    ('shufflenet_v2_x0_25', {'num_classes': 10}, [2, 3, 64, 64], [2, 10]),
    ('shufflenet_v2_x0_25', {'with_pool': False}, [1, 3, 32, 32], [1, 1000]),
    ('shufflenet_v2_x0_25', {'num_classes': 0, 'with_pool': False}, [1, 3, 64, 64], [1, 512, 2, 2]),
    ('shufflenet_v2_x0_5', {'num_classes': 0}, [1, 3, 64, 64], [1, 1024, 1, 1]),
    ('shufflenet_v2_swish', {'num_classes': 10}, [2, 3, 64, 64], [2, 10]),
    ('ShuffleNetV2', {'scale': 0.33, 'act': None, 'num_classes': 10}, [1, 3, 64, 64], [1, 10]),
    ('shufflenet_v2_x1_5', {'num_classes': 10}, [1, 3, 64, 64], [1, 10]),
]

# print(paddle.vision.models.shufflenet_v2_swish().__getattr__("2_1")) in Paddle 3.3.1
SHUFFLENET_DS_BLOCK_REPR = """InvertedResidualDS(
  (_conv_dw_1): ConvNormActivation(
    (0): Conv2D(24, 24, kernel_size=[3, 3], stride=[2, 2], padding=1, groups=24, data_format=NCHW)
    (1): BatchNorm2D(num_features=24, momentum=0.9, epsilon=1e-05)
  )
  (_conv_linear_1): ConvNormActivation(
    (0): Conv2D(24, 58, kernel_size=[1, 1], data_format=NCHW)
    (1): BatchNorm2D(num_features=58, momentum=0.9, epsilon=1e-05)
    (2): Swish()
  )
  (_conv_pw_2): ConvNormActivation(
    (0): Conv2D(24, 58, kernel_size=[1, 1], data_format=NCHW)
    (1): BatchNorm2D(num_features=58, momentum=0.9, epsilon=1e-05)
    (2): Swish()
  )
  (_conv_dw_2): ConvNormActivation(
    (0): Conv2D(58, 58, kernel_size=[3, 3], stride=[2, 2], padding=1, groups=58, data_format=NCHW)
    (1): BatchNorm2D(num_features=58, momentum=0.9, epsilon=1e-05)
  )
  (_conv_linear_2): ConvNormActivation(
    (0): Conv2D(58, 58, kernel_size=[1, 1], data_format=NCHW)
    (1): BatchNorm2D(num_features=58, momentum=0.9, epsilon=1e-05)
    (2): Swish()
  )
)"""


@pytest.fixture
def constant_init():
    """Structure-only tests: constant parameters build the big models quickly (Paddle honours the same)."""
    I.set_global_initializer(I.Constant(0.0), I.Constant(0.0))
    yield
    I.set_global_initializer(None, None)


def _paddle_model(paddle, name, kwargs):
    init = paddle.nn.initializer
    init.set_global_initializer(init.Constant(0.0), init.Constant(0.0))
    try:
        return getattr(paddle.vision.models, name)(**kwargs)
    finally:
        init.set_global_initializer(None, None)


def _both(name, kwargs, seed, paddle, dtype="float32"):
    """The same architecture in both frameworks, holding the same random weights (of dtype)."""
    I.set_global_initializer(I.Constant(0.0), I.Constant(0.0))
    try:
        ours = getattr(M, name)(**kwargs)
    finally:
        I.set_global_initializer(None, None)
    theirs = _paddle_model(paddle, name, kwargs)
    state = {k: v.astype(dtype) for k, v in _random_state(theirs.state_dict(), seed).items()}
    if dtype != "float32":
        ours.to(dtype=dtype)
        theirs.to(dtype=dtype)
    missing, unexpected = ours.set_state_dict(state)
    assert not missing and not unexpected
    theirs.set_state_dict(state)
    return ours, theirs


def _outputs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


_FIRST_CONV = {'densenet': 'conv1_func._conv.weight', 'googlenet': '_conv._conv.weight',
               'inception': 'inception_stem.conv_1a_3x3.0.weight', 'shufflenet': '_conv1.0.weight'}


def _first_conv(name):
    """The state-dict key of the model's first convolution weight (name: a factory or class)."""
    return next(key for prefix, key in _FIRST_CONV.items() if name.lower().startswith(prefix))


# ---- structure -----------------------------------------------------------------------------------

@pytest.mark.parametrize("name,kwargs,n_keys,n_params,first,last,sig", STRUCTURE,
                         ids=[f"{s[0]}-{i}" for i, s in enumerate(STRUCTURE)])
def test_state_dict_matches_paddle_constants(constant_init, name, kwargs, n_keys, n_params, first, last, sig):
    model = getattr(M, name)(**kwargs)
    sd = model.state_dict()
    keys = list(sd)
    assert len(keys) == n_keys
    assert sum(int(p.size) for p in model.parameters()) == n_params
    assert (keys[0], keys[-1]) == (first, last)
    assert _signature(sd) == sig


@pytest.mark.parametrize("name,kwargs", [(s[0], s[1]) for s in STRUCTURE],
                         ids=[f"{s[0]}-{i}" for i, s in enumerate(STRUCTURE)])
def test_state_dict_matches_paddle_live(constant_init, name, kwargs):
    paddle = pytest.importorskip("paddle")
    theirs = _paddle_model(paddle, name, kwargs)
    ours = getattr(M, name)(**kwargs)
    assert _rows(ours.state_dict()) == _rows(theirs.state_dict())
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [p.stop_gradient for p in ours.parameters()] == [p.stop_gradient for p in theirs.parameters()]


def test_classes_and_factories(constant_init):
    assert isinstance(M.densenet161(), M.DenseNet) and isinstance(M.googlenet(), M.GoogLeNet)
    assert isinstance(M.inception_v3(), M.InceptionV3) and isinstance(M.shufflenet_v2_x0_5(), M.ShuffleNetV2)
    assert M.shufflenet_v2_x1_5().scale == 1.5
    assert type(getattr(M.shufflenet_v2_swish(), "2_2")._conv_pw[2]) is oar.nn.Swish
    # act=None leaves the activations out: two-entry ConvNormActivations
    assert len(M.ShuffleNetV2(scale=0.25, act=None)._conv1) == 2
    # bn_size widens the bottleneck, dropout adds a Dropout to every dense layer
    d = M.DenseNet(layers=121, bn_size=2, dropout=0.5, num_classes=3)
    layer = d.db_conv_2.conv2_1
    assert layer.bn_ac_func1._conv.weight.shape == [64, 64, 1, 1]
    assert layer.dropout_func.p == 0.5
    assert not hasattr(M.densenet121().db_conv_2.conv2_1, "dropout_func")
    assert [n for n, _ in M.densenet121().named_children()] == [
        'conv1_func', 'pool2d_max', 'db_conv_2', 'tr_conv2_blk', 'db_conv_3', 'tr_conv3_blk', 'db_conv_4',
        'tr_conv4_blk', 'db_conv_5', 'batch_norm', 'pool2d_avg', 'out']
    assert [n for n, _ in M.shufflenet_v2_x0_25().named_children()][2:6] == ['2_1', '2_2', '2_3', '2_4']
    assert len(M.inception_v3().inception_block_list) == 11


def test_exports():
    new = {'DenseNet', 'densenet121', 'densenet161', 'densenet169', 'densenet201', 'densenet264', 'GoogLeNet',
           'googlenet', 'InceptionV3', 'inception_v3', 'ShuffleNetV2', 'shufflenet_v2_swish', 'shufflenet_v2_x0_25',
           'shufflenet_v2_x0_33', 'shufflenet_v2_x0_5', 'shufflenet_v2_x1_0', 'shufflenet_v2_x1_5',
           'shufflenet_v2_x2_0'}
    assert new <= set(M.__all__)
    for name in new:
        assert getattr(oar.vision, name) is getattr(M, name)
    paddle = pytest.importorskip("paddle")
    assert M.__all__ == paddle.vision.models.__all__


REPR_CASES = [('densenet121', {'num_classes': 10}), ('DenseNet', {'layers': 121, 'dropout': 0.1}),
              ('googlenet', {}), ('GoogLeNet', {'num_classes': 0, 'with_pool': False}), ('inception_v3', {}),
              ('shufflenet_v2_x0_25', {}), ('shufflenet_v2_swish', {'num_classes': 0}),
              ('ShuffleNetV2', {'act': None})]


@pytest.mark.parametrize("name,kwargs", REPR_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(REPR_CASES)])
def test_repr_matches_paddle_live(constant_init, name, kwargs):
    paddle = pytest.importorskip("paddle")
    assert repr(getattr(M, name)(**kwargs)) == repr(_paddle_model(paddle, name, kwargs))


def test_shufflenet_block_repr(constant_init):
    assert repr(getattr(M.shufflenet_v2_swish(), "2_1")) == SHUFFLENET_DS_BLOCK_REPR


def test_channel_shuffle():
    x = np.arange(2 * 6 * 2 * 1, dtype=np.float32).reshape([2, 6, 2, 1])
    out = channel_shuffle(oar.to_tensor(x), 2).numpy()
    # channels 0..5 in two groups (0, 1, 2) and (3, 4, 5) come out interleaved: 0, 3, 1, 4, 2, 5
    np.testing.assert_array_equal(out, x[:, [0, 3, 1, 4, 2, 5]])
    np.testing.assert_array_equal(channel_shuffle(oar.to_tensor(x), 3).numpy(), x[:, [0, 2, 4, 1, 3, 5]])


# ---- output shapes -------------------------------------------------------------------------------

@pytest.mark.parametrize("name,kwargs,shape,expected", SHAPES, ids=[f"{c[0]}-{i}" for i, c in enumerate(SHAPES)])
def test_output_shapes(constant_init, name, kwargs, shape, expected):
    model = getattr(M, name)(**kwargs)
    model.eval()
    with oar.no_grad():
        out = model(oar.ones(shape))
    if isinstance(expected, tuple):
        assert isinstance(out, tuple) and [o.shape for o in out] == list(expected)
    else:
        assert out.shape == expected


def test_densenet_without_pool_returns_the_feature_map(constant_init):
    """Paddle 3.3.1's DenseNet fails with with_pool=False (UnboundLocalError); oar returns the final
    batch-normalized feature map, flattened into the classifier when there is one."""
    model = M.densenet121(num_classes=0, with_pool=False)
    model.eval()
    assert model(oar.ones([1, 3, 64, 64])).shape == [1, 1024, 2, 2]
    model = M.densenet121(num_classes=10, with_pool=False)
    model.eval()
    assert model(oar.ones([1, 3, 32, 32])).shape == [1, 10]  # a 1x1 map: 1024 features, as the pool gives
    paddle = pytest.importorskip("paddle")
    theirs = _paddle_model(paddle, "densenet121", {"num_classes": 0, "with_pool": False})
    with pytest.raises(UnboundLocalError):
        theirs(paddle.ones([1, 3, 64, 64]))


def test_googlenet_pooled_heads_reject_small_inputs(constant_init):
    """64x64 leaves the auxiliary heads 1x1 after their pool: 128 features where 1152 are expected."""
    model = M.googlenet(num_classes=10)
    model.eval()
    with pytest.raises(ValueError, match="1152"):
        model(oar.ones([1, 3, 64, 64]))


# ---- forward computation with the same weights ---------------------------------------------------

@pytest.mark.parametrize("name,kwargs,shape,expected", SHAPES, ids=[f"{c[0]}-{i}" for i, c in enumerate(SHAPES)])
def test_eval_outputs_match_paddle(name, kwargs, shape, expected):
    paddle = pytest.importorskip("paddle")
    ours, theirs = _both(name, kwargs, 1, paddle)
    ours.eval()
    theirs.eval()
    x = _input(shape)
    with oar.no_grad():
        out = _outputs(ours(oar.to_tensor(x)))
    with paddle.no_grad():
        ref = _outputs(theirs(paddle.to_tensor(x)))
    assert len(out) == len(ref)
    for o, r in zip(out, ref):
        _close(o.numpy(), r.numpy())


# Train mode without dropout (DenseNet's default is 0, InceptionV3's only dropout is in the classifier):
# batch statistics in the forward pass and the running statistics they update. The inputs leave the last
# stage at least 2x2, so every batch norm averages over 8 values or more (see the ResNet-18 test).
# float64 where float32 is too coarse for one fixed tolerance: normalizing by the statistics of a few
# values, stacked 94 (InceptionV3) or 120 (DenseNet-121) times, amplifies the rounding of either framework.
# Measured against float64: InceptionV3's train output is off by 1e-2 of its range in Paddle's float32,
# 2e-3 in oar's; DenseNet-121's input gradient by 4e-3 and 2e-3. In float64 the two agree to 2e-8.
TRAIN_CASES = [
    ('densenet121', {'num_classes': 10}, [2, 3, 64, 64], 'float32'),
    ('shufflenet_v2_x0_5', {'num_classes': 10}, [2, 3, 64, 64], 'float32'),
    ('shufflenet_v2_swish', {'num_classes': 0}, [2, 3, 64, 64], 'float32'),
    ('inception_v3', {'num_classes': 0}, [2, 3, 107, 107], 'float64'),
]
_RTOL = {'float32': 1e-4, 'float64': 1e-6}


@pytest.mark.parametrize("name,kwargs,shape,dtype", TRAIN_CASES, ids=[f"{c[0]}-{c[3]}" for c in TRAIN_CASES])
def test_train_mode_matches_paddle(name, kwargs, shape, dtype):
    paddle = pytest.importorskip("paddle")
    ours, theirs = _both(name, kwargs, 5, paddle, dtype)
    ours.train()
    theirs.train()
    x = _input(shape, seed=13).astype(dtype)
    _close(ours(oar.to_tensor(x)).numpy(), theirs(paddle.to_tensor(x)).numpy(), _RTOL[dtype])
    ref_state = theirs.state_dict()
    n_stats = 0
    for k, v in ours.state_dict().items():
        if k.endswith(("_mean", "_variance")):
            _close(v.numpy(), ref_state[k].numpy(), _RTOL[dtype])
            n_stats += 1
    assert n_stats > 0


# ---- gradients -----------------------------------------------------------------------------------

# (factory, kwargs, input shape, mode, dtype of the comparison with Paddle: see TRAIN_CASES for float64)
GRAD_CASES = [
    ('densenet121', {'num_classes': 10}, [2, 3, 64, 64], 'train', 'float64'),
    ('googlenet', {'num_classes': 10, 'with_pool': False}, [1, 3, 64, 64], 'eval', 'float32'),  # no dropout noise
    # float64: float32 rounding through InceptionV3's 94 convolutions already differs by more than 1e-4
    # between convolution implementations (oneDNN here, the device plug-in's loops, Paddle's).
    ('inception_v3', {'num_classes': 10}, [1, 3, 75, 75], 'eval', 'float64'),
    ('shufflenet_v2_x0_25', {'num_classes': 10}, [2, 3, 64, 64], 'train', 'float32'),
]


def _loss(outputs, weights, ops):
    return sum(((o * ops.to_tensor(w)).sum() for o, w in zip(outputs, weights)), ops.to_tensor(0.0, outputs[0].dtype))


@pytest.mark.parametrize("name,kwargs,shape,mode,dtype", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_backward_reaches_the_first_conv(name, kwargs, shape, mode, dtype):
    model = getattr(M, name)(**kwargs)
    getattr(model, mode)()
    x = oar.to_tensor(_input(shape), stop_gradient=False)
    outputs = _outputs(model(x))
    _loss(outputs, [_input(o.shape, seed=12 + i) for i, o in enumerate(outputs)], oar).backward()
    grad = dict(model.named_parameters())[_first_conv(name)].grad
    assert grad is not None
    grad = grad.numpy()
    assert np.isfinite(grad).all() and np.abs(grad).max() > 0
    assert x.grad is not None and np.isfinite(x.grad.numpy()).all()


@pytest.mark.parametrize("name,kwargs,shape,mode,dtype", GRAD_CASES, ids=[f"{c[0]}-{c[4]}" for c in GRAD_CASES])
def test_gradients_match_paddle(name, kwargs, shape, mode, dtype):
    paddle = pytest.importorskip("paddle")
    ours, theirs = _both(name, kwargs, 3, paddle, dtype)
    getattr(ours, mode)()
    getattr(theirs, mode)()
    x = _input(shape, seed=11).astype(dtype)
    xo = oar.to_tensor(x, stop_gradient=False)
    xp = paddle.to_tensor(x, stop_gradient=False)
    out, ref = _outputs(ours(xo)), _outputs(theirs(xp))
    weights = [_input(r.shape, seed=12 + i).astype(dtype) for i, r in enumerate(ref)]
    _loss(out, weights, oar).backward()
    _loss(ref, weights, paddle).backward()
    _close(xo.grad.numpy(), xp.grad.numpy(), _RTOL[dtype])
    key = _first_conv(name)
    _close(dict(ours.named_parameters())[key].grad.numpy(), dict(theirs.named_parameters())[key].grad.numpy(),
           _RTOL[dtype])


# ---- checkpoints, pretrained and bad arguments ---------------------------------------------------

@pytest.mark.parametrize("name,kwargs,shape", [('shufflenet_v2_x0_25', {'num_classes': 10}, [1, 3, 64, 64]),
                                               ('densenet121', {'num_classes': 10}, [1, 3, 32, 32])],
                         ids=['shufflenet_v2_x0_25', 'densenet121'])
def test_checkpoints_load_both_ways(tmp_path, name, kwargs, shape):
    """paddle.save -> oar.load -> set_state_dict (the route _reject_pretrained points to), and back."""
    paddle = pytest.importorskip("paddle")
    theirs = getattr(paddle.vision.models, name)(**kwargs)
    theirs.set_state_dict(_random_state(theirs.state_dict(), 9))
    path = str(tmp_path / f"{name}.pdparams")
    paddle.save(theirs.state_dict(), path)
    ours = getattr(M, name)(**kwargs)
    missing, unexpected = ours.set_state_dict(oar.load(path))
    assert not missing and not unexpected
    ours.eval()
    theirs.eval()
    x = _input(shape, seed=21)
    _close(ours(oar.to_tensor(x)).numpy(), theirs(paddle.to_tensor(x)).numpy())

    ours.set_state_dict(_random_state(ours.state_dict(), 10))
    back = str(tmp_path / f"{name}_oar.pdparams")
    oar.save(ours.state_dict(), back)
    fresh = getattr(paddle.vision.models, name)(**kwargs)
    missing, unexpected = fresh.set_state_dict(paddle.load(back))
    assert not missing and not unexpected
    fresh.eval()
    _close(ours(oar.to_tensor(x)).numpy(), fresh(paddle.to_tensor(x)).numpy())


@pytest.mark.parametrize("name", FACTORIES)
def test_pretrained_is_refused(name):
    with pytest.raises(NotImplementedError, match=rf"{name}.*never downloads.*set_state_dict\(oar.load"):
        getattr(M, name)(pretrained=True)


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"DenseNet: 'layers' must be one of \[121, 161, 169, 201, 264\], "
                                         r"but got 100"):
        M.DenseNet(layers=100)
    # Paddle's own exceptions and messages
    with pytest.raises(NotImplementedError, match=r"^This scale size:\[0\.7\] is not implemented!$"):
        M.ShuffleNetV2(scale=0.7)
    with pytest.raises(RuntimeError, match="^The activation function is not supported: gelu$"):
        M.ShuffleNetV2(act="gelu")
    with pytest.raises(TypeError, match="multiple values for keyword argument 'act'"):
        M.shufflenet_v2_swish(act="relu")
