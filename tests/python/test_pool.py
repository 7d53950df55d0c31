"""Pooling: max/avg (1-3 spatial dims, plain and adaptive) against a NumPy reference, Paddle's
edge behaviour (values measured with paddle 3.3.1), gradients and errors."""
import itertools

import numpy as np
import pytest

import oar
import oar.nn.functional as F
from op_test import check_grad, rand

FLT_MAX = float(np.finfo(np.float32).max)


def _trunc_div(a, b):
    return a // b if a >= 0 else -((-a) // b)


def np_pool(x, kernel, stride=None, pads=None, ceil_mode=False, kind="max", exclusive=True,
            adaptive=False):
    """Channel-first reference; pads: [(before, after)] per spatial dim. Returns (out, mask)."""
    nd = x.ndim - 2
    ins = x.shape[2:]
    stride = stride or kernel
    pads = pads or [(0, 0)] * nd
    if adaptive:
        outs = list(kernel)
    else:
        outs = [_trunc_div(ins[d] - kernel[d] + pads[d][0] + pads[d][1] +
                           (stride[d] - 1 if ceil_mode else 0), stride[d]) + 1 for d in range(nd)]
    y = np.zeros(x.shape[:2] + tuple(outs))
    mask = np.zeros(x.shape[:2] + tuple(outs), np.int32)
    for o in itertools.product(*[range(n) for n in outs]):
        b, e = [], []
        for d in range(nd):
            if adaptive:
                b.append(o[d] * ins[d] // outs[d])
                e.append(-((-(o[d] + 1) * ins[d]) // outs[d]))
            else:
                s0 = o[d] * stride[d] - pads[d][0]
                e.append(min(s0 + kernel[d], ins[d]))
                b.append(max(s0, 0))
        win = x[(slice(None), slice(None)) + tuple(slice(b[d], e[d]) for d in range(nd))]
        idx = (slice(None), slice(None)) + o
        count = int(np.prod([max(e[d] - b[d], 0) for d in range(nd)]))
        if kind == "max":
            if count == 0:
                y[idx], mask[idx] = -FLT_MAX, -1
                continue
            flat = win.reshape(win.shape[0], win.shape[1], -1)
            arg = flat.argmax(-1)
            y[idx] = flat.max(-1)
            pos = np.unravel_index(arg, win.shape[2:])
            mask[idx] = np.ravel_multi_index(tuple(pos[d] + b[d] for d in range(nd)), ins)
        else:
            div = count if (exclusive or adaptive) else int(np.prod(kernel))
            with np.errstate(invalid="ignore", divide="ignore"):
                y[idx] = win.reshape(win.shape[0], win.shape[1], -1).sum(-1) / div
    return y, mask


def to_last(a):
    return np.ascontiguousarray(np.moveaxis(a, 1, -1))


def T(a, dt=None):
    return oar.to_tensor(a.astype(dt) if dt else a)


TOL = {"float32": dict(rtol=1e-5, atol=1e-5), "float64": dict(rtol=1e-12, atol=1e-12)}

CASES_2D = [
    # kernel, stride, padding (oar form), pads (reference), ceil_mode
    ([2, 2], None, 0, None, False),
    ([3, 3], [2, 2], 1, [(1, 1), (1, 1)], False),
    ([3, 2], [2, 1], [1, 0, 0, 1], [(1, 0), (0, 1)], False),
    ([3, 3], [2, 2], 0, None, True),
    ([2, 3], [3, 2], [1, 1], [(1, 1), (1, 1)], True),
]


@pytest.mark.parametrize("k,s,p,pads,ceil", CASES_2D)
@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
def test_pool2d_forward(k, s, p, pads, ceil, dt, fmt):
    x = rand((2, 3, 7, 8), seed=1)
    ref_max, ref_mask = np_pool(x, k, s, pads, ceil, "max")
    xin = T(to_last(x) if fmt == "NHWC" else x, dt)
    back = (lambda a: np.moveaxis(a, -1, 1)) if fmt == "NHWC" else (lambda a: a)
    out = F.max_pool2d(xin, k, s, p, ceil_mode=ceil, data_format=fmt)
    assert out.dtype.name == dt
    np.testing.assert_allclose(back(out.numpy()), ref_max, **TOL[dt])
    if fmt == "NCHW":
        out, mask = F.max_pool2d(xin, k, s, p, return_mask=True, ceil_mode=ceil)
        assert mask.dtype == oar.int32
        np.testing.assert_array_equal(mask.numpy(), ref_mask)
    for exclusive in (True, False):
        ref_avg, _ = np_pool(x, k, s, pads, ceil, "avg", exclusive)
        out = F.avg_pool2d(xin, k, s, p, ceil_mode=ceil, exclusive=exclusive, data_format=fmt)
        np.testing.assert_allclose(back(out.numpy()), ref_avg, **TOL[dt])


def test_pool2d_paddle_edge_values():
    # Windows wholly in the padding (ceil_mode): measured with paddle 3.3.1.
    x = T(np.arange(25, dtype="float32").reshape(1, 1, 5, 5))
    avg = F.avg_pool2d(x, 2, 2, padding=1, ceil_mode=True, exclusive=True).numpy()[0, 0]
    np.testing.assert_allclose(avg[:3, :3], [[0, 1.5, 3.5], [7.5, 9, 11], [17.5, 19, 21]])
    assert np.isnan(avg[3]).all() and np.isnan(avg[:, 3]).all()
    avg = F.avg_pool2d(x, 2, 2, padding=1, ceil_mode=True, exclusive=False).numpy()[0, 0]
    np.testing.assert_allclose(avg, [[0, 0.75, 1.75, 0], [3.75, 9, 11, 0], [8.75, 19, 21, 0],
                                     [0, 0, 0, 0]])
    out, mask = F.max_pool2d(x, 2, 2, padding=1, ceil_mode=True, return_mask=True)
    np.testing.assert_allclose(out.numpy()[0, 0], [[0, 2, 4, -FLT_MAX], [10, 12, 14, -FLT_MAX],
                                                   [20, 22, 24, -FLT_MAX], [-FLT_MAX] * 4])
    np.testing.assert_array_equal(mask.numpy()[0, 0], [[0, 2, 4, -1], [10, 12, 14, -1],
                                                       [20, 22, 24, -1], [-1, -1, -1, -1]])
    # divisor_override scales the (exclusive) mean by kernel volume / divisor_override.
    np.testing.assert_allclose(F.avg_pool2d(x, 2, 2, padding=1, divisor_override=2).numpy()[0, 0],
                               [[0, 3, 7], [15, 18, 22], [35, 38, 42]])
    np.testing.assert_allclose(F.avg_pool2d(x, 2, 2, padding=1, exclusive=False,
                                            divisor_override=2).numpy()[0, 0],
                               [[0, 1.5, 3.5], [7.5, 18, 22], [17.5, 38, 42]])
    # A kernel larger than the input still gives one (clipped) window, as Paddle's C division.
    assert F.max_pool2d(T(rand((1, 2, 2, 2))), 3).shape == [1, 2, 1, 1]
    # 'SAME' and 'VALID'.
    x6 = T(rand((1, 1, 6, 6), seed=2))
    assert F.max_pool2d(x6, 3, 2, padding="SAME").shape == [1, 1, 3, 3]
    assert F.avg_pool2d(x6, 3, 2, padding="VALID").shape == [1, 1, 2, 2]
    ref, _ = np_pool(rand((1, 1, 6, 6), seed=2), [3, 3], [2, 2], [(0, 1), (0, 1)], False, "max")
    np.testing.assert_allclose(F.max_pool2d(x6, 3, 2, padding="SAME").numpy(), ref, rtol=1e-12)


def test_pool1d_and_3d():
    a = T(np.arange(7, dtype="float32").reshape(1, 1, 7))
    # paddle 3.3.1 values
    np.testing.assert_allclose(F.avg_pool1d(a, 3, 2, padding=1).numpy(), [[[0.5, 2, 4, 5.5]]])
    np.testing.assert_allclose(F.adaptive_avg_pool1d(a, 3).numpy(), [[[1, 3, 5]]])
    out, mask = F.adaptive_max_pool1d(a, 3, return_mask=True)
    np.testing.assert_array_equal(mask.numpy(), [[[2, 4, 6]]])
    np.testing.assert_allclose(out.numpy(), [[[2, 4, 6]]])
    x1 = rand((2, 3, 9), seed=3)
    for dt in ("float32", "float64"):
        ref, m = np_pool(x1, [3], [2], [(1, 1)], True, "max")
        out, mask = F.max_pool1d(T(x1, dt), 3, 2, 1, return_mask=True, ceil_mode=True)
        np.testing.assert_allclose(out.numpy(), ref, **TOL[dt])
        np.testing.assert_array_equal(mask.numpy(), m)
        np.testing.assert_allclose(F.max_pool1d(T(x1, dt), 3, 2, 1, ceil_mode=True).numpy(), ref,
                                   **TOL[dt])
        ref, _ = np_pool(x1, [4], [3], [(2, 1)], False, "avg", exclusive=False)
        np.testing.assert_allclose(F.avg_pool1d(T(x1, dt), 4, 3, [2, 1], exclusive=False).numpy(),
                                   ref, **TOL[dt])
    x3 = rand((2, 2, 5, 4, 6), seed=4)
    for dt in ("float32", "float64"):
        ref, m = np_pool(x3, [2, 3, 2], [2, 1, 2], [(1, 1), (0, 0), (1, 1)], False, "max")
        out, mask = F.max_pool3d(T(x3, dt), [2, 3, 2], [2, 1, 2], [1, 0, 1], return_mask=True)
        np.testing.assert_allclose(out.numpy(), ref, **TOL[dt])
        np.testing.assert_array_equal(mask.numpy(), m)
        out = F.max_pool3d(T(to_last(x3), dt), [2, 3, 2], [2, 1, 2], [1, 0, 1], data_format="NDHWC")
        np.testing.assert_allclose(np.moveaxis(out.numpy(), -1, 1), ref, **TOL[dt])
        ref, _ = np_pool(x3, [3, 2, 2], [1, 2, 2], [(1, 1), (1, 1), (0, 0)], True, "avg")
        out = F.avg_pool3d(T(x3, dt), [3, 2, 2], [1, 2, 2], [1, 1, 0], ceil_mode=True)
        np.testing.assert_allclose(out.numpy(), ref, **TOL[dt])
        out = F.avg_pool3d(T(to_last(x3), dt), [3, 2, 2], [1, 2, 2], [1, 1, 0], ceil_mode=True,
                           data_format="NDHWC")
        np.testing.assert_allclose(np.moveaxis(out.numpy(), -1, 1), ref, **TOL[dt])


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_adaptive_pools(dt):
    x = rand((2, 3, 7, 5), seed=5)
    ref, m = np_pool(x, [3, 2], adaptive=True, kind="max")
    out, mask = F.adaptive_max_pool2d(T(x, dt), [3, 2], return_mask=True)
    np.testing.assert_allclose(out.numpy(), ref, **TOL[dt])
    np.testing.assert_array_equal(mask.numpy(), m)
    np.testing.assert_allclose(F.adaptive_max_pool2d(T(x, dt), [3, 2]).numpy(), ref, **TOL[dt])
    ref, _ = np_pool(x, [3, 5], adaptive=True, kind="avg")
    np.testing.assert_allclose(F.adaptive_avg_pool2d(T(x, dt), [3, None]).numpy(), ref, **TOL[dt])
    out = F.adaptive_avg_pool2d(T(to_last(x), dt), [3, None], data_format="NHWC")
    np.testing.assert_allclose(np.moveaxis(out.numpy(), -1, 1), ref, **TOL[dt])
    ref, _ = np_pool(x, [1, 1], adaptive=True, kind="avg")  # global average
    np.testing.assert_allclose(F.adaptive_avg_pool2d(T(x, dt), 1).numpy(), ref, **TOL[dt])
    x3 = rand((1, 2, 5, 4, 3), seed=6)
    ref, m = np_pool(x3, [2, 3, 2], adaptive=True, kind="max")
    out, mask = F.adaptive_max_pool3d(T(x3, dt), [2, 3, 2], return_mask=True)
    np.testing.assert_allclose(out.numpy(), ref, **TOL[dt])
    np.testing.assert_array_equal(mask.numpy(), m)
    ref, _ = np_pool(x3, [3, 2, 2], adaptive=True, kind="avg")
    np.testing.assert_allclose(F.adaptive_avg_pool3d(T(x3, dt), [3, 2, 2]).numpy(), ref, **TOL[dt])
    out = F.adaptive_avg_pool3d(T(to_last(x3), dt), [3, 2, 2], data_format="NDHWC")
    np.testing.assert_allclose(np.moveaxis(out.numpy(), -1, 1), ref, **TOL[dt])


def test_with_index_ops_and_edge_inputs():
    x = rand((2, 3, 6, 6), seed=7)
    for nd, op in ((1, oar.max_pool1d_with_index), (2, oar.max_pool2d_with_index),
                   (3, oar.max_pool3d_with_index)):
        xi = x.reshape(2, 3, 36) if nd == 1 else x if nd == 2 else x.reshape(2, 3, 2, 3, 6)
        out, mask = op(T(xi), [2] * nd)
        ref, m = np_pool(xi, [2] * nd, kind="max")
        np.testing.assert_allclose(out.numpy(), ref)
        np.testing.assert_array_equal(mask.numpy(), m)
    # A non-contiguous input and an empty batch.
    xt = T(x).transpose([0, 1, 3, 2])
    np.testing.assert_allclose(F.max_pool2d(xt, 3, 2).numpy(),
                               np_pool(x.transpose(0, 1, 3, 2), [3, 3], [2, 2], kind="max")[0])
    np.testing.assert_allclose(F.avg_pool2d(xt, 3, 2).numpy(),
                               np_pool(x.transpose(0, 1, 3, 2), [3, 3], [2, 2], kind="avg")[0])
    assert F.max_pool2d(T(np.zeros((0, 3, 6, 6))), 2).shape == [0, 3, 3, 3]
    assert F.avg_pool2d(T(np.zeros((0, 3, 6, 6))), 2).shape == [0, 3, 3, 3]


def test_pool_grads():
    x = rand((2, 2, 5, 6), seed=8)
    check_grad(lambda a: F.max_pool2d(a, 3, 2, 1), [x], what="F.max_pool2d")
    check_grad(lambda a: F.max_pool2d(a, 3, 2, 1, data_format="NHWC"), [to_last(x)],
               what="F.max_pool2d NHWC")
    check_grad(lambda a: F.avg_pool2d(a, 3, 2, 1, ceil_mode=True), [x], what="F.avg_pool2d")
    check_grad(lambda a: F.avg_pool2d(a, [2, 3], 1, [1, 0, 0, 1], exclusive=False,
                                      data_format="NHWC"), [to_last(x)], what="F.avg_pool2d NHWC")
    check_grad(lambda a: F.avg_pool2d(a, 2, divisor_override=3), [x], what="avg divisor")
    check_grad(lambda a: F.max_pool1d(a, 3, 2), [x.reshape(2, 2, 30)], what="F.max_pool1d")
    check_grad(lambda a: F.avg_pool1d(a, 3, 2, 1), [x.reshape(2, 2, 30)], what="F.avg_pool1d")
    x3 = rand((1, 2, 3, 4, 3), seed=9)
    check_grad(lambda a: F.max_pool3d(a, 2, 1), [x3], what="F.max_pool3d")
    check_grad(lambda a: F.avg_pool3d(a, 2, 1, 1), [x3], what="F.avg_pool3d")
    check_grad(lambda a: F.adaptive_avg_pool1d(a, 4), [x.reshape(2, 2, 30)],
               what="F.adaptive_avg_pool1d")
    check_grad(lambda a: F.adaptive_avg_pool2d(a, [2, 4]), [x], what="F.adaptive_avg_pool2d")
    check_grad(lambda a: F.adaptive_avg_pool3d(a, [2, 3, 2], data_format="NDHWC"), [to_last(x3)],
               what="F.adaptive_avg_pool3d")
    check_grad(lambda a: F.adaptive_max_pool1d(a, 4), [x.reshape(2, 2, 30)],
               what="F.adaptive_max_pool1d")
    check_grad(lambda a: F.adaptive_max_pool2d(a, [2, 4]), [x], what="F.adaptive_max_pool2d")
    check_grad(lambda a: F.adaptive_max_pool3d(a, [2, 3, 2]), [x3], what="F.adaptive_max_pool3d")


def test_pool_double_grad():
    # The gradient ops' own gradients (pool_max_gather / pool_avg) through create_graph.
    x = rand((1, 2, 4, 4), seed=10)

    def grad_of(pool):
        def f(a):
            with oar.enable_grad():
                if a.stop_gradient:  # the numeric pass (under no_grad): a differentiable leaf
                    a = a.detach()
                    a.stop_gradient = False
                y = pool(a)
                g, = oar.grad([(y * y).sum()], [a], create_graph=True)
            return g
        return f

    check_grad(grad_of(lambda a: F.max_pool2d(a, 2, 1)), [x], what="max_pool2d double grad")
    check_grad(grad_of(lambda a: F.avg_pool2d(a, 3, 1, 1)), [x], what="avg_pool2d double grad")


def test_pool_errors():
    x = T(rand((1, 2, 6, 6)))
    with pytest.raises(ValueError, match="When setting return_mask to true, data_format must be "
                                         "set to NCHW in API:max_pool2d"):
        F.max_pool2d(x, 2, return_mask=True, data_format="NHWC")
    with pytest.raises(ValueError, match="When Attr\\(padding\\) is \"VALID\", Attr\\(ceil_mode\\) "
                                         "must be False"):
        F.max_pool2d(x, 2, padding="VALID", ceil_mode=True)
    with pytest.raises(ValueError, match="Attr\\(data_format\\) should be 'NCHW' or 'NHWC'"):
        F.avg_pool2d(x, 2, data_format="NCL")
    with pytest.raises(ValueError, match="Excepted the input kernel_size to be greater than 0"):
        F.max_pool2d(x, 0)
    with pytest.raises(ValueError, match="Excepted Input X is 4-D tensor"):
        F.max_pool2d(T(rand((2, 6, 6))), 2)
    with pytest.raises(ValueError, match="it should be greater than 0"):
        F.avg_pool2d(x, 9, 1)
    with pytest.raises(ValueError, match="Unknown padding: 'FULL'"):
        F.avg_pool2d(x, 2, padding="full")
    with pytest.raises(TypeError, match=r"max_pool2d: argument 'x' must be a floating-point tensor "
                                        r"\(float16, bfloat16, float32, float64\), got int64"):
        F.max_pool2d(T(np.ones((1, 1, 4, 4), np.int64)), 2)
    with pytest.raises(ValueError, match="Excepted the input output_size to be greater than 0"):
        F.adaptive_avg_pool2d(x, 0)
    with pytest.raises(ValueError, match="Excepted <class 'int'>|Excepted \\(<class 'int'>"):
        F.avg_pool2d(x, 2, divisor_override="3")


def test_max_pool2d_interior_fast_path_matches_a_reference_with_ties_and_nans():
    # Windows fully inside a row run through a vectorised loop, border windows one by one: both
    # must give NumPy's first-maximum index and propagate NaN, for every geometry.
    rng = np.random.default_rng(3)
    for k, s, p, ceil in [(2, 2, 0, False), (3, 2, 1, False), (3, 1, 1, True), (2, 3, 1, True), (4, 2, 2, False),
                          (1, 1, 0, False), (3, 3, 0, True)]:
        x = rng.integers(0, 3, (2, 3, 9, 11)).astype("float64")  # many ties
        x[0, 1, 4, 5] = np.nan
        out, mask = oar.nn.functional.max_pool2d(oar.to_tensor(x), k, s, p, return_mask=True, ceil_mode=ceil)
        out, mask = out.numpy(), mask.numpy()
        H, W = x.shape[2:]
        for n in range(2):
            for c in range(3):
                for oh in range(out.shape[2]):
                    for ow in range(out.shape[3]):
                        h0, w0 = max(oh * s - p, 0), max(ow * s - p, 0)
                        h1, w1 = min(oh * s - p + k, H), min(ow * s - p + k, W)
                        win = x[n, c, h0:h1, w0:w1]
                        if win.size == 0:  # a ceil_mode window past the input
                            assert mask[n, c, oh, ow] == -1
                            continue
                        flat = np.where(np.isnan(win).ravel())[0]
                        j = flat[0] if len(flat) else int(np.argmax(win))
                        hh, ww = h0 + j // win.shape[1], w0 + j % win.shape[1]
                        assert mask[n, c, oh, ow] == hh * W + ww, (k, s, p, ceil, oh, ow)
                        np.testing.assert_equal(out[n, c, oh, ow], x[n, c, hh, ww])
