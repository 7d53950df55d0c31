"""Fractional max pooling: Paddle's window sequence (constants measured with paddle 3.3.1), a NumPy
reference for the pooling, mask and gradient, numeric gradients in float64, errors, the layers, and
(where paddle is installed) live comparisons of outputs, masks and gradients."""
import itertools

import numpy as np
import pytest

import oar
import oar.nn.functional as F
from oar.nn.functional.fractional_pool import _intervals
from op_test import check_grad

FLT_LOWEST = float(np.finfo(np.float32).min)

# (n, m, kernel or None, u) -> (starts, ends), measured with paddle 3.3.1 by pooling arange(n)
# and -arange(n) along one dim. Several sit exactly on a float32 rounding edge (u = 0.5, 0.3).
PADDLE_WINDOWS = [
    ((7, 5, None, 0.3), ([0, 1, 3, 4, 6], [1, 3, 4, 6, 7])),  # Paddle's docstring example
    ((10, 3, None, 0.3), ([0, 3, 7], [3, 7, 10])),
    ((10, 3, None, 0.5), ([0, 4, 7], [4, 7, 10])),
    ((10, 3, None, 0.77), ([0, 3, 6], [3, 6, 10])),
    ((10, 4, None, 0.5), ([0, 3, 5, 8], [3, 5, 8, 10])),
    ((4, 3, None, 0.5), ([0, 2, 3], [2, 3, 4])),
    ((8, 6, None, 0.5), ([0, 2, 3, 4, 6, 7], [2, 3, 4, 6, 7, 8])),
    ((11, 7, None, 0.3), ([0, 1, 3, 5, 6, 8, 9], [1, 3, 5, 6, 8, 9, 11])),
    ((10, 4, 3, 0.3), ([0, 3, 5, 7], [3, 6, 8, 10])),
    ((10, 4, 3, 0.5), ([0, 2, 4, 7], [3, 5, 7, 10])),
    ((10, 4, 3, 0.26090449938105975), ([0, 2, 5, 7], [3, 5, 8, 10])),
    ((5, 4, 1, 0.5), ([0, 2, 3, 4], [1, 3, 4, 5])),
    ((11, 4, 1, 0.3), ([0, 3, 6, 10], [1, 4, 7, 11])),
    ((13, 4, 3, 0.5), ([0, 4, 7, 10], [3, 7, 10, 13])),
    ((5, 1, 2, 0.7), ([0], [2])),
]


def _measured_windows(n, m, k, u, axis):
    """Window bounds as oar's public function reveals them (max of arange and of -arange)."""
    shape = [1, 1, 1, 1]
    shape[axis] = n
    x = oar.to_tensor(np.arange(n, dtype="float64").reshape(shape))
    out = [1, 1]
    out[axis - 2] = m
    kern = None if k is None else [1, 1]
    if kern is not None:
        kern[axis - 2] = k
    hi = F.fractional_max_pool2d(x, out, kernel_size=kern, random_u=u).numpy().ravel()
    lo = -F.fractional_max_pool2d(-x, out, kernel_size=kern, random_u=u).numpy().ravel()
    return [lo.astype(int).tolist(), (hi.astype(int) + 1).tolist()]


@pytest.mark.parametrize("case,expected", PADDLE_WINDOWS)
@pytest.mark.parametrize("axis", [2, 3])
def test_window_sequence_matches_paddle(case, expected, axis):
    assert _measured_windows(*case, axis=axis) == list(expected)
    n, m, k, u = case
    starts, ends = _intervals(n, m, k or 0, u)
    assert [starts.tolist(), ends.tolist()] == list(expected)


def np_fractional_max_pool(x, out_sizes, kernel, u):
    """Loop reference with Paddle's scan: running max from -FLT_MAX, strict '>' (NaNs and
    elements <= -FLT_MAX never win, the first maximum wins), -1 for a window without a winner."""
    nd = x.ndim - 2
    ins = x.shape[2:]
    bounds = [_intervals(ins[d], out_sizes[d], kernel[d], u) for d in range(nd)]
    y = np.zeros(x.shape[:2] + tuple(out_sizes), x.dtype)
    mask = np.zeros(x.shape[:2] + tuple(out_sizes), np.int32)
    for b, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for o in itertools.product(*[range(m) for m in out_sizes]):
            best, arg = FLT_LOWEST, -1
            ranges = [range(bounds[d][0][o[d]], bounds[d][1][o[d]]) for d in range(nd)]
            for pos in itertools.product(*ranges):
                v = x[(b, c) + pos]
                if v > best:
                    best, arg = v, int(np.ravel_multi_index(pos, ins))
            y[(b, c) + o], mask[(b, c) + o] = best, arg
    return y, mask


REFERENCE_CASES = [
    # (input shape, output_size, kernel_size, random_u)
    ([2, 3, 9, 7], [4, 3], None, 0.3),
    ([1, 2, 10, 10], 4, 3, 0.45),
    ([2, 1, 6, 8], [6, 5], [0, 2], 0.9),
    ([1, 2, 5, 6, 7], [2, 3, 4], None, 0.6),
    ([2, 1, 6, 5, 4], [3, 2, 2], [2, 3, 1], 0.15),
]


@pytest.mark.parametrize("shape,out,kern,u", REFERENCE_CASES)
def test_against_numpy_reference_with_mask_and_gradient(shape, out, kern, u):
    nd = len(shape) - 2
    x = np.random.default_rng(1).standard_normal(shape)
    pool = getattr(F, f"fractional_max_pool{nd}d")
    xt = oar.to_tensor(x, stop_gradient=False)
    y, mask = pool(xt, out, kernel_size=kern, random_u=u, return_mask=True)
    out_sizes = [out] * nd if isinstance(out, int) else out
    kernel = [0] * nd if kern is None else ([kern] * nd if isinstance(kern, int) else kern)
    ry, rmask = np_fractional_max_pool(x, out_sizes, kernel, u)
    assert y.shape == list(ry.shape) and y.dtype == oar.float64 and mask.dtype == oar.int32
    np.testing.assert_array_equal(y.numpy(), ry)
    np.testing.assert_array_equal(mask.numpy(), rmask)
    # The mask indexes the flattened spatial dims, as max_pool's.
    flat = x.reshape(shape[0], shape[1], -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, rmask.reshape(shape[0], shape[1], -1), 2),
                                  ry.reshape(shape[0], shape[1], -1))
    g = np.random.default_rng(2).standard_normal(ry.shape)
    y.backward(oar.to_tensor(g))
    want = np.zeros_like(flat)
    for b, c in itertools.product(range(shape[0]), range(shape[1])):
        np.add.at(want[b, c], rmask[b, c].ravel(), g[b, c].ravel())  # overlapping windows add up
    np.testing.assert_allclose(xt.grad.numpy(), want.reshape(shape), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape,out,kern,u", REFERENCE_CASES)
def test_numeric_gradient_float64(shape, out, kern, u):
    nd = len(shape) - 2
    pool = getattr(F, f"fractional_max_pool{nd}d")
    # Distinct, well-separated values so central differences never flip an argmax.
    x = np.random.default_rng(3).permutation(int(np.prod(shape))).reshape(shape) * 0.1
    check_grad(lambda t: pool(t, out, kernel_size=kern, random_u=u), [x.astype("float64")], atol=1e-6)


def test_scan_quirks_measured_from_paddle():
    # NaN never wins; ties keep the first maximum (paddle 3.3.1: out [3, 3, 1, 0], mask [1, 2, 5, 6]).
    x = oar.to_tensor(np.array([[[[1, 3, 3, 2, np.nan, 1, 0, 0]]]], dtype="float32"))
    y, m = F.fractional_max_pool2d(x, [1, 4], random_u=0.5, return_mask=True)
    np.testing.assert_array_equal(y.numpy().ravel(), [3, 3, 1, 0])
    np.testing.assert_array_equal(m.numpy().ravel(), [1, 2, 5, 6])
    # A window of -inf has no winner: -FLT_MAX and mask -1 (float64 too: Paddle's -FLT_MAX).
    for dtype in ("float32", "float64"):
        x = oar.to_tensor(np.full([1, 1, 1, 8], -np.inf, dtype))
        y, m = F.fractional_max_pool2d(x, [1, 4], random_u=0.5, return_mask=True)
        np.testing.assert_array_equal(y.numpy().ravel(), [FLT_LOWEST] * 4)
        np.testing.assert_array_equal(m.numpy().ravel(), [-1] * 4)
    # output = input + 1 leaves one empty window (paddle 3.3.1, u = 0.5).
    x = oar.to_tensor(np.arange(1, 6, dtype="float32").reshape(1, 1, 1, 5), stop_gradient=False)
    y, m = F.fractional_max_pool2d(x, [1, 6], random_u=0.5, return_mask=True)
    np.testing.assert_array_equal(y.numpy().ravel(), [1, 2, 3, FLT_LOWEST, 4, 5])
    np.testing.assert_array_equal(m.numpy().ravel(), [0, 1, 2, -1, 3, 4])
    y.sum().backward()  # the empty window sends its gradient nowhere
    np.testing.assert_array_equal(x.grad.numpy().ravel(), [1, 1, 1, 1, 1])


def test_output_size_none_kernel_zero_and_dtypes():
    x = oar.rand([2, 3, 8, 9])
    assert F.fractional_max_pool2d(x, [None, 3], random_u=0.4).shape == [2, 3, 8, 3]
    assert F.fractional_max_pool3d(oar.rand([1, 2, 5, 6, 7]), [None, 3, None]).shape == [1, 2, 5, 3, 7]
    np.testing.assert_array_equal(F.fractional_max_pool2d(x, 3, kernel_size=0, random_u=0.4).numpy(),
                                  F.fractional_max_pool2d(x, 3, random_u=0.4).numpy())
    h = F.fractional_max_pool2d(x.astype("float16"), 3, random_u=0.4)
    assert h.dtype == oar.float16
    np.testing.assert_array_equal(h.numpy(), F.fractional_max_pool2d(x, 3, random_u=0.4).numpy()
                                  .astype("float16"))
    assert F.fractional_max_pool2d(oar.rand([0, 3, 8, 9]), 3).shape == [0, 3, 3, 3]
    assert F.fractional_max_pool2d(oar.rand([2, 3, 8, 9]), [0, 3]).shape == [2, 3, 0, 3]
    y, m = F.fractional_max_pool2d(oar.rand([1, 1, 0, 4]), [1, 2], return_mask=True)
    np.testing.assert_array_equal(m.numpy(), [[[[-1, -1]]]])


def test_random_u_drawn_from_oar_rng():
    x = oar.to_tensor(np.random.default_rng(0).standard_normal([1, 1, 30, 30]))
    oar.seed(7)
    a = F.fractional_max_pool2d(x, 7, return_mask=True)[1].numpy()
    oar.seed(7)
    b = F.fractional_max_pool2d(x, 7, return_mask=True)[1].numpy()
    np.testing.assert_array_equal(a, b)
    masks = {F.fractional_max_pool2d(x, 7, return_mask=True)[1].numpy().tobytes() for _ in range(8)}
    assert len(masks) > 1  # fresh draws give different windows


BAD_ARGUMENTS = [
    (dict(x=np.ones([1, 1, 4, 4]), output_size=2), ValueError, "must be Tensor"),
    (dict(x=oar.rand([3, 8, 9]), output_size=3), ValueError, "4-D"),
    (dict(x=oar.rand([1, 1, 8, 9]), output_size=[3]), IndexError, "output_size"),
    (dict(x=oar.rand([1, 1, 8, 9]), output_size=[3, 3, 3]), ValueError, "output_size"),
    (dict(x=oar.rand([1, 1, 8, 9]), output_size=3.0), TypeError, "output_size"),
    (dict(x=oar.rand([1, 1, 8, 9]), output_size=[2, 2.5]), TypeError, "output_size"),
    (dict(x=oar.rand([1, 1, 8, 9]), output_size=[-1, 3]), ValueError, "output_size"),
    (dict(x=oar.rand([1, 1, 8, 9]), output_size=[10, 3]), ValueError, "input_height [8]"),
    (dict(x=oar.rand([1, 1, 8, 9]), output_size=3, kernel_size=9), ValueError, "input_height [8]"),
    (dict(x=oar.rand([1, 1, 8, 9]), output_size=3, kernel_size=[2, 2, 2]), ValueError, "length must be 2"),
    (dict(x=oar.rand([1, 1, 8, 9]), output_size=3, kernel_size=2.5), ValueError, "kernel_size"),
    (dict(x=oar.rand([1, 1, 8, 9]), output_size=3, kernel_size=-1), ValueError, "kernel_size"),
    (dict(x=oar.rand([1, 1, 8, 9]), output_size=3, random_u=0), ValueError, "random_u"),
    (dict(x=oar.rand([1, 1, 8, 9]), output_size=3, random_u=1.0), ValueError, "random_u"),
    (dict(x=oar.rand([1, 1, 8, 9]), output_size=3, random_u=float("nan")), ValueError, "random_u"),
    (dict(x=oar.rand([1, 1, 8, 9]), output_size=3, random_u="0.5"), TypeError, "random_u"),
    (dict(x=oar.rand([1, 1, 8, 9]), output_size=3, return_mask=1), TypeError, "return_mask"),
    (dict(x=oar.ones([1, 1, 4, 4], dtype="int32"), output_size=3), RuntimeError, "int32"),
    (dict(x=oar.rand([1, 1, 4, 4]).astype("bfloat16"), output_size=3), RuntimeError, "bfloat16"),
]


@pytest.mark.parametrize("kwargs,error,words", BAD_ARGUMENTS)
def test_bad_arguments(kwargs, error, words):
    with pytest.raises(error, match="fractional_max_pool2d") as info:
        F.fractional_max_pool2d(**kwargs)
    assert words in str(info.value)


def test_bad_arguments_3d():
    x = oar.rand([1, 1, 5, 8, 9])
    with pytest.raises(ValueError, match="5-D"):
        F.fractional_max_pool3d(oar.rand([1, 1, 8, 9]), 3)
    with pytest.raises(ValueError, match=r"input_depth \[5\]"):
        F.fractional_max_pool3d(x, [3, 3, 3], kernel_size=[5, 2, 2])
    with pytest.raises(IndexError, match="fractional_max_pool3d"):
        F.fractional_max_pool3d(x, [3, 3])


def test_layers():
    layer = oar.nn.FractionalMaxPool2D(3)
    assert repr(layer) == "FractionalMaxPool2D(output_size=3, return_mask=False)"
    layer3 = oar.nn.FractionalMaxPool3D([3, None, 2], kernel_size=[2, 1, 2], random_u=0.3, return_mask=True)
    assert repr(layer3) == "FractionalMaxPool3D(output_size=[3, None, 2], return_mask=True)"
    x = oar.rand([1, 2, 5, 6, 7])
    y, m = layer3(x)
    ry, rm = F.fractional_max_pool3d(x, [3, None, 2], kernel_size=[2, 1, 2], random_u=0.3, return_mask=True)
    assert y.shape == [1, 2, 3, 6, 2]
    np.testing.assert_array_equal(y.numpy(), ry.numpy())
    np.testing.assert_array_equal(m.numpy(), rm.numpy())
    assert layer(oar.rand([2, 3, 8, 9])).shape == [2, 3, 3, 3]


# ---- live against paddle ----------------------------------------------------------------------

LIVE_CASES = REFERENCE_CASES + [
    ([2, 3, 32, 32], 7, None, 0.123),
    ([1, 2, 17, 23], [16, 5], [2, 4], 0.999),
    ([2, 2, 12, 12], [11, 12], None, 0.5),
    ([1, 1, 9, 9, 9], 4, 3, 0.3),
    ([1, 2, 7, 11, 5], [7, 2, 5], [1, 0, 1], 0.77),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,out,kern,u", LIVE_CASES)
def test_live_against_paddle(shape, out, kern, u, dtype):
    paddle = pytest.importorskip("paddle")
    nd = len(shape) - 2
    x = np.random.default_rng(4).standard_normal(shape).astype(dtype)
    if dtype == "float32":
        x = np.round(x * 2) / 2  # ties: both keep the first maximum
    g = np.random.default_rng(5).standard_normal(
        [shape[0], shape[1]] + ([out] * nd if isinstance(out, int) else out)).astype(dtype)
    results = []
    for mod, fn in ((oar, F), (paddle, paddle.nn.functional)):
        xt = mod.to_tensor(x, stop_gradient=False)
        y, m = getattr(fn, f"fractional_max_pool{nd}d")(xt, out, kernel_size=kern, random_u=u,
                                                       return_mask=True)
        # No empty window here: Paddle's backward writes out of bounds for a mask of -1.
        assert (m.numpy() >= 0).all()
        y.backward(mod.to_tensor(g))
        results.append((y.numpy(), m.numpy(), xt.grad.numpy()))
    (oy, om, og), (py, pm, pg) = results
    np.testing.assert_array_equal(oy, py)
    np.testing.assert_array_equal(om, pm)
    assert om.dtype == pm.dtype == np.int32
    np.testing.assert_allclose(og, pg, rtol=1e-6, atol=1e-6)


def test_live_window_sequences_against_paddle():
    paddle = pytest.importorskip("paddle")
    rng = np.random.default_rng(6)
    for _ in range(300):
        n = int(rng.integers(1, 60))
        k = None if rng.random() < 0.5 else int(rng.integers(1, n + 1))
        m = int(rng.integers(1, n + 2 if k is None else n - k + 2))
        u = float(rng.uniform(1e-6, 1 - 1e-6)) if rng.random() < 0.7 else int(rng.integers(1, 100)) / 100
        x = np.arange(n, dtype="float64").reshape(1, 1, n, 1)
        kern = None if k is None else [k, 1]
        want = []
        for sign in (1, -1):
            y = paddle.nn.functional.fractional_max_pool2d(paddle.to_tensor(sign * x), [m, 1],
                                                           kernel_size=kern, random_u=u)
            want.append(sign * y.numpy().ravel())
        starts, ends = _intervals(n, m, k or 0, u)
        nonempty = ends > starts  # Paddle gives -FLT_MAX there
        np.testing.assert_array_equal(starts[nonempty], want[1][nonempty], err_msg=str((n, m, k, u)))
        np.testing.assert_array_equal(ends[nonempty] - 1, want[0][nonempty], err_msg=str((n, m, k, u)))


def test_live_layer_reprs_and_errors_against_paddle():
    paddle = pytest.importorskip("paddle")
    for args, kwargs in [((3,), {}), (([3, None],), dict(kernel_size=2, random_u=0.3, return_mask=True))]:
        assert repr(oar.nn.FractionalMaxPool2D(*args, **kwargs)) == \
            repr(paddle.nn.FractionalMaxPool2D(*args, **kwargs))
        assert repr(oar.nn.FractionalMaxPool3D(*args, **kwargs)).replace("3D", "") == \
            repr(paddle.nn.FractionalMaxPool3D(*args, **kwargs)).replace("3D", "")
    safe = [c for c in BAD_ARGUMENTS if isinstance(c[0]["x"], oar.Tensor) and c[0].get("random_u") == c[0].get(
        "random_u") and c[0].get("kernel_size") != -1 and c[0]["output_size"] != [-1, 3]]
    for kwargs, error, _ in safe:
        pkw = dict(kwargs, x=paddle.to_tensor(kwargs["x"].numpy()) if kwargs["x"].dtype != oar.bfloat16
                   else paddle.rand([1, 1, 4, 4]).astype("bfloat16"))
        with pytest.raises(error):
            paddle.nn.functional.fractional_max_pool2d(**pkw)
