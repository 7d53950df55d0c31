"""paddle.incubate.nn.functional's MoE helpers and fast norms (GPU-only kernels in Paddle, so the
references are NumPy, written from Paddle's documented math and its unit tests' reference
functions): moe_combine, expand_modality_expert_id, build_src_rank_and_local_expert_id,
cal_aux_loss, int_bincount, embedding_grad_add_to_, blha_get_max_len, fast_ln, fast_rms_norm,
fused_rms_norm_ext. float64 numeric gradients where differentiable."""
import importlib.util

import numpy as np
import pytest

import oar
from oar.incubate.nn import functional as IF
from op_test import check_grad

RNG = np.random.default_rng(0)
HAVE_PADDLE = importlib.util.find_spec("paddle") is not None


# ---------------------------------------------------------------- moe_combine
def test_moe_combine_numpy_and_grad():
    s, k, d = 5, 2, 3
    x = RNG.standard_normal((s * k, d))
    w = RNG.random((s, k))
    idx = RNG.permutation(s * k).reshape(s, k).astype("int32")
    got = IF.moe_combine(oar.to_tensor(x), oar.to_tensor(w), oar.to_tensor(idx))
    ref = (w[:, :, None] * x[idx]).sum(1)
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-12)
    ti = oar.to_tensor(idx)
    check_grad(lambda a, b: IF.moe_combine(a, b, ti), [x, w])


def test_moe_combine_errors():
    x, w = oar.zeros([4, 2]), oar.zeros([2, 2])
    with pytest.raises(ValueError, match="scatter_index"):
        IF.moe_combine(x, w, oar.zeros([2, 3], "int32"))
    with pytest.raises(TypeError, match="scatter_index"):
        IF.moe_combine(x, w, oar.zeros([2, 2]))
    with pytest.raises(ValueError, match="2-D"):
        IF.moe_combine(oar.zeros([4]), w, oar.zeros([2, 2], "int32"))


# ---------------------------------------------------------------- expert-id bookkeeping
def _expand_ref(e, n, k, group_size, offset, grouped):
    e = e.copy()
    if grouped:
        e = e + (np.arange(e.size) % k).reshape(e.shape) * group_size
    r, i = e // n, e % n
    return r * (2 * n) + i + offset * n


@pytest.mark.parametrize("grouped", [False, True])
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_expand_modality_expert_id(grouped, dtype):
    e = RNG.integers(0, 12, size=(20, 3)).astype(dtype)
    got = IF.expand_modality_expert_id(oar.to_tensor(e), 3, 4, 1, grouped)
    assert got.dtype.name == dtype
    np.testing.assert_array_equal(got.numpy(), _expand_ref(e, 3, 3, 4, 1, grouped))
    with pytest.raises(TypeError, match="expert_id"):
        IF.expand_modality_expert_id(oar.to_tensor(e.astype("float32")), 3, 4, 1, grouped)


def test_build_src_rank_and_local_expert_id():
    counts = RNG.integers(0, 5, size=8).tolist()
    rank, local = IF.build_src_rank_and_local_expert_id(oar.to_tensor(counts), counts, 2)
    ref_rank = np.concatenate([np.full([c], i // 2) for i, c in enumerate(counts)])
    ref_local = np.concatenate([np.full([c], i % 2) for i, c in enumerate(counts)])
    assert rank.dtype.name == "int32" and local.dtype.name == "int32"
    np.testing.assert_array_equal(rank.numpy(), ref_rank)
    np.testing.assert_array_equal(local.numpy(), ref_local)
    with pytest.raises(ValueError, match="expert_num_global"):
        IF.build_src_rank_and_local_expert_id(oar.to_tensor([1, 2]), [1, 2, 3], 2)
    with pytest.raises(ValueError, match="num_local_experts"):
        IF.build_src_rank_and_local_expert_id(oar.to_tensor([1, 2]), [1, 2], 0)


# ---------------------------------------------------------------- cal_aux_loss
def _aux_ref(prob, dmask, tmask, dtmask, e, use_group, k, clip_min):
    if dtmask is not None:
        seqlen = dtmask.sum()
    elif tmask is not None:
        seqlen = tmask.sum()
    else:
        seqlen = prob.size / e
    seqlen = max(seqlen, clip_min)
    counts = dmask.sum(0) if dmask.ndim == 2 else dmask
    ce = counts / seqlen
    me = prob.sum(0) / seqlen
    l_aux = (me * ce).sum() * e / (k if use_group else 1)
    return l_aux, seqlen, ce


@pytest.mark.parametrize("case", ["plain", "tokens_mask", "dispatch_2d_group", "dispatch_tokens"])
def test_cal_aux_loss(case):
    s, e = 6, 4
    prob = RNG.random((s, e))
    dmask = RNG.integers(0, 3, size=e)
    tmask = dtmask = None
    use_group, k = False, 2
    if case == "tokens_mask":
        tmask = (RNG.random(s) < 0.7).astype("float64")
    if case == "dispatch_2d_group":
        dmask = RNG.integers(0, 2, size=(s, e))
        use_group = True
    if case == "dispatch_tokens":
        dtmask = (RNG.random(s) < 0.5).astype("int64")
    l_aux, seqlen, ce = IF.cal_aux_loss(oar.to_tensor(prob), oar.to_tensor(dmask),
                                        None if tmask is None else oar.to_tensor(tmask),
                                        None if dtmask is None else oar.to_tensor(dtmask), e, use_group, k, 1.0)
    rl, rs, rc = _aux_ref(prob, dmask, tmask, dtmask, e, use_group, k, 1.0)
    np.testing.assert_allclose(float(l_aux), rl, rtol=1e-12)
    np.testing.assert_allclose(float(seqlen), rs, rtol=1e-12)
    np.testing.assert_allclose(ce.numpy(), rc, rtol=1e-12)
    assert l_aux.ndim == 0
    check_grad(lambda p: IF.cal_aux_loss(p, oar.to_tensor(dmask), None, None, e, use_group, k, 1.0)[0], [prob])


def test_cal_aux_loss_scaled_gradient():
    """Dispatched tokens of another count than gate_prob's: the value is scaled by
    seqlen / sum(tokens_mask) through a detached term, so the gradient is not."""
    prob = RNG.random((4, 3))
    tmask = np.array([1.0, 1.0, 0.0, 1.0])
    dtmask = np.array([1, 1, 1, 1, 1, 1])
    p = oar.to_tensor(prob, stop_gradient=False)
    l_aux, seqlen, _ = IF.cal_aux_loss(p, oar.to_tensor([2, 1, 3]), oar.to_tensor(tmask), oar.to_tensor(dtmask),
                                       3, False, 1, 0.5)
    l_aux.backward()
    np.testing.assert_allclose(float(seqlen), 6.0)
    plain = oar.to_tensor(prob, stop_gradient=False)
    l2, _, _ = IF.cal_aux_loss(plain, oar.to_tensor([2, 1, 3]), None, oar.to_tensor(dtmask), 3, False, 1, 0.5)
    l2.backward()
    np.testing.assert_allclose(float(l_aux), float(l2) * 6.0 / 3.0, rtol=1e-12)
    np.testing.assert_allclose(p.grad.numpy(), plain.grad.numpy(), rtol=1e-12)


# ---------------------------------------------------------------- int_bincount
def test_int_bincount():
    x = RNG.integers(0, 10, size=(3, 7))
    for low, high in [(0, 10), (2, 6), (4, 15)]:
        got = IF.int_bincount(oar.to_tensor(x), low, high, "int32")
        ref = np.bincount(x.ravel(), minlength=max(high, 10))[low:high]
        assert got.dtype.name == "int32"
        np.testing.assert_array_equal(got.numpy(), ref)
    assert IF.int_bincount(oar.to_tensor(x.astype("int32")), 0, 3).dtype.name == "int32"
    np.testing.assert_array_equal(IF.int_bincount(oar.zeros([0], "int64"), 0, 3, "int64").numpy(), [0, 0, 0])
    np.testing.assert_array_equal(IF.int_bincount(oar.to_tensor(4), 3, 6, "int64").numpy(), [0, 1, 0])


def test_int_bincount_errors():
    with pytest.raises(ValueError, match="non-negative"):
        IF.int_bincount(oar.to_tensor([1, -2]), 0, 3, "int64")
    with pytest.raises(ValueError, match="must be greater than or equal"):
        IF.int_bincount(oar.to_tensor([1, 2]), 3, 1, "int64")
    with pytest.raises(ValueError, match="x.dtype"):
        IF.int_bincount(oar.to_tensor([1.0]), 0, 3, "int64")
    with pytest.raises(ValueError, match="dtype must be"):
        IF.int_bincount(oar.to_tensor([1]), 0, 3, "float32")
    with pytest.raises(ValueError, match="0D, 1D or 2D"):
        IF.int_bincount(oar.zeros([1, 1, 1], "int64"), 0, 3, "int64")


# ---------------------------------------------------------------- embedding_grad_add_to_, blha_get_max_len
def test_embedding_grad_add_to_():
    ids = RNG.integers(0, 6, size=(2, 5))
    grad = RNG.standard_normal((2, 5, 3)).astype("float32")
    main = RNG.standard_normal((6, 3))
    ref = main.copy()
    np.add.at(ref, ids.ravel(), grad.reshape(-1, 3).astype(np.float64))
    t = oar.to_tensor(main)
    out = IF.embedding_grad_add_to_(oar.to_tensor(ids), t, oar.to_tensor(grad))
    np.testing.assert_allclose(t.numpy(), ref, rtol=1e-6)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-6)
    with pytest.raises(IndexError, match="token_indices"):
        IF.embedding_grad_add_to_(oar.to_tensor([7]), t, oar.ones([1, 3]))
    with pytest.raises(ValueError, match="out_grad"):
        IF.embedding_grad_add_to_(oar.to_tensor([1, 2]), t, oar.ones([1, 3]))


def test_blha_get_max_len():
    enc = oar.to_tensor(np.array([3, 0, 7, 9], "int32"))
    dec = oar.to_tensor(np.array([0, 5, 2, 11], "int32"))
    e, d = IF.blha_get_max_len(enc, dec, oar.ones([3]))
    assert e.dtype.name == "int32" and list(e.shape) == [1]
    assert e.numpy().tolist() == [7] and d.numpy().tolist() == [5]
    with pytest.raises(ValueError, match="batch size"):
        IF.blha_get_max_len(enc, dec, oar.ones([5]))


# ---------------------------------------------------------------- fast norms
def _ln_ref(x, w, b, eps):
    rows = x.reshape(-1, x.shape[-1])
    mean = rows.mean(1)
    var = rows.var(1)
    inv = 1.0 / np.sqrt(var + eps)
    y = (rows - mean[:, None]) * inv[:, None] * w + b
    return y.reshape(x.shape), mean, inv


def _rms_ref(x, w, eps):
    rows = x.reshape(-1, x.shape[-1])
    inv = 1.0 / np.sqrt((rows ** 2).mean(1) + eps)
    return (rows * inv[:, None] * w).reshape(x.shape), inv


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fast_ln(dtype):
    x = RNG.standard_normal((2, 3, 8)).astype(dtype)
    w, b = RNG.standard_normal(8).astype(dtype), RNG.standard_normal(8).astype(dtype)
    y, mean, inv = IF.fast_ln(oar.to_tensor(x), oar.to_tensor(w), oar.to_tensor(b), 1e-5)
    ry, rm, ri = _ln_ref(x.astype(np.float64), w, b, 1e-5)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(y.numpy(), ry, rtol=tol, atol=tol)
    np.testing.assert_allclose(mean.numpy(), rm, rtol=tol, atol=tol)
    np.testing.assert_allclose(inv.numpy(), ri, rtol=tol, atol=tol)
    assert y.dtype.name == dtype and list(mean.shape) == [6] and mean.stop_gradient and inv.stop_gradient


@pytest.mark.parametrize("fn", ["fast_rms_norm", "fused_rms_norm_ext"])
def test_rms_norms(fn):
    x = RNG.standard_normal((4, 6))
    w = RNG.standard_normal(6)
    y, inv = getattr(IF, fn)(oar.to_tensor(x), oar.to_tensor(w), 1e-6)
    ry, ri = _rms_ref(x, w, 1e-6)
    np.testing.assert_allclose(y.numpy(), ry, rtol=1e-12)
    np.testing.assert_allclose(inv.numpy(), ri, rtol=1e-12)
    check_grad(lambda a, b: getattr(IF, fn)(a, b, 1e-6)[0], [x, w])
    with pytest.raises(ValueError, match="scale"):
        getattr(IF, fn)(oar.to_tensor(x), oar.ones([5]))


def test_fast_ln_grad_and_errors():
    x = RNG.standard_normal((3, 5))
    w, b = RNG.standard_normal(5), RNG.standard_normal(5)
    check_grad(lambda a, c, d: IF.fast_ln(a, c, d, 1e-5)[0], [x, w, b])
    with pytest.raises(ValueError, match="bias"):
        IF.fast_ln(oar.to_tensor(x), oar.to_tensor(w), oar.ones([4]))
    with pytest.raises(TypeError, match="x"):
        IF.fast_ln(x, oar.to_tensor(w), oar.to_tensor(b))


# ---------------------------------------------------------------- fused_swiglu_weighted_bwd
def test_fused_swiglu_weighted_bwd_is_the_forward_gradient():
    """do1 and probs_grad are the gradients of sum(do2_s * o2_s), o2_s = silu(x1) * x2 * prob,
    taken by autograd through oar's swiglu-free composition."""
    o1 = RNG.standard_normal((2, 3, 8))
    g = RNG.standard_normal((2, 3, 4))
    prob = RNG.random((2, 3))
    to1, tp = oar.to_tensor(o1, stop_gradient=False), oar.to_tensor(prob, stop_gradient=False)
    x1, x2 = to1[..., :4], to1[..., 4:]
    o2 = oar.nn.functional.silu(x1) * x2 * tp.unsqueeze(-1)
    (o2 * oar.to_tensor(g)).sum().backward()
    do1, probs_grad, o2_s = IF.fused_swiglu_weighted_bwd(oar.to_tensor(o1), oar.to_tensor(g), oar.to_tensor(prob))
    np.testing.assert_allclose(do1.numpy(), to1.grad.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(probs_grad.numpy(), tp.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(o2_s.numpy(), o2.numpy(), rtol=1e-12)
    assert do1.dtype.name == "float64" and probs_grad.dtype.name == "float32" and o2_s.dtype.name == "float64"
    # against NumPy too
    s = 1 / (1 + np.exp(-o1[..., :4]))
    np.testing.assert_allclose(o2_s.numpy(), o1[..., :4] * s * o1[..., 4:] * prob[..., None], rtol=1e-12)


def test_fused_swiglu_weighted_bwd_errors():
    with pytest.raises(ValueError, match="even"):
        IF.fused_swiglu_weighted_bwd(oar.zeros([2, 3]), oar.zeros([2, 1]), oar.zeros([2]))
    with pytest.raises(ValueError, match="do2_s"):
        IF.fused_swiglu_weighted_bwd(oar.zeros([2, 4]), oar.zeros([2, 3]), oar.zeros([2]))
    with pytest.raises(ValueError, match="unzipped_probs"):
        IF.fused_swiglu_weighted_bwd(oar.zeros([2, 4]), oar.zeros([2, 2]), oar.zeros([3]))
