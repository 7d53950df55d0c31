"""Losses against NumPy references (and values measured with paddle 3.3.1), with float64
gradient checks and argument errors."""
import numpy as np
import pytest

import oar
import oar.nn.functional as F
from op_test import FLOAT_DTYPES, assert_close, check_grad, rand


def T(a, **kw):
    return oar.to_tensor(a, **kw)


def np_log_softmax(x, axis=-1):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


def np_hard_ce(x, label, weight=None, ignore_index=-100, reduction="mean", logp=None):
    """x [N, C] logits, label [N]: Paddle's hard-label cross entropy."""
    lp = np_log_softmax(x) if logp is None else logp
    valid = label != ignore_index
    safe = np.where(valid, label, 0)
    w = np.ones(x.shape[1]) if weight is None else weight
    ws = np.where(valid, w[safe], 0.0)
    loss = -lp[np.arange(len(label)), safe] * ws
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if weight is None and ignore_index < 0:
        return loss.mean()
    return loss.sum() / ws.sum()


X = np.array([[0., 0.37, 0.74, 1.11], [0.18000007, 0.5500001, 0.9200001, 1.2900002],
              [0.36000013, 0.73, 1.1000001, 0.17000031]], dtype=np.float32)
W = np.array([0.5, 1.0, 2.0, 1.5], dtype=np.float32)


def test_cross_entropy_paddle_values():
    # measured with paddle 3.3.1
    lab = T(np.array([2, -100, 1]))
    np.testing.assert_allclose(F.cross_entropy(T(X), lab).item(), 0.8653993606567383, rtol=1e-6)
    np.testing.assert_allclose(F.cross_entropy(T(X), lab, weight=T(W)).item(), 1.2938170433044434, rtol=1e-6)
    lab2 = T(np.array([2, 0, 1]))
    np.testing.assert_allclose(F.cross_entropy(T(X), lab2, label_smoothing=0.2).item(), 1.5251502990722656, rtol=1e-6)
    np.testing.assert_allclose(F.cross_entropy(T(X), lab2, label_smoothing=0.2, weight=T(W)).item(),
                               1.435584545135498, rtol=1e-6)
    np.testing.assert_allclose(F.cross_entropy(T(X), lab2, ignore_index=0).item(), 1.2980990409851074, rtol=1e-6)
    assert F.cross_entropy(T(X), lab2, label_smoothing=0.2, reduction="none").shape == [3, 1]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_hard(dtype, reduction):
    x = rand((6, 5), dtype, low=-3, high=3, seed=1)
    lab = np.array([0, 4, -100, 2, 2, 1])
    w = rand((5,), dtype, low=0.2, high=2, seed=2)
    x64 = x.astype(np.float64)
    for weight, ii in [(None, -100), (w, -100), (None, 2), (w, 2)]:
        l2 = np.where(lab == -100, ii, lab) if ii != -100 else lab
        out = F.cross_entropy(T(x), T(l2), weight=None if weight is None else T(weight),
                              ignore_index=ii, reduction=reduction)
        assert out.dtype.name == dtype
        assert_close(out, np_hard_ce(x64, l2, weight, ii, reduction), dtype)
    # label [N, 1] keeps its shape in 'none'
    out = F.cross_entropy(T(x), T(np.where(lab < 0, 0, lab)[:, None]), reduction=reduction)
    exp = np_hard_ce(x64, np.where(lab < 0, 0, lab), reduction=reduction)
    assert_close(out, exp[:, None] if reduction == "none" else exp, dtype)


def test_cross_entropy_axis_noncontiguous_probs_and_empty():
    x = rand((2, 3, 4), low=-2, high=2, seed=3)
    lab = np.array([[0, 2, 1, 1], [2, 2, 0, 1]])
    out = F.cross_entropy(T(x), T(lab[:, None, :]), axis=1, reduction="none")
    lp = np_log_softmax(x, 1)
    exp = -np.take_along_axis(lp, lab[:, None, :], 1)
    assert_close(out, exp, "float64")
    np.testing.assert_allclose(F.cross_entropy(T(x), T(lab[:, None, :]), axis=1).item(), exp.mean())
    # a transposed view as input
    xt = T(x[0]).t()  # [4, 3]
    assert_close(F.cross_entropy(xt, T(np.array([0, 1, 2, 0])), reduction="none"),
                 np_hard_ce(x[0].T, np.array([0, 1, 2, 0]), reduction="none"), "float64")
    # use_softmax=False: the input holds probabilities
    p = np.exp(np_log_softmax(x[0].T))
    assert_close(F.cross_entropy(T(p), T(np.array([0, 1, 2, 0])), use_softmax=False, reduction="none"),
                 np_hard_ce(x[0].T, np.array([0, 1, 2, 0]), reduction="none"), "float64")
    # empty batch (as Paddle: sum 0, none [0])
    e = F.cross_entropy(oar.zeros([0, 4]), oar.zeros([0], "int64"), reduction="sum")
    assert e.item() == 0.0
    assert F.cross_entropy(oar.zeros([0, 4]), oar.zeros([0], "int64"), reduction="none").shape == [0]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_cross_entropy_soft(dtype):
    x = rand((4, 3), dtype, low=-2, high=2, seed=4)
    s = np.exp(np_log_softmax(rand((4, 3), seed=5) * 2)).astype(dtype)
    w = rand((3,), dtype, low=0.5, high=2, seed=6)
    x64, s64 = x.astype(np.float64), s.astype(np.float64)
    ce = -(s64 * np_log_softmax(x64)).sum(1, keepdims=True)
    assert_close(F.cross_entropy(T(x), T(s), soft_label=True, reduction="none"), ce, dtype)
    assert_close(F.cross_entropy(T(x), T(s), soft_label=True), ce.mean(), dtype)
    wl = (s64 * w).sum(1, keepdims=True)
    assert_close(F.cross_entropy(T(x), T(s), soft_label=True, weight=T(w), reduction="none"), ce * wl, dtype)
    assert_close(F.cross_entropy(T(x), T(s), soft_label=True, weight=T(w)), (ce * wl).sum() / wl.sum(), dtype)


def test_cross_entropy_grad():
    x = rand((4, 5), low=-2, high=2, seed=7)
    lab = T(np.array([1, 0, -100, 4]))
    w = T(rand((5,), low=0.5, high=2, seed=8))
    check_grad(lambda x: F.cross_entropy(x, lab), [x], what="ce mean")
    check_grad(lambda x: F.cross_entropy(x, lab, weight=w, reduction="none"), [x], what="ce weighted none")
    check_grad(lambda x: F.cross_entropy(x, lab, weight=w), [x], what="ce weighted mean")
    # the class weights themselves (through the loss and the weighted-mean denominator)
    wn = rand((5,), low=0.5, high=2, seed=15)
    check_grad(lambda x, w: F.cross_entropy(x, lab, weight=w), [x, wn], what="ce d/dweight mean")
    check_grad(lambda x, w: F.cross_entropy(x, lab, weight=w, reduction="none"), [x, wn], what="ce d/dweight none")
    check_grad(lambda p, w: F.cross_entropy(p, T(np.array([1, 0, 3, 4])), weight=w, use_softmax=False),
               [np.exp(np_log_softmax(x)), wn], what="ce probs d/dweight")
    check_grad(lambda x, w: F.nll_loss(x, lab, weight=w), [x, wn], what="nll d/dweight")
    check_grad(lambda x: F.cross_entropy(x, T(np.array([1, 0, 3, 4])), label_smoothing=0.1), [x], what="ce smoothing")
    p = np.exp(np_log_softmax(x))
    check_grad(lambda p: F.cross_entropy(p, T(np.array([1, 0, 3, 4])), use_softmax=False, reduction="sum"),
               [p], what="ce probs")
    check_grad(lambda x, s: F.cross_entropy(x, s, soft_label=True), [x, np.abs(rand((4, 5), seed=9))], what="ce soft")
    x3 = rand((2, 3, 2), seed=10)
    check_grad(lambda x: F.cross_entropy(x, T(np.array([[[0, 2]], [[1, 1]]])), axis=1), [x3], what="ce axis 1")


def test_hard_cross_entropy_op():
    loss, wsum, lse = oar.hard_cross_entropy(T(X), T(np.array([2, -100, 1])), T(W))
    x64 = X.astype(np.float64)
    assert_close(lse, np.log(np.exp(x64).sum(1)), "float32")
    assert_close(wsum, np.array([2.0, 0.0, 1.0]), "float32")
    assert_close(loss, np_hard_ce(x64, np.array([2, -100, 1]), W.astype(np.float64), reduction="none"), "float32")


@pytest.mark.host_only  # the labels are checked by the kernel: a device kernel cannot raise from queued work
def test_cross_entropy_label_value_error():
    with pytest.raises(IndexError, match=r"cross_entropy: label value 7 at position 1 is out of range: expected a class index in \[0, 4\)"):
        F.cross_entropy(T(X), T(np.array([0, 7, 1])))


def test_cross_entropy_errors():
    x = T(X)
    with pytest.raises(ValueError, match="cross_entropy: argument 'reduction' must be one of 'mean', 'sum', 'none', got 'avg'"):
        F.cross_entropy(x, T(np.array([0, 1, 1])), reduction="avg")
    with pytest.raises(ValueError, match=r"cross_entropy: argument 'label' expected shape \[3\] or \[3, 1\]"):
        F.cross_entropy(x, T(np.array([0, 1])))
    with pytest.raises(TypeError, match="cross_entropy: argument 'label' must be an int32 or int64 tensor"):
        F.cross_entropy(x, T(np.array([0.0, 1.0, 1.0])))
    with pytest.raises(ValueError, match=r"cross_entropy: argument 'weight' expected shape \[4\], got \[3\]"):
        F.cross_entropy(x, T(np.array([0, 1, 1])), weight=oar.ones([3]))
    with pytest.raises(ValueError, match="cross_entropy: with soft_label=True argument 'label' must have input's shape"):
        F.cross_entropy(x, oar.ones([3, 2]), soft_label=True)


def test_softmax_with_cross_entropy():
    x = rand((3, 4), low=-2, high=2, seed=11)
    lab = np.array([[1], [3], [0]])
    loss = F.softmax_with_cross_entropy(T(x), T(lab))
    assert loss.shape == [3, 1]
    assert_close(loss, np_hard_ce(x, lab[:, 0], reduction="none")[:, None], "float64")
    loss, sm = F.softmax_with_cross_entropy(T(x), T(lab), return_softmax=True)
    assert_close(sm, np.exp(np_log_softmax(x)), "float64")
    s = np.exp(np_log_softmax(rand((3, 4), seed=12)))
    assert_close(F.softmax_with_cross_entropy(T(x), T(s), soft_label=True),
                 -(s * np_log_softmax(x)).sum(1, keepdims=True), "float64")
    check_grad(lambda x: F.softmax_with_cross_entropy(x, T(lab)), [x], what="softmax_with_cross_entropy")
    with pytest.raises(ValueError, match=r"softmax_with_cross_entropy: argument 'label' expected shape \[3, 1\]"):
        F.softmax_with_cross_entropy(T(x), T(lab[:, 0]))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_nll_loss(dtype):
    lp = np_log_softmax(X.astype(np.float64)).astype(dtype)
    lab = np.array([2, -100, 1])
    # measured with paddle 3.3.1
    np.testing.assert_allclose(F.nll_loss(T(lp), T(lab)).item(), 1.2980990409851074, rtol=1e-5)
    np.testing.assert_allclose(F.nll_loss(T(lp), T(lab), weight=T(W.astype(dtype))).item(), 1.2938170433044434, rtol=1e-5)
    x3 = (np.arange(24).reshape(2, 3, 4) % 5 * 0.3).astype(dtype)
    l3 = np.array([[0, 2, 1, 1], [2, 2, 0, 1]])
    np.testing.assert_allclose(F.nll_loss(T(x3), T(l3)).item(), -0.6000000238418579, rtol=1e-5)
    out = F.nll_loss(T(x3), T(l3), reduction="none")
    assert_close(out, -np.take_along_axis(x3.astype(np.float64), l3[:, None, :], 1)[:, 0], dtype)
    assert_close(F.nll_loss(T(lp), T(lab), reduction="sum"), -(lp[0, 2] + lp[2, 1]), dtype)


def test_nll_loss_grad():
    check_grad(lambda x: F.nll_loss(x, T(np.array([2, -100, 1]))), [rand((3, 4), seed=13)], what="nll_loss")
    check_grad(lambda x: F.nll_loss(x, T(np.array([[0, 1], [2, 0]])), reduction="sum"), [rand((2, 3, 2), seed=14)],
               what="nll_loss 3-D")


@pytest.mark.host_only  # the label check runs inside the host kernel (a device gives NaN there)
def test_nll_loss_errors():
    with pytest.raises(ValueError, match="nll_loss: label value 7 at position 1 is out of range"):
        F.nll_loss(T(X), T(np.array([2, 7, 1])))
    with pytest.raises(ValueError, match=r"nll_loss: argument 'label' expected shape \[3\], got \[2\]"):
        F.nll_loss(T(X), T(np.array([2, 1])))


# ------------------------------------------------------------------ regression losses
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_mse_l1_smooth_l1(dtype):
    a = rand((3, 4), dtype, low=-3, high=3, seed=1)
    b = rand((3, 4), dtype, low=-3, high=3, seed=2)
    d = a.astype(np.float64) - b
    for red, f in [("mean", np.mean), ("sum", np.sum), ("none", lambda v: v)]:
        assert_close(F.mse_loss(T(a), T(b), red), f(d * d), dtype)
        assert_close(F.l1_loss(T(a), T(b), red), f(np.abs(d)), dtype)
        ad = np.abs(d)
        assert_close(F.smooth_l1_loss(T(a), T(b), red, delta=1.5),
                     f(np.where(ad < 1.5, 0.5 * d * d, 1.5 * (ad - 0.75))), dtype)
        assert_close(F.smooth_l1_loss(T(a), T(b), red, delta=1.5, is_huber=False),
                     f(np.where(ad < 1.5, 0.5 * d * d / 1.5, ad - 0.75)), dtype)
    # measured with paddle 3.3.1
    d4 = T(np.array([-3.0, -0.5, 0.2, 2.0], np.float32))
    np.testing.assert_allclose(F.smooth_l1_loss(d4, oar.zeros([4]), "none", 1.5).numpy(), [3.375, 0.125, 0.02, 1.875], rtol=1e-6)


def test_regression_grads_and_errors():
    a, b = rand((2, 3), seed=3), rand((2, 3), seed=4)
    check_grad(F.mse_loss, [a, b], what="mse_loss")
    check_grad(F.l1_loss, [a, b], what="l1_loss")
    check_grad(lambda a, b: F.smooth_l1_loss(a, b, delta=0.3), [a, b], what="smooth_l1_loss")
    for f in (F.mse_loss, F.l1_loss, F.smooth_l1_loss):
        with pytest.raises(ValueError, match="argument 'reduction' must be one of 'mean', 'sum', 'none', got 'avg'"):
            f(T(a), T(b), reduction="avg")
    with pytest.raises(ValueError, match="smooth_l1_loss: argument 'delta' must be > 0"):
        F.smooth_l1_loss(T(a), T(b), delta=0.0)


# ------------------------------------------------------------------ binary and KL losses
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_binary_cross_entropy(dtype):
    p = rand((3, 4), dtype, low=0.05, high=0.95, seed=1)
    y = rand((3, 4), dtype, low=0, high=1, seed=2)
    w = rand((4,), dtype, low=0.5, high=2, seed=3)
    p64 = p.astype(np.float64)
    ref = -(y * np.log(p64) + (1 - y) * np.log(1 - p64))
    assert_close(F.binary_cross_entropy(T(p), T(y), reduction="none"), ref, dtype)
    assert_close(F.binary_cross_entropy(T(p), T(y), weight=T(w)), (ref * w).mean(), dtype)
    assert_close(F.binary_cross_entropy(T(p), T(y), reduction="sum"), ref.sum(), dtype)
    # measured with paddle 3.3.1: the logs are clamped at -100
    out = F.binary_cross_entropy(T(np.array([0.0, 0.5, 1.0], dtype)), T(np.array([1.0, 0.5, 1.0], dtype)), reduction="none")
    np.testing.assert_allclose(out.numpy(), [100.0, 0.6931472, 0.0], rtol=1e-6)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_binary_cross_entropy_with_logits(dtype):
    x = rand((3, 4), dtype, low=-30, high=30, seed=4)
    y = rand((3, 4), dtype, low=0, high=1, seed=5)
    pw = rand((4,), dtype, low=0.5, high=3, seed=6)
    w = rand((3, 4), dtype, low=0.5, high=2, seed=7)
    x64 = x.astype(np.float64)
    ls = -np.logaddexp(0, -x64)  # log sigmoid(x)
    l1s = -np.logaddexp(0, x64)  # log (1 - sigmoid(x))
    assert_close(F.binary_cross_entropy_with_logits(T(x), T(y), reduction="none"), -(y * ls + (1 - y) * l1s), dtype)
    assert_close(F.binary_cross_entropy_with_logits(T(x), T(y), weight=T(w), pos_weight=T(pw)),
                 (-(pw * y * ls + (1 - y) * l1s) * w).mean(), dtype)
    # measured with paddle 3.3.1
    out = F.binary_cross_entropy_with_logits(T(np.array([-2.0, 0.5, 3.0], np.float32)), T(np.array([1.0, 0.5, 0.0], np.float32)),
                                             reduction="none", pos_weight=T(np.array([2.0, 2.0, 2.0], np.float32)))
    np.testing.assert_allclose(out.numpy(), [4.253856, 0.9611155, 3.0485873], rtol=1e-6)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_kl_div(dtype):
    x = np.log(rand((3, 4), dtype, low=0.1, high=1, seed=8))
    y = rand((3, 4), dtype, low=-0.2, high=1, seed=9)
    x64 = x.astype(np.float64)
    ref = np.where(y > 0, y * (np.log(np.where(y > 0, y, 1)) - x64), 0.0)
    assert_close(F.kl_div(T(x), T(y), reduction="none"), ref, dtype)
    assert_close(F.kl_div(T(x), T(y)), ref.mean(), dtype)
    assert_close(F.kl_div(T(x), T(y), reduction="batchmean"), ref.sum() / 3, dtype)
    assert_close(F.kl_div(T(x), T(y), reduction="sum"), ref.sum(), dtype)
    assert_close(F.kl_div(T(x), T(y), reduction="none", log_target=True), np.exp(y) * (y - x64), dtype)
    # measured with paddle 3.3.1
    np.testing.assert_allclose(F.kl_div(T(np.array([[-1.0, -2.0]] * 3, np.float32)),
                                        T(np.array([[0.5, 0.3]] * 3, np.float32)), reduction="batchmean").item(),
                               0.39223456, rtol=1e-6)


def test_binary_kl_grads_and_errors():
    p = rand((2, 3), low=0.1, high=0.9, seed=10)
    y = rand((2, 3), low=0, high=1, seed=11)
    check_grad(lambda p: F.binary_cross_entropy(p, T(y)), [p], what="binary_cross_entropy")
    x = rand((2, 3), low=-3, high=3, seed=12)
    check_grad(lambda x: F.binary_cross_entropy_with_logits(x, T(y), pos_weight=T(np.array([0.5, 2.0, 1.0]))),
               [x], what="binary_cross_entropy_with_logits")
    check_grad(lambda x, y: F.kl_div(x, y, reduction="batchmean"), [x, y + 0.1], what="kl_div")
    with pytest.raises(ValueError, match="kl_div: argument 'reduction' must be one of 'mean', 'sum', 'none', 'batchmean', got 'avg'"):
        F.kl_div(T(x), T(y), reduction="avg")
    with pytest.raises(ValueError, match="binary_cross_entropy: argument 'reduction'"):
        F.binary_cross_entropy(T(p), T(y), reduction="x")


# ------------------------------------------------------------------ ranking, embedding, distance losses
A = np.array([[1., 2., 3.], [-1., 0.5, 2.]])
B = np.array([[0.5, -1., 2.], [1., 1., 1.]])


def np_cos(x, y, axis):
    return (x * y).sum(axis) / np.sqrt(np.maximum((x * x).sum(axis) * (y * y).sum(axis), 1e-16))


def np_pdist(x, y, p, eps=1e-6):
    return (np.abs(x - y + eps) ** p).sum(-1) ** (1.0 / p)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_cosine_similarity_and_pairwise_distance(dtype):
    a, b = A.astype(dtype), B.astype(dtype)
    # measured with paddle 3.3.1
    np.testing.assert_allclose(F.cosine_similarity(T(a), T(b)).numpy(), [0.52489066, 0.37796447], rtol=1e-6)
    np.testing.assert_allclose(F.cosine_similarity(T(a), T(b), axis=0).numpy(), [-0.31622776, -0.5144958, 0.99227786], rtol=1e-6)
    np.testing.assert_array_equal(F.cosine_similarity(oar.zeros([2, 3], dtype), T(b)).numpy(), [0, 0])
    np.testing.assert_allclose(F.pairwise_distance(T(a), T(b)).numpy(), [3.2015634, 2.2912872], rtol=1e-6)
    out = F.pairwise_distance(T(a), T(b), p=1, epsilon=0.0, keepdim=True)
    assert out.shape == [2, 1]
    np.testing.assert_allclose(out.numpy(), [[4.5], [3.5]], rtol=1e-6)
    x, y = rand((4, 5), dtype, seed=1), rand((4, 5), dtype, seed=2)
    assert_close(F.cosine_similarity(T(x), T(y)), np_cos(x.astype(np.float64), y, 1), dtype)
    assert_close(F.pairwise_distance(T(x), T(y), p=3.0), np_pdist(x.astype(np.float64), y, 3.0), dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_margin_hinge_cosine_embedding(dtype):
    a, b = A.astype(dtype), B.astype(dtype)
    lab = np.array([[1., -1., 1.], [-1., 1., 1.]], dtype)
    # measured with paddle 3.3.1
    np.testing.assert_allclose(F.margin_ranking_loss(T(a), T(b), T(lab), margin=0.3, reduction="none").numpy(),
                               [[0, 3.3, 0], [0, 0.8, 0]], rtol=1e-6, atol=1e-7)
    hl = np.array([[1., -1., 1.], [-1., 1., -1.]], dtype)
    np.testing.assert_allclose(F.hinge_embedding_loss(T(a), T(hl), margin=1.5, reduction="none").numpy(),
                               [[1, 0, 3], [2.5, 0.5, 0]], rtol=1e-6)
    np.testing.assert_allclose(F.cosine_embedding_loss(T(a), T(b), T(np.array([1, -1])), margin=0.2, reduction="none").numpy(),
                               [0.47510934, 0.17796446], rtol=1e-6)
    x, y = rand((3, 4), dtype, seed=3), rand((3, 4), dtype, seed=4)
    l = np.sign(rand((3, 4), seed=5)).astype(dtype)
    x64 = x.astype(np.float64)
    assert_close(F.margin_ranking_loss(T(x), T(y), T(l), 0.1), np.maximum(0, -l * (x64 - y) + 0.1).mean(), dtype)
    assert_close(F.hinge_embedding_loss(T(x), T(l), reduction="sum"),
                 np.where(l == 1, x64, np.maximum(0, 1 - x64)).sum(), dtype)
    cl = np.array([1, -1, 1])
    c = np_cos(x64, y, 1)
    assert_close(F.cosine_embedding_loss(T(x), T(y), T(cl), margin=0.1),
                 np.where(cl == 1, 1 - c, np.maximum(0, c - 0.1)).mean(), dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_sigmoid_focal_and_triplet(dtype):
    a, b = A.astype(dtype), B.astype(dtype)
    fl = np.array([[1., 0., 1.], [0., 1., 0.]], dtype)
    # measured with paddle 3.3.1
    np.testing.assert_allclose(F.sigmoid_focal_loss(T(a), T(fl), reduction="none").numpy(),
                               [[5.6645130e-03, 1.2375585e+00, 2.7320810e-05], [1.6993539e-02, 1.6893370e-02, 1.2375585e+00]],
                               rtol=1e-5)
    np.testing.assert_allclose(F.sigmoid_focal_loss(T(a), T(fl), normalizer=T(np.array([2.0], dtype))).numpy(), 1.2573478, rtol=1e-6)
    np.testing.assert_allclose(F.triplet_margin_loss(T(a), T(b), T(a * 0.5), reduction="none").numpy(),
                               [2.3307333, 2.1456428], rtol=1e-6)
    np.testing.assert_allclose(F.triplet_margin_loss(T(a), T(b), T(a * 0.5), swap=True, p=1.0, margin=2.0,
                                                     reduction="none").numpy(), [4.000002, 3.749998], rtol=1e-6)
    x, y, z = (rand((3, 4), dtype, seed=s) for s in (6, 7, 8))
    x64 = x.astype(np.float64)
    ref = np.maximum(np_pdist(x64, y, 2) - np_pdist(x64, z, 2) + 1.0, 0).mean()
    assert_close(F.triplet_margin_loss(T(x), T(y), T(z)), ref, dtype)
    lab = (rand((3, 4), seed=9) > 0).astype(dtype)
    p = 1 / (1 + np.exp(-x64))
    ce = -(lab * np.log(p) + (1 - lab) * np.log(1 - p))
    pt = p * lab + (1 - p) * (1 - lab)
    at = 0.5 * lab + 0.5 * (1 - lab)
    assert_close(F.sigmoid_focal_loss(T(x), T(lab), alpha=0.5, gamma=1.5, reduction="mean"),
                 (at * ce * (1 - pt) ** 1.5).mean(), dtype)


def test_extra_losses_grads_and_errors():
    x, y, z = rand((3, 4), seed=10), rand((3, 4), seed=11), rand((3, 4), seed=12)
    l = np.sign(rand((3, 4), seed=13))
    check_grad(lambda x, y: F.margin_ranking_loss(x, y, T(l), 0.2), [x, y], what="margin_ranking_loss")
    check_grad(lambda x: F.hinge_embedding_loss(x, T(l), 0.5), [x], what="hinge_embedding_loss")
    check_grad(lambda x, y: F.cosine_similarity(x, y), [x, y], what="cosine_similarity")
    check_grad(lambda x, y: F.cosine_embedding_loss(x, y, T(np.array([1, -1, 1]))), [x, y], what="cosine_embedding_loss")
    check_grad(lambda x: F.sigmoid_focal_loss(x, T((l > 0).astype(np.float64))), [x], what="sigmoid_focal_loss")
    check_grad(lambda x, y: F.pairwise_distance(x, y), [x, y], what="pairwise_distance")
    check_grad(lambda x, y, z: F.triplet_margin_loss(x, y, z, swap=True), [x, y, z], what="triplet_margin_loss")
    for f, args in [(F.margin_ranking_loss, (T(x), T(y), T(l))), (F.hinge_embedding_loss, (T(x), T(l))),
                    (F.cosine_embedding_loss, (T(x), T(y), T(np.array([1, -1, 1])))),
                    (F.sigmoid_focal_loss, (T(x), T(l))), (F.triplet_margin_loss, (T(x), T(y), T(z)))]:
        with pytest.raises(ValueError, match="argument 'reduction' must be one of 'mean', 'sum', 'none', got 'avg'"):
            f(*args, reduction="avg")
    with pytest.raises(ValueError, match=r"cosine_embedding_loss: arguments 'input1' and 'input2' must be 1-D or 2-D of one shape, got \[3, 4\] and \[4, 3\]"):
        F.cosine_embedding_loss(T(x), T(x.T.copy()), T(np.array([1, -1, 1])))


def test_cross_entropy_double_backward():
    from test_norm import first_grad
    x = rand((3, 4), seed=30)
    w = rand((4,), low=0.5, high=2, seed=31)
    lab = T(np.array([0, -100, 2]))
    check_grad(first_grad(lambda x: F.cross_entropy(x, lab, reduction="none")), [x], what="ce d2/dx")
    check_grad(first_grad(lambda x, w: F.cross_entropy(x, lab, weight=w)), [x, w], what="ce weighted d2/dx")
    p = np.exp(np_log_softmax(x))
    check_grad(first_grad(lambda p: F.cross_entropy(p, T(np.array([0, 1, 2])), use_softmax=False, reduction="sum")),
               [p], what="ce probs d2/dp")
    # nll is linear in its input: its gradient depends only on the weights
    check_grad(first_grad(lambda x, w: F.nll_loss(x, lab, weight=w)), [x, w], wrt=[1], what="nll d2/dx dw")
    # the first-order gradient is the same on both paths
    xt = T(x, stop_gradient=False)
    (g1,) = oar.grad([F.cross_entropy(xt, lab, weight=T(w))], [xt], create_graph=True)
    (g2,) = oar.grad([F.cross_entropy(xt, lab, weight=T(w))], [xt])
    np.testing.assert_allclose(g1.numpy(), g2.numpy(), atol=1e-14)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_half_cross_entropy(dt):
    rtol = {"float16": 4e-3, "bfloat16": 3e-2}[dt]
    x = T(rand((5, 4), "float32", low=-3, high=3, seed=1)).astype(dt)
    lab = T(np.array([0, 3, -100, 1, 2]))
    for red in ("mean", "none"):
        out = F.cross_entropy(x, lab, reduction=red)
        assert out.dtype.name == dt
        ref = F.cross_entropy(x.astype("float32"), lab, reduction=red).astype(dt).astype("float32").numpy()
        np.testing.assert_allclose(out.astype("float32").numpy(), ref, rtol=rtol, atol=rtol)
    xg = x.detach()
    xg.stop_gradient = False
    F.cross_entropy(xg, lab).backward()
    assert xg.grad.dtype.name == dt


@pytest.mark.parametrize("label_dtype", ["int32", "int64", "float32", "float64"])
def test_cosine_embedding_loss_label_dtypes(label_dtype):
    x, y = rand((3, 4), seed=20), rand((3, 4), seed=21)
    lab = np.array([1, -1, 1]).astype(label_dtype)
    c = np_cos(x, y, 1)
    assert_close(F.cosine_embedding_loss(T(x), T(y), T(lab), margin=0.1, reduction="none"),
                 np.where(lab == 1, 1 - c, np.maximum(0, c - 0.1)), "float64")


def test_cosine_embedding_loss_errors_are_paddles():
    """Paddle raises ValueError for every bad argument, the wrong dtypes included (checked beside it
    when installed): a 2-D label is no longer broadcast, integer inputs no longer reach the kernels."""
    x, y = T(rand((3, 4), "float32", seed=22)), T(rand((3, 4), "float32", seed=23))
    lab = T(np.array([1, -1, 1]))
    bad = {
        "2-D label": (x, y, T(np.array([[1], [-1], [1]]))),
        "0-D label": (x[0], y[0], T(np.array(1))),
        "int64 inputs": (x.astype("int64"), y.astype("int64"), lab),
        "float16 inputs": (x.astype("float16"), y.astype("float16"), lab),
        "bool label": (x, y, T(np.array([True, False, True]))),
        "3-D inputs": (x.reshape([3, 2, 2]), y.reshape([3, 2, 2]), lab),
    }
    for what, args in bad.items():
        with pytest.raises(ValueError):
            F.cosine_embedding_loss(*args)
    with pytest.raises(ValueError, match="1D target tensor expected"):
        F.cosine_embedding_loss(x, y, T(np.array([[1], [-1], [1]])))
    with pytest.raises(ValueError, match="The data type of input Variable must be 'float32' or 'float64'"):
        oar.nn.CosineEmbeddingLoss()(x.astype("int64"), y.astype("int64"), lab)
    with pytest.raises(TypeError):  # also a TypeError, Python's convention for a wrong dtype
        F.cosine_embedding_loss(x.astype("int64"), y.astype("int64"), lab)
    paddle = pytest.importorskip("paddle")
    for what, args in bad.items():
        theirs = [paddle.to_tensor(a.numpy()) for a in args]
        with pytest.raises(ValueError):
            paddle.nn.functional.cosine_embedding_loss(*theirs)


def test_gaussian_nll_loss_dtype_error_is_also_paddles_value_error():
    x = T(np.ones([2], "float32"))
    for args in [(x.astype("int64"), x, x), (x, x.astype("int64"), x), (x, x, x.astype("int64"))]:
        with pytest.raises(ValueError, match="must be a float32 or float64 tensor"):
            F.gaussian_nll_loss(*args)
        with pytest.raises(TypeError):
            F.gaussian_nll_loss(*args)
