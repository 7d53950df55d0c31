"""Losses of loss2.yaml and the later half of python/oar/nn/functional/loss.py against NumPy
references (and values measured with paddle 3.3.1), float32 and float64, every reduction, float64
gradient checks and argument errors."""
import itertools
import math

import numpy as np
import pytest

import oar
import oar.nn.functional as F
from op_test import FLOAT_DTYPES, assert_close, check_grad, rand

REDUCTIONS = ["none", "mean", "sum"]


def T(a, **kw):
    return oar.to_tensor(a, **kw)


def reduce(loss, reduction):
    return loss.mean() if reduction == "mean" else loss.sum() if reduction == "sum" else loss


def np_log_sigmoid(x):
    return -np.logaddexp(0, -x)


# ---- CTC ----------------------------------------------------------------------------------

def np_ctc_one(x, label, blank):
    """-log p(label | softmax(x)) by summing over every alignment of length T (brute force)."""
    p = np.exp(x - x.max(-1, keepdims=True))
    p = p / p.sum(-1, keepdims=True)
    Tn, C = p.shape
    total = 0.0
    for path in itertools.product(range(C), repeat=Tn):
        # collapse repeats, drop blanks
        out, prev = [], None
        for c in path:
            if c != prev and c != blank:
                out.append(c)
            prev = c
        if out == list(label):
            total += np.prod([p[t, c] for t, c in enumerate(path)])
    return -np.log(total) if total > 0 else np.inf


def np_ctc(x, labels, ilen, llen, blank=0, reduction="mean"):
    losses = np.array([np_ctc_one(x[:ilen[n], n].astype(np.float64), labels[n, :llen[n]], blank)
                       for n in range(x.shape[1])])
    if reduction == "mean":
        return (losses / llen).mean()
    return reduce(losses, reduction)


CTC_X = rand((5, 3, 4), "float64", -2, 2, seed=1)
CTC_LAB = np.array([[1, 2, 2], [3, 0, 0], [2, 2, 0]], np.int32)
CTC_IL = np.array([5, 4, 5], np.int64)
CTC_LL = np.array([3, 1, 2], np.int64)


def test_ctc_paddle_values():
    # measured with paddle 3.3.1 (numpy seed 0 input)
    np.random.seed(0)
    x = np.random.randn(5, 2, 4).astype("float32")
    lab = np.array([[1, 2], [3, 0]], dtype="int32")
    il, ll = np.array([5, 4]), np.array([2, 1])
    out = F.ctc_loss(T(x), T(lab), T(il), T(ll), reduction="none")
    np.testing.assert_allclose(out.numpy(), [3.803867, 3.8626626], rtol=1e-5)
    np.testing.assert_allclose(F.ctc_loss(T(x), T(lab), T(il), T(ll)).item(), 2.882298, rtol=1e-5)
    xt = T(x, stop_gradient=False)
    (g,) = oar.grad([F.ctc_loss(xt, T(lab), T(il), T(ll), reduction="sum")], [xt])
    np.testing.assert_allclose(g.numpy()[:, 1], [[-0.31087834, 0.03655759, 0.25120136, 0.02311969],
                                                 [-0.2157639, 0.1814367, 0.25040886, -0.21608163],
                                                 [-0.06217208, 0.39638186, 0.4894076, -0.8236177],
                                                 [-0.35925996, 0.37454283, 0.10061433, -0.11589727],
                                                 [0, 0, 0, 0]], atol=1e-5)
    (g,) = oar.grad([F.ctc_loss(xt, T(lab), T(il), T(ll), reduction="sum", norm_by_times=True)], [xt])
    np.testing.assert_allclose(g.numpy()[0, 1], [-0.07771958, 0.0091394, 0.06280034, 0.00577992], atol=1e-6)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_ctc_against_brute_force(dtype, reduction):
    x = CTC_X.astype(dtype)
    out = F.ctc_loss(T(x), T(CTC_LAB), T(CTC_IL), T(CTC_LL), reduction=reduction)
    assert out.dtype.name == dtype
    assert_close(out, np_ctc(CTC_X, CTC_LAB, CTC_IL, CTC_LL, 0, reduction), dtype)
    # another blank, int64 labels, int32 lengths, non-contiguous logits
    lab = np.array([[0, 1, 1], [2, 0, 0], [1, 1, 0]], np.int64)
    xt = T(np.ascontiguousarray(x.transpose(1, 0, 2))).transpose([1, 0, 2])
    assert not xt.is_contiguous()
    out = F.ctc_loss(xt, T(lab), T(CTC_IL.astype(np.int32)), T(CTC_LL.astype(np.int32)), blank=3,
                     reduction=reduction)
    assert_close(out, np_ctc(CTC_X, lab, CTC_IL, CTC_LL, 3, reduction), dtype)


def test_ctc_grad_and_edge_cases():
    for red in REDUCTIONS:
        check_grad(lambda a: F.ctc_loss(a, T(CTC_LAB), T(CTC_IL), T(CTC_LL), reduction=red), [CTC_X])
    # empty label: the all-blank path
    x = rand((3, 1, 3), "float64", seed=2)
    out = F.ctc_loss(T(x), T(np.zeros((1, 1), np.int64)), T(np.array([3])), T(np.array([0])),
                     reduction="none")
    lp = x[:, 0] - np.log(np.exp(x[:, 0]).sum(-1, keepdims=True))
    assert_close(out, [-lp[:, 0].sum()], "float64")
    check_grad(lambda a: F.ctc_loss(a, T(np.zeros((1, 1), np.int64)), T(np.array([3])),
                                    T(np.array([0])), reduction="sum"), [x])
    # infeasible (label longer than the input): inf, or 0 with zero_infinity and no gradient
    lab = np.array([[1, 1, 1]])
    out = F.ctc_loss(T(x), T(lab), T(np.array([3])), T(np.array([3])), reduction="none")
    assert np.isinf(out.numpy()).all()
    xt = T(x, stop_gradient=False)
    out = F.ctc_loss(xt, T(lab), T(np.array([3])), T(np.array([3])), reduction="sum", zero_infinity=True)
    assert out.item() == 0.0
    (g,) = oar.grad([out], [xt])
    assert (g.numpy() == 0).all()
    # the internal op returns the loss and the gradient
    loss, grad = getattr(oar._C, "ctc_loss_base")(T(CTC_X), T(CTC_LAB), T(CTC_IL), T(CTC_LL), 0, False)
    assert loss.shape == [3] and grad.shape == [5, 3, 4]
    np.testing.assert_allclose(grad.numpy().sum(-1), 0, atol=1e-12)  # softmax minus posteriors


def test_ctc_errors():
    x, lab, il, ll = T(CTC_X), T(CTC_LAB), T(CTC_IL), T(CTC_LL)
    with pytest.raises(ValueError, match="ctc_loss: argument 'log_probs' must be 3-D"):
        F.ctc_loss(T(CTC_X[0]), lab, il, ll)
    with pytest.raises(TypeError, match="ctc_loss: argument 'labels' must be an int32 or int64"):
        F.ctc_loss(x, T(CTC_LAB.astype(np.float64)), il, ll)
    with pytest.raises(ValueError, match="ctc_loss: argument 'labels' must be 2-D"):
        F.ctc_loss(x, T(CTC_LAB[:2]), il, ll)
    with pytest.raises(ValueError, match="ctc_loss: argument 'input_lengths' expected shape"):
        F.ctc_loss(x, lab, T(CTC_IL[:2]), ll)
    with pytest.raises(ValueError, match="ctc_loss: argument 'blank' must be in"):
        F.ctc_loss(x, lab, il, ll, blank=4)
    with pytest.raises(ValueError, match=r"ctc_loss: input_lengths\[1\] must be in \[0, 5\]"):
        F.ctc_loss(x, lab, T(np.array([5, 6, 5])), ll)
    with pytest.raises(ValueError, match=r"ctc_loss: label_lengths\[0\] must be in \[0, 3\]"):
        F.ctc_loss(x, lab, il, T(np.array([4, 1, 1])))
    with pytest.raises(IndexError, match=r"ctc_loss: labels\[0, 1\] must be a class in \[0, 4\)"):
        F.ctc_loss(x, T(np.array([[1, 7, 2], [3, 0, 0], [2, 2, 0]])), il, ll)
    with pytest.raises(ValueError, match=r"ctc_loss: labels\[1, 0\] is the blank class 3"):
        F.ctc_loss(x, lab, il, ll, blank=3)
    with pytest.raises(ValueError, match="ctc_loss: argument 'reduction' must be one of"):
        F.ctc_loss(x, lab, il, ll, reduction="avg")


# ---- elementwise losses ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_gaussian_poisson_soft_margin(dtype, reduction):
    x = rand((4, 3), dtype, -2, 2, seed=3)
    y = rand((4, 3), dtype, -2, 2, seed=4)
    v = rand((4, 3), dtype, 0.0, 2, seed=5)
    v[0, 0] = 0.0  # clamped to epsilon
    x64, y64, v64 = (a.astype(np.float64) for a in (x, y, v))
    vc = np.maximum(v64, 1e-6)
    exp = 0.5 * (np.log(vc) + (x64 - y64) ** 2 / vc)
    assert_close(F.gaussian_nll_loss(T(x), T(y), T(v), reduction=reduction), reduce(exp, reduction), dtype)
    exp_full = exp + 0.5 * math.log(2 * math.pi)
    assert_close(F.gaussian_nll_loss(T(x), T(y), T(v), full=True, reduction=reduction),
                 reduce(exp_full, reduction), dtype)
    # homoscedastic variance: input's shape without the last dim, or with 1 there
    vv = np.maximum(v64[:, :1], 1e-6)
    exp2 = 0.5 * (np.log(vv) + (x64 - y64) ** 2 / vv)
    assert_close(F.gaussian_nll_loss(T(x), T(y), T(v[:, 0]), reduction=reduction), reduce(exp2, reduction), dtype)
    assert_close(F.gaussian_nll_loss(T(x), T(y), T(v[:, :1]), reduction=reduction), reduce(exp2, reduction), dtype)

    lab = rand((4, 3), dtype, 0, 4, seed=6)
    lab64 = lab.astype(np.float64)
    exp = np.exp(x64) - lab64 * x64
    assert_close(F.poisson_nll_loss(T(x), T(lab), reduction=reduction), reduce(exp, reduction), dtype)
    xp = np.abs(x)
    st = np.where(lab64 > 1, lab64 * np.log(np.maximum(lab64, 1)) - lab64 +
                  0.5 * np.log(2 * np.pi * np.maximum(lab64, 1)), 0.0)
    exp = xp - lab64 * np.log(xp.astype(np.float64) + 1e-8) + st
    assert_close(F.poisson_nll_loss(T(xp), T(lab), log_input=False, full=True, reduction=reduction),
                 reduce(exp, reduction), dtype)

    sgn = np.where(rand((4, 3), dtype, seed=7) > 0, 1.0, -1.0).astype(dtype)
    exp = np.logaddexp(0, -sgn * x64)
    assert_close(F.soft_margin_loss(T(x), T(sgn), reduction=reduction), reduce(exp, reduction), dtype)
    xl = x * 100  # no overflow
    exp = np.logaddexp(0, -sgn * xl.astype(np.float64))
    assert_close(F.soft_margin_loss(T(xl), T(sgn), reduction=reduction), reduce(exp, reduction), dtype)


@pytest.mark.host_only  # checked from inside a host kernel (check_values; a device's error is oar's External one)
def test_gaussian_nll_loss_negative_variance_error():
    x = rand((3, 2), "float64", -2, 2, seed=8)
    with pytest.raises(ValueError, match="gaussian_nll_loss: argument 'variance' has negative"):
        F.gaussian_nll_loss(T(x), T(x), T(-np.ones((3, 2))))


def test_elementwise_losses_grad_and_errors():
    x = rand((3, 2), "float64", -2, 2, seed=8)
    y = rand((3, 2), "float64", -2, 2, seed=9)
    v = rand((3, 2), "float64", 0.5, 2, seed=10)
    check_grad(lambda a, b, c: F.gaussian_nll_loss(a, b, c, reduction="sum"), [x, y, v])
    check_grad(lambda a, b: F.poisson_nll_loss(a, b, full=True), [x, np.abs(y) * 2], wrt=[0])
    check_grad(lambda a: F.poisson_nll_loss(a, T(np.abs(y)), log_input=False), [np.abs(x) + 0.1])
    check_grad(lambda a: F.soft_margin_loss(a, T(np.sign(y)), "none"), [x])
    xt = T(x)
    with pytest.raises(ValueError, match="gaussian_nll_loss: argument 'variance' must have input's shape"):
        F.gaussian_nll_loss(xt, T(y), T(v[:2]))
    with pytest.raises(TypeError, match="gaussian_nll_loss: argument 'variance' must be a float32"):
        F.gaussian_nll_loss(xt, T(y), T(np.ones((3, 2), np.int64)))
    with pytest.raises(ValueError, match="gaussian_nll_loss: argument 'reduction' must be one of"):
        F.gaussian_nll_loss(xt, T(y), T(v), reduction="x")
    with pytest.raises(ValueError, match="poisson_nll_loss: argument 'epsilon' must be > 0"):
        F.poisson_nll_loss(xt, T(y), epsilon=0)
    with pytest.raises(ValueError, match="poisson_nll_loss: arguments 'input' and 'label' must have the same shape"):
        F.poisson_nll_loss(xt, T(y[:1]))
    with pytest.raises(ValueError, match="soft_margin_loss: arguments 'input' and 'label'"):
        F.soft_margin_loss(xt, T(y[:1]))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multi_label_soft_margin_and_multi_margin(dtype, reduction):
    x = rand((4, 5), dtype, -2, 2, seed=11)
    lab = (rand((4, 5), dtype, seed=12) > 0).astype(dtype)
    w = rand((5,), dtype, 0.5, 1.5, seed=13)
    x64 = x.astype(np.float64)
    per = -(lab * np_log_sigmoid(x64) + (1 - lab) * np_log_sigmoid(-x64))
    assert_close(F.multi_label_soft_margin_loss(T(x), T(lab), reduction=reduction),
                 reduce(per.mean(-1), reduction), dtype)
    assert_close(F.multi_label_soft_margin_loss(T(x), T(lab), T(w), reduction=reduction),
                 reduce((per * w).mean(-1), reduction), dtype)

    y = np.array([0, 3, 4, 1])
    for p, margin in ((1, 1.0), (2, 0.7)):
        exp = np.zeros(4)
        expw = np.zeros(4)
        for i in range(4):
            for j in range(5):
                if j != y[i]:
                    t = max(0.0, margin - x64[i, y[i]] + x64[i, j]) ** p / 5
                    exp[i] += t
                    expw[i] += w[y[i]] * t
        assert_close(F.multi_margin_loss(T(x), T(y), p, margin, reduction=reduction),
                     reduce(exp, reduction), dtype)
        assert_close(F.multi_margin_loss(T(x), T(y), p, margin, T(w), reduction=reduction),
                     reduce(expw, reduction), dtype)


def test_margin_losses_grad_and_errors():
    x = rand((3, 4), "float64", -2, 2, seed=14)
    lab = (rand((3, 4), "float64", seed=15) > 0).astype(np.float64)
    w = rand((4,), "float64", 0.5, 1.5, seed=16)
    check_grad(lambda a, b: F.multi_label_soft_margin_loss(a, T(lab), b), [x, w])
    y = np.array([0, 2, 3])
    check_grad(lambda a, b: F.multi_margin_loss(a, T(y), 2, 1.0, b, "sum"), [x, w])
    check_grad(lambda a: F.multi_margin_loss(a, T(y)), [x])
    with pytest.raises(ValueError, match="multi_margin_loss: argument 'p' must be 1 or 2"):
        F.multi_margin_loss(T(x), T(y), p=3)
    with pytest.raises(ValueError, match="multi_margin_loss: argument 'label' must have 3 entries"):
        F.multi_margin_loss(T(x), T(y[:2]))
    with pytest.raises(ValueError, match="multi_margin_loss: argument 'weight' expected shape"):
        F.multi_margin_loss(T(x), T(y), weight=T(w[:2]))
    with pytest.raises(ValueError, match="multi_label_soft_margin_loss: arguments 'input' and 'label'"):
        F.multi_label_soft_margin_loss(T(x), T(lab[:1]))


def np_multi_label_margin(x, lab):
    N, C = x.shape
    out = np.zeros(N)
    for i in range(N):
        tg = []
        for v in lab[i]:
            if v < 0:
                break
            tg.append(v)
        non = [k for k in range(C) if k not in tg]
        out[i] = sum(max(0.0, 1 - (x[i, j] - x[i, k])) for j in tg for k in non) / C
    return out


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multi_label_margin_loss(dtype, reduction):
    x = rand((4, 5), dtype, -1, 1, seed=17)
    lab = np.array([[3, 0, -1, 1, 1], [1, 2, 4, -1, -1], [-1, 2, 2, 2, 2], [0, 1, 2, 3, 4]])
    exp = np_multi_label_margin(x.astype(np.float64), lab)
    assert_close(F.multi_label_margin_loss(T(x), T(lab), reduction), reduce(exp, reduction), dtype)
    check_grad(lambda a: F.multi_label_margin_loss(a, T(lab), reduction), [x.astype(np.float64)])
    with pytest.raises(ValueError, match="multi_label_margin_loss: argument 'input' must be 2-D"):
        F.multi_label_margin_loss(T(x[0]), T(lab))
    with pytest.raises(ValueError, match="multi_label_margin_loss: label values must be >= -1"):
        F.multi_label_margin_loss(T(x), T(lab - 2))
    with pytest.raises(ValueError, match="multi_label_margin_loss: label values must be < 5"):
        F.multi_label_margin_loss(T(x), T(lab + 5))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_log_dice_square_error(dtype):
    p = rand((4, 1), dtype, 0.05, 0.95, seed=18)
    y = (rand((4, 1), dtype, seed=19) > 0).astype(dtype)
    p64 = p.astype(np.float64)
    exp = -y * np.log(p64 + 1e-4) - (1 - y) * np.log(1 - p64 + 1e-4)
    assert_close(F.log_loss(T(p), T(y)), exp, dtype)
    check_grad(lambda a: F.log_loss(a, T(y.astype(np.float64))), [p64])

    probs = rand((2, 3, 4), dtype, 0, 1, seed=20)
    lab = np.array([[[0], [3], [1]], [[2], [2], [0]]])
    oh = np.eye(4)[lab[..., 0]]
    pr64 = probs.astype(np.float64)
    inse = (pr64 * oh).sum((1, 2))
    exp = (1 - 2 * inse / (pr64.sum((1, 2)) + oh.sum((1, 2)) + 1e-5)).mean()
    assert_close(F.dice_loss(T(probs), T(lab)), exp, dtype)
    check_grad(lambda a: F.dice_loss(a, T(lab)), [pr64])
    with pytest.raises(ValueError, match="dice_loss: argument 'label' expected shape"):
        F.dice_loss(T(probs), T(lab[..., 0]))
    with pytest.raises(TypeError, match="dice_loss: argument 'label' must be an int32 or int64"):
        F.dice_loss(T(probs), T(lab.astype(dtype)))

    a, b = rand((3, 2), dtype, seed=21), rand((3, 2), dtype, seed=22)
    assert_close(F.square_error_cost(T(a), T(b)), (a.astype(np.float64) - b) ** 2, dtype)
    check_grad(F.square_error_cost, [a.astype(np.float64), b.astype(np.float64)])
    with pytest.raises(ValueError, match="log_loss: arguments 'input' and 'label'"):
        F.log_loss(T(p), T(y[:2]))


def np_npair(a, p, labels, l2_reg):
    B = len(labels)
    same = (labels[:, None] == labels[None, :]).astype(np.float64)
    same /= same.sum(1, keepdims=True)
    l2 = ((a ** 2).sum(1).mean() + (p ** 2).sum(1).mean()) * 0.25 * l2_reg
    sim = a @ p.T
    ls = sim - sim.max(1, keepdims=True)
    ls = ls - np.log(np.exp(ls).sum(1, keepdims=True))
    ce = -(same * ls).sum(1, keepdims=True)
    return l2 + (same * ce).sum(0).mean()


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_npair_loss(dtype):
    a, p = rand((4, 3), dtype, seed=23), rand((4, 3), dtype, seed=24)
    lab = np.array([1, 2, 1, 0])
    assert_close(F.npair_loss(T(a), T(p), T(lab)), np_npair(a.astype(np.float64), p.astype(np.float64), lab, 0.002), dtype)
    assert_close(F.npair_loss(T(a), T(p), T(lab), 0.1), np_npair(a.astype(np.float64), p.astype(np.float64), lab, 0.1), dtype)
    check_grad(lambda x, y: F.npair_loss(x, y, T(lab)), [a.astype(np.float64), p.astype(np.float64)])
    with pytest.raises(ValueError, match="npair_loss: argument 'anchor' must not be empty"):
        F.npair_loss(T(np.zeros((0, 3), dtype)), T(p), T(lab))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_triplet_margin_with_distance(dtype, reduction):
    a, p, n = (rand((5, 3), dtype, seed=s) for s in (25, 26, 27))
    a64, p64, n64 = (t.astype(np.float64) for t in (a, p, n))

    def d2(x, y):
        return np.sqrt(((x - y + 1e-6) ** 2).sum(-1))
    exp = np.maximum(d2(a64, p64) - d2(a64, n64) + 1.0, 0)
    out = F.triplet_margin_with_distance_loss(T(a), T(p), T(n), reduction=reduction)
    assert_close(out, reduce(exp, reduction), dtype)
    exp = np.maximum(d2(a64, p64) - np.minimum(d2(a64, n64), d2(p64, n64)) + 0.5, 0)
    out = F.triplet_margin_with_distance_loss(T(a), T(p), T(n), margin=0.5, swap=True, reduction=reduction)
    assert_close(out, reduce(exp, reduction), dtype)

    def l1(x, y):
        return (x - y).abs().sum(-1)
    exp = np.maximum(np.abs(a64 - p64).sum(-1) - np.abs(a64 - n64).sum(-1) + 2.0, 0)
    out = F.triplet_margin_with_distance_loss(T(a), T(p), T(n), l1, 2.0, reduction=reduction)
    assert_close(out, reduce(exp, reduction), dtype)
    check_grad(lambda x, y, z: F.triplet_margin_with_distance_loss(x, y, z, margin=2.0, reduction=reduction),
               [a64, p64, n64])
    with pytest.raises(ValueError, match="triplet_margin_with_distance_loss: argument 'margin' must be >= 0"):
        F.triplet_margin_with_distance_loss(T(a), T(p), T(n), margin=-1.0)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_margin_cross_entropy(dtype, reduction):
    cos = rand((4, 6), dtype, -0.9, 0.9, seed=28)
    lab = np.array([0, 5, 2, 2])
    c64 = cos.astype(np.float64)
    m1, m2, m3, s = 0.9, 0.4, 0.1, 8.0
    z = c64.copy()
    for i in range(4):
        z[i, lab[i]] = np.cos(m1 * np.arccos(c64[i, lab[i]]) + m2) - m3
    z *= s
    ls = z - z.max(1, keepdims=True)
    ls = ls - np.log(np.exp(ls).sum(1, keepdims=True))
    exp = -ls[np.arange(4), lab][:, None]
    loss, sm = F.margin_cross_entropy(T(cos), T(lab), m1, m2, m3, s, return_softmax=True,
                                      reduction=reduction)
    assert_close(loss, reduce(exp, reduction), dtype)
    assert_close(sm, np.exp(ls), dtype)
    out = F.margin_cross_entropy(T(cos), T(lab[:, None]), m1, m2, m3, s, reduction=reduction)
    assert_close(out, reduce(exp, reduction), dtype)
    check_grad(lambda a: F.margin_cross_entropy(a, T(lab), m1, m2, m3, s, reduction=reduction), [c64])
    with pytest.raises(ValueError, match="margin_cross_entropy: argument 'logits' must be 2-D"):
        F.margin_cross_entropy(T(cos[0]), T(lab))
    with pytest.raises(ValueError, match="margin_cross_entropy: argument 'label' expected shape"):
        F.margin_cross_entropy(T(cos), T(lab[:2]))


def np_hsigmoid(x, label, num_classes, w, b=None, table=None, code=None):
    N = x.shape[0]
    out = np.zeros((N, 1))
    for i in range(N):
        if table is None:
            c = int(label[i]) + num_classes
            path = []
            j = 0
            while (c >> (j + 1)) - 1 >= 0:
                path.append(((c >> (j + 1)) - 1, (c >> j) & 1))
                j += 1
        else:
            path = [(int(n), int(bt)) for n, bt in zip(table[i], code[i]) if n >= 0]
        L = 3 if table is None else table.shape[1]  # the longest path / table width
        out[i, 0] += (L - len(path)) * np.log(2)  # Paddle's softplus(0) of the unused steps
        for node, bit in path:
            pre = x[i] @ w[node] + (0.0 if b is None else b[node, 0])
            pre = min(max(pre, -40.0), 40.0)
            out[i, 0] += np.logaddexp(0, pre) - bit * pre
    return out


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_hsigmoid_loss(dtype):
    N, D, K = 4, 3, 6
    # measured with paddle 3.3.1 (x, w, b from default_rng(0) uniform(-1, 1) in float64)
    rng = np.random.default_rng(0)
    px, pw, pb = rng.uniform(-1, 1, (4, 3)), rng.uniform(-1, 1, (5, 3)), rng.uniform(-1, 1, (5, 1))
    np.testing.assert_allclose(F.hsigmoid_loss(T(px), T(np.array([0, 5, 3, 2])), 6, T(pw), T(pb)).numpy().ravel(),
                               [2.37331761, 1.50855151, 2.65446455, 2.31813579], rtol=1e-7)
    x = rand((N, D), dtype, seed=30)
    w = rand((K - 1, D), dtype, seed=31)
    b = rand((K - 1, 1), dtype, seed=32)
    lab = np.array([0, 5, 3, 2])
    x64, w64, b64 = (a.astype(np.float64) for a in (x, w, b))
    assert_close(F.hsigmoid_loss(T(x), T(lab), K, T(w)), np_hsigmoid(x64, lab, K, w64), dtype)
    out = F.hsigmoid_loss(T(x), T(lab[:, None]), K, T(w), T(b))
    assert out.shape == [N, 1]
    assert_close(out, np_hsigmoid(x64, lab, K, w64, b64), dtype)
    table = np.array([[0, 2, -1], [1, 3, 4], [0, -1, -1], [2, 1, 0]])
    code = np.array([[1, 0, 0], [0, 1, 1], [1, 0, 0], [0, 0, 1]])
    out = F.hsigmoid_loss(T(x), T(lab), K, T(w), T(b), T(table), T(code))
    assert_close(out, np_hsigmoid(x64, lab, K, w64, b64, table, code), dtype)
    check_grad(lambda a, ww, bb: F.hsigmoid_loss(a, T(lab), K, ww, bb), [x64, w64, b64])
    check_grad(lambda a, ww: F.hsigmoid_loss(a, T(lab), K, ww, None, T(table), T(code)), [x64, w64])
    with pytest.raises(ValueError, match="hsigmoid_loss: argument 'num_classes' must be >= 2"):
        F.hsigmoid_loss(T(x), T(lab), 1, T(w))
    with pytest.raises(ValueError, match="hsigmoid_loss: argument 'weight' expected shape"):
        F.hsigmoid_loss(T(x), T(lab), K + 1, T(w))
    with pytest.raises(ValueError, match="hsigmoid_loss: arguments 'path_table' and 'path_code'"):
        F.hsigmoid_loss(T(x), T(lab), K, T(w), None, T(table))
