"""nn.functional.temporal_shift and gather_tree against NumPy references (the layouts Paddle
3.3.1 gives, measured), temporal_shift's gradient by central differences, and bad inputs."""
import numpy as np
import pytest

import oar
import oar.nn.functional as F
from op_test import check_grad, rand


def np_temporal_shift(x, seg_num, ratio=0.25, channel_last=False):
    if channel_last:
        x = np.moveaxis(x, -1, 1)
    nt, c = x.shape[:2]
    f = x.reshape((nt // seg_num, seg_num) + x.shape[1:])
    c1, c2 = int(c * ratio), int(c * 2 * ratio)
    out = f.copy()
    out[:, :, :c1] = 0
    out[:, 1:, :c1] = f[:, :-1, :c1]      # from the previous frame
    out[:, :, c1:c2] = 0
    out[:, :-1, c1:c2] = f[:, 1:, c1:c2]  # from the next frame
    out = out.reshape(x.shape)
    return np.moveaxis(out, 1, -1) if channel_last else out


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape,seg,ratio,fmt", [((6, 4, 2, 3), 3, 0.25, "NCHW"),
                                                 ((4, 10, 2, 2), 2, 0.3, "NCHW"),
                                                 ((3, 2, 3, 8), 3, 0.2, "NHWC"),
                                                 ((2, 4, 1, 1), 1, 0.25, "NCHW"),
                                                 ((4, 3, 1, 2), 2, 0.1, "NCHW")])
def test_temporal_shift(shape, seg, ratio, fmt, dt):
    x = rand(shape, dt, seed=len(shape) + seg)
    out = F.temporal_shift(oar.to_tensor(x), seg, ratio, data_format=fmt)
    assert out.dtype == oar.to_tensor(x).dtype
    np.testing.assert_array_equal(out.numpy(), np_temporal_shift(x, seg, ratio, fmt == "NHWC"))


def test_temporal_shift_paddle_values_and_grad():
    # Paddle 3.3.1: x = arange(24).reshape(6, 4, 1, 1), seg_num=3, first clip.
    x = np.arange(24, dtype="float32").reshape(6, 4, 1, 1)
    out = F.temporal_shift(oar.to_tensor(x), seg_num=3).numpy().reshape(2, 3, 4)[0]
    np.testing.assert_array_equal(out, [[0, 5, 2, 3], [0, 9, 6, 7], [4, 0, 10, 11]])
    check_grad(lambda t: F.temporal_shift(t, 2, 0.3), [rand((4, 5, 2, 2), seed=9)], what="temporal_shift")
    check_grad(lambda t: F.temporal_shift(t, 3, data_format="NHWC"), [rand((3, 2, 2, 4), seed=10)],
               what="temporal_shift NHWC")


def np_gather_tree(ids, parents):
    out = np.empty_like(ids)
    steps, batch, beam = ids.shape
    for b in range(batch):
        for k in range(beam):
            p = k
            for t in range(steps - 1, -1, -1):
                out[t, b, k] = ids[t, b, p]
                p = parents[t, b, p]
    return out


@pytest.mark.parametrize("dt", ["int32", "int64"])
def test_gather_tree(dt):
    rng = np.random.default_rng(4)
    ids, parents = rng.integers(0, 9, (5, 2, 3)).astype(dt), rng.integers(0, 3, (5, 2, 3)).astype(dt)
    out = F.gather_tree(oar.to_tensor(ids), oar.to_tensor(parents))
    assert out.dtype == oar.to_tensor(ids).dtype
    np.testing.assert_array_equal(out.numpy(), np_gather_tree(ids, parents))
    # Paddle's documented example.
    ids = np.array([[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]], dt)
    parents = np.array([[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]], dt)
    np.testing.assert_array_equal(F.gather_tree(oar.to_tensor(ids), oar.to_tensor(parents)).numpy(),
                                  [[[2, 2], [1, 6]], [[3, 3], [6, 1]], [[0, 1], [9, 0]]])


def test_extension_bad_inputs():
    x = oar.to_tensor(rand((6, 4, 1, 1), "float32"))
    with pytest.raises(ValueError, match=r"temporal_shift: x's dim 0 \(6\) must be divisible by seg_num \(4\)"):
        F.temporal_shift(x, 4)
    with pytest.raises(ValueError, match="temporal_shift: argument 'shift_ratio' must be less than 0.5, got 0.6"):
        F.temporal_shift(x, 3, 0.6)
    with pytest.raises(ValueError, match=r"temporal_shift: argument 'x' must be 4-D \(\[N\*T, C, H, W\]\), got shape \[6, 4\]"):
        F.temporal_shift(x.reshape([6, 4]), 3)
    with pytest.raises(ValueError, match="temporal_shift: argument 'data_format' should be 'NCHW' or 'NHWC', got 'NCL'"):
        F.temporal_shift(x, 3, data_format="NCL")
    with pytest.raises(TypeError, match="temporal_shift: argument 'x' must be a float32 or float64 tensor"):
        F.temporal_shift(x.astype("float16"), 3)
    ids = oar.to_tensor(np.zeros((3, 2, 2), np.int64))
    with pytest.raises(ValueError, match=r"gather_tree: 'parents' must have the shape of 'ids' \(\[3, 2, 2\]\), got \[2, 2, 2\]"):
        F.gather_tree(ids, oar.to_tensor(np.zeros((2, 2, 2), np.int64)))
    with pytest.raises(TypeError, match="gather_tree: argument 'ids' must be an int32 or int64 tensor, got float32"):
        F.gather_tree(ids.astype("float32"), ids)
