"""Convolutions: conv1d/2d/3d and their transposes against NumPy references, gradients,
Paddle's padding forms and errors (expected shapes for 'SAME' measured with paddle 3.3.1)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import oar
import oar.nn.functional as F
from op_test import check_grad, rand


# ---- NumPy references (channel-first) ----

def _pairs(padding, nd):
    if isinstance(padding, int):
        return [(padding, padding)] * nd
    if len(padding) == nd:
        return [(p, p) for p in padding]
    return [(padding[2 * d], padding[2 * d + 1]) for d in range(nd)]


def _per_dim(v, nd):
    return [v] * nd if isinstance(v, int) else list(v)


def np_conv(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """x [N, C, *S], w [M, C/groups, *K] -> [N, M, *O]."""
    nd = x.ndim - 2
    stride, dilation, pads = _per_dim(stride, nd), _per_dim(dilation, nd), _pairs(padding, nd)
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + pads)
    K = w.shape[2:]
    out = [(xp.shape[2 + d] - dilation[d] * (K[d] - 1) - 1) // stride[d] + 1 for d in range(nd)]
    N, M, Cg = x.shape[0], w.shape[0], w.shape[1]
    Mg = M // groups
    y = np.zeros([N, M] + out)
    for idx in np.ndindex(*K):
        sl = tuple(slice(idx[d] * dilation[d], idx[d] * dilation[d] + stride[d] * (out[d] - 1) + 1,
                         stride[d]) for d in range(nd))
        patch = xp[(slice(None), slice(None)) + sl]
        for g in range(groups):
            wg = w[g * Mg:(g + 1) * Mg, :][(slice(None), slice(None)) + idx]
            y[:, g * Mg:(g + 1) * Mg] += np.einsum("nc...,mc->nm...", patch[:, g * Cg:(g + 1) * Cg], wg)
    if b is not None:
        y += b.reshape([1, -1] + [1] * nd)
    return y


def np_conv_transpose(x, w, b=None, stride=1, padding=0, output_padding=0, dilation=1, groups=1,
                      output_size=None):
    """x [N, C, *S], w [C, M/groups, *K] -> [N, M, *O]: the adjoint of np_conv."""
    nd = x.ndim - 2
    stride, dilation, pads = _per_dim(stride, nd), _per_dim(dilation, nd), _pairs(padding, nd)
    opad = _per_dim(output_padding, nd)
    K, S = w.shape[2:], x.shape[2:]
    out = [(S[d] - 1) * stride[d] - pads[d][0] - pads[d][1] + dilation[d] * (K[d] - 1) + 1 + opad[d]
           for d in range(nd)]
    if output_size is not None:
        out = list(output_size)
    N, C, Mg = x.shape[0], x.shape[1], w.shape[1]
    Cg = C // groups
    buf = np.zeros([N, Mg * groups] + [out[d] + pads[d][0] + pads[d][1] + stride[d] for d in range(nd)])
    for idx in np.ndindex(*K):
        sl = tuple(slice(idx[d] * dilation[d], idx[d] * dilation[d] + stride[d] * (S[d] - 1) + 1,
                         stride[d]) for d in range(nd))
        for g in range(groups):
            wg = w[g * Cg:(g + 1) * Cg][(slice(None), slice(None)) + idx]  # [Cg, Mg]
            buf[(slice(None), slice(g * Mg, (g + 1) * Mg)) + sl] += np.einsum(
                "nc...,cm->nm...", x[:, g * Cg:(g + 1) * Cg].astype(np.float64), wg)
    y = buf[(slice(None), slice(None)) + tuple(slice(pads[d][0], pads[d][0] + out[d]) for d in range(nd))]
    if b is not None:
        y = y + b.reshape([1, -1] + [1] * nd)
    return y


def to_last(a):
    return np.ascontiguousarray(np.moveaxis(a, 1, -1))


def T(a, dt=None):
    return oar.to_tensor(a.astype(dt) if dt else a)


TOL = {"float32": dict(rtol=1e-4, atol=1e-4), "float64": dict(rtol=1e-10, atol=1e-10)}

# ---- conv2d ----

CONV2D_CASES = [
    # x shape, w shape, kwargs for both oar and the reference
    ((2, 4, 7, 6), (6, 4, 3, 3), {}),
    ((2, 4, 7, 6), (6, 4, 3, 3), {"stride": 2, "padding": 1}),
    ((1, 4, 7, 6), (6, 2, 3, 2), {"stride": [2, 1], "padding": [1, 0, 2, 1], "dilation": [1, 2],
                                  "groups": 2}),
    ((2, 3, 5, 5), (4, 3, 1, 1), {}),  # pointwise
    ((2, 3, 5, 5), (4, 3, 1, 1), {"stride": 2}),
    ((2, 4, 6, 6), (8, 1, 3, 3), {"groups": 4, "padding": [1, 1]}),  # depthwise, multiplier 2
    ((1, 2, 9, 8), (3, 2, 4, 3), {"stride": 3, "padding": [2, 1], "dilation": 2}),
]


@pytest.mark.parametrize("xs,ws,kw", CONV2D_CASES)
@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
def test_conv2d_forward(xs, ws, kw, dt, fmt):
    x, w, b = rand(xs, seed=1), rand(ws, seed=2), rand((ws[0],), seed=3)
    ref = np_conv(x, w, b, **kw)
    xin = to_last(x) if fmt == "NHWC" else x
    out = F.conv2d(T(xin, dt), T(w, dt), T(b, dt), data_format=fmt, **kw)
    assert out.dtype.name == dt
    got = out.numpy()
    if fmt == "NHWC":
        got = np.moveaxis(got, -1, 1)
    np.testing.assert_allclose(got, ref, **TOL[dt])
    # Without bias.
    got = F.conv2d(T(xin, dt), T(w, dt), None, data_format=fmt, **kw).numpy()
    if fmt == "NHWC":
        got = np.moveaxis(got, -1, 1)
    np.testing.assert_allclose(got, ref - b.reshape(1, -1, 1, 1), **TOL[dt])


def test_conv2d_padding_forms():
    x, w = rand((1, 2, 6, 5), seed=4), rand((3, 2, 3, 3), seed=5)
    xt, wt = T(x), T(w)
    ref = np_conv(x, w, padding=[1, 2, 0, 1])
    np.testing.assert_allclose(F.conv2d(xt, wt, padding=[1, 2, 0, 1]).numpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(F.conv2d(xt, wt, padding=[[0, 0], [0, 0], [1, 2], [0, 1]]).numpy(),
                               ref, rtol=1e-12)
    np.testing.assert_allclose(
        F.conv2d(T(to_last(x)), wt, padding=[[0, 0], [1, 2], [0, 1], [0, 0]],
                 data_format="NHWC").numpy(), to_last(ref), rtol=1e-12)
    np.testing.assert_allclose(F.conv2d(xt, wt, padding=(1, 1)).numpy(), np_conv(x, w, padding=1),
                               rtol=1e-12)
    # VALID pads nothing; SAME gives ceil(in / stride) and ignores dilation (as Paddle).
    assert F.conv2d(xt, wt, padding="VALID").shape == [1, 3, 4, 3]
    same = F.conv2d(xt, wt, padding="same", dilation=2)
    assert same.shape == [1, 3, 6, 5]
    np.testing.assert_allclose(same.numpy(), np_conv(x, w, padding=1), rtol=1e-12)
    assert F.conv2d(xt, wt, padding="SAME", stride=2).shape == [1, 3, 3, 3]
    # SAME puts the odd padding after: 6 -> (0, 1), 5 -> (1, 1) for stride 2 and a 3x3 kernel.
    np.testing.assert_allclose(F.conv2d(xt, wt, padding="SAME", stride=2).numpy(),
                               np_conv(x, w, padding=[0, 1, 1, 1], stride=2), rtol=1e-12)


def test_conv2d_edge_inputs():
    w = rand((3, 2, 3, 3), seed=6)
    # A non-contiguous (transposed) input.
    x = rand((1, 5, 6, 2), seed=7)
    xt = T(x).transpose([0, 3, 1, 2])
    for dt in ("float32", "float64"):
        out = F.conv2d(xt.astype(dt), T(w, dt), padding=1)
        np.testing.assert_allclose(out.numpy(), np_conv(x.transpose(0, 3, 1, 2), w, padding=1),
                                   **TOL[dt])
    # An empty batch (Paddle allows it) and a zero-size output.
    assert F.conv2d(T(np.zeros((0, 2, 5, 5))), T(w)).shape == [0, 3, 3, 3]
    assert F.conv2d(T(np.zeros((1, 2, 2, 2))), T(w)).shape == [1, 3, 0, 0]
    # Gradients through an empty batch are empty / zero.
    xe = oar.to_tensor(np.zeros((0, 2, 5, 5)), stop_gradient=False)
    we = oar.to_tensor(w, stop_gradient=False)
    F.conv2d(xe, we).sum().backward()
    assert xe.grad.shape == [0, 2, 5, 5]
    np.testing.assert_array_equal(we.grad.numpy(), np.zeros_like(w))


def test_conv2d_grad():
    x, w, b = rand((2, 4, 5, 4), seed=8), rand((6, 2, 3, 2), seed=9), rand((6,), seed=10)
    kw = dict(stride=[2, 1], padding=[1, 0, 2, 1], dilation=[1, 2], groups=2)
    check_grad(lambda a, k, c: F.conv2d(a, k, c, **kw), [x, w, b], what="F.conv2d")
    check_grad(lambda a, k, c: F.conv2d(a, k, c, data_format="NHWC", **kw), [to_last(x), w, b],
               what="F.conv2d NHWC")
    check_grad(lambda a, k: F.conv2d(a, k, groups=4), [rand((1, 4, 4, 4), seed=11),
                                                       rand((4, 1, 3, 3), seed=12)],
               what="F.conv2d depthwise")
    check_grad(lambda a, k: F.conv2d(a, k), [rand((2, 3, 3, 3), seed=13),
                                             rand((2, 3, 1, 1), seed=14)], what="F.conv2d 1x1")


def test_conv2d_float32_gradients_match_float64():
    # The float32 path (oneDNN) against the float64 one (im2col + GEMM), forward and backward.
    x, w, b = rand((4, 6, 9, 8), seed=15), rand((8, 3, 3, 3), seed=16), rand((8,), seed=17)
    res = {}
    for dt in ("float32", "float64"):
        for fmt in ("NCHW", "NHWC"):
            xt = oar.to_tensor((to_last(x) if fmt == "NHWC" else x).astype(dt), stop_gradient=False)
            wt = oar.to_tensor(w.astype(dt), stop_gradient=False)
            bt = oar.to_tensor(b.astype(dt), stop_gradient=False)
            y = F.conv2d(xt, wt, bt, stride=2, padding=1, groups=2, data_format=fmt)
            (y * y).sum().backward()
            gx = xt.grad.numpy()
            res[dt, fmt] = (y.numpy() if fmt == "NCHW" else np.moveaxis(y.numpy(), -1, 1),
                            gx if fmt == "NCHW" else np.moveaxis(gx, -1, 1),
                            wt.grad.numpy(), bt.grad.numpy())
    for key, got in res.items():
        for a, e in zip(got, res["float64", "NCHW"]):
            np.testing.assert_allclose(a, e, rtol=2e-4, atol=2e-4, err_msg=str(key))


F32_CASES = [
    # op, x shape (channel-first), w shape, kwargs, channel-last format
    ("conv1d", (3, 4, 11), (6, 2, 3), dict(stride=2, padding=[1, 2], dilation=2, groups=2), "NLC"),
    ("conv3d", (2, 2, 5, 4, 6), (4, 2, 2, 3, 2), dict(stride=[1, 2, 1], padding=1), "NDHWC"),
    ("conv2d_transpose", (2, 4, 3, 4), (4, 3, 3, 3), dict(stride=2, padding=1, output_padding=1),
     "NHWC"),
    ("conv1d_transpose", (2, 4, 5), (4, 2, 3), dict(stride=3, groups=2), "NLC"),
    ("conv3d_transpose", (1, 2, 3, 2, 3), (2, 3, 2, 2, 2), dict(stride=2, padding=[1, 0, 1]),
     "NDHWC"),
]


@pytest.mark.parametrize("op,xs,ws,kw,last", F32_CASES, ids=[c[0] for c in F32_CASES])
def test_float32_matches_float64_with_gradients(op, xs, ws, kw, last):
    # float32 (oneDNN) forward and gradients against float64 (im2col + GEMM), both layouts.
    f = getattr(F, op)
    x, w = rand(xs, seed=44), rand(ws, seed=45)
    res = {}
    for dt in ("float32", "float64"):
        for fmt in (None, last):
            xt = oar.to_tensor((to_last(x) if fmt else x).astype(dt), stop_gradient=False)
            wt = oar.to_tensor(w.astype(dt), stop_gradient=False)
            y = f(xt, wt, data_format=fmt, **kw) if fmt else f(xt, wt, **kw)
            (y * y).sum().backward()
            back = (lambda a: np.moveaxis(a, -1, 1)) if fmt else (lambda a: a)
            res[dt, fmt] = (back(y.numpy()), back(xt.grad.numpy()), wt.grad.numpy())
    for key, got in res.items():
        for a, e in zip(got, res["float64", None]):
            np.testing.assert_allclose(a, e, rtol=2e-4, atol=2e-4, err_msg=f"{op} {key}")


def test_conv2d_half_types():
    # float16 / bfloat16 compute in float32 and round once.
    x, w = rand((1, 2, 5, 5), seed=46), rand((3, 2, 3, 3), seed=47)
    ref = np_conv(x, w, padding=1)
    for dt, tol in (("float16", 1e-2), ("bfloat16", 5e-2)):
        out = F.conv2d(T(x, "float32").astype(dt), T(w, "float32").astype(dt), padding=1)
        assert out.dtype.name == dt
        np.testing.assert_allclose(out.astype("float32").numpy(), ref, rtol=tol, atol=tol * 4)


def test_conv2d_float32_without_onednn():
    # OAR_CONV_ONEDNN=0 sends float32 through im2col + sgemm as well.
    code = r"""
import numpy as np, oar, oar.nn.functional as F
rng = np.random.default_rng(0)
x = rng.standard_normal((3, 4, 7, 6)); w = rng.standard_normal((6, 2, 3, 3))
for fmt in ("NCHW", "NHWC"):
    xi = x if fmt == "NCHW" else np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    outs = []
    for dt in ("float32", "float64"):
        xt = oar.to_tensor(xi.astype(dt), stop_gradient=False)
        wt = oar.to_tensor(w.astype(dt), stop_gradient=False)
        y = F.conv2d(xt, wt, stride=2, padding=1, groups=2, data_format=fmt)
        (y * y).sum().backward()
        outs.append((y.numpy(), xt.grad.numpy(), wt.grad.numpy()))
    for a, e in zip(*outs):
        np.testing.assert_allclose(a, e, rtol=1e-3, atol=1e-3)
print("ok")
"""
    env = dict(os.environ, OAR_CONV_ONEDNN="0")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr


def test_conv2d_double_grad():
    x, w = rand((1, 2, 4, 4), seed=18), rand((3, 2, 2, 2), seed=19)

    def dx_of(a, k):  # the input gradient as a function of (x, w): exercises the grad ops' grads
        with oar.enable_grad():
            if a.stop_gradient:  # the numeric pass (under no_grad): a fresh differentiable leaf
                a = a.detach()
                a.stop_gradient = False
            y = F.conv2d(a, k, padding=1)
            g, = oar.grad([(y * y).sum()], [a], create_graph=True)
        return g

    check_grad(dx_of, [x, w], atol=1e-5, what="conv2d double grad")


# ---- conv1d / conv3d ----

@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_conv1d(dt):
    x, w, b = rand((2, 4, 9), seed=20), rand((6, 2, 3), seed=21), rand((6,), seed=22)
    kw = dict(stride=2, padding=[1, 2], dilation=2, groups=2)
    ref = np_conv(x, w, b, **kw)
    np.testing.assert_allclose(F.conv1d(T(x, dt), T(w, dt), T(b, dt), **kw).numpy(), ref, **TOL[dt])
    out = F.conv1d(T(to_last(x), dt), T(w, dt), T(b, dt), data_format="NLC", **kw)
    np.testing.assert_allclose(np.moveaxis(out.numpy(), -1, 1), ref, **TOL[dt])
    # Paddle 3.3.1: conv1d(1x2x8, 3x2x3, padding='SAME', stride=3) -> [1, 3, 3]
    assert F.conv1d(T(rand((1, 2, 8))), T(rand((3, 2, 3))), padding="SAME", stride=3).shape == [1, 3, 3]
    check_grad(lambda a, k, c: F.conv1d(a, k, c, **kw), [x, w, b], what="F.conv1d")


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_conv3d(dt):
    x, w, b = rand((2, 2, 4, 5, 4), seed=23), rand((4, 2, 2, 3, 2), seed=24), rand((4,), seed=25)
    kw = dict(stride=[1, 2, 1], padding=[1, 0, 1, 1, 0, 1], dilation=[1, 1, 2])
    ref = np_conv(x, w, b, **kw)
    np.testing.assert_allclose(F.conv3d(T(x, dt), T(w, dt), T(b, dt), **kw).numpy(), ref, **TOL[dt])
    out = F.conv3d(T(to_last(x), dt), T(w, dt), T(b, dt), data_format="NDHWC", **kw)
    np.testing.assert_allclose(np.moveaxis(out.numpy(), -1, 1), ref, **TOL[dt])
    if dt == "float64":
        check_grad(lambda a, k, c: F.conv3d(a, k, c, **kw),
                   [rand((1, 2, 3, 3, 3), seed=26), rand((2, 2, 2, 2, 2), seed=27), b[:2]],
                   what="F.conv3d")


# ---- transposes ----

TRANSPOSE_CASES = [
    ((2, 4, 3, 4), (4, 3, 3, 3), {}),
    ((2, 4, 3, 4), (4, 3, 3, 3), {"stride": 2, "padding": 1, "output_padding": 1}),
    ((1, 4, 3, 3), (4, 2, 2, 3), {"stride": [2, 3], "padding": [1, 0, 0, 2], "dilation": [2, 1],
                                  "groups": 2}),
]


@pytest.mark.parametrize("xs,ws,kw", TRANSPOSE_CASES)
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_conv2d_transpose(xs, ws, kw, dt):
    x, w, b = rand(xs, seed=30), rand(ws, seed=31), rand((ws[1] * kw.get("groups", 1),), seed=32)
    ref = np_conv_transpose(x, w, b, **kw)
    out = F.conv2d_transpose(T(x, dt), T(w, dt), T(b, dt), **kw)
    assert out.dtype.name == dt
    np.testing.assert_allclose(out.numpy(), ref, **TOL[dt])
    out = F.conv2d_transpose(T(to_last(x), dt), T(w, dt), T(b, dt), data_format="NHWC", **kw)
    np.testing.assert_allclose(np.moveaxis(out.numpy(), -1, 1), ref, **TOL[dt])


def test_conv_transpose_sizes_and_grads():
    x, w = rand((1, 2, 5, 5), seed=33), rand((2, 3, 3, 3), seed=34)
    xt, wt = T(x), T(w)
    # output_size picks a size in [base, base + stride).
    out = F.conv2d_transpose(xt, wt, stride=2, output_size=[12, 11])
    assert out.shape == [1, 3, 12, 11]
    np.testing.assert_allclose(out.numpy(), np_conv_transpose(x, w, stride=2, output_size=[12, 11]),
                               rtol=1e-12)
    # Paddle 3.3.1: SAME with stride 2 on 5x5 by a 3x3 kernel -> 9x9; stride 1 -> 5x5.
    assert F.conv2d_transpose(xt, wt, stride=2, padding="SAME").shape == [1, 3, 9, 9]
    assert F.conv2d_transpose(xt, wt, stride=1, padding="SAME").shape == [1, 3, 5, 5]
    check_grad(lambda a, k, c: F.conv2d_transpose(a, k, c, stride=2, padding=1, output_padding=1),
               [rand((1, 2, 3, 3), seed=35), rand((2, 2, 3, 3), seed=36), rand((2,), seed=37)],
               what="F.conv2d_transpose")
    # conv1d_transpose and conv3d_transpose (Paddle's order there: groups before dilation).
    x1, w1 = rand((2, 4, 5), seed=38), rand((4, 3, 3), seed=39)
    out = F.conv1d_transpose(T(x1), T(w1), None, 2, 1, 1, 2, 1)
    np.testing.assert_allclose(out.numpy(), np_conv_transpose(x1, w1, stride=2, padding=1,
                                                              output_padding=1, groups=2),
                               rtol=1e-12)
    out = F.conv1d_transpose(T(to_last(x1)), T(w1), stride=2, data_format="NLC")
    np.testing.assert_allclose(np.moveaxis(out.numpy(), -1, 1),
                               np_conv_transpose(x1, w1, stride=2), rtol=1e-12)
    check_grad(lambda a, k: F.conv1d_transpose(a, k, stride=2, padding=1, dilation=2),
               [rand((1, 2, 4), seed=40), rand((2, 2, 3), seed=41)], what="F.conv1d_transpose")
    x3, w3 = rand((1, 2, 2, 3, 2), seed=42), rand((2, 2, 2, 2, 2), seed=43)
    for dt in ("float32", "float64"):
        out = F.conv3d_transpose(T(x3, dt), T(w3, dt), stride=[1, 2, 2], padding=1)
        np.testing.assert_allclose(out.numpy(), np_conv_transpose(x3, w3, stride=[1, 2, 2], padding=1),
                                   **TOL[dt])
    check_grad(lambda a, k: F.conv3d_transpose(a, k, stride=2), [x3, w3], what="F.conv3d_transpose")


# ---- errors ----

def test_conv_errors():
    x, w = T(rand((1, 2, 5, 5))), T(rand((3, 2, 3, 3)))
    with pytest.raises(ValueError, match="The number of input's channels should be equal to "
                                         "filter's channels \\* groups"):
        F.conv2d(T(rand((1, 3, 5, 5))), w)
    with pytest.raises(ValueError, match="The channel of input must be divisible by groups"):
        F.conv2d(T(rand((1, 4, 5, 5))), w, groups=3)
    with pytest.raises(ValueError, match="Input x should be 4D tensor"):
        F.conv2d(T(rand((2, 5, 5))), w)
    with pytest.raises(ValueError, match="Attr\\(data_format\\) should be 'NCHW' or 'NHWC'"):
        F.conv2d(x, w, data_format="NCL")
    with pytest.raises(ValueError, match="The stride of Op\\(Conv\\) should be larger than 0|"
                                         "stride should be larger than 0"):
        F.conv2d(x, w, stride=0)
    with pytest.raises(ValueError, match="Invalid padding, all value should be larger than or "
                                         "equal to 0"):
        F.conv2d(x, w, padding=-1)
    with pytest.raises(ValueError, match="Unknown padding: 'FULL'"):
        F.conv2d(x, w, padding="full")
    with pytest.raises(ValueError, match="Non-zero padding"):
        F.conv2d(x, w, padding=[[0, 1], [0, 0], [1, 1], [1, 1]])
    with pytest.raises(ValueError, match="the groups should be greater than 0"):
        F.conv2d(x, w, groups=0)
    with pytest.raises(ValueError, match="the kernel .* is larger than the padded input"):
        F.conv2d(x, T(rand((3, 2, 8, 8))))
    with pytest.raises(TypeError, match="the dtype of 'weight' \\(float32\\) must be the same as "
                                        "the dtype of 'x' \\(float64\\)"):
        F.conv2d(x, w.astype("float32"))
    with pytest.raises(TypeError, match="must be a floating-point tensor"):
        F.conv2d(T(np.ones((1, 2, 5, 5), np.int64)), T(np.ones((3, 2, 3, 3), np.int64)))
    with pytest.raises(ValueError, match="bias should have shape \\[3\\]"):
        F.conv2d(x, w, T(rand((4,))))
    wt = T(rand((2, 3, 3, 3)))
    with pytest.raises(ValueError, match="output_padding option is mutually exclusive with "
                                         "output_size"):
        F.conv2d_transpose(x, wt, stride=2, output_padding=1, output_size=[11, 11])
    with pytest.raises(ValueError, match="the output_size of spatial dim 0 should be in \\[11, 13\\)"):
        F.conv2d_transpose(x, wt, stride=2, output_size=[14, 11])
    with pytest.raises(ValueError, match="output_padding .* should be smaller than the stride"):
        F.conv2d_transpose(x, wt, stride=1, output_padding=1)
    with pytest.raises(ValueError, match="The number of input channels should be equal to filter "
                                         "channels"):
        F.conv2d_transpose(x, T(rand((3, 3, 3, 3))))
