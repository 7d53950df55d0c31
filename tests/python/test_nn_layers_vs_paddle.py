"""The common, conv, norm and pooling layers beside the real Paddle: printed form, state-dict keys and
shapes, and (with Paddle's parameters copied in) outputs and gradients, in train and eval mode."""
import numpy as np
import pytest

import oar

paddle = pytest.importorskip("paddle")

# (constructor call, input shape or shapes, also compare in training mode)
CASES = [
    ("Linear(3, 4)", [2, 3]),
    ("Linear(3, 4, bias_attr=False, name='x')", [2, 5, 3]),
    ("Bilinear(2, 3, 4)", ([5, 2], [5, 3])),
    ("Identity()", [2, 3]),
    ("Flatten()", [2, 3, 4]),
    ("Flatten(0, 1)", [2, 3, 4]),
    ("Unflatten(1, [2, 3])", [4, 6]),
    ("Embedding(10, 3, padding_idx=2)", "ids"),
    ("Upsample(scale_factor=2)", [1, 2, 3, 3]),
    ("Upsample(size=[4, 5], mode='bilinear', align_corners=True)", [1, 2, 3, 3]),
    ("UpsamplingBilinear2D(scale_factor=2)", [1, 2, 3, 3]),
    ("UpsamplingNearest2D(size=[5, 4])", [1, 2, 3, 3]),
    ("Pad1D(2)", [1, 2, 5]),
    ("Pad2D([1, 2, 0, 1], mode='reflect')", [1, 2, 4, 4]),
    ("Pad3D(1, value=2.0)", [1, 1, 2, 2, 2]),
    ("ZeroPad2D(1)", [1, 2, 3, 3]),
    ("ConstantPad1D(1, 3.0)", [1, 2, 3]),
    ("ReflectionPad1D(1)", [1, 2, 3]),
    ("ReplicationPad3D(1)", [1, 1, 2, 2, 2]),
    ("CircularPad2D(1)", [1, 2, 3, 3]),
    ("PixelShuffle(2)", [1, 8, 2, 3]),
    ("PixelUnshuffle(2)", [1, 2, 4, 6]),
    ("ChannelShuffle(2)", [1, 4, 2, 2]),
    ("Fold([4, 4], [2, 2])", [1, 8, 9]),
    ("Unfold([2, 2], strides=2)", [1, 2, 4, 4]),
    ("CosineSimilarity()", ([3, 4], [3, 4])),
    ("PairwiseDistance()", ([3, 4], [3, 4])),
    ("Conv1D(3, 4, 3)", [2, 3, 7]),
    ("Conv2D(3, 4, 3, stride=2, padding=1, dilation=2, bias_attr=False)", [2, 3, 9, 9]),
    ("Conv2D(4, 6, [3, 2], padding='SAME', groups=2, data_format='NHWC')", [2, 5, 5, 4]),
    ("Conv2D(3, 4, 3, padding=1, padding_mode='reflect')", [1, 3, 5, 5]),
    ("Conv2D(3, 4, 3, padding=1, padding_mode='circular')", [1, 3, 5, 5]),
    ("Conv3D(2, 3, 2)", [1, 2, 4, 4, 4]),
    ("Conv1DTranspose(3, 4, 3)", [2, 3, 5]),
    ("Conv2DTranspose(3, 4, 3, stride=2, output_padding=1)", [2, 3, 4, 4]),
    ("Conv2DTranspose(4, 6, 3, groups=2, dilation=2, padding='SAME')", [1, 4, 5, 5]),
    ("Conv3DTranspose(2, 3, 2)", [1, 2, 3, 3, 3]),
    ("BatchNorm(4)", [3, 4, 2, 2]),
    ("BatchNorm1D(4)", [5, 4]),
    ("BatchNorm1D(4)", [5, 4, 3]),
    ("BatchNorm2D(4, momentum=0.5, data_format='NHWC')", [2, 3, 3, 4]),
    ("BatchNorm2D(4, weight_attr=False, bias_attr=False)", [2, 4, 3, 3]),
    ("BatchNorm3D(4)", [2, 4, 2, 2, 2]),
    ("SyncBatchNorm(4)", [2, 4, 3, 3]),
    ("LayerNorm([3, 4])", [2, 3, 4]),
    ("LayerNorm(4, epsilon=1e-6, elementwise_affine=False)", [2, 4]),
    ("GroupNorm(2, 4)", [2, 4, 3, 3]),
    ("InstanceNorm1D(4)", [2, 4, 5]),
    ("InstanceNorm2D(4)", [2, 4, 3, 3]),
    ("InstanceNorm3D(4)", [2, 4, 2, 2, 2]),
    ("LocalResponseNorm(3)", [2, 5, 3, 3]),
    ("MaxPool1D(2)", [2, 3, 8]),
    ("MaxPool2D(3, 2, 1, ceil_mode=True)", [2, 3, 7, 7]),
    ("MaxPool3D(2)", [1, 2, 4, 4, 4]),
    ("AvgPool1D(2)", [2, 3, 8]),
    ("AvgPool2D(3, 1, 1, exclusive=False, divisor_override=2)", [2, 3, 5, 5]),
    ("AvgPool3D(2)", [1, 2, 4, 4, 4]),
    ("AdaptiveAvgPool1D(3)", [2, 3, 8]),
    ("AdaptiveAvgPool2D([3, 4])", [2, 3, 7, 9]),
    ("AdaptiveAvgPool3D(2)", [1, 2, 5, 5, 5]),
    ("AdaptiveMaxPool1D(3)", [2, 3, 8]),
    ("AdaptiveMaxPool2D(3)", [2, 3, 7, 7]),
    ("AdaptiveMaxPool3D(2)", [1, 2, 4, 4, 4]),
    ("LPPool1D(2, 3)", [2, 3, 8]),
    ("LPPool1D(1.5, 2, stride=1, padding=1, ceil_mode=True)", [2, 3, 7]),
    ("LPPool2D(2, 3)", [2, 3, 7, 7]),
    ("LPPool2D(3, 2, stride=1, padding=1)", [2, 3, 5, 5]),
    ("LPPool2D(float('inf'), 2)", [1, 2, 4, 4]),
    ("SpectralNorm([2, 3, 4], dim=1, power_iters=2)", [2, 3, 4]),
    ("SpectralNorm([4, 6])", [4, 6]),
    ("Dropout(0.0)", [4, 5]),
    ("Dropout(0.2, axis=1, mode='downscale_in_infer')", [4, 5]),
    ("Dropout2D(0.3)", [2, 3, 4, 4]),
    ("Dropout3D()", [2, 3, 2, 2, 2]),
    ("AlphaDropout(0.2)", [4, 5]),
]


def _inputs(spec, rng):
    if spec == "ids":
        ids = rng.integers(0, 10, [3, 4]).astype(np.int64)
        return [ids]
    shapes = spec if isinstance(spec, tuple) else (spec,)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


@pytest.mark.parametrize("call,spec", CASES, ids=[c for c, _ in CASES])
def test_layer_matches_paddle(call, spec):
    theirs = eval("paddle.nn." + call)
    ours = eval("oar.nn." + call)
    assert repr(ours) == repr(theirs)
    if call.startswith("SyncBatchNorm"):
        # Paddle's CPU build has no sync_batch_norm kernel; on one process it is BatchNorm2D.
        theirs = paddle.nn.BatchNorm2D(4)
    their_state = theirs.state_dict()
    assert [(k, list(v.shape)) for k, v in ours.state_dict().items()] == \
        [(k, list(v.shape)) for k, v in their_state.items()]
    ours.set_state_dict({k: v.numpy() for k, v in their_state.items()})
    rng = np.random.default_rng(0)
    arrays = _inputs(spec, rng)
    random_layer = "Dropout" in call
    # Dropouts are random in training: compare them in eval mode only (their training mode is tested
    # statistically in the functional tests).
    for training in ([False] if random_layer else [True, False]):
        theirs.train() if training else theirs.eval()
        ours.train() if training else ours.eval()
        differentiable = arrays[0].dtype == np.float32
        xs_p = [paddle.to_tensor(a, stop_gradient=not differentiable) for a in arrays]
        xs_o = [oar.to_tensor(a, stop_gradient=not differentiable) for a in arrays]
        out_p, out_o = theirs(*xs_p), ours(*xs_o)
        np.testing.assert_allclose(out_o.numpy(), out_p.numpy(), rtol=1e-4, atol=1e-5)
        weights = rng.standard_normal(out_p.shape).astype(np.float32)
        (out_p * paddle.to_tensor(weights)).sum().backward()
        (out_o * oar.to_tensor(weights)).sum().backward()
        # Paddle's SpectralNorm backward disagrees with finite differences (test_spectral_norm_gradient).
        if differentiable and not call.startswith("SpectralNorm"):
            for xp, xo in zip(xs_p, xs_o):
                np.testing.assert_allclose(xo.grad.numpy(), xp.grad.numpy(), rtol=1e-4, atol=1e-4)
        for (name, pp), po in zip(theirs.named_parameters(), ours.parameters()):
            if pp.grad is not None:
                np.testing.assert_allclose(po.grad.numpy(), pp.grad.numpy(), rtol=1e-4, atol=1e-4, err_msg=name)
        theirs.clear_gradients()
        ours.clear_gradients()
    for (name, vp), vo in zip(their_state.items(), ours.state_dict().values()):
        # BatchNorm's running statistics moved the same way in training.
        np.testing.assert_allclose(vo.numpy(), vp.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)


def test_public_layer_names_match_paddle():
    ours = {n for n in dir(oar.nn) if n[0].isupper()}
    theirs = {n for n in dir(paddle.nn) if n[0].isupper()}
    assert not ours - theirs, f"oar.nn has names Paddle lacks: {sorted(ours - theirs)}"


def test_container_argument_errors_match_paddle():
    from test_nn_layer_base import CONTAINER_ERRORS
    for call, error, _ in CONTAINER_ERRORS:
        for lib in (paddle, oar):
            with pytest.raises(error):
                eval("lib.nn." + call.replace("nn.", "lib.nn."))
