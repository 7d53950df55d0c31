"""oar.vision.ops: RoI pooling, deformable convolution, NMS, box coding, YOLO box decoding and
JPEG reading. Values are checked against NumPy references / literals, against Paddle itself when
it imports, and gradients against central differences in float64."""
import io

import numpy as np
import pytest

import oar
import oar.vision.ops as O
from op_test import check_grad

try:
    import paddle
    import paddle.vision.ops as P
except ImportError:  # the comparisons with Paddle are skipped
    paddle = None

needs_paddle = pytest.mark.skipif(paddle is None, reason="paddle is not installed")

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 8, 10, 12))
BOXES = np.array([[1.2, 0.7, 8.3, 6.9], [0, 0, 11, 9], [3.5, 2.2, 3.9, 2.8], [-2, -1, 5, 4],
                  [4, 4, 30, 30], [2.1, 3.3, 6.2, 7.4]])
BOXES_NUM = np.array([4, 2], dtype=np.int32)
# Paddle's roi_align backward disagrees with its own forward (and with central differences of it)
# for boxes smaller than a bin, such as BOXES[2] (e.g. d out / d x[1, 3] 0.2 where the forward's
# slope is 0.48): gradients are compared with Paddle on the other boxes, and with central
# differences on all.
GRAD_BOXES = BOXES[[0, 1, 3, 4, 5]]
GRAD_BOXES_NUM = np.array([3, 2], dtype=np.int32)


def _both(fn, *arrays, **kw):
    """fn run by Paddle and by oar on the same arrays: (paddle result, oar result) as NumPy."""
    theirs = getattr(P, fn)(*[paddle.to_tensor(a) for a in arrays], **kw)
    ours = getattr(O, fn)(*[oar.to_tensor(a) for a in arrays], **kw)
    return theirs, ours


ROI_CASES = [
    ("roi_align", dict(output_size=3)),
    ("roi_align", dict(output_size=(2, 3), spatial_scale=0.5, sampling_ratio=2)),
    ("roi_align", dict(output_size=2, aligned=False)),
    ("roi_pool", dict(output_size=3)),
    ("roi_pool", dict(output_size=(2, 4), spatial_scale=0.6)),
    ("psroi_pool", dict(output_size=2)),
    ("psroi_pool", dict(output_size=(2, 2), spatial_scale=0.7)),
]


@needs_paddle
@pytest.mark.parametrize("fn,kw", ROI_CASES)
def test_roi_ops_match_paddle_with_gradients(fn, kw):
    for dtype in ("float32", "float64"):
        x, b = X.astype(dtype), BOXES.astype(dtype)
        px = paddle.to_tensor(x, stop_gradient=False)
        ox = oar.to_tensor(x, stop_gradient=False)
        theirs = getattr(P, fn)(px, paddle.to_tensor(b), paddle.to_tensor(BOXES_NUM), **kw)
        ours = getattr(O, fn)(ox, oar.to_tensor(b), oar.to_tensor(BOXES_NUM), **kw)
        assert ours.dtype.name == dtype and ours.shape == list(theirs.shape)
        tol = 1e-5 if dtype == "float32" else 1e-12
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=tol, atol=tol)
        gb, gn = GRAD_BOXES.astype(dtype), GRAD_BOXES_NUM
        theirs = getattr(P, fn)(px, paddle.to_tensor(gb), paddle.to_tensor(gn), **kw)
        ours = getattr(O, fn)(ox, oar.to_tensor(gb), oar.to_tensor(gn), **kw)
        w = RNG.uniform(0.5, 1.5, theirs.shape).astype(dtype)
        (theirs * paddle.to_tensor(w)).sum().backward()
        (ours * oar.to_tensor(w)).sum().backward()
        np.testing.assert_allclose(ox.grad.numpy(), px.grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("fn,kw", ROI_CASES)
def test_roi_ops_numeric_gradient(fn, kw):
    x = RNG.standard_normal((2, 8, 6, 7))
    boxes = np.array([[0.5, 0.5, 5.1, 4.2], [1.0, 2.0, 4.0, 5.5], [0.2, 0.1, 6.5, 5.5],
                      [3.5, 2.2, 3.9, 2.8]])
    num = oar.to_tensor(np.array([2, 2], dtype=np.int32))
    check_grad(lambda t: getattr(O, fn)(t, oar.to_tensor(boxes), num, **kw), [x])


def test_roi_align_literal_and_nan_box():
    x = oar.arange(16, dtype="float64").reshape([1, 1, 4, 4])
    num = oar.to_tensor([2], dtype="int32")
    out = O.roi_align(x, oar.to_tensor([[0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0]]), num, 1)
    # the 2x2 box centred on pixel (0.5, 0.5) samples the 4 pixels at (0.25|0.75, 0.25|0.75)
    assert out.numpy()[0, 0, 0, 0] == pytest.approx(2.5)
    # a zero-size box with the adaptive ratio has no samples: 0 / 0, as Paddle
    assert np.isnan(out.numpy()[1]).all()


def test_roi_pool_literal():
    x = oar.arange(16, dtype="float32").reshape([1, 1, 4, 4])
    out = O.roi_pool(x, oar.to_tensor([[0.0, 0.0, 3.0, 3.0]]), oar.to_tensor([1], dtype="int32"), 2)
    np.testing.assert_array_equal(out.numpy().ravel(), [5, 7, 13, 15])


def test_roi_layers_and_errors():
    x = oar.ones([1, 8, 6, 6])
    b = oar.to_tensor([[0.0, 0.0, 4.0, 4.0]])
    n = oar.to_tensor([1], dtype="int32")
    assert O.RoIAlign(2)(x, b, n).shape == [1, 8, 2, 2]
    assert O.RoIAlign(2)(x, b, n, aligned=False).shape == [1, 8, 2, 2]
    assert O.RoIPool((2, 3), 0.5)(x, b, n).shape == [1, 8, 2, 3]
    assert O.PSRoIPool(2)(x, b, n).shape == [1, 2, 2, 2]
    assert repr(O.RoIPool(2)) == "RoIPool(output_size=2, spatial_scale=1.0)"
    with pytest.raises(ValueError, match="boxes_num"):
        O.roi_align(x, b, oar.to_tensor([2], dtype="int32"), 2)
    with pytest.raises(ValueError, match="boxes"):
        O.roi_pool(x, oar.ones([1, 3]), n, 2)
    with pytest.raises(ValueError, match="divisible"):
        O.psroi_pool(oar.ones([1, 6, 4, 4]), b, n, 2)
    with pytest.raises(TypeError, match="output_size"):
        O.roi_align(x, b, n, "2")


DEFORM_CASES = [  # (n, c, h, w, m, kernel, stride, padding, dilation, deformable_groups, groups, mask)
    (2, 4, 7, 6, 6, 3, 1, 1, 1, 2, 2, True),
    (1, 3, 6, 6, 2, (2, 3), 2, (1, 0), (1, 2), 1, 1, False),
    (1, 2, 5, 5, 4, 1, 1, 0, 1, 2, 1, True),
]


def _deform_inputs(case, rng):
    n, c, h, w, m, k, s, p, d, dg, g, use_mask = case
    kh, kw = (k, k) if isinstance(k, int) else k
    ph, pw = (p, p) if isinstance(p, int) else p
    dh, dw = (d, d) if isinstance(d, int) else d
    ho = (h + 2 * ph - (dh * (kh - 1) + 1)) // s + 1
    wo = (w + 2 * pw - (dw * (kw - 1) + 1)) // s + 1
    arrays = [rng.standard_normal((n, c, h, w)), rng.uniform(-2, 2, (n, 2 * dg * kh * kw, ho, wo)),
              rng.standard_normal((m, c // g, kh, kw)), rng.standard_normal(m)]
    if use_mask:
        arrays.append(rng.uniform(0, 1, (n, dg * kh * kw, ho, wo)))
    return arrays, dict(stride=s, padding=p, dilation=d, deformable_groups=dg, groups=g)


@needs_paddle
@pytest.mark.parametrize("case", DEFORM_CASES)
def test_deform_conv2d_matches_paddle_with_gradients(case):
    arrays, kw = _deform_inputs(case, np.random.default_rng(1))

    def run(lib, mod):
        ts = [lib.to_tensor(a, stop_gradient=False) for a in arrays]
        mask = ts[4] if len(ts) == 5 else None
        out = mod.deform_conv2d(ts[0], ts[1], ts[2], ts[3], mask=mask, **kw)
        (out * out).sum().backward()
        return [out.numpy()] + [t.grad.numpy() for t in ts]

    for a, b in zip(run(paddle, P), run(oar, O)):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("case", DEFORM_CASES[:2])
def test_deform_conv2d_numeric_gradient(case):
    arrays, kw = _deform_inputs(case, np.random.default_rng(2))
    if len(arrays) == 5:
        op = lambda x, off, w, b, m: O.deform_conv2d(x, off, w, b, mask=m, **kw)  # noqa: E731
    else:
        op = lambda x, off, w, b: O.deform_conv2d(x, off, w, b, **kw)  # noqa: E731
    check_grad(op, arrays, atol=1e-5, rtol=1e-5)


def test_deform_conv2d_zero_offset_is_conv2d():
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((2, 4, 7, 7)), rng.standard_normal((6, 2, 3, 3))
    out = O.deform_conv2d(oar.to_tensor(x), oar.zeros([2, 18, 4, 4], dtype="float64"),
                          oar.to_tensor(w), stride=2, padding=1, groups=2)
    ref = oar.nn.functional.conv2d(oar.to_tensor(x), oar.to_tensor(w), stride=2, padding=1, groups=2)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), atol=1e-12)


def test_deform_conv2d_layer_and_errors():
    conv = O.DeformConv2D(2, 4, 3, padding=1, bias_attr=False)
    assert conv.bias is None and conv.weight.shape == [4, 2, 3, 3]
    assert conv(oar.ones([1, 2, 5, 5]), oar.zeros([1, 18, 5, 5]),
                oar.ones([1, 9, 5, 5])).shape == [1, 4, 5, 5]
    with pytest.raises(ValueError, match="offset"):
        conv(oar.ones([1, 2, 5, 5]), oar.zeros([1, 9, 5, 5]))
    with pytest.raises(ValueError, match="mask"):
        conv(oar.ones([1, 2, 5, 5]), oar.zeros([1, 18, 5, 5]), oar.ones([1, 3, 5, 5]))


def test_nms_literals():
    boxes = oar.to_tensor([[0.0, 0.0, 2.0, 2.0], [1.0, 0.0, 3.0, 2.0], [5.0, 5.0, 6.0, 6.0]])
    # IoU of the first two is 2 / 6 (no +1 on the sizes); suppression needs IoU > threshold
    assert O.nms(boxes, 0.34).tolist() == [0, 1, 2]
    assert O.nms(boxes, 0.3).tolist() == [0, 2]
    assert O.nms(boxes, 0.3, scores=oar.to_tensor([0.1, 0.9, 0.5])).tolist() == [1, 2]
    cat = oar.to_tensor([0, 1, 1], dtype="int64")
    assert O.nms(boxes, 0.3, oar.to_tensor([0.1, 0.9, 0.5]), cat, [0, 1]).tolist() == [1, 2, 0]
    assert O.nms(boxes, 0.3, oar.to_tensor([0.1, 0.9, 0.5]), cat, [0, 1], 2).tolist() == [1, 2]
    assert O.nms(boxes, 0.3, oar.to_tensor([0.1, 0.9, 0.5]), cat, [1]).tolist() == [1, 2]
    assert O.nms(oar.zeros([0, 4]), 0.5).shape == [0]
    with pytest.raises(ValueError, match=r"\(N, 4\)"):
        O.nms(oar.zeros([3, 3]), 0.5)
    with pytest.raises(AssertionError, match="categories"):
        O.nms(boxes, 0.3, oar.to_tensor([0.1, 0.9, 0.5]), cat)


def test_nms_keep_private_kernel_contract():
    from oar.vision.ops._nms import _nms_keep
    boxes = oar.to_tensor([[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 0.9]])
    keep = _nms_keep(boxes, 0.5)
    assert keep.dtype.name == "int64" and keep.tolist() == [0]
    assert _nms_keep(boxes, 1.0).tolist() == [0, 1, 2]


@needs_paddle
def test_nms_matches_paddle():
    rng = np.random.default_rng(4)
    for n in (1, 7, 40):
        b = rng.uniform(0, 10, (n, 4)).astype("float32")
        b[:, 2:] = b[:, :2] + rng.uniform(1, 5, (n, 2))
        s = rng.uniform(0, 1, n).astype("float32")
        cat = rng.integers(0, 3, n)
        for thr in (0.1, 0.3, 0.6):
            calls = [(thr,), (thr, s), (thr, s, cat, [0, 1, 2]), (thr, s, cat, [0, 2], min(n, 3))]
            for args in calls:
                conv = lambda lib: [lib.to_tensor(a) if isinstance(a, np.ndarray) else a  # noqa: E731
                                    for a in args]
                try:
                    theirs = P.nms(paddle.to_tensor(b), *conv(paddle)).numpy()
                except ValueError:  # top_k of no kept box
                    with pytest.raises(ValueError):
                        O.nms(oar.to_tensor(b), *conv(oar))
                    continue
                ours = O.nms(oar.to_tensor(b), *conv(oar)).numpy()
                np.testing.assert_array_equal(ours, theirs)


MATRIX_NMS_CASES = [
    dict(score_threshold=0.1, post_threshold=0.2, nms_top_k=3, keep_top_k=4),
    dict(score_threshold=0.3, post_threshold=0.1, nms_top_k=-1, keep_top_k=-1, use_gaussian=True),
    dict(score_threshold=0.05, post_threshold=0.3, nms_top_k=10, keep_top_k=5, normalized=False,
         background_label=-1),
]


@needs_paddle
@pytest.mark.parametrize("kw", MATRIX_NMS_CASES)
def test_matrix_nms_matches_paddle(kw):
    rng = np.random.default_rng(5)
    for n, m, c in ((3, 5, 3), (2, 20, 4), (1, 6, 1)):
        bb = rng.uniform(0, 1, (n, m, 4)).astype("float32")
        bb[..., 2:] += bb[..., :2]
        sc = rng.uniform(0, 1, (n, c, m)).astype("float32")
        theirs = P.matrix_nms(paddle.to_tensor(bb), paddle.to_tensor(sc), return_index=True, **kw)
        ours = O.matrix_nms(oar.to_tensor(bb), oar.to_tensor(sc), return_index=True, **kw)
        for a, b in zip(theirs, ours):
            assert list(a.shape) == b.shape and a.numpy().dtype == b.numpy().dtype
            np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-6)


def test_matrix_nms_literal_and_outputs():
    boxes = oar.to_tensor([[[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 0.5]]])
    scores = oar.to_tensor([[[0.0, 0.0], [0.9, 0.8]]])
    out, num, index = O.matrix_nms(boxes, scores, 0.1, 0.1, -1, -1, return_index=True)
    # the second box overlaps the first by IoU 0.5: linear decay (1 - 0.5) / (1 - 0) = 0.5
    np.testing.assert_allclose(out.numpy()[:, :2], [[1, 0.9], [1, 0.4]], rtol=1e-6)
    assert num.tolist() == [2] and index.numpy().ravel().tolist() == [0, 1]
    out, num, index = O.matrix_nms(boxes, scores, 0.95, 0.1, -1, -1, return_rois_num=False)
    assert out.shape == [0, 6] and num is None and index is None


@needs_paddle
def test_box_coder_prior_box_yolo_box_match_paddle():
    rng = np.random.default_rng(6)
    pb = rng.uniform(0, 5, (3, 4)).astype("float32")
    pb[:, 2:] += pb[:, :2] + 1
    tb = rng.uniform(0, 5, (4, 4)).astype("float32")
    tb[:, 2:] += tb[:, :2] + 1
    pv = rng.uniform(0.1, 0.3, (3, 4)).astype("float32")
    t0 = rng.uniform(-1, 1, (4, 3, 4)).astype("float32")
    t1 = rng.uniform(-1, 1, (3, 4, 4)).astype("float32")
    for norm in (True, False):
        for var in ([0.1, 0.1, 0.2, 0.2], pv):
            def v(lib):
                return lib.to_tensor(var) if isinstance(var, np.ndarray) else var
            for target, kw in ((tb, {}), (t0, dict(code_type="decode_center_size")),
                               (t1, dict(code_type="decode_center_size", axis=1))):
                theirs = P.box_coder(paddle.to_tensor(pb), v(paddle), paddle.to_tensor(target),
                                     box_normalized=norm, **kw)
                ours = O.box_coder(oar.to_tensor(pb), v(oar), oar.to_tensor(target),
                                   box_normalized=norm, **kw)
                np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5)
    for kw in (dict(min_sizes=[2.0, 4.0], max_sizes=[5.0, 8.0], aspect_ratios=[2.0, 0.5, 1.0],
                    flip=True, clip=True),
               dict(min_sizes=[3.0], aspect_ratios=[2.0, 3.0], flip=True, max_sizes=[6.0],
                    min_max_aspect_ratios_order=True, steps=[3.0, 2.0], offset=0.3)):
        theirs = P.prior_box(paddle.ones([1, 3, 2, 3]), paddle.ones([1, 3, 8, 12]), **kw)
        ours = O.prior_box(oar.ones([1, 3, 2, 3]), oar.ones([1, 3, 8, 12]), **kw)
        for a, b in zip(theirs, ours):
            np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-6, atol=1e-6)
    x = rng.standard_normal((2, 2 * (5 + 3), 3, 4)).astype("float32")
    xi = rng.standard_normal((2, 2 * (6 + 3), 3, 4)).astype("float32")
    size = np.array([[40, 60], [30, 30]], dtype="int32")
    for arr, kw in ((x, {}), (x, dict(clip_bbox=False, scale_x_y=1.2)),
                    (xi, dict(iou_aware=True, iou_aware_factor=0.3))):
        theirs = P.yolo_box(paddle.to_tensor(arr), paddle.to_tensor(size), [10, 13, 16, 30], 3,
                            0.4, 8, **kw)
        ours = O.yolo_box(oar.to_tensor(arr), oar.to_tensor(size), [10, 13, 16, 30], 3, 0.4, 8, **kw)
        for a, b in zip(theirs, ours):
            np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=2e-5)


def test_box_coder_literals_and_errors():
    prior = oar.to_tensor([[0.0, 0.0, 2.0, 2.0]])
    target = oar.to_tensor([[1.0, 1.0, 3.0, 3.0]])
    enc = O.box_coder(prior, [1.0, 1.0, 1.0, 1.0], target)
    np.testing.assert_allclose(enc.numpy(), [[[0.5, 0.5, 0.0, 0.0]]])
    dec = O.box_coder(prior, [1.0, 1.0, 1.0, 1.0], enc.reshape([1, 1, 4]), "decode_center_size")
    np.testing.assert_allclose(dec.numpy(), [[[1.0, 1.0, 3.0, 3.0]]], atol=1e-6)
    with pytest.raises(TypeError, match="prior_box_var"):
        O.box_coder(prior, None, target)
    with pytest.raises(ValueError, match="code_type"):
        O.box_coder(prior, [1.0] * 4, target, code_type="center")


def test_prior_box_and_yolo_box_literals():
    boxes, var = O.prior_box(oar.ones([1, 3, 2, 2]), oar.ones([1, 3, 4, 4]), [2.0])
    assert boxes.shape == [2, 2, 1, 4] and var.shape == [2, 2, 1, 4]
    np.testing.assert_allclose(boxes.numpy()[1, 1, 0], [0.5, 0.5, 1.0, 1.0])
    np.testing.assert_allclose(var.numpy()[0, 0, 0], [0.1, 0.1, 0.2, 0.2], rtol=1e-6)
    b, s = O.yolo_box(oar.zeros([1, 7, 1, 1]), oar.to_tensor([[32, 32]], dtype="int32"), [16, 16],
                      2, 0.1, 32)
    np.testing.assert_allclose(b.numpy(), [[[8.0, 8.0, 24.0, 24.0]]])
    np.testing.assert_allclose(s.numpy(), [[[0.25, 0.25]]])
    b, s = O.yolo_box(oar.zeros([1, 7, 1, 1]), oar.to_tensor([[32, 32]], dtype="int32"), [16, 16],
                      2, 0.6, 32)  # objectness 0.5 < 0.6: zeroed
    assert not b.numpy().any() and not s.numpy().any()
    with pytest.raises(ValueError, match="channels"):
        O.yolo_box(oar.zeros([1, 8, 1, 1]), oar.to_tensor([[32, 32]], dtype="int32"), [16, 16],
                   2, 0.1, 32)


def test_read_file_and_decode_jpeg(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    rgb = np.full((5, 7, 3), (200, 40, 90), dtype=np.uint8)
    Image.fromarray(rgb).save(tmp_path / "c.jpg", quality=95)
    Image.fromarray(rgb[..., 0]).save(tmp_path / "g.jpg", quality=95)
    data = O.read_file(str(tmp_path / "c.jpg"))
    assert data.dtype.name == "uint8" and data.ndim == 1
    assert bytes(data.numpy()) == (tmp_path / "c.jpg").read_bytes()
    img = O.decode_jpeg(data)
    assert img.shape == [3, 5, 7] and img.dtype.name == "uint8"
    assert np.abs(img.numpy().astype(int) - rgb.transpose(2, 0, 1)).max() <= 3
    assert O.decode_jpeg(data, mode="gray").shape == [1, 5, 7]
    gray = O.read_file(str(tmp_path / "g.jpg"))
    assert O.decode_jpeg(gray).shape == [1, 5, 7]
    assert O.decode_jpeg(gray, mode="rgb").shape == [3, 5, 7]
    with pytest.raises(RuntimeError, match="no such file"):
        O.read_file(str(tmp_path / "none.jpg"))
    with pytest.raises(ValueError, match="mode"):
        O.decode_jpeg(data, mode="bgr")
    with pytest.raises(RuntimeError, match="JPEG"):
        O.decode_jpeg(oar.to_tensor(np.zeros(10, dtype=np.uint8)))


@needs_paddle
def test_public_names_match_paddle():
    assert O.__all__ == P.__all__
    assert all(hasattr(O, name) for name in O.__all__)


def test_nms_keep_kernel_against_a_greedy_reference():
    rng = np.random.default_rng(3)
    xy = rng.uniform(0, 20, size=(200, 2))
    wh = rng.uniform(1, 8, size=(200, 2))
    boxes = np.concatenate([xy, xy + wh], axis=1).astype("float32")

    def reference(b, thr, offset, eta):  # Paddle's adaptive NMS, box by box
        def iou(p, q):
            if q[0] > p[2] or q[2] < p[0] or q[1] > p[3] or q[3] < p[1]:
                return 0.0
            w = max(0.0, min(p[2], q[2]) - max(p[0], q[0]) + offset)
            h = max(0.0, min(p[3], q[3]) - max(p[1], q[1]) + offset)
            inter = w * h
            return inter / ((p[2] - p[0] + offset) * (p[3] - p[1] + offset)
                            + (q[2] - q[0] + offset) * (q[3] - q[1] + offset) - inter)
        keep = []
        for i in range(len(b)):
            if all(iou(b[k], b[i]) <= thr for k in keep):
                keep.append(i)
                if eta < 1 and thr > 0.5:
                    thr *= eta
        return keep

    for thr, offset, eta in ((0.3, 0.0, 1.0), (0.7, 1.0, 1.0), (0.9, 0.0, 0.9)):
        got = oar._C.nms_keep(oar.to_tensor(boxes), thr, offset, eta).numpy().tolist()
        assert got == reference(boxes.astype("float64"), thr, offset, eta)
    assert oar._C.nms_keep(oar.zeros([0, 4]), 0.5).shape == [0]
    # eta: each box meets the threshold of its own turn; pixel boxes apart never overlap
    three = oar.to_tensor([[0, 0, 10, 10], [20, 0, 30, 10], [24, 0, 34, 10]], dtype="float32")
    assert oar._C.nms_keep(three, 0.9, 0.0, 0.6).numpy().tolist() == [0, 1]
    apart = oar.to_tensor([[0, 0, 1, 1], [1.5, 0, 2.5, 1]], dtype="float32")
    assert oar._C.nms_keep(apart, 0.1, 1.0, 1.0).numpy().tolist() == [0, 1]
    with pytest.raises(ValueError, match="\\[N, 4\\]"):
        oar._C.nms_keep(oar.zeros([3, 5]), 0.5)
    with pytest.raises(TypeError):
        oar._C.nms_keep(oar.zeros([3, 4], "int32"), 0.5)
