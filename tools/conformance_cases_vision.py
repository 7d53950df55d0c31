"""Conformance cases for the sampling, layout and attention ops of paddle.nn.functional
(oar/ops/specs/vision.yaml): interpolate/upsample, grid_sample, affine_grid, the shuffles,
unfold/fold, zeropad2d, max_unpool, local_response_norm, bilinear, scaled_dot_product_attention,
temporal_shift and gather_tree."""
import numpy as np

from conformance_cases import Case, arr, FLOATS

NS = "paddle.nn.functional"
_INTERP_F32 = ("Paddle's interpolation kernels compute the ratio, source coordinates and weights "
               "partly in float32, differently per mode and between forward and backward (its "
               "area mode's gradient, adaptive_avg_pool's, too), so float64 values and gradients "
               "differ from oar's by ~1e-7 (above the 1e-9 float64 tolerance; float32 cases "
               "agree). oar uses a float32 ratio and float32 nearest/linear coordinates as Paddle's "
               "forward does, and its gradients are the exact adjoints, checked numerically in "
               "tests/python/test_vision.py")
_LRN_F32 = ("Paddle stores local_response_norm's alpha/beta/k attributes in float32 (0.6 becomes "
            "0.60000002), so its float64 results differ from the exact ones by ~1e-8; oar keeps "
            "the double")
KNOWN = {f"{NS}.interpolate": _INTERP_F32, f"{NS}.upsample": _INTERP_F32,
         f"{NS}.local_response_norm": _LRN_F32}


def _unpool_indices(shape, k):
    """Valid max_pool indices (flat within the image plane) for windows of k with stride k."""
    rng = np.random.default_rng(5)
    nd = len(shape) - 2
    grids = np.meshgrid(*[np.arange(s) for s in shape[2:]], indexing="ij")
    in_sizes = [s * k for s in shape[2:]]
    flat = np.zeros(shape[2:], np.int64)
    for d in range(nd):
        pos = grids[d] * k + rng.integers(0, k, size=shape[2:])
        stride = int(np.prod(in_sizes[d + 1:])) if d + 1 < nd else 1
        flat += pos * stride
    return np.broadcast_to(flat, shape).astype("int32").copy()


def _interpolate():
    out = []
    for dt in FLOATS:
        tol = None
        out += [
            Case([arr((2, 3, 5), dt)], dict(size=[9], mode="linear"), tol=tol),
            Case([arr((2, 3, 5), dt)], dict(size=[3], mode="linear", align_mode=1), tol=tol),
            Case([arr((1, 2, 6), dt)], dict(scale_factor=1.5, mode="linear",
                                            align_corners=True), tol=tol),
            Case([arr((2, 2, 4, 5), dt)], dict(size=[7, 3], mode="bilinear"), tol=tol),
            Case([arr((2, 2, 4, 5), dt)], dict(size=[7, 3], mode="bilinear",
                                               align_corners=True), tol=tol),
            Case([arr((1, 2, 4, 5), dt)], dict(scale_factor=[1.5, 2.0], mode="bilinear",
                                               align_mode=1), tol=tol),
            Case([arr((1, 4, 5, 2), dt)], dict(size=[3, 7], mode="bilinear",
                                               data_format="NHWC"), tol=tol),
            Case([arr((2, 3, 5, 4), dt)], dict(size=[9, 3], mode="nearest"), tol=tol),
            Case([arr((1, 2, 5, 4), dt)], dict(scale_factor=2, mode="nearest"), tol=tol),
            Case([arr((2, 2, 5, 6), dt)], dict(size=[8, 4], mode="bicubic"), tol=tol),
            Case([arr((1, 2, 5, 6), dt)], dict(size=[8, 4], mode="bicubic",
                                               align_corners=True), tol=tol),
            Case([arr((1, 2, 3, 4, 5), dt)], dict(size=[5, 2, 7], mode="trilinear"), tol=tol),
            Case([arr((1, 2, 3, 4, 5), dt)], dict(size=[5, 2, 7], mode="trilinear",
                                                  align_corners=True), tol=tol),
            Case([arr((1, 2, 3, 4, 5), dt)], dict(size=[5, 2, 7], mode="nearest"), tol=tol),
            Case([arr((2, 3, 7, 5), dt)], dict(size=[3, 4], mode="area"), tol=tol),
            Case([arr((2, 3, 7), dt)], dict(size=[3], mode="area"), tol=tol),
            # Rejected by both.
            Case([arr((2, 3, 5), dt)], dict(size=[9], mode="nearest"), grad=False),
            Case([arr((2, 3, 5, 5), dt)], dict(size=[9, 9], mode="nearest",
                                               align_corners=True), grad=False),
        ]
    return out


def _grid_sample():
    out = []
    for dt in FLOATS:
        for mode in ("bilinear", "nearest"):
            for pad in ("zeros", "border", "reflection"):
                for ac in (True, False):
                    out.append(Case([arr((2, 3, 4, 5), dt), arr((2, 3, 2, 2), dt, -1.6, 1.6)],
                                    dict(mode=mode, padding_mode=pad, align_corners=ac),
                                    grad=mode == "bilinear"))
                    out.append(Case([arr((1, 2, 3, 4, 5), dt),
                                     arr((1, 2, 3, 2, 3), dt, -1.5, 1.5)],
                                    dict(mode=mode, padding_mode=pad, align_corners=ac),
                                    grad=mode == "bilinear"))
    return out


def cases(namespace, name):
    if namespace != NS:
        return []
    if name in ("interpolate", "upsample"):
        return _interpolate()
    if name == "grid_sample":
        return _grid_sample()
    if name == "affine_grid":
        return [c for dt in FLOATS for ac in (True, False) for c in (
            Case([arr((2, 2, 3), dt)], dict(out_shape=[2, 3, 4, 5], align_corners=ac)),
            Case([arr((2, 3, 4), dt)], dict(out_shape=[2, 1, 3, 4, 2], align_corners=ac)))]
    if name == "pixel_shuffle":
        return [c for dt in FLOATS for c in (
            Case([arr((2, 8, 3, 4), dt)], dict(upscale_factor=2)),
            Case([arr((2, 3, 4, 18), dt)], dict(upscale_factor=3, data_format="NHWC")),
            Case([arr((2, 6, 3, 4), dt)], dict(upscale_factor=2), grad=False))]
    if name == "pixel_unshuffle":
        return [c for dt in FLOATS for c in (
            Case([arr((2, 3, 4, 6), dt)], dict(downscale_factor=2)),
            Case([arr((1, 6, 3, 2), dt)], dict(downscale_factor=3, data_format="NHWC")))]
    if name == "channel_shuffle":
        return [c for dt in FLOATS for c in (
            Case([arr((2, 6, 3, 4), dt)], dict(groups=3)),
            Case([arr((1, 3, 2, 8), dt)], dict(groups=4, data_format="NHWC")))]
    if name == "unfold":
        return [c for dt in FLOATS for c in (
            Case([arr((2, 3, 6, 7), dt)], dict(kernel_sizes=2)),
            Case([arr((2, 3, 6, 7), dt)], dict(kernel_sizes=[2, 3], strides=[2, 1],
                                               paddings=[1, 2], dilations=[1, 2])),
            Case([arr((1, 2, 6, 7), dt)], dict(kernel_sizes=3, strides=2,
                                               paddings=[1, 0, 2, 1])))]
    if name == "fold":
        return [c for dt in FLOATS for c in (
            Case([arr((2, 12, 30), dt)], dict(output_sizes=[6, 7], kernel_sizes=2)),
            Case([arr((1, 12, 12), dt)], dict(output_sizes=[6, 7], kernel_sizes=[2, 3],
                                              strides=2, paddings=[1, 0, 2, 1])))]
    if name == "zeropad2d":
        return [c for dt in FLOATS for c in (
            Case([arr((1, 2, 3, 4), dt)], dict(padding=[1, 2, 0, 3])),
            Case([arr((1, 3, 4, 2), dt)], dict(padding=[1, 0, 2, 0], data_format="NHWC")))]
    if name in ("max_unpool1d", "max_unpool2d", "max_unpool3d"):
        nd = int(name[-2])
        shape = (2, 3) + (3, 2, 2)[:nd]
        # (max_unpool1d takes output_size as [N, C, L] in Paddle 3.3: its [L] form is checked
        # against the input unsqueezed to 2-D and always rejected; oar takes both.)
        big = [s * 2 + 1 for s in shape[2:]]
        big = list(shape[:2]) + big if nd == 1 else big
        return [c for dt in FLOATS for c in (
            Case([arr(shape, dt), _unpool_indices(shape, 2)], dict(kernel_size=2)),
            Case([arr(shape, dt), _unpool_indices(shape, 2)], dict(kernel_size=2,
                                                                   output_size=big)),
            Case([arr(shape, dt), _unpool_indices(shape, 2)],
                 dict(kernel_size=2, output_size=list(shape[:2]) * (nd == 1) +
                      [s * 2 - 2 for s in shape[2:]]), grad=False))]
    if name == "local_response_norm":
        return [c for dt in FLOATS for c in (
            Case([arr((2, 5, 3, 4), dt)], dict(size=3)),
            Case([arr((2, 5, 3, 4), dt)], dict(size=4, alpha=0.5, beta=0.6, k=2.0)),
            Case([arr((2, 7, 5), dt)], dict(size=2, data_format="NLC")),
            Case([arr((1, 4, 2, 2, 3), dt)], dict(size=3, alpha=0.3, data_format="NCDHW")))]
    if name == "bilinear":
        return [c for dt in FLOATS for c in (
            Case([arr((4, 3), dt), arr((4, 5), dt), arr((2, 3, 5), dt), arr((1, 2), dt)]),
            Case([arr((4, 3), dt), arr((4, 5), dt), arr((2, 3, 5), dt)]))]
    if name == "temporal_shift":
        return [c for dt in FLOATS for c in (
            Case([arr((6, 4, 2, 3), dt)], dict(seg_num=3)),
            Case([arr((4, 10, 2, 2), dt)], dict(seg_num=2, shift_ratio=0.3)),
            Case([arr((3, 2, 3, 8), dt)], dict(seg_num=3, shift_ratio=0.2, data_format="NHWC")),
            Case([arr((2, 4, 1, 1), dt)], dict(seg_num=1)))]
    if name == "gather_tree":
        rng = np.random.default_rng(3)
        return [Case([rng.integers(0, 9, (4, 2, 3)).astype(dt), rng.integers(0, 3, (4, 2, 3)).astype(dt)],
                     grad=False) for dt in ("int32", "int64")] + \
               [Case([rng.integers(0, 9, (1, 3, 2)), rng.integers(0, 2, (1, 3, 2))], grad=False)]
    if name == "scaled_dot_product_attention":
        bm = arr((5, 6), "bool")
        bm[:, 0] = True
        out = []
        for dt in FLOATS:
            q, k, v = arr((2, 5, 3, 4), dt), arr((2, 6, 3, 4), dt), arr((2, 6, 3, 4), dt)
            out += [Case([q, k, v]),
                    Case([q, k, v], dict(is_causal=True)),
                    Case([q, k, v], dict(scale=0.3)),
                    Case([q, k, v], dict(attn_mask=bm)),
                    Case([q, k, v], dict(attn_mask=arr((2, 1, 5, 6), dt))),
                    Case([q, k, v, arr((2, 1, 5, 6), dt)]),  # the mask's gradient too
                    Case([arr((2, 5, 4, 8), dt), arr((2, 6, 2, 8), dt), arr((2, 6, 2, 8), dt)])]
        return out
    return []
