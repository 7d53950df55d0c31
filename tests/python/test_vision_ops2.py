"""oar.vision.ops: yolo_loss, generate_proposals and distribute_fpn_proposals. Values are checked
against literals worked out by hand, against pure-Python references of Paddle's rules, against
Paddle itself when it imports (same inputs), and yolo_loss's gradient against central
differences in float64 and against Paddle's."""
import math

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

ANCHORS = [10, 13, 16, 30, 33, 23, 30, 61, 62, 45, 59, 119]


# ---------------------------------------------------------------- yolo_loss

def _yolo_inputs(rng, n, h, c, b, mask, dtype, distinct_cells=True):
    """x, gt_box (the last box of image 0 is padding), gt_label, gt_score. With distinct_cells
    the boxes of an image have their centres in different cells."""
    x = rng.normal(0, 1, (n, len(mask) * (5 + c), h, h)).astype(dtype)
    gb = np.zeros((n, b, 4))
    for i in range(n):
        cells = rng.choice(h * h, b, replace=not distinct_cells)
        gb[i, :, 0] = (cells % h + rng.uniform(0.05, 0.95, b)) / h
        gb[i, :, 1] = (cells // h + rng.uniform(0.05, 0.95, b)) / h
    gb[..., 2:] = rng.uniform(0.02, 0.6, (n, b, 2))
    gb[0, -1, 2] = 0.0
    gl = rng.integers(0, c, (n, b)).astype("int32")
    gs = rng.uniform(0.3, 1.0, (n, b))
    return x, gb.astype(dtype), gl, gs.astype(dtype)


YOLO_CASES = [  # (n, h, class_num, boxes, anchor_mask, gt_score, label smooth, scale_x_y, ignore)
    (2, 4, 3, 5, [0, 1], False, True, 1.0, 0.7),
    (2, 6, 2, 8, [2, 3, 4], True, False, 1.2, 0.5),
    (1, 3, 1, 3, [5], True, True, 1.05, 0.3),
    (3, 8, 80, 12, [0, 1, 2], False, True, 1.0, 0.7),
]


@needs_paddle
@pytest.mark.parametrize("case", YOLO_CASES)
def test_yolo_loss_matches_paddle_with_gradient(case):
    n, h, c, b, mask, use_score, smooth, sxy, ignore = case
    rng = np.random.default_rng(sum(mask) + h)
    for dtype in ("float32", "float64"):
        x, gb, gl, gs = _yolo_inputs(rng, n, h, c, b, mask, dtype)
        kw = dict(anchors=ANCHORS, anchor_mask=mask, class_num=c, ignore_thresh=ignore,
                  downsample_ratio=8, use_label_smooth=smooth, scale_x_y=sxy)
        px = paddle.to_tensor(x, stop_gradient=False)
        ox = oar.to_tensor(x, stop_gradient=False)
        theirs = P.yolo_loss(px, paddle.to_tensor(gb), paddle.to_tensor(gl),
                             gt_score=paddle.to_tensor(gs) if use_score else None, **kw)
        ours = O.yolo_loss(ox, oar.to_tensor(gb), oar.to_tensor(gl),
                           gt_score=oar.to_tensor(gs) if use_score else None, **kw)
        assert ours.shape == [n] and ours.dtype.name == dtype
        tol = 1e-5 if dtype == "float32" else 1e-12
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=tol, atol=tol)
        w = rng.uniform(0.5, 1.5, n).astype(dtype)
        (theirs * paddle.to_tensor(w)).sum().backward()
        (ours * oar.to_tensor(w)).sum().backward()
        np.testing.assert_allclose(ox.grad.numpy(), px.grad.numpy(), rtol=tol, atol=tol)


SHARED_X = np.random.default_rng(7).normal(0, 1, (2, 2 * 8, 2, 2))
# two boxes of image 0 in cell (0, 0), both matched to anchor 0; image 1 has one box
SHARED_BOX = np.array([[[0.3, 0.3, 0.4, 0.4], [0.35, 0.2, 0.45, 0.5]],
                       [[0.7, 0.6, 0.3, 0.2], [0.0, 0.0, 0.0, 0.0]]])
SHARED_LABEL = np.array([[0, 2], [1, 0]], dtype="int32")
SHARED_SCORE = np.array([[0.9, 0.6], [0.8, 1.0]])
SHARED_KW = dict(anchors=[20, 20, 60, 60], anchor_mask=[0, 1], class_num=3, ignore_thresh=0.6,
                 downsample_ratio=32)


@needs_paddle
def test_yolo_loss_shared_cell_against_paddle():
    # Paddle's forward adds the losses of both boxes of a shared cell; its backward keeps only
    # the last box's share there (elsewhere the gradients agree); ours is the gradient of the
    # loss (central differences below)
    args = (SHARED_BOX, SHARED_LABEL)
    px = paddle.to_tensor(SHARED_X, stop_gradient=False)
    ox = oar.to_tensor(SHARED_X, stop_gradient=False)
    theirs = P.yolo_loss(px, *[paddle.to_tensor(a) for a in args],
                         gt_score=paddle.to_tensor(SHARED_SCORE), **SHARED_KW)
    ours = O.yolo_loss(ox, *[oar.to_tensor(a) for a in args],
                       gt_score=oar.to_tensor(SHARED_SCORE), **SHARED_KW)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    theirs.sum().backward()
    ours.sum().backward()
    shared = np.zeros(SHARED_X.shape, dtype=bool)
    shared[0, [0, 1, 2, 3, 5, 6, 7], 0, 0] = True  # box and class logits of anchor 0, cell (0, 0)
    np.testing.assert_allclose(ox.grad.numpy()[~shared], px.grad.numpy()[~shared], rtol=1e-12,
                               atol=1e-14)
    assert not np.allclose(ox.grad.numpy()[shared], px.grad.numpy()[shared])


def test_yolo_loss_shared_cell_numeric_gradient():
    def op(t):
        return O.yolo_loss(t, oar.to_tensor(SHARED_BOX), oar.to_tensor(SHARED_LABEL),
                           gt_score=oar.to_tensor(SHARED_SCORE), **SHARED_KW)

    check_grad(op, [SHARED_X], atol=1e-6, rtol=1e-6)


def test_yolo_loss_numeric_gradient():
    rng = np.random.default_rng(11)
    x, gb, gl, gs = _yolo_inputs(rng, 2, 3, 2, 5, [1, 2], "float64", distinct_cells=False)

    def op(t):
        return O.yolo_loss(t, oar.to_tensor(gb), oar.to_tensor(gl), ANCHORS[:6], [1, 2], 2, 0.5,
                           8, gt_score=oar.to_tensor(gs), scale_x_y=1.1)

    check_grad(op, [x], atol=1e-6, rtol=1e-6)


def test_yolo_loss_literal():
    # one 32 x 32 box in the top-left cell of a 2 x 2 grid, one 16 x 16 anchor, x = 0: the sigmoid
    # cross entropies at 0 are all log 2; the box loss is (2 - 0.25) * (log 2 + log 2 +
    # |0 - log(32 / 16)| * 2) = 7 log 2, the classes 2 log 2, the objectness of the matched cell
    # log 2 and of the 3 other cells (no overlap above 0.7) 3 log 2
    x = oar.zeros([1, 7, 2, 2], dtype="float64")
    x.stop_gradient = False
    gt_box = oar.to_tensor([[[0.25, 0.25, 0.5, 0.5]]], dtype="float64")
    gt_label = oar.to_tensor([[1]], dtype="int32")
    loss = O.yolo_loss(x, gt_box, gt_label, [16, 16], [0], 2, 0.7, 32)
    assert loss.numpy()[0] == pytest.approx(13 * math.log(2), rel=1e-14)
    loss.sum().backward()
    g = x.grad.numpy()[0, :, 0, 0]
    # d/dx of sce at 0 is 0.5 - target; the L1 terms pull up towards log 2 (slope -1)
    np.testing.assert_allclose(g, [0.0, 0.0, -1.75, -1.75, -0.5, 0.5 - 0.025, 0.5 - 0.975],
                               atol=1e-15)
    np.testing.assert_allclose(x.grad.numpy()[0, 4].ravel(), [-0.5, 0.5, 0.5, 0.5])
    # padding boxes (no width or height) change nothing; a box matched to another head's anchor
    # leaves only the objectness losses
    padded = oar.to_tensor([[[0.25, 0.25, 0.5, 0.5], [0.7, 0.7, 0.0, 0.3]]], dtype="float64")
    labels = oar.to_tensor([[1, 0]], dtype="int32")
    assert O.yolo_loss(x, padded, labels, [16, 16], [0], 2, 0.7, 32).numpy()[0] == \
        pytest.approx(13 * math.log(2), rel=1e-14)
    other = O.yolo_loss(x, gt_box, gt_label, [16, 16, 30, 30], [0], 2, 0.7, 32)
    assert other.numpy()[0] == pytest.approx(4 * math.log(2), rel=1e-14)


def test_yolo_loss_ignore_and_score():
    # the prediction at the box's own cell overlaps it (IoU 0.25): ignore_thresh 0.2 drops the
    # objectness loss of that prediction... but it is the matched (positive) one, which is kept;
    # a second prediction with the same IoU (2 anchors of the same shape) is ignored
    x = oar.zeros([1, 14, 2, 2], dtype="float64")
    gt_box = oar.to_tensor([[[0.25, 0.25, 0.5, 0.5]]], dtype="float64")
    gt_label = oar.to_tensor([[0]], dtype="int32")
    full = O.yolo_loss(x, gt_box, gt_label, [16, 16, 16, 16], [0, 1], 2, 0.7, 32)
    ignored = O.yolo_loss(x, gt_box, gt_label, [16, 16, 16, 16], [0, 1], 2, 0.2, 32)
    assert full.numpy()[0] - ignored.numpy()[0] == pytest.approx(math.log(2), rel=1e-13)
    # a gt_score scales all the losses of its box
    half = O.yolo_loss(x[:, :7], gt_box, gt_label, [16, 16], [0], 2, 0.7, 32,
                       gt_score=oar.to_tensor([[0.5]], dtype="float64"))
    assert half.numpy()[0] == pytest.approx(10 / 2 * math.log(2) + 3 * math.log(2), rel=1e-13)


def test_yolo_loss_errors():
    x = oar.zeros([1, 14, 2, 2])
    gb = oar.to_tensor([[[0.25, 0.25, 0.5, 0.5]]])
    gl = oar.to_tensor([[0]], dtype="int32")
    args = ([16, 16, 16, 16], [0, 1], 2, 0.7, 32)
    assert O.yolo_loss(x, gb, gl, *args).shape == [1]
    with pytest.raises(ValueError, match="4-D"):
        O.yolo_loss(oar.zeros([14, 2, 2]), gb, gl, *args)
    with pytest.raises(ValueError, match="height and width"):
        O.yolo_loss(oar.zeros([1, 14, 2, 3]), gb, gl, *args)
    with pytest.raises(ValueError, match=r"5 \+ class_num"):
        O.yolo_loss(x, gb, gl, [16, 16, 16, 16], [0, 1], 3, 0.7, 32)
    with pytest.raises(ValueError, match="even"):
        O.yolo_loss(x, gb, gl, [16, 16, 16], [0, 1], 2, 0.7, 32)
    with pytest.raises(ValueError, match="anchor_mask"):
        O.yolo_loss(x, gb, gl, [16, 16, 16, 16], [0, 2], 2, 0.7, 32)
    with pytest.raises(ValueError, match="gt_box"):
        O.yolo_loss(x, oar.zeros([1, 1, 3]), gl, *args)
    with pytest.raises(ValueError, match="gt_label"):
        O.yolo_loss(x, gb, oar.to_tensor([[0, 1]], dtype="int32"), *args)
    with pytest.raises(ValueError, match="int32"):
        O.yolo_loss(x, gb, gl.astype("int64"), *args)
    with pytest.raises(ValueError, match="dtype"):
        O.yolo_loss(x, gb.astype("float64"), gl, *args)
    with pytest.raises(ValueError, match="gt_score"):
        O.yolo_loss(x, gb, gl, *args, gt_score=oar.ones([1, 2]))
    with pytest.raises(TypeError, match="x"):
        O.yolo_loss(np.zeros([1, 14, 2, 2]), gb, gl, *args)
    with pytest.raises(TypeError, match="anchors"):
        O.yolo_loss(x, gb, gl, "16", [0, 1], 2, 0.7, 32)


# ---------------------------------------------------------------- generate_proposals

def _rpn_inputs(rng, n, a, h, w, dtype):
    sc = rng.uniform(0, 1, (n, a, h, w)).astype(dtype)
    bd = rng.normal(0, 0.5, (n, 4 * a, h, w)).astype(dtype)
    bd[0, 2::4] *= 10  # some sizes beyond the log(1000 / 16) clip
    an = rng.uniform(0, 40, (h, w, a, 4))
    an[..., 2:] += an[..., :2] + rng.uniform(0, 10, (h, w, a, 2))
    va = rng.uniform(0.5, 1.5, (h, w, a, 4))
    im = rng.uniform(20, 60, (n, 2)).round()
    return [sc, bd, im.astype(dtype), an.astype(dtype), va.astype(dtype)]


RPN_CASES = [
    dict(),
    dict(pre_nms_top_n=10, post_nms_top_n=5, nms_thresh=0.3, min_size=3.0),
    dict(pixel_offset=True, nms_thresh=0.7, eta=0.8),
    dict(nms_thresh=0.9, eta=0.9, post_nms_top_n=-1),
    dict(nms_thresh=0.0, pre_nms_top_n=-1),
    dict(pixel_offset=True, nms_thresh=0.4, min_size=0.5, pre_nms_top_n=7),
]


@needs_paddle
@pytest.mark.parametrize("kw", RPN_CASES)
def test_generate_proposals_matches_paddle(kw):
    rng = np.random.default_rng(len(kw))
    for n, a, h, w in ((1, 3, 4, 4), (2, 2, 3, 5), (2, 1, 1, 2)):
        for dtype in ("float32", "float64"):
            arrays = _rpn_inputs(rng, n, a, h, w, dtype)
            theirs = P.generate_proposals(*[paddle.to_tensor(t) for t in arrays],
                                          return_rois_num=True, **kw)
            ours = O.generate_proposals(*[oar.to_tensor(t) for t in arrays],
                                        return_rois_num=True, **kw)
            tol = 1e-6 if dtype == "float32" else 1e-12
            for t, o in zip(theirs, ours):
                assert list(t.shape) == o.shape and t.numpy().dtype == o.numpy().dtype
                np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=tol, atol=tol * 10)


@needs_paddle
def test_generate_proposals_pixel_boxes_apart_match_paddle():
    # small pixel boxes less than a pixel apart: Paddle's IoU counts them as apart
    rng = np.random.default_rng(1)
    m = 40
    for _ in range(5):
        x1, y1 = rng.uniform(0, 20, m).round(1), rng.uniform(0, 20, m).round(1)
        wh = rng.integers(1, 4, (2, m)).astype(float)
        anchors = np.stack([x1, y1, x1 + wh[0], y1 + wh[1]], 1).reshape(1, 1, m, 4)
        scores = (rng.permutation(m) / m + 0.01).reshape(1, m, 1, 1)
        arrays = [scores, np.zeros((1, 4 * m, 1, 1)), np.array([[30.0, 30.0]]), anchors,
                  np.ones((1, 1, m, 4))]
        for thr, eta in ((0.1, 1.0), (0.2, 1.0), (0.9, 0.7)):
            kw = dict(pixel_offset=True, nms_thresh=thr, eta=eta, min_size=1.0,
                      return_rois_num=True)
            theirs = P.generate_proposals(*[paddle.to_tensor(t) for t in arrays], **kw)
            ours = O.generate_proposals(*[oar.to_tensor(t) for t in arrays], **kw)
            for t, o in zip(theirs, ours):
                np.testing.assert_array_equal(o.numpy(), t.numpy())


def _paddle_nms_reference(boxes, thr, eta, off):
    """Paddle's greedy rule in plain Python: box j is kept when its IoU with each kept box is at
    most the current threshold; boxes apart count 0 even with the pixel offset."""
    def iou(a, b):
        if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
            return 0.0
        iw = min(a[2], b[2]) - max(a[0], b[0]) + off
        ih = min(a[3], b[3]) - max(a[1], b[1]) + off
        area = lambda r: (r[2] - r[0] + off) * (r[3] - r[1] + off)  # noqa: E731
        return iw * ih / (area(a) + area(b) - iw * ih)

    kept = []
    for j in range(len(boxes)):
        if all(iou(boxes[j], boxes[k]) <= thr for k in kept):
            kept.append(j)
            if eta < 1 and thr > 0.5:
                thr *= eta
    return kept


def test_proposal_nms_against_reference():
    from oar.vision.ops._nms import _nms_keep
    from oar.vision.ops.proposals import _proposal_nms
    rng = np.random.default_rng(2)
    for trial in range(12):
        m = 60
        x1, y1 = rng.uniform(0, 20, m).round(1), rng.uniform(0, 20, m).round(1)
        wh = rng.integers(0, 6, (2, m)).astype(float)
        for thr, eta, off in ((0.1, 1.0, 1.0), (0.3, 1.0, 0.0), (0.9, 0.8, 1.0), (0.95, 0.97, 0.0),
                              (0.7, 0.5, 1.0)):
            # as after generate_proposals' size filter: at least 1 wide and high
            boxes = np.stack([x1, y1, x1 + wh[0] + 1 - off, y1 + wh[1] + 1 - off], 1)
            ours = _proposal_nms(oar.to_tensor(boxes), thr, eta, off).tolist()
            assert ours == _paddle_nms_reference(boxes, thr, eta, off), (trial, thr, eta, off)
            assert _nms_keep(oar.to_tensor(boxes), thr, off, eta).tolist() == ours


def test_generate_proposals_literals():
    scores = oar.to_tensor([[[[0.9]], [[0.8]], [[0.7]]]])
    deltas = oar.zeros([1, 12, 1, 1])
    anchors = oar.to_tensor([[[[0.0, 0.0, 10.0, 10.0], [1.0, 1.0, 9.0, 9.0],
                               [12.0, 12.0, 30.0, 30.0]]]])
    variances = oar.ones([1, 1, 3, 4])
    size = oar.to_tensor([[20.0, 20.0]])
    rois, probs, num = O.generate_proposals(scores, deltas, size, anchors, variances,
                                            return_rois_num=True)
    # zero deltas give back the anchors, clipped to the 20 x 20 image; the second (IoU 0.64
    # with the first) is suppressed
    np.testing.assert_allclose(rois.numpy(), [[0, 0, 10, 10], [12, 12, 20, 20]])
    np.testing.assert_allclose(probs.numpy(), [[0.9], [0.7]], rtol=1e-7)
    assert num.dtype.name == "int32" and num.tolist() == [2]
    # no NMS: all boxes by score, post_nms_top_n not applied
    rois, probs, num = O.generate_proposals(scores, deltas, size, anchors, variances,
                                            post_nms_top_n=1, nms_thresh=0.0, return_rois_num=True)
    assert num.tolist() == [3] and probs.shape == [3, 1]
    rois, _, num = O.generate_proposals(scores, deltas, size, anchors, variances,
                                        post_nms_top_n=1, return_rois_num=True)
    assert num.tolist() == [1]
    # a size delta of 10 is clipped at log(1000 / 16): the box is 62.5 times the anchor
    big = oar.to_tensor([[[[0.0]], [[0.0]], [[10.0]], [[0.0]]]])
    rois, _, _ = O.generate_proposals(scores[:, :1], big, oar.to_tensor([[1000.0, 1000.0]]),
                                      oar.to_tensor([[[[100.0, 0.0, 102.0, 2.0]]]]),
                                      oar.ones([1, 1, 1, 4]), return_rois_num=True)
    np.testing.assert_allclose(rois.numpy(), [[38.5, 0.0, 163.5, 2.0]], rtol=1e-6)
    # nothing left: one box of zeros with score 0
    rois, probs, num = O.generate_proposals(scores, deltas, size, anchors, variances,
                                            min_size=100.0, return_rois_num=True)
    assert rois.tolist() == [[0, 0, 0, 0]] and probs.tolist() == [[0]] and num.tolist() == [1]
    assert rois.stop_gradient and probs.stop_gradient


def test_generate_proposals_errors():
    scores = oar.ones([1, 2, 1, 1])
    deltas = oar.zeros([1, 8, 1, 1])
    size = oar.to_tensor([[20.0, 20.0]])
    anchors = oar.ones([1, 1, 2, 4])
    var = oar.ones([1, 1, 2, 4])
    with pytest.raises(AssertionError, match="return_rois_num"):
        O.generate_proposals(scores, deltas, size, anchors, var)
    with pytest.raises(ValueError, match="bbox_deltas"):
        O.generate_proposals(scores, oar.zeros([1, 4, 1, 1]), size, anchors, var,
                             return_rois_num=True)
    with pytest.raises(ValueError, match="img_size"):
        O.generate_proposals(scores, deltas, size.astype("float64"), anchors, var,
                             return_rois_num=True)
    with pytest.raises(IndexError, match="anchors"):
        O.generate_proposals(scores, deltas, size, oar.ones([1, 1, 1, 4]), var,
                             return_rois_num=True)
    with pytest.raises(TypeError, match="variances"):
        O.generate_proposals(scores, deltas, size, anchors, None, return_rois_num=True)
    with pytest.raises(TypeError, match="scores"):
        O.generate_proposals(scores.astype("int32"), deltas, size, anchors, var,
                             return_rois_num=True)


# ---------------------------------------------------------------- distribute_fpn_proposals

@needs_paddle
def test_distribute_fpn_proposals_matches_paddle():
    rng = np.random.default_rng(3)
    for _ in range(8):
        r, b = int(rng.integers(1, 30)), int(rng.integers(1, 4))
        rois = rng.uniform(0, 400, (r, 4))
        rois[:, 2:] = rois[:, :2] + rng.uniform(-20, 600, (r, 2))  # some boxes inverted
        cuts = np.sort(rng.integers(0, r + 1, b - 1))
        num = np.diff(np.concatenate([[0], cuts, [r]])).astype("int32")
        for dtype in ("float32", "float64"):
            for offset in (False, True):
                for levels in ((2, 5, 4, 224), (1, 3, 2, 64)):
                    theirs = P.distribute_fpn_proposals(paddle.to_tensor(rois.astype(dtype)),
                                                        *levels, offset, paddle.to_tensor(num))
                    ours = O.distribute_fpn_proposals(oar.to_tensor(rois.astype(dtype)), *levels,
                                                      offset, oar.to_tensor(num))
                    assert len(ours[0]) == len(theirs[0]) and len(ours[2]) == len(theirs[2])
                    for t, o in zip(theirs[0] + [theirs[1]] + theirs[2],
                                    ours[0] + [ours[1]] + ours[2]):
                        assert list(t.shape) == o.shape and t.numpy().dtype == o.numpy().dtype
                        np.testing.assert_array_equal(o.numpy(), t.numpy())


def test_distribute_fpn_proposals_literals_and_errors():
    # sizes 500, 20, 224 and 100 (refer 224 at level 4): levels floor(log2(s / 224) + 4) =
    # 5, 0 -> 2, 4 and 2
    rois = oar.to_tensor([[0.0, 0.0, 500.0, 500.0], [0.0, 0.0, 20.0, 20.0],
                          [0.0, 0.0, 224.0, 224.0], [5.0, 5.0, 105.0, 105.0]])
    num = oar.to_tensor([2, 2], dtype="int32")
    multi, restore, per_level = O.distribute_fpn_proposals(rois, 2, 5, 4, 224, rois_num=num)
    assert [m.shape[0] for m in multi] == [2, 0, 1, 1]
    np.testing.assert_array_equal(multi[0].numpy(), rois.numpy()[[1, 3]])
    assert restore.dtype.name == "int32" and restore.shape == [4, 1]
    assert restore.reshape([-1]).tolist() == [3, 0, 2, 1]
    assert [p.tolist() for p in per_level] == [[1, 1], [0, 0], [0, 1], [1, 0]]
    # concatenating the levels and gathering with restore_ind gives back the RoIs
    cat = oar.concat(multi)
    np.testing.assert_array_equal(cat[restore.reshape([-1])].numpy(), rois.numpy())
    # a box with x2 < x1 has area 0: the lowest level
    multi, _, _ = O.distribute_fpn_proposals(oar.to_tensor([[10.0, 0.0, 5.0, 900.0]]), 2, 5,
                                             4, 224, rois_num=oar.to_tensor([1], dtype="int64"))
    assert [m.shape[0] for m in multi] == [1, 0, 0, 0]
    with pytest.raises(AssertionError, match="rois_num"):
        O.distribute_fpn_proposals(rois, 2, 5, 4, 224)
    with pytest.raises(AssertionError, match="greater than min_level"):
        O.distribute_fpn_proposals(rois, 2, 2, 4, 224, rois_num=num)
    with pytest.raises(AssertionError, match="greater than 0"):
        O.distribute_fpn_proposals(rois, 0, 2, 4, 224, rois_num=num)
    with pytest.raises(ValueError, match="rois_num"):
        O.distribute_fpn_proposals(rois, 2, 5, 4, 224, rois_num=oar.to_tensor([3, 2]))
    with pytest.raises(TypeError, match="fpn_rois"):
        O.distribute_fpn_proposals(rois.astype("int32"), 2, 5, 4, 224, rois_num=num)
