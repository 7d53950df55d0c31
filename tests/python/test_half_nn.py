"""float16/bfloat16 in the nn ops whose Paddle CPU kernels have them (pooling, interpolate,
embedding) and the ops whose half results Paddle widens (ldexp, median): each against a NumPy
reference computed in float32 from the half-rounded input, at half tolerance. The float64 gradient
checks live with each op's own tests; here the half gradient must match the float32 one."""
import numpy as np
import pytest

import oar
import oar.nn.functional as F
from op_test import rand
from test_pool import np_pool

HALF = ["float16", "bfloat16"]
TOL = {"float16": dict(rtol=2e-3, atol=2e-3), "bfloat16": dict(rtol=1.6e-2, atol=1.6e-2)}


def half_input(shape, dt, seed):
    """(half tensor, its values as float32): the reference starts from the rounded input."""
    t = oar.to_tensor(rand(shape, "float32", -2, 2, seed=seed)).astype(dt)
    return t, t.astype("float32").numpy()


def as_f32(t):
    return t.astype("float32").numpy()


def grads_match(fn, x_half, w_seed=3):
    """d(sum(fn(x) * w))/dx in half precision against the same in float32 from the same values."""
    x32 = x_half.astype("float32")
    outs = []
    for x in (x_half, x32):
        x = x.detach()
        x.stop_gradient = False
        y = fn(x)
        w = oar.to_tensor(rand(y.shape, "float32", 0.5, 1.5, seed=w_seed)).astype(y.dtype)
        g, = oar.grad([(y * w).sum()], [x])
        assert g.dtype == x.dtype
        outs.append(as_f32(g))
    return outs


POOLS = [
    # (name, fn, input shape, reference)
    ("max_pool1d", lambda x: F.max_pool1d(x, 3, 2, 1), (2, 3, 9),
     lambda a: np_pool(a, [3], [2], [(1, 1)], kind="max")[0]),
    ("avg_pool1d", lambda x: F.avg_pool1d(x, 3, 2), (2, 3, 9),
     lambda a: np_pool(a, [3], [2], kind="avg")[0]),
    ("max_pool2d", lambda x: F.max_pool2d(x, 3, 2, 1), (2, 3, 7, 6),
     lambda a: np_pool(a, [3, 3], [2, 2], [(1, 1), (1, 1)], kind="max")[0]),
    ("avg_pool2d", lambda x: F.avg_pool2d(x, 2, 1, exclusive=False), (2, 3, 5, 6),
     lambda a: np_pool(a, [2, 2], [1, 1], kind="avg", exclusive=False)[0]),
    ("max_pool3d", lambda x: F.max_pool3d(x, 2, 1), (1, 2, 4, 3, 5),
     lambda a: np_pool(a, [2, 2, 2], [1, 1, 1], kind="max")[0]),
    ("avg_pool3d", lambda x: F.avg_pool3d(x, 2, 2, ceil_mode=True), (1, 2, 5, 4, 3),
     lambda a: np_pool(a, [2, 2, 2], [2, 2, 2], ceil_mode=True, kind="avg")[0]),
    ("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 4), (2, 3, 9),
     lambda a: np_pool(a, [4], adaptive=True, kind="avg")[0]),
    ("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, [3, 2]), (2, 3, 7, 5),
     lambda a: np_pool(a, [3, 2], adaptive=True, kind="avg")[0]),
    ("adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, 2), (1, 2, 5, 4, 3),
     lambda a: np_pool(a, [2, 2, 2], adaptive=True, kind="avg")[0]),
    ("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, [3, 2]), (2, 3, 7, 5),
     lambda a: np_pool(a, [3, 2], adaptive=True, kind="max")[0]),
]


@pytest.mark.parametrize("dt", HALF)
@pytest.mark.parametrize("name,fn,shape,ref", POOLS, ids=[p[0] for p in POOLS])
def test_pool_half_forward_and_grad(name, fn, shape, ref, dt):
    x, x32 = half_input(shape, dt, seed=len(name))
    y = fn(x)
    assert y.dtype == x.dtype, name
    np.testing.assert_allclose(as_f32(y), ref(x32.astype(np.float64)), **TOL[dt], err_msg=name)
    g_half, g32 = grads_match(fn, x)
    np.testing.assert_allclose(g_half, g32, **TOL[dt], err_msg=f"{name} gradient")


@pytest.mark.parametrize("dt", HALF)
def test_pool_half_channel_last_and_mask(dt):
    x, x32 = half_input((2, 6, 5, 3), dt, seed=11)  # NHWC
    y = F.max_pool2d(x, 2, 2, data_format="NHWC")
    ref = np_pool(np.moveaxis(x32, -1, 1).astype(np.float64), [2, 2], kind="max")[0]
    np.testing.assert_allclose(np.moveaxis(as_f32(y), -1, 1), ref, **TOL[dt])
    xc, xc32 = half_input((2, 3, 6, 5), dt, seed=12)
    out, mask = F.max_pool2d(xc, 2, 2, return_mask=True)
    ref, m = np_pool(xc32.astype(np.float64), [2, 2], kind="max")
    np.testing.assert_allclose(as_f32(out), ref, **TOL[dt])
    np.testing.assert_array_equal(mask.numpy(), m)


@pytest.mark.parametrize("dt", HALF)
@pytest.mark.parametrize("mode,shape,size", [("nearest", (1, 2, 4, 5), [7, 3]),
                                             ("linear", (2, 3, 5), [9]),
                                             ("bilinear", (1, 2, 4, 5), [7, 3]),
                                             ("bicubic", (1, 2, 5, 6), [8, 4]),
                                             ("trilinear", (1, 2, 3, 4, 5), [5, 2, 7]),
                                             ("area", (1, 2, 7, 5), [3, 4])])
def test_interpolate_half(mode, shape, size, dt):
    # Reference: the float32 kernel (checked against NumPy and Paddle in test_vision.py) on the
    # same rounded values, rounded once more to the half dtype.
    x, x32 = half_input(shape, dt, seed=4)
    fn = lambda t: F.interpolate(t, size=size, mode=mode)
    y = fn(x)
    assert y.dtype == x.dtype
    ref = fn(oar.to_tensor(x32)).astype(dt).astype("float32").numpy()
    np.testing.assert_allclose(as_f32(y), ref, **TOL[dt])
    g_half, g32 = grads_match(fn, x)
    np.testing.assert_allclose(g_half, g32, **TOL[dt])


@pytest.mark.parametrize("dt", HALF)
def test_embedding_half(dt):
    ids = oar.to_tensor(np.array([[0, 2, 2], [3, 1, 2]]))
    w, w32 = half_input((4, 5), dt, seed=5)
    y = F.embedding(ids, w, padding_idx=1)
    assert y.dtype == w.dtype
    ref = w32[ids.numpy()]
    ref[ids.numpy() == 1] = 0
    np.testing.assert_array_equal(as_f32(y), ref)  # a row copy: exact
    g_half, g32 = grads_match(lambda t: F.embedding(ids, t, padding_idx=1), w)
    np.testing.assert_allclose(g_half, g32, **TOL[dt])  # id 2 three times: summed in float32


@pytest.mark.parametrize("dt", HALF)
def test_ldexp_and_median_of_half_are_float32(dt):
    # Paddle computes both in the default float dtype for half inputs.
    x, x32 = half_input((3, 4), dt, seed=6)
    y = oar.to_tensor(np.array([1, -2, 3, 0], np.int32))
    out = oar.ldexp(x, y)
    assert out.dtype == oar.float32
    np.testing.assert_allclose(out.numpy(), np.ldexp(x32, y.numpy()), rtol=1e-6)
    m = oar.median(x)
    assert m.dtype == oar.float32
    np.testing.assert_allclose(m.numpy(), np.median(x32), rtol=1e-6)
    m = oar.median(x, axis=1, keepdim=True)
    assert m.dtype == oar.float32 and m.shape == [3, 1]
    np.testing.assert_allclose(m.numpy(), np.median(x32, axis=1, keepdims=True), rtol=1e-6)


def test_half_nn_bad_inputs():
    with pytest.raises(TypeError, match=r"avg_pool2d: argument 'x' must be a floating-point tensor "
                                        r"\(float16, bfloat16, float32, float64\), got int32"):
        F.avg_pool2d(oar.to_tensor(np.ones((1, 1, 4, 4), np.int32)), 2)
    with pytest.raises(TypeError, match=r"embedding: argument 'weight' must be a floating-point "
                                        r"tensor \(float16, bfloat16, float32, float64\), got int64"):
        F.embedding(oar.to_tensor(np.array([0, 1])), oar.to_tensor(np.ones((3, 2), np.int64)))
    with pytest.raises(TypeError, match=r"argument 'x' must be a floating-point tensor \(float16, "
                                        r"bfloat16, float32, float64\), got int64"):
        F.interpolate(oar.to_tensor(np.ones((1, 1, 4), np.int64)), size=[6], mode="linear")
