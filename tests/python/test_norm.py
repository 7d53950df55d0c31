"""Normalisation (layer_norm, batch_norm, group_norm, instance_norm, normalize) against NumPy
references, with float64 gradient checks and argument errors."""
import numpy as np
import pytest

import oar
import oar.nn.functional as F
from op_test import FLOAT_DTYPES, assert_close, check_grad, rand


def np_layer_norm(x, k, w=None, b=None, eps=1e-5):
    axes = tuple(range(x.ndim - k, x.ndim))
    m = x.mean(axes, keepdims=True)
    v = x.var(axes, keepdims=True)
    y = (x - m) / np.sqrt(v + eps)
    shape = x.shape[x.ndim - k:]
    if w is not None:
        y = y * w.reshape(shape)
    if b is not None:
        y = y + b.reshape(shape)
    return y


def np_batch_norm(x, mean, var, w, b, eps, axis):
    s = [1] * x.ndim
    s[axis] = x.shape[axis]
    y = (x - mean.reshape(s)) / np.sqrt(var.reshape(s) + eps)
    if w is not None:
        y = y * w.reshape(s)
    if b is not None:
        y = y + b.reshape(s)
    return y


def T(a, **kw):
    return oar.to_tensor(a, **kw)


# ------------------------------------------------------------------ layer_norm
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape,k", [((4, 6), 1), ((2, 3, 4), 2), ((1, 5), 1), ((3, 1), 1),
                                     ((2, 3, 4), 3)])
def test_layer_norm_forward(dtype, shape, k):
    x = rand(shape, dtype, seed=1) * 3 + 1
    ns = list(shape[len(shape) - k:])
    w = rand([int(np.prod(ns))], dtype, seed=2)  # 1-D, as Paddle
    b = rand([int(np.prod(ns))], dtype, seed=3)
    assert_close(F.layer_norm(T(x), ns), np_layer_norm(x.astype(np.float64), k), dtype)
    out = F.layer_norm(T(x), ns, T(w), T(b), epsilon=1e-3)
    assert out.dtype.name == dtype and out.shape == list(shape)
    assert_close(out, np_layer_norm(x.astype(np.float64), k, w, b, 1e-3), dtype)
    assert_close(F.layer_norm(T(x), ns, weight=T(w)), np_layer_norm(x.astype(np.float64), k, w), dtype)
    assert_close(F.layer_norm(T(x), ns, bias=T(b)), np_layer_norm(x.astype(np.float64), k, None, b), dtype)


def test_layer_norm_int_shape_noncontiguous_empty_and_large_offset():
    x = rand((5, 4), seed=4)
    xt = T(x).t()  # [4, 5] non-contiguous view
    assert_close(F.layer_norm(xt, 5), np_layer_norm(x.T, 1), "float64")
    # a large common offset: float32 stays accurate (float64 sums)
    big = (rand((3, 64), "float32", seed=5) + 1000.0).astype(np.float32)
    assert_close(F.layer_norm(T(big), 64), np_layer_norm(big.astype(np.float64), 1), "float32")
    e = F.layer_norm(T(np.zeros((0, 4))), [4])
    assert e.shape == [0, 4]


def test_layer_norm_grad():
    x = rand((3, 4), seed=6)
    w = rand((4,), seed=7)
    b = rand((4,), seed=8)
    check_grad(lambda x, w, b: F.layer_norm(x, 4, w, b), [x, w, b], what="layer_norm")
    check_grad(lambda x: F.layer_norm(x, [2, 2]), [rand((3, 2, 2), seed=9)], what="layer_norm no affine")
    check_grad(lambda x, w: F.layer_norm(x, 4, w), [x, w], what="layer_norm weight only")
    check_grad(lambda x, b: F.layer_norm(x, 4, None, b), [x, b], what="layer_norm bias only")
    # only the parameters need gradients (x is a constant)
    check_grad(lambda x, w, b: F.layer_norm(x, 4, w, b), [x, w, b], wrt=[1, 2], what="layer_norm params")
    check_grad(lambda x, w, b: F.layer_norm(x, 4, w, b), [x, w, b], wrt=[2], what="layer_norm bias")


def test_layer_norm_grad_float32_matches_float64():
    x = rand((8, 16), seed=10)
    w = rand((16,), seed=11)
    g = rand((8, 16), seed=12)
    grads = {}
    for dt in FLOAT_DTYPES:
        xt = T(x.astype(dt), stop_gradient=False)
        wt = T(w.astype(dt), stop_gradient=False)
        (F.layer_norm(xt, 16, wt) * T(g.astype(dt))).sum().backward()
        grads[dt] = (xt.grad.numpy(), wt.grad.numpy())
    np.testing.assert_allclose(grads["float32"][0], grads["float64"][0], atol=1e-4)
    np.testing.assert_allclose(grads["float32"][1], grads["float64"][1], atol=1e-4)


def test_layer_norm_errors():
    x = T(rand((2, 3), "float32"))
    with pytest.raises(ValueError, match=r"layer_norm: argument 'normalized_shape' is \[4\].*got input shape \[2, 3\]"):
        F.layer_norm(x, [4])
    with pytest.raises(ValueError, match=r"layer_norm: argument 'weight' expected shape \[3\] \(prod of normalized_shape \[3\]\), got \[4\]"):
        F.layer_norm(x, 3, weight=T(rand((4,), "float32")))
    # measured with paddle 3.3.1: the weight must be 1-D even for a multi-dim normalized_shape
    with pytest.raises(ValueError, match=r"layer_norm: argument 'bias' expected shape \[6\] \(prod of normalized_shape \[2, 3\]\), got \[2, 3\]"):
        F.layer_norm(T(rand((4, 2, 3), "float32")), [2, 3], bias=T(rand((2, 3), "float32")))
    with pytest.raises(TypeError, match="layer_norm: argument 'weight' must have x's dtype float32, got float64"):
        F.layer_norm(x, 3, weight=T(rand((3,), "float64")))
    with pytest.raises(TypeError, match="layer_norm: argument 'x' must be a float32 or float64 tensor, got int64"):
        F.layer_norm(T(np.ones((2, 3), np.int64)), 3)


# ------------------------------------------------------------------ batch_norm
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape,fmt", [((4, 3, 2, 2), "NCHW"), ((4, 2, 2, 3), "NHWC"), ((5, 3), "NC"),
                                       ((2, 3, 4), "NCL"), ((2, 4, 3), "NLC"), ((1, 3, 2, 2, 2), "NCDHW")])
def test_batch_norm_train_and_eval(dtype, shape, fmt):
    axis = 1 if fmt[1] == "C" else len(shape) - 1
    C = shape[axis]
    x = rand(shape, dtype, seed=1) * 2 + 0.5
    w = rand((C,), dtype, seed=2)
    b = rand((C,), dtype, seed=3)
    rm0 = rand((C,), dtype, seed=4)
    rv0 = rand((C,), dtype, low=0.5, high=1.5, seed=5)
    rm, rv = T(rm0.copy()), T(rv0.copy())
    out = F.batch_norm(T(x), rm, rv, T(w), T(b), training=True, momentum=0.8, epsilon=1e-4,
                       data_format=fmt)
    red = tuple(d for d in range(len(shape)) if d != axis)
    x64 = x.astype(np.float64)
    bm, bv = x64.mean(red), x64.var(red)
    assert out.dtype.name == dtype and out.shape == list(shape)
    assert_close(out, np_batch_norm(x64, bm, bv, w, b, 1e-4, axis), dtype)
    # Paddle's convention: running = momentum * running + (1 - momentum) * batch (biased var)
    assert_close(rm, 0.8 * rm0 + 0.2 * bm, dtype)
    assert_close(rv, 0.8 * rv0 + 0.2 * bv, dtype)
    # inference: running statistics, nothing updated
    before = rm.numpy().copy()
    out = F.batch_norm(T(x), rm, rv, T(w), T(b), data_format=fmt)
    assert_close(out, np_batch_norm(x64, rm.numpy(), rv.numpy(), w, b, 1e-5, axis), dtype)
    np.testing.assert_array_equal(rm.numpy(), before)
    # training with use_global_stats: running statistics, not updated
    out = F.batch_norm(T(x), rm, rv, training=True, use_global_stats=True, data_format=fmt)
    assert_close(out, np_batch_norm(x64, rm.numpy(), rv.numpy(), None, None, 1e-5, axis), dtype)
    np.testing.assert_array_equal(rm.numpy(), before)
    # eval with use_global_stats=False: batch statistics, running not updated
    out = F.batch_norm(T(x), rm, rv, training=False, use_global_stats=False, data_format=fmt)
    assert_close(out, np_batch_norm(x64, bm, bv, None, None, 1e-5, axis), dtype)
    np.testing.assert_array_equal(rm.numpy(), before)


def test_batch_norm_paddle_values():
    # measured with paddle 3.3.1: x = arange(8).reshape([2, 2, 2]) float32, training, momentum 0.9
    x = T(np.arange(8, dtype=np.float32).reshape(2, 2, 2))
    rm, rv = oar.zeros([2]), oar.ones([2])
    F.batch_norm(x, rm, rv, training=True, data_format="NCL")
    np.testing.assert_allclose(rm.numpy(), [0.25, 0.45], rtol=1e-6)
    np.testing.assert_allclose(rv.numpy(), [1.3250, 1.3250], rtol=1e-6)


def test_batch_norm_noncontiguous():
    x = rand((3, 4, 5), seed=6)
    xt = T(x).transpose([2, 1, 0])  # [5, 4, 3], channels 4
    rm, rv = oar.zeros([4], "float64"), oar.ones([4], "float64")
    out = F.batch_norm(xt, rm, rv, training=True, data_format="NCL")
    xx = x.transpose(2, 1, 0)
    assert_close(out, np_batch_norm(xx, xx.mean((0, 2)), xx.var((0, 2)), None, None, 1e-5, 1), "float64")


def test_batch_norm_grad():
    x = rand((3, 2, 2), seed=7)
    w = rand((2,), seed=8)
    b = rand((2,), seed=9)

    def train(x, w, b):
        return F.batch_norm(x, oar.zeros([2], "float64"), oar.ones([2], "float64"), w, b,
                            training=True, data_format="NCL")

    def evalf(x, w, b):
        return F.batch_norm(x, T(np.array([0.1, -0.2])), T(np.array([0.5, 2.0])), w, b,
                            data_format="NCL")

    check_grad(train, [x, w, b], what="batch_norm train")
    check_grad(evalf, [x, w, b], what="batch_norm eval")
    check_grad(train, [x, w, b], wrt=[1, 2], what="batch_norm params")
    check_grad(train, [x, w, b], wrt=[2], what="batch_norm bias")
    check_grad(lambda x: F.batch_norm(x, oar.zeros([2], "float64"), oar.ones([2], "float64"),
                                      training=True, data_format="NLC"),
               [rand((3, 2, 2), seed=10)], what="batch_norm NLC")
    x4 = rand((2, 3, 2, 2), seed=11)
    check_grad(lambda x, w: F.batch_norm(x, oar.zeros([3], "float64"), oar.ones([3], "float64"), w,
                                         training=True),
               [x4, rand((3,), seed=12)], what="batch_norm NCHW")


def test_batch_norm_base_outputs():
    x = T(rand((4, 3), seed=13))
    out, mean, rstd = oar.batch_norm_base(x, oar.zeros([3], "float64"), oar.ones([3], "float64"),
                                          None, None, True, False, 0.9, 1e-5, 1)
    xx = x.numpy()
    assert_close(mean, xx.mean(0), "float64")
    assert_close(rstd, 1 / np.sqrt(xx.var(0) + 1e-5), "float64")


def test_batch_norm_errors():
    x = T(rand((2, 3, 4), "float32"))
    rm, rv = oar.zeros([3]), oar.ones([3])
    with pytest.raises(ValueError, match=r"batch_norm: argument 'weight' expected shape \[3\], got \[4\]"):
        F.batch_norm(x, rm, rv, weight=oar.ones([4]), data_format="NCL")
    with pytest.raises(ValueError, match=r"batch_norm: argument 'running_mean' expected shape \[4\], got \[3\]"):
        F.batch_norm(x, rm, rv, data_format="NLC")
    with pytest.raises(ValueError, match="batch_norm: argument 'data_format' must be one of"):
        F.batch_norm(x, rm, rv, data_format="CHWN")
    with pytest.raises(TypeError, match="batch_norm: argument 'running_var' must have x's dtype float32, got float64"):
        F.batch_norm(x, rm, oar.ones([3], "float64"), data_format="NCL")
    with pytest.raises(ValueError, match=r"batch_norm: argument 'x' must be 2-D to 5-D, got shape \[3\]"):
        F.batch_norm(oar.ones([3]), rm, rv)


# ------------------------------------------------------------------ group_norm / instance_norm
def np_group_norm(x, G, w, b, eps):
    N, C = x.shape[:2]
    xr = x.reshape(N, G, -1)
    y = ((xr - xr.mean(2, keepdims=True)) / np.sqrt(xr.var(2, keepdims=True) + eps)).reshape(x.shape)
    s = [1, C] + [1] * (x.ndim - 2)
    if w is not None:
        y = y * w.reshape(s)
    if b is not None:
        y = y + b.reshape(s)
    return y


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_group_norm(dtype):
    x = rand((2, 4, 3, 3), dtype, seed=1)
    w = rand((4,), dtype, seed=2)
    b = rand((4,), dtype, seed=3)
    x64 = x.astype(np.float64)
    assert_close(F.group_norm(T(x), 2, 1e-5, T(w), T(b)), np_group_norm(x64, 2, w, b, 1e-5), dtype)
    assert_close(F.group_norm(T(x), 4), np_group_norm(x64, 4, None, None, 1e-5), dtype)
    xl = np.ascontiguousarray(np.moveaxis(x, 1, -1))
    out = F.group_norm(T(xl), 2, weight=T(w), bias=T(b), data_format="NHWC")
    assert_close(out, np.moveaxis(np_group_norm(x64, 2, w, b, 1e-5), 1, -1), dtype)


def test_group_norm_grad_and_errors():
    check_grad(lambda x, w, b: F.group_norm(x, 2, weight=w, bias=b),
               [rand((2, 4, 3), seed=4), rand((4,), seed=5), rand((4,), seed=6)], what="group_norm")
    x = T(rand((2, 4, 3), "float32"))
    with pytest.raises(ValueError, match=r"group_norm: argument 'num_groups' \(3\) must divide the number of channels 4"):
        F.group_norm(x, 3)
    with pytest.raises(ValueError, match="group_norm: argument 'data_format' must be one of"):
        F.group_norm(x, 2, data_format="XYZ")


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_instance_norm(dtype):
    x = rand((2, 3, 4, 2), dtype, seed=1)
    w = rand((3,), dtype, seed=2)
    b = rand((3,), dtype, seed=3)
    x64 = x.astype(np.float64)
    assert_close(F.instance_norm(T(x), weight=T(w), bias=T(b)), np_group_norm(x64, 3, w, b, 1e-5), dtype)
    assert_close(F.instance_norm(T(x), eps=1e-3), np_group_norm(x64, 3, None, None, 1e-3), dtype)
    rm = rand((3,), dtype, seed=4)
    rv = rand((3,), dtype, low=0.5, high=2, seed=5)
    out = F.instance_norm(T(x), T(rm), T(rv), use_input_stats=False)
    assert_close(out, np_batch_norm(x64, rm, rv, None, None, 1e-5, 1), dtype)


def test_instance_norm_grad_and_errors():
    check_grad(lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
               [rand((2, 3, 4), seed=4), rand((3,), seed=5), rand((3,), seed=6)], what="instance_norm")
    with pytest.raises(ValueError, match="instance_norm: use_input_stats=False needs running_mean and running_var"):
        F.instance_norm(oar.ones([2, 3, 4]), use_input_stats=False)
    with pytest.raises(ValueError, match=r"instance_norm: argument 'weight' expected shape \[3\], got \[2\]"):
        F.instance_norm(oar.ones([2, 3, 4]), weight=oar.ones([2]))


# ------------------------------------------------------------------ normalize
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_normalize(dtype):
    x = rand((3, 4), dtype, seed=1)
    x64 = x.astype(np.float64)
    for p, axis in [(2, 1), (1, 0), (3, -1)]:
        n = np.sum(np.abs(x64) ** p, axis=axis, keepdims=True) ** (1.0 / p)
        assert_close(F.normalize(T(x), p=p, axis=axis), x64 / np.maximum(n, 1e-12), dtype)
    z = F.normalize(oar.zeros([2, 3], dtype))
    np.testing.assert_array_equal(z.numpy(), np.zeros((2, 3)))
    np.testing.assert_allclose(F.normalize(T(np.array([[3.0, 4.0]]))).numpy(), [[0.6, 0.8]])


def test_normalize_grad_and_errors():
    check_grad(lambda x: F.normalize(x), [rand((3, 4), seed=2)], what="normalize")
    check_grad(lambda x: F.normalize(x, p=1, axis=0), [rand((3, 4), seed=3)], what="normalize p=1")
    with pytest.raises(ValueError, match="normalize"):
        F.normalize(oar.ones([2, 3]), axis=2)


def first_grad(fn, wrt=0):
    """x, *rest -> d sum(fn(x, *rest) * G) / d(input wrt) with create_graph=True, so that
    check_grad differentiates the gradient itself (second order)."""
    def op(*args):
        with oar.enable_grad():
            args = list(args)
            if args[wrt].stop_gradient:
                args[wrt] = args[wrt].detach()
                args[wrt].stop_gradient = False
            out = fn(*args)
            g = T(np.cos(np.arange(out.size)).reshape(out.shape))
            return oar.grad([(out * g).sum()], [args[wrt]], create_graph=True)[0]
    return op


def test_double_backward():
    x = rand((3, 4), seed=20)
    w = rand((4,), seed=21)
    b = rand((4,), seed=22)
    check_grad(first_grad(lambda x, w, b: F.layer_norm(x, 4, w, b)), [x, w, b], what="layer_norm d2/dx")
    check_grad(first_grad(lambda x, w, b: F.layer_norm(x, 4, w, b), 1), [x, w, b], what="layer_norm d2/dw")
    check_grad(first_grad(lambda x: F.layer_norm(x, [2, 2])), [rand((2, 2, 2), seed=23)], what="layer_norm no affine")

    def bn(x, w, b):
        return F.batch_norm(x, oar.zeros([2], "float64"), oar.ones([2], "float64"), w, b, training=True,
                            data_format="NCL")

    def bn_eval(x, w, b):
        return F.batch_norm(x, T(np.array([0.1, -0.2])), T(np.array([0.5, 2.0])), w, b, data_format="NLC")

    x3, w2, b2 = rand((3, 2, 2), seed=24), rand((2,), seed=25), rand((2,), seed=26)
    check_grad(first_grad(bn), [x3, w2, b2], what="batch_norm d2/dx")
    check_grad(first_grad(bn, 1), [x3, w2, b2], what="batch_norm d2/dw")
    check_grad(first_grad(bn_eval), [rand((3, 2, 2), seed=27), w2, b2], what="batch_norm eval d2/dx")
    check_grad(first_grad(lambda x: F.batch_norm(x, oar.zeros([2], "float64"), oar.ones([2], "float64"),
                                                 training=True, data_format="NLC")),
               [rand((3, 2, 2), seed=28)], what="batch_norm NLC d2/dx")


def test_constant_rows_and_single_values():
    # measured with paddle 3.3.1: constant rows/channels normalise to exactly 0 (then + bias)
    np.testing.assert_array_equal(F.layer_norm(oar.ones([2, 1]) * 3, 1).numpy(), [[0.0], [0.0]])
    np.testing.assert_array_equal(F.layer_norm(oar.ones([2, 5]) * 7.3, 5, bias=oar.ones([5])).numpy(), np.ones((2, 5)))
    rm, rv = oar.zeros([3]), oar.ones([3])
    np.testing.assert_array_equal(F.batch_norm(oar.ones([2, 3]) * 2, rm, rv, training=True).numpy(), np.zeros((2, 3)))
    # one value per channel in training: Paddle returns x and leaves the running statistics
    rm, rv = oar.zeros([3]), oar.ones([3])
    out = F.batch_norm(oar.ones([1, 3]) * 2, rm, rv, training=True)
    np.testing.assert_array_equal(out.numpy(), [[2, 2, 2]])
    np.testing.assert_array_equal(rm.numpy(), [0, 0, 0])
    np.testing.assert_array_equal(rv.numpy(), [1, 1, 1])


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_half_norms(dt):
    rtol = {"float16": 4e-3, "bfloat16": 3e-2}[dt]
    x = T(rand((4, 3, 5), "float32", seed=1) * 2).astype(dt)
    w = T(rand((5,), "float32", seed=2)).astype(dt)
    out = F.layer_norm(x, 5, w)
    assert out.dtype.name == dt
    ref = F.layer_norm(x.astype("float32"), 5, w.astype("float32")).astype(dt).astype("float32").numpy()
    np.testing.assert_allclose(out.astype("float32").numpy(), ref, rtol=rtol, atol=rtol)
    rm, rv = oar.zeros([3]), oar.ones([3])
    out = F.batch_norm(x, rm, rv, training=True, data_format="NCL")
    assert out.dtype.name == dt
    rm2, rv2 = oar.zeros([3]), oar.ones([3])
    ref = F.batch_norm(x.astype("float32"), rm2, rv2, training=True, data_format="NCL")
    np.testing.assert_allclose(out.astype("float32").numpy(), ref.astype(dt).astype("float32").numpy(), rtol=rtol, atol=rtol)
    np.testing.assert_allclose(rm.numpy(), rm2.numpy(), rtol=1e-6)
    # gradients flow back in the half dtype
    xg = x.detach()
    xg.stop_gradient = False
    F.layer_norm(xg, 5).sum().backward()
    assert xg.grad.dtype.name == dt
