"""Sampling and layout ops (oar/ops/specs/vision.yaml) against NumPy references: interpolate
(all modes), grid_sample, affine_grid, pixel_shuffle/unshuffle, channel_shuffle, unfold/fold,
zeropad2d, max_unpool, local_response_norm, bilinear; gradients and errors. Fixed values were
measured with paddle 3.3.1."""
import math

import numpy as np
import pytest

import oar
import oar.nn.functional as F
from op_test import check_grad, rand

TOL = {"float32": dict(rtol=1e-5, atol=1e-5), "float64": dict(rtol=1e-12, atol=1e-12)}
# interpolate's coordinates are float32 (as Paddle's), and the kernel's may be contracted into
# fused multiply-adds, which the float32 NumPy reference does not do: float64 results agree to
# ~1e-7.
INTERP_TOL = {"float32": dict(rtol=1e-5, atol=1e-5), "float64": dict(rtol=1e-6, atol=1e-6)}


def close(t, ref, dt, tol=TOL):
    np.testing.assert_allclose(t.numpy(), ref, **tol[dt])


# ---------------------------------------------------------------- interpolate reference

def _cubic(t, a=-0.75):
    t = abs(t)
    if t <= 1:
        return ((a + 2) * t - (a + 3)) * t * t + 1
    if t < 2:
        return a * t ** 3 - 5 * a * t ** 2 + 8 * a * t - 4 * a
    return 0.0


def interp_matrix(n_in, n_out, mode, ac, am, scale):
    """M [n_out, n_in]: out = M @ in along one dim. As Paddle, the ratio is a float32, and so
    are the nearest/linear source coordinates and weights."""
    f = np.float32
    M = np.zeros((n_out, n_in))
    if ac:
        ratio = f(n_in - 1) / f(n_out - 1) if n_out > 1 else f(0.0)
    else:
        ratio = f(1.0 / f(scale)) if scale else f(n_in) / f(n_out)
    for o in range(n_out):
        if mode == "nearest":
            M[o, min(int(ratio * f(o)), n_in - 1)] = 1
        elif mode == "linear":
            src = ratio * f(o) if (ac or am == 1) else ratio * (f(o) + f(0.5)) - f(0.5)
            src = max(src, f(0.0))
            i0 = min(int(src), n_in - 1)
            t = src - f(i0)
            M[o, i0] += float(f(1.0) - t)
            M[o, min(i0 + 1, n_in - 1)] += float(t)
        else:
            src = float(ratio) * o if ac else float(ratio) * (o + 0.5) - 0.5
            fl = math.floor(src)
            for j in range(-1, 3):
                M[o, min(max(fl + j, 0), n_in - 1)] += _cubic(src - (fl + j))
    return M


def np_interp(x, sizes, mode, ac=False, am=0, scales=None):
    y = x.astype(np.float64)
    kind = {"bilinear": "linear", "trilinear": "linear", "bicubic": "cubic"}.get(mode, mode)
    for d, n_out in enumerate(sizes):
        M = interp_matrix(x.shape[2 + d], n_out, kind, ac, am, scales[d] if scales else None)
        y = np.moveaxis(np.tensordot(M, np.moveaxis(y, 2 + d, 0), axes=(1, 0)), 0, 2 + d)
    return y


def np_area(x, sizes):
    y = x.astype(np.float64)
    for d, n_out in enumerate(sizes):
        n_in = x.shape[2 + d]
        M = np.zeros((n_out, n_in))
        for o in range(n_out):
            b, e = o * n_in // n_out, -(-(o + 1) * n_in // n_out)
            M[o, b:e] = 1.0 / (e - b)
        y = np.moveaxis(np.tensordot(M, np.moveaxis(y, 2 + d, 0), axes=(1, 0)), 0, 2 + d)
    return y


def test_interpolate_linear_values_measured_with_paddle():
    x = oar.arange(5, dtype="float32").reshape([1, 1, 5])
    cases = [(dict(size=[8]), [0., 0.4375, 1.0625, 1.6875, 2.3125, 2.9375, 3.5625, 4.]),
             (dict(size=[8], align_mode=1), [0., 0.625, 1.25, 1.875, 2.5, 3.125, 3.75, 4.]),
             (dict(size=[8], align_corners=True),
              [0., 0.5714, 1.1429, 1.7143, 2.2857, 2.8571, 3.4286, 4.]),
             (dict(scale_factor=1.7),
              [0., 0.3824, 0.9706, 1.5588, 2.1471, 2.7353, 3.3235, 3.9118]),
             (dict(size=[3]), [0.3333, 2., 3.6667])]
    for kw, want in cases:
        np.testing.assert_allclose(F.interpolate(x, mode="linear", **kw).numpy().ravel(), want,
                                   atol=1e-4)
    x2 = oar.arange(25, dtype="float32").reshape([1, 1, 5, 5])
    np.testing.assert_allclose(F.interpolate(x2, size=[8, 8]).numpy()[0, 0, 0],
                               [0, 0, 1, 1, 2, 3, 3, 4])
    np.testing.assert_allclose(F.interpolate(x2, scale_factor=1.7).numpy()[0, 0, 0],
                               [0, 0, 1, 1, 2, 2, 3, 4])
    np.testing.assert_allclose(F.interpolate(x2, size=[7, 7], mode="bicubic").numpy()[0, 0, 0],
                               [-0.4723, 0.0816, 0.9359, 1.6064, 2.277, 3.1312, 3.6851],
                               atol=1e-4)
    np.testing.assert_allclose(
        F.interpolate(x2, size=[7, 7], mode="bicubic", align_corners=True).numpy()[0, 0, 0],
        [0., 0.5741, 1.3704, 2., 2.6296, 3.4259, 4.], atol=1e-4)
    np.testing.assert_allclose(F.interpolate(x2, scale_factor=0.5, mode="bilinear").numpy(),
                               [[[[3., 5.], [13., 15.]]]])


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape,mode,kw", [
    ((2, 3, 5), "linear", dict(size=[9])),
    ((1, 2, 6), "linear", dict(scale_factor=0.6, align_mode=1)),
    ((2, 2, 4, 5), "bilinear", dict(size=[7, 3])),
    ((2, 2, 4, 5), "bilinear", dict(size=[7, 3], align_corners=True)),
    ((1, 2, 4, 5), "bilinear", dict(scale_factor=[1.5, 2.2], align_mode=1)),
    ((2, 3, 5, 4), "nearest", dict(size=[9, 3])),
    ((1, 2, 5, 4), "nearest", dict(scale_factor=2)),
    ((2, 2, 5, 6), "bicubic", dict(size=[8, 4])),
    ((1, 2, 5, 6), "bicubic", dict(size=[8, 4], align_corners=True)),
    ((1, 2, 3, 4, 5), "trilinear", dict(size=[5, 2, 7])),
    ((1, 2, 3, 4, 5), "trilinear", dict(size=[5, 2, 7], align_corners=True)),
    ((1, 2, 3, 4, 5), "nearest", dict(size=[5, 2, 7])),
])
def test_interpolate_forward(dt, shape, mode, kw):
    x = rand(shape, dt, seed=3)
    sp = len(shape) - 2
    if "size" in kw:
        sizes, scales = kw["size"], None
    else:
        sf = kw["scale_factor"]
        scales = [float(sf)] * sp if np.isscalar(sf) else list(sf)
        sizes = [int(n * s) for n, s in zip(shape[2:], scales)]
    ref = np_interp(x, sizes, mode, kw.get("align_corners", False), kw.get("align_mode", 0),
                    scales)
    out = F.interpolate(oar.to_tensor(x), mode=mode, **kw)
    assert out.dtype == getattr(oar, dt, INTERP_TOL)
    close(out, ref, dt, INTERP_TOL)
    # Channel-last gives the same values in its layout.
    fmt = {3: "NWC", 4: "NHWC", 5: "NDHWC"}[len(shape)]
    xl = np.moveaxis(x, 1, -1)
    out_l = F.interpolate(oar.to_tensor(xl), mode=mode, data_format=fmt, **kw)
    close(out_l, np.moveaxis(ref, 1, -1), dt, INTERP_TOL)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_interpolate_area_upsample_noncontiguous(dt):
    x = rand((2, 3, 7, 5), dt, seed=4)
    close(F.interpolate(oar.to_tensor(x), size=[3, 4], mode="area"), np_area(x, [3, 4]), dt, INTERP_TOL)
    x1 = rand((2, 3, 7), dt, seed=5)
    close(F.interpolate(oar.to_tensor(x1), size=[3], mode="area"), np_area(x1, [3]), dt, INTERP_TOL)
    x3 = rand((1, 2, 4, 5, 3), dt, seed=6)
    close(F.interpolate(oar.to_tensor(x3), size=[2, 3, 2], mode="area"),
          np_area(x3, [2, 3, 2]), dt, INTERP_TOL)
    close(F.upsample(oar.to_tensor(x), size=[9, 2], mode="bilinear"),
          np_interp(x, [9, 2], "bilinear"), dt, INTERP_TOL)
    # A transposed (non-contiguous) input, size given as a tensor.
    t = oar.to_tensor(np.ascontiguousarray(x.transpose(0, 1, 3, 2))).transpose([0, 1, 3, 2])
    close(F.interpolate(t, size=oar.to_tensor([5, 8]), mode="bilinear"),
          np_interp(x, [5, 8], "bilinear"), dt, INTERP_TOL)


@pytest.mark.parametrize("mode,shape,kw", [
    ("linear", (1, 2, 4), dict(size=[7])),
    ("bilinear", (1, 2, 3, 4), dict(size=[5, 3])),
    ("bilinear", (2, 1, 3, 4), dict(size=[5, 6], align_corners=True)),
    ("nearest", (1, 2, 3, 4), dict(size=[5, 3])),
    ("bicubic", (1, 1, 4, 3), dict(size=[5, 6])),
    ("trilinear", (1, 1, 2, 3, 3), dict(size=[3, 2, 4], align_mode=1)),
    ("area", (1, 2, 5, 4), dict(size=[2, 3])),
])
def test_interpolate_grad(mode, shape, kw):
    check_grad(lambda x: F.interpolate(x, mode=mode, **kw), [rand(shape, seed=7)],
               what=f"interpolate {mode}")
    # The gradient op's own gradient (interp again): second order through interp_grad.
    x = oar.to_tensor(rand(shape, seed=8), stop_gradient=False)
    y = F.interpolate(x, mode=mode, **kw)
    (g,) = oar.grad((y * y).sum(), [x], create_graph=True)
    g.sum().backward()
    assert x.grad is not None and x.grad.shape == list(shape)


def test_interp_kernel_op_direct():
    # The kernel op under the Python name "interp" (channel-first, explicit sizes and scales).
    x = rand((1, 1, 4, 4), seed=9)
    out = oar._C.interp(oar.to_tensor(x), [8, 8], "bilinear", False, 0, 2.0, 2.0, 0.0)
    np.testing.assert_allclose(out.numpy(), np_interp(x, [8, 8], "bilinear", scales=[2.0, 2.0]),
                               rtol=1e-6)


def test_interpolate_errors():
    x = oar.to_tensor(rand((1, 1, 4, 4), "float32"))
    with pytest.raises(ValueError, match="'linear' only support 3-D tensor"):
        F.interpolate(x, size=[2, 2], mode="linear")
    with pytest.raises(ValueError, match="'NEAREST' only support 4-D  or 5-D tensor"):
        F.interpolate(oar.to_tensor(rand((1, 1, 4), "float32")), size=[2])
    with pytest.raises(ValueError, match="align_corners option can only be set"):
        F.interpolate(x, size=[2, 2], align_corners=True)
    with pytest.raises(ValueError, match="One of size and scale_factor must not be None"):
        F.interpolate(x)
    with pytest.raises(ValueError, match="Only one of size or scale_factor should be defined"):
        F.interpolate(x, size=[2, 2], scale_factor=2.0)
    with pytest.raises(ValueError, match="rank\\(x\\) - 2 == len\\(size\\)"):
        F.interpolate(x, size=[2], mode="bilinear")
    with pytest.raises(ValueError, match="only `NCHW` or `NHWC` supported for 4-D input"):
        F.interpolate(x, size=[2, 2], data_format="NCL")
    with pytest.raises(ValueError, match="The 'resample' of image_resize"):
        F.interpolate(x, size=[2, 2], mode="foo")
    with pytest.raises(ValueError, match="align_mode can only be 0 or 1"):
        F.interpolate(x, size=[2, 2], mode="bilinear", align_mode=2)
    with pytest.raises(ValueError, match="should be greater than 0"):
        F.interpolate(x, scale_factor=-1.0, mode="bilinear")
    with pytest.raises(TypeError, match="size should be a list, tuple or Tensor, got int"):
        F.interpolate(x, size=3, mode="bilinear")
    with pytest.raises(TypeError, match=r"interp: argument 'x' must be a floating-point tensor \(float16, bfloat16, float32, float64\), got int64"):
        oar._C.interp(oar.to_tensor(np.ones((1, 1, 2, 2), np.int64)), [3, 3], "bilinear")
    with pytest.raises(ValueError, match="interp: the mode should be"):
        oar._C.interp(x, [3, 3], "cubic")


# ---------------------------------------------------------------- grid_sample / affine_grid

def _reflect(v, lo, hi):
    if lo == hi:
        return 0.0
    span = hi - lo
    v = abs(v - lo)
    flips, extra = math.floor(v / span), math.fmod(v, span)
    return extra + lo if flips % 2 == 0 else span - extra + lo


def _src(g, S, pad, ac):
    v = (g + 1) / 2 * (S - 1) if ac else ((g + 1) * S - 1) / 2
    if pad == "border":
        v = min(max(v, 0), S - 1)
    elif pad == "reflection":
        v = _reflect(v, 0, S - 1) if ac else _reflect(v, -0.5, S - 0.5)
        v = min(max(v, 0), S - 1)
    return v


def np_grid_sample(x, grid, mode, pad, ac):
    N, C, H, W = x.shape
    Ho, Wo = grid.shape[1:3]
    out = np.zeros((N, C, Ho, Wo))
    for n in range(N):
        for i in range(Ho):
            for j in range(Wo):
                ix = _src(float(grid[n, i, j, 0]), W, pad, ac)
                iy = _src(float(grid[n, i, j, 1]), H, pad, ac)
                if mode == "nearest":
                    rx, ry = int(np.rint(ix)), int(np.rint(iy))
                    if 0 <= rx < W and 0 <= ry < H:
                        out[n, :, i, j] = x[n, :, ry, rx]
                    continue
                x0, y0 = math.floor(ix), math.floor(iy)
                for dy in (0, 1):
                    for dx in (0, 1):
                        xx, yy = x0 + dx, y0 + dy
                        w = (1 - abs(ix - xx)) * (1 - abs(iy - yy))
                        if 0 <= xx < W and 0 <= yy < H:
                            out[n, :, i, j] += w * x[n, :, yy, xx]
    return out


def np_grid_sample_3d(x, grid, mode, pad, ac):
    N, C, D, H, W = x.shape
    out = np.zeros((N, C) + grid.shape[1:4])
    for n in range(N):
        for pos in np.ndindex(*grid.shape[1:4]):
            g = grid[(n,) + pos]
            c = [_src(float(g[0]), W, pad, ac), _src(float(g[1]), H, pad, ac),
                 _src(float(g[2]), D, pad, ac)]
            if mode == "nearest":
                r = [int(np.rint(v)) for v in c]
                if 0 <= r[0] < W and 0 <= r[1] < H and 0 <= r[2] < D:
                    out[(n, slice(None)) + pos] = x[n, :, r[2], r[1], r[0]]
                continue
            lo = [math.floor(v) for v in c]
            for bits in np.ndindex(2, 2, 2):
                idx = [lo[k] + bits[k] for k in range(3)]
                w = np.prod([1 - abs(c[k] - idx[k]) for k in range(3)])
                if 0 <= idx[0] < W and 0 <= idx[1] < H and 0 <= idx[2] < D:
                    out[(n, slice(None)) + pos] += w * x[n, :, idx[2], idx[1], idx[0]]
    return out


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("pad", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("ac", [True, False])
def test_grid_sample_5d(dt, mode, pad, ac):
    x = rand((2, 2, 3, 4, 5), dt, seed=40)
    grid = rand((2, 2, 3, 2, 3), dt, low=-1.5, high=1.5, seed=41)
    out = F.grid_sample(oar.to_tensor(x), oar.to_tensor(grid), mode=mode, padding_mode=pad,
                        align_corners=ac)
    assert out.shape == [2, 2, 2, 3, 2]
    close(out, np_grid_sample_3d(x, grid, mode, pad, ac), dt)


@pytest.mark.parametrize("pad", ["zeros", "reflection"])
def test_grid_sample_5d_grad(pad):
    check_grad(lambda a, g: F.grid_sample(a, g, padding_mode=pad, align_corners=False),
               [rand((1, 2, 2, 3, 3), seed=42), rand((1, 2, 1, 2, 3), low=-0.9, high=0.9,
                                                     seed=43)], what="grid_sample 5-D")


def test_grid_sample_values_measured_with_paddle():
    x = oar.arange(16, dtype="float32").reshape([1, 1, 4, 4])
    g = oar.to_tensor(np.array([[[[-1.7, 0.3], [1.4, -2.2], [2.9, 0.1], [-3.1, 1.2]]]],
                               "float32"))
    want = {("border", True): [7.8, 3., 9.6, 12.], ("border", False): [8.4, 3., 9.8, 12.],
            ("reflection", True): [8.85, 9.6, 6.75, 13.65],
            ("reflection", False): [9.3, 10.3, 6.8, 15.]}
    for (p, ac), w in want.items():
        np.testing.assert_allclose(F.grid_sample(x, g, padding_mode=p, align_corners=ac)
                                   .numpy().ravel(), w, atol=1e-5)
    np.testing.assert_allclose(F.grid_sample(x, g, mode="nearest", padding_mode="reflection",
                                             align_corners=False).numpy().ravel(),
                               [9., 11., 8., 15.])


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("pad", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("ac", [True, False])
def test_grid_sample_forward(dt, mode, pad, ac):
    x = rand((2, 3, 4, 5), dt, seed=10)
    grid = rand((2, 3, 2, 2), dt, low=-1.6, high=1.6, seed=11)
    out = F.grid_sample(oar.to_tensor(x), oar.to_tensor(grid), mode=mode, padding_mode=pad,
                        align_corners=ac)
    assert out.shape == [2, 3, 3, 2] and out.dtype == getattr(oar, dt)
    close(out, np_grid_sample(x, grid, mode, pad, ac), dt)


@pytest.mark.parametrize("pad", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("ac", [True, False])
def test_grid_sample_grad(pad, ac):
    x = rand((1, 2, 3, 4), seed=12)
    grid = rand((1, 2, 3, 2), low=-0.9, high=0.9, seed=13)
    check_grad(lambda a, g: F.grid_sample(a, g, padding_mode=pad, align_corners=ac), [x, grid],
               what=f"grid_sample {pad} {ac}")
    check_grad(lambda a: F.grid_sample(a, oar.to_tensor(grid), mode="nearest", padding_mode=pad,
                                       align_corners=ac), [x], what="grid_sample nearest")


def test_grid_sample_errors():
    x = oar.to_tensor(rand((1, 1, 3, 3), "float32"))
    g = oar.to_tensor(rand((1, 2, 2, 2), "float32"))
    with pytest.raises(ValueError, match="The mode of grid sample function should be in"):
        F.grid_sample(x, g, mode="bicubic")
    with pytest.raises(ValueError, match="The padding mode of grid sample function"):
        F.grid_sample(x, g, padding_mode="circular")
    with pytest.raises(ValueError, match="expected grid of shape \\[N, H_out, W_out, 2\\]"):
        F.grid_sample(x, oar.to_tensor(rand((1, 2, 2, 3), "float32")))
    with pytest.raises(ValueError, match="expected grid of shape \\[N, D_out, H_out, W_out, 3\\]"):
        F.grid_sample(oar.to_tensor(rand((1, 1, 2, 3, 3), "float32")), g)
    with pytest.raises(ValueError, match="expected x of shape \\[N, C, H, W\\] or"):
        F.grid_sample(oar.to_tensor(rand((1, 3, 3), "float32")), g)
    with pytest.raises(ValueError, match="should have the same batch size"):
        F.grid_sample(x, oar.to_tensor(rand((2, 2, 2, 2), "float32")))
    with pytest.raises(TypeError, match="must have the same dtype"):
        F.grid_sample(x, oar.to_tensor(rand((1, 2, 2, 2))))


def np_affine_grid(theta, shape, ac):
    N, _, H, W = shape

    def lin(S):
        v = np.linspace(-1, 1, S) if S > 1 else np.array([-1.0 if ac else 0.0])
        return v if ac else v * (S - 1) / S

    xs, ys = np.meshgrid(lin(W), lin(H))
    base = np.stack([xs, ys, np.ones_like(xs)], -1)  # [H, W, 3]
    return np.einsum("hwk,nck->nhwc", base, theta)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("ac", [True, False])
def test_affine_grid(dt, ac):
    th = np.array([[[1., 0.2, 0.1], [0.3, 1., -0.2]]], dt)
    out = F.affine_grid(oar.to_tensor(th), [1, 1, 2, 3], align_corners=ac)
    assert out.shape == [1, 2, 3, 2] and out.dtype == getattr(oar, dt)
    close(out, np_affine_grid(th, [1, 1, 2, 3], ac), dt)
    if ac:  # measured with paddle
        np.testing.assert_allclose(out.numpy()[0, 0], [[-1.1, -1.5], [-0.1, -1.2], [0.9, -0.9]],
                                   atol=1e-6)
    th2 = rand((2, 2, 3), dt, seed=14)
    close(F.affine_grid(oar.to_tensor(th2), oar.to_tensor([2, 3, 4, 5]), ac),
          np_affine_grid(th2, [2, 3, 4, 5], ac), dt)
    check_grad(lambda t: F.affine_grid(t, [2, 1, 3, 2], ac), [rand((2, 2, 3), seed=15)],
               what="affine_grid")


def np_affine_grid_3d(theta, shape, ac):
    N, _, D, H, W = shape

    def lin(S):
        v = np.linspace(-1, 1, S) if S > 1 else np.array([-1.0 if ac else 0.0])
        return v if ac else v * (S - 1) / S

    zs, ys, xs = np.meshgrid(lin(D), lin(H), lin(W), indexing="ij")
    base = np.stack([xs, ys, zs, np.ones_like(xs)], -1)  # [D, H, W, 4]
    return np.einsum("dhwk,nck->ndhwc", base, theta)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("ac", [True, False])
def test_affine_grid_3d(dt, ac):
    th = (np.arange(12, dtype=dt).reshape(1, 3, 4) / 10).astype(dt)
    out = F.affine_grid(oar.to_tensor(th), [1, 1, 2, 2, 3], align_corners=ac)
    assert out.shape == [1, 2, 2, 3, 3] and out.dtype == getattr(oar, dt)
    close(out, np_affine_grid_3d(th, [1, 1, 2, 2, 3], ac), dt)
    if ac:  # measured with paddle
        np.testing.assert_allclose(out.numpy()[0, 1, 1], [[0.6, 1.4, 2.2], [0.6, 1.8, 3.0],
                                                          [0.6, 2.2, 3.8]], atol=1e-6)
    check_grad(lambda t: F.affine_grid(t, [2, 1, 2, 3, 2], ac), [rand((2, 3, 4), seed=44)],
               what="affine_grid 3-D")


def test_affine_grid_errors():
    with pytest.raises(ValueError, match="expected theta of shape \\[N, 2, 3\\]"):
        F.affine_grid(oar.to_tensor(rand((1, 3, 3), "float32")), [1, 1, 2, 2])
    with pytest.raises(ValueError, match="expected theta of shape \\[N, 3, 4\\]"):
        F.affine_grid(oar.to_tensor(rand((1, 2, 3), "float32")), [1, 1, 2, 2, 2])
    with pytest.raises(ValueError, match="out_shape should be \\[N, C, H, W\\] or"):
        F.affine_grid(oar.to_tensor(rand((1, 2, 3), "float32")), [1, 2, 2])
    with pytest.raises(ValueError, match="differs from out_shape\\[0\\]"):
        F.affine_grid(oar.to_tensor(rand((2, 2, 3), "float32")), [1, 1, 2, 2])


# ---------------------------------------------------------------- layout ops

def np_pixel_shuffle(x, r, last):
    if last:
        x = x.transpose(0, 3, 1, 2)
    N, C, H, W = x.shape
    y = x.reshape(N, C // (r * r), r, r, H, W).transpose(0, 1, 4, 2, 5, 3).reshape(
        N, C // (r * r), H * r, W * r)
    return y.transpose(0, 2, 3, 1) if last else y


def np_pixel_unshuffle(x, r, last):
    if last:
        x = x.transpose(0, 3, 1, 2)
    N, C, H, W = x.shape
    y = x.reshape(N, C, H // r, r, W // r, r).transpose(0, 1, 3, 5, 2, 4).reshape(
        N, C * r * r, H // r, W // r)
    return y.transpose(0, 2, 3, 1) if last else y


def np_channel_shuffle(x, g, last):
    if last:
        x = x.transpose(0, 3, 1, 2)
    N, C, H, W = x.shape
    y = x.reshape(N, g, C // g, H, W).transpose(0, 2, 1, 3, 4).reshape(N, C, H, W)
    return y.transpose(0, 2, 3, 1) if last else y


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
def test_shuffles(dt, fmt):
    last = fmt == "NHWC"
    x = rand((2, 3, 4, 8) if last else (2, 8, 3, 4), dt, seed=16)
    close(F.pixel_shuffle(oar.to_tensor(x), 2, fmt), np_pixel_shuffle(x, 2, last), dt)
    x2 = rand((1, 4, 6, 3) if last else (1, 3, 4, 6), dt, seed=17)
    close(F.pixel_unshuffle(oar.to_tensor(x2), 2, fmt), np_pixel_unshuffle(x2, 2, last), dt)
    close(F.channel_shuffle(oar.to_tensor(x), 4, fmt), np_channel_shuffle(x, 4, last), dt)
    # pixel_unshuffle undoes pixel_shuffle.
    y = F.pixel_unshuffle(F.pixel_shuffle(oar.to_tensor(x), 2, fmt), 2, fmt)
    close(y, x, dt)


def test_shuffle_grads_and_errors():
    check_grad(lambda a: F.pixel_shuffle(a, 2), [rand((1, 4, 2, 3), seed=18)], what="pixel_shuffle")
    check_grad(lambda a: F.pixel_unshuffle(a, 2, "NHWC"), [rand((1, 4, 2, 3), seed=19)],
               what="pixel_unshuffle")
    check_grad(lambda a: F.channel_shuffle(a, 2), [rand((1, 4, 2, 3), seed=20)],
               what="channel_shuffle")
    x = oar.to_tensor(rand((1, 6, 2, 2), "float32"))
    with pytest.raises(ValueError, match="divisible by the square of upscale_factor"):
        F.pixel_shuffle(x, 2)
    with pytest.raises(ValueError, match="Attr\\(data_format\\) should be 'NCHW' or 'NHWC'"):
        F.pixel_shuffle(x, 1, "NCL")
    with pytest.raises(TypeError, match="upscale factor must be int type"):
        F.pixel_shuffle(x, 1.5)
    with pytest.raises(ValueError, match="should be divisible by downscale_factor"):
        F.pixel_unshuffle(oar.to_tensor(rand((1, 1, 3, 4), "float32")), 2)
    with pytest.raises(ValueError, match="should be divisible by groups"):
        F.channel_shuffle(x, 4)
    with pytest.raises(ValueError, match="Input should be a 4-D tensor"):
        F.channel_shuffle(oar.to_tensor(rand((6, 2, 2), "float32")), 2)


def np_unfold(x, k, s, p, d):
    N, C, H, W = x.shape
    xp = np.pad(x, [(0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])])
    Ho = (H + p[0] + p[2] - (d[0] * (k[0] - 1) + 1)) // s[0] + 1
    Wo = (W + p[1] + p[3] - (d[1] * (k[1] - 1) + 1)) // s[1] + 1
    out = np.zeros((N, C, k[0], k[1], Ho, Wo), x.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            out[:, :, i, j] = xp[:, :, i * d[0]: i * d[0] + s[0] * (Ho - 1) + 1: s[0],
                                 j * d[1]: j * d[1] + s[1] * (Wo - 1) + 1: s[1]]
    return out.reshape(N, C * k[0] * k[1], Ho * Wo)


def np_fold(col, size, k, s, p, d):
    N, CKK, L = col.shape
    C = CKK // (k[0] * k[1])
    H, W = size
    Hp, Wp = H + p[0] + p[2], W + p[1] + p[3]
    Ho = (Hp - (d[0] * (k[0] - 1) + 1)) // s[0] + 1
    Wo = (Wp - (d[1] * (k[1] - 1) + 1)) // s[1] + 1
    c = col.reshape(N, C, k[0], k[1], Ho, Wo)
    out = np.zeros((N, C, Hp, Wp))
    for i in range(k[0]):
        for j in range(k[1]):
            out[:, :, i * d[0]: i * d[0] + s[0] * (Ho - 1) + 1: s[0],
                j * d[1]: j * d[1] + s[1] * (Wo - 1) + 1: s[1]] += c[:, :, i, j]
    return out[:, :, p[0]: p[0] + H, p[1]: p[1] + W]


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("k,s,p,d,pp", [
    (2, 1, 0, 1, [0, 0, 0, 0]),
    ([2, 3], [2, 1], [1, 2], [1, 2], [1, 2, 1, 2]),
    (3, 2, [1, 0, 2, 1], 1, [1, 0, 2, 1]),
])
def test_unfold_fold(dt, k, s, p, d, pp):
    pair = lambda v: [v, v] if isinstance(v, int) else v  # noqa: E731
    x = rand((2, 3, 6, 7), dt, seed=21)
    ref = np_unfold(x, pair(k), pair(s), pp, pair(d))
    out = F.unfold(oar.to_tensor(x), k, s, p, d)
    close(out, ref, dt)
    back = F.fold(out, [6, 7], k, s, p, d)
    close(back, np_fold(ref.astype(np.float64), [6, 7], pair(k), pair(s), pp, pair(d)), dt)


def test_unfold_fold_grad_and_errors():
    check_grad(lambda a: F.unfold(a, [2, 2], 1, 1, 1), [rand((1, 2, 3, 3), seed=22)],
               what="unfold")
    check_grad(lambda a: F.fold(a, [3, 4], 2, 1, 0, 1), [rand((1, 8, 6), seed=23)], what="fold")
    x = oar.to_tensor(rand((1, 2, 3, 3), "float32"))
    with pytest.raises(ValueError, match="unfold: paddings should be an int or a list of 2 or 4"):
        F.unfold(x, 2, 1, [1, 1, 1])
    with pytest.raises(ValueError, match="smaller than the dilated kernel size"):
        F.unfold(x, 5)
    with pytest.raises(ValueError, match="expected a 4-D input x"):
        F.unfold(oar.to_tensor(rand((2, 3, 3), "float32")), 2)
    with pytest.raises(ValueError, match="should equal the number of sliding blocks"):
        F.fold(oar.to_tensor(rand((1, 8, 5), "float32")), [3, 4], 2)
    with pytest.raises(ValueError, match="divisible by the kernel area"):
        F.fold(oar.to_tensor(rand((1, 7, 6), "float32")), [3, 4], 2)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_zeropad2d(dt):
    x = rand((1, 2, 3, 4), dt, seed=24)
    close(F.zeropad2d(oar.to_tensor(x), [1, 2, 0, 3]),
          np.pad(x, [(0, 0), (0, 0), (0, 3), (1, 2)]), dt)
    close(F.zeropad2d(oar.to_tensor(x), 1), np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)]), dt)
    xl = x.transpose(0, 2, 3, 1)
    close(F.zeropad2d(oar.to_tensor(xl), [1, 0, 2, 0], "NHWC"),
          np.pad(xl, [(0, 0), (2, 0), (1, 0), (0, 0)]), dt)
    check_grad(lambda a: F.zeropad2d(a, [1, 0, 0, 1]), [rand((1, 1, 2, 2), seed=25)],
               what="zeropad2d")


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_max_unpool(dt, nd):
    shape = (2, 3) + (6, 4, 4)[:nd]
    x = oar.to_tensor(rand(shape, dt, seed=26 + nd))
    pool = getattr(F, f"max_pool{nd}d")
    unpool = getattr(F, f"max_unpool{nd}d")
    out, idx = pool(x, 2, return_mask=True)
    up = unpool(out, idx, 2)
    assert up.shape == list(shape) and up.dtype == getattr(oar, dt)
    # Reference: each window's maximum back at its place, zeros elsewhere.
    xn = x.numpy()
    ref = np.zeros_like(xn)
    flat_ref, flat_x, flat_i = ref.reshape(6, -1), xn.reshape(6, -1), idx.numpy().reshape(6, -1)
    for r in range(6):
        flat_ref[r, flat_i[r]] = flat_x[r, flat_i[r]]
    close(up, ref, dt)
    big = unpool(out, idx, 2, output_size=[s + 1 for s in shape[2:]])
    assert big.shape == list(shape[:2]) + [s + 1 for s in shape[2:]]
    check_grad(lambda a: unpool(a, idx, 2), [out.numpy().astype(np.float64)],
               what=f"max_unpool{nd}d")


def test_max_unpool_overlapping_windows_overwrite():
    # Overlapping windows name one position twice: it keeps the value (as Paddle), not a sum.
    x = oar.to_tensor(np.array([[[[1., 9, 2, 3], [4, 5, 6, 7], [0, 1, 2, 3], [1, 1, 1, 1]]]],
                               "float32"))
    out, idx = F.max_pool2d(x, 3, stride=1, return_mask=True)
    up = F.max_unpool2d(out, idx, 3, stride=1)
    want = np.zeros((1, 1, 4, 4), "float32")
    want[0, 0, 0, 1], want[0, 0, 1, 2], want[0, 0, 1, 3] = 9, 6, 7
    np.testing.assert_array_equal(up.numpy(), want)
    # int64 indices work too; the gradient gathers at the indices.
    up64 = F.max_unpool2d(out, idx.astype("int64"), 3, stride=1)
    np.testing.assert_array_equal(up64.numpy(), want)
    o = oar.to_tensor(out.numpy(), stop_gradient=False)
    (F.max_unpool2d(o, idx, 3, stride=1) * oar.arange(16, dtype="float32").reshape(
        [1, 1, 4, 4])).sum().backward()
    np.testing.assert_array_equal(o.grad.numpy(), [[[[1., 1.], [6., 7.]]]])


def test_max_unpool_errors():
    x = oar.to_tensor(rand((1, 1, 2, 2), "float32"))
    idx = oar.to_tensor(np.zeros((1, 1, 2, 2), np.int32))
    with pytest.raises(ValueError, match="The data_format must be NCHW"):
        F.max_unpool2d(x, idx, 2, data_format="NHWC")
    with pytest.raises(ValueError, match="should have x's shape"):
        F.max_unpool2d(x, oar.to_tensor(np.zeros((1, 1, 2, 1), np.int32)), 2)
    with pytest.raises(TypeError, match="argument 'indices' must be an int32 or int64"):
        F.max_unpool2d(x, x, 2)
    with pytest.raises(ValueError, match='invalid output_size "\\[2, 2\\]" \\(dim 0 must be '
                       'between 2 and 6\\)'):
        F.max_unpool2d(x, idx, 2, output_size=[2, 2])
    x1 = oar.to_tensor(rand((1, 1, 2), "float32"))
    with pytest.raises(ValueError, match="max_unpool1d: The data_format must be NCL"):
        F.max_unpool1d(x1, oar.to_tensor(np.zeros((1, 1, 2), np.int32)), 2, data_format="NLC")
    x3 = oar.to_tensor(rand((1, 1, 2, 2), "float32"))
    with pytest.raises(ValueError, match="max_unpool3d: expected a 5-D input x"):
        F.max_unpool3d(x3, idx, 2)


def np_lrn(x, size, alpha, beta, k):
    C = x.shape[1]
    sq = np.pad(x.astype(np.float64) ** 2,
                [(0, 0), (size // 2, (size - 1) // 2)] + [(0, 0)] * (x.ndim - 2))
    div = sum(sq[:, i:i + C] for i in range(size)) / size
    return x / (k + alpha * div) ** beta


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_local_response_norm(dt):
    x = rand((2, 5, 3, 4), dt, seed=30)
    close(F.local_response_norm(oar.to_tensor(x), 3), np_lrn(x, 3, 1e-4, 0.75, 1.0), dt)
    close(F.local_response_norm(oar.to_tensor(x), 4, alpha=0.5, beta=0.6, k=2.0),
          np_lrn(x, 4, 0.5, 0.6, 2.0), dt)
    x1 = rand((2, 5, 7), dt, seed=31)
    close(F.local_response_norm(oar.to_tensor(x1.transpose(0, 2, 1)), 2, data_format="NLC"),
          np_lrn(x1, 2, 1e-4, 0.75, 1.0).transpose(0, 2, 1), dt)
    x3 = rand((1, 4, 2, 2, 3), dt, seed=32)
    close(F.local_response_norm(oar.to_tensor(x3), 3, alpha=0.3, data_format="NCDHW"),
          np_lrn(x3, 3, 0.3, 0.75, 1.0), dt)
    check_grad(lambda a: F.local_response_norm(a, 3, alpha=0.5), [rand((1, 4, 2, 2), seed=33)],
               what="local_response_norm")
    with pytest.raises(ValueError, match="Expected 3D or higher dimensionality input"):
        F.local_response_norm(oar.to_tensor(rand((2, 3), "float32")), 3)
    with pytest.raises(ValueError, match="data_format should be in one of"):
        F.local_response_norm(oar.to_tensor(x), 3, data_format="NCW")


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_bilinear(dt):
    x1, x2 = rand((4, 3), dt, seed=34), rand((4, 5), dt, seed=35)
    w, b = rand((2, 3, 5), dt, seed=36), rand((1, 2), dt, seed=37)
    ref = np.einsum("bi,oij,bj->bo", x1, w, x2) + b
    close(F.bilinear(*(oar.to_tensor(a) for a in (x1, x2, w, b))), ref, dt)
    close(F.bilinear(*(oar.to_tensor(a) for a in (x1, x2, w))), ref - b, dt)
    check_grad(F.bilinear, [x1.astype(np.float64), x2.astype(np.float64), w.astype(np.float64),
                            b.astype(np.float64)], what="bilinear")
    with pytest.raises(ValueError, match="bilinear: shapes do not match"):
        F.bilinear(oar.to_tensor(x1), oar.to_tensor(x2), oar.to_tensor(rand((2, 5, 3), dt)))
