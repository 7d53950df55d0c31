"""paddle.nn / paddle.nn.functional names built from oar's ops: the flash-attention family
(flash_attn_qkvpacked, flash_attn_varlen_qkvpacked, flash_attention_v3_varlen, flashmask_attention),
sparse_attention, rnnt_loss / RNNTLoss, class_center_sample, dynamic_decode / BeamSearchDecoder.
NumPy references throughout; real Paddle where its CPU build runs the function (flash_attn_qkvpacked,
rnnt_loss, dynamic_decode); float64 numeric gradients for the differentiable ones."""
import importlib.util

import numpy as np
import pytest

import oar
import oar.nn.functional as F
from op_test import check_grad

HAVE_PADDLE = importlib.util.find_spec("paddle") is not None
needs_paddle = pytest.mark.skipif(not HAVE_PADDLE, reason="paddle is not importable")


def _paddle():
    import paddle
    return paddle


def ref_attention(q, k, v, keep=None, scale=None, softcap=0.0):
    """q [B, Sq, H, D], k/v [B, Sk, Hk, D] (query head h uses kv head h // (H / Hk)); keep
    broadcasts to [B, H, Sq, Sk]. Fully masked rows give zeros and lse +inf."""
    b, sq, h, d = q.shape
    g = h // k.shape[2]
    k = np.repeat(k, g, axis=2)
    v = np.repeat(v, g, axis=2)
    scale = 1.0 / np.sqrt(d) if scale is None else scale
    s = np.einsum("bqhd,bkhd->bhqk", q, k) * scale
    if softcap:
        s = softcap * np.tanh(s / softcap)
    if keep is None:
        keep = np.ones(s.shape, bool)
    keep = np.broadcast_to(keep, s.shape)
    s = np.where(keep, s, -np.inf)
    m = np.max(s, -1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(s - m)
    tot = e.sum(-1, keepdims=True)
    w = np.where(tot > 0, e / np.where(tot > 0, tot, 1), 0.0)
    lse = np.where(tot[..., 0] > 0, np.log(np.where(tot[..., 0] > 0, tot[..., 0], 1)) + m[..., 0], np.inf)
    return np.einsum("bhqk,bkhd->bqhd", w, v), lse, w


def causal(sq, sk):
    return np.arange(sk)[None, :] <= np.arange(sq)[:, None] + (sk - sq)


RNG = np.random.default_rng(0)


# ---------------------------------------------------------------- flash_attn_qkvpacked
@pytest.mark.parametrize("is_causal", [False, True])
@pytest.mark.parametrize("groups,hk", [(1, 2), (2, 1), (3, 2)])
def test_flash_attn_qkvpacked_numpy(is_causal, groups, hk):
    qkv = RNG.standard_normal((2, 5, groups + 2, hk, 4))
    out, probs = F.flash_attn_qkvpacked(oar.to_tensor(qkv), causal=is_causal, return_softmax=True)
    q = qkv[:, :, :groups].reshape(2, 5, groups * hk, 4)
    keep = causal(5, 5) if is_causal else None
    ro, _, rw = ref_attention(q, qkv[:, :, -2], qkv[:, :, -1], keep)
    np.testing.assert_allclose(out.numpy(), ro, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(probs.numpy(), rw, rtol=1e-10, atol=1e-12)
    assert F.flash_attn_qkvpacked(oar.to_tensor(qkv))[1] is None


@needs_paddle
@pytest.mark.parametrize("is_causal", [False, True])
def test_flash_attn_qkvpacked_matches_paddle(is_causal):
    paddle = _paddle()
    qkv = RNG.standard_normal((2, 6, 3, 2, 8)).astype("float32")
    o, w = F.flash_attn_qkvpacked(oar.to_tensor(qkv), causal=is_causal, return_softmax=True)
    po, pw = paddle.nn.functional.flash_attn_qkvpacked(paddle.to_tensor(qkv), causal=is_causal, return_softmax=True)
    np.testing.assert_allclose(o.numpy(), po.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(w.numpy(), pw.numpy(), rtol=1e-5, atol=1e-5)


def test_flash_attn_qkvpacked_grad():
    qkv = RNG.standard_normal((1, 3, 3, 1, 2))
    check_grad(lambda t: F.flash_attn_qkvpacked(t, causal=True)[0], [qkv])


def test_flash_attn_qkvpacked_errors():
    with pytest.raises(ValueError, match="flash_attn_qkvpacked"):
        F.flash_attn_qkvpacked(oar.zeros([1, 4, 2, 1, 8]))  # no query heads
    with pytest.raises(ValueError, match="5-D"):
        F.flash_attn_qkvpacked(oar.zeros([4, 3, 1, 8]))
    with pytest.raises(TypeError):
        F.flash_attn_qkvpacked(np.zeros([1, 4, 3, 1, 8]))


# ---------------------------------------------------------------- varlen
def _ref_varlen(q, k, v, starts_q, starts_k, lq, lk, total, is_causal, scale=None, window=(-1, -1), softcap=0.0):
    h, dv = q.shape[1], v.shape[2]
    out = np.zeros((total, h, dv))
    lse = np.full((h, total), np.inf)
    for b in range(len(lq)):
        if lq[b] == 0:
            continue
        qs = q[starts_q[b]:starts_q[b] + lq[b]][None]
        ks = k[starts_k[b]:starts_k[b] + lk[b]][None]
        vs = v[starts_k[b]:starts_k[b] + lk[b]][None]
        keep = np.ones((lq[b], lk[b]), bool)
        i = np.arange(lq[b])[:, None] + (lk[b] - lq[b])
        j = np.arange(lk[b])[None, :]
        if is_causal:
            keep &= j <= i
        if window[0] >= 0:
            keep &= j >= i - window[0]
        if window[1] >= 0:
            keep &= j <= i + window[1]
        o, l, _ = ref_attention(qs, ks, vs, keep, scale, softcap)
        out[starts_q[b]:starts_q[b] + lq[b]] = o[0]
        lse[:, starts_q[b]:starts_q[b] + lq[b]] = l[0]
    return out, lse


@pytest.mark.parametrize("padded", [False, True])
@pytest.mark.parametrize("is_causal", [False, True])
def test_flash_attn_varlen_qkvpacked(padded, is_causal):
    lens = np.array([3, 1, 4])
    maxlen = 4
    total = len(lens) * maxlen if padded else lens.sum()
    qkv = RNG.standard_normal((total, 3, 2, 4))
    cu = oar.to_tensor(np.concatenate([[0], np.cumsum(lens)]).astype("int32"))
    out, probs = F.flash_attn_varlen_qkvpacked(oar.to_tensor(qkv), cu, cu, maxlen, maxlen, 0.4,
                                               causal=is_causal, return_softmax=True, varlen_padded=padded)
    starts = np.arange(3) * maxlen if padded else np.concatenate([[0], np.cumsum(lens)[:-1]])
    q = qkv[:, :1].reshape(total, 2, 4)
    ro, _ = _ref_varlen(q, qkv[:, 1], qkv[:, 2], starts, starts, lens, lens, total, is_causal, 0.4)
    np.testing.assert_allclose(out.numpy(), ro, rtol=1e-10, atol=1e-12)
    assert list(probs.shape) == [3, 2, maxlen, maxlen]
    # sequence 1 has one token: its weight row is [1, 0, 0, 0]
    np.testing.assert_allclose(probs.numpy()[1, :, 0], [[1, 0, 0, 0]] * 2)
    np.testing.assert_allclose(probs.numpy()[1, :, 1:], 0)


def test_flash_attn_varlen_qkvpacked_grad():
    qkv = RNG.standard_normal((3, 3, 1, 2))
    cu = oar.to_tensor(np.array([0, 1, 3], "int32"))
    check_grad(lambda t: F.flash_attn_varlen_qkvpacked(t, cu, cu, 2, 2, 0.7, causal=True, varlen_padded=False)[0],
               [qkv])


def test_flash_attention_v3_varlen_numpy():
    lq, lk = np.array([2, 3, 0]), np.array([4, 3, 2])
    cq = np.concatenate([[0], np.cumsum(lq)]).astype("int32")
    ck = np.concatenate([[0], np.cumsum(lk)]).astype("int32")
    q = RNG.standard_normal((lq.sum(), 4, 3))
    k = RNG.standard_normal((lk.sum(), 2, 3))
    v = RNG.standard_normal((lk.sum(), 2, 5))
    for is_causal, window, softcap in [(False, (-1, -1), 0.0), (True, (-1, -1), 0.0), (False, (1, 0), 0.0),
                                       (True, (-1, -1), 2.0)]:
        out, lse = F.flash_attention_v3_varlen(oar.to_tensor(q), oar.to_tensor(k), oar.to_tensor(v),
                                               oar.to_tensor(cq), oar.to_tensor(ck), 3, 4, causal=is_causal,
                                               window_size=window, softcap=softcap, softmax_scale=0.6)
        ro, rl = _ref_varlen(q, k, v, cq[:-1], ck[:-1], lq, lk, lq.sum(), is_causal, 0.6, window, softcap)
        np.testing.assert_allclose(out.numpy(), ro, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(lse.numpy(), rl, rtol=1e-6)
        assert lse.dtype.name == "float32" and list(lse.shape) == [4, lq.sum()]
    # seqused_k: only the first tokens of each key sequence
    used = oar.to_tensor(np.array([2, 1, 2], "int32"))
    out, _ = F.flash_attention_v3_varlen(oar.to_tensor(q), oar.to_tensor(k), oar.to_tensor(v), oar.to_tensor(cq),
                                         oar.to_tensor(ck), 3, 4, seqused_k=used)
    ro, _ = _ref_varlen(q, k, v, cq[:-1], ck[:-1], lq, np.minimum(lk, [2, 1, 2]), lq.sum(), False)
    np.testing.assert_allclose(out.numpy(), ro, rtol=1e-10, atol=1e-12)


def test_flash_attention_v3_varlen_grad_and_errors():
    cu = oar.to_tensor(np.array([0, 2, 3], "int32"))
    q, k, v = (RNG.standard_normal((3, 2, 2)) for _ in range(3))
    check_grad(lambda a, b, c: F.flash_attention_v3_varlen(a, b, c, cu, cu, 2, 2, causal=True)[0], [q, k, v])
    t = oar.zeros([3, 2, 2])
    with pytest.raises(NotImplementedError, match="qv"):
        F.flash_attention_v3_varlen(t, t, t, cu, cu, 2, 2, qv=t)
    with pytest.raises(ValueError, match="cu_seqlens"):
        F.flash_attention_v3_varlen(t, t, t, oar.to_tensor(np.array([0, 5], "int32")), cu, 2, 2)
    with pytest.raises(TypeError, match="int32"):
        F.flash_attention_v3_varlen(t, t, t, oar.to_tensor([0.0, 3.0]), cu, 2, 2)


# ---------------------------------------------------------------- flashmask
def _flashmask_keep(idx, is_causal, sq, sk):
    rows = np.arange(sq)[None, None, :, None]
    a = idx[..., None, :, :]  # [B, h, 1, sk, n]
    col = lambda c: a[..., c]
    if is_causal:
        end = col(1) if idx.shape[-1] == 2 else np.full_like(col(0), 10 ** 9)
        masked = ((rows >= col(0)) & (rows < end)) | ~causal(sq, sk)[None, None]
    elif idx.shape[-1] == 2:
        masked = (rows >= col(0)) | (rows < col(1))
    else:
        masked = ((rows >= col(0)) & (rows < col(1))) | ((rows >= col(2)) & (rows < col(3)))
    return ~masked


@pytest.mark.parametrize("is_causal,n", [(True, 1), (True, 2), (False, 2), (False, 4)])
def test_flashmask_attention_numpy(is_causal, n):
    b, s, h, d = 2, 6, 2, 4
    q, k, v = (RNG.standard_normal((b, s, h, d)) for _ in range(3))
    idx = np.sort(RNG.integers(0, s + 1, size=(b, 1, s, n)), axis=-1).astype("int32")
    out, lse = F.flashmask_attention(oar.to_tensor(q), oar.to_tensor(k), oar.to_tensor(v), oar.to_tensor(idx),
                                     causal=is_causal, return_softmax_lse=True)
    keep = _flashmask_keep(idx.astype(np.int64), is_causal, s, s)
    ro, rl, _ = ref_attention(q, k, v, keep)
    np.testing.assert_allclose(out.numpy(), ro, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(lse.numpy(), rl, rtol=1e-6)


def test_flashmask_attention_paddle_docstring_mask():
    """Paddle's documented example: rows >= startend[j] of column j masked (heads 8 and 5), causal."""
    q = RNG.standard_normal((1, 10, 2, 4))
    idx = np.array([8] * 10 + [5] * 10, "int32").reshape(1, 2, 10, 1)
    out = F.flashmask_attention(oar.to_tensor(q), oar.to_tensor(q), oar.to_tensor(q), oar.to_tensor(idx),
                                causal=True).numpy()
    assert np.all(out[0, 8:, 0] == 0) and np.all(out[0, 5:, 1] == 0)
    assert np.all(out[0, :8, 0] != 0) and np.all(out[0, :5, 1] != 0)


def test_flashmask_attention_window_and_plain():
    q, k, v = (RNG.standard_normal((1, 7, 2, 4)) for _ in range(3))
    tq, tk, tv = map(oar.to_tensor, (q, k, v))
    i, j = np.arange(7)[:, None], np.arange(7)[None, :]
    out = F.flashmask_attention(tq, tk, tv, causal=True, window_size=2)
    np.testing.assert_allclose(out.numpy(), ref_attention(q, k, v, (j <= i) & (j >= i - 2))[0], atol=1e-12)
    out = F.flashmask_attention(tq, tk, tv, window_size=(1, 2))
    np.testing.assert_allclose(out.numpy(), ref_attention(q, k, v, (j >= i - 1) & (j <= i + 2))[0], atol=1e-12)
    out = F.flashmask_attention(tq, tk, tv, causal=True, softmax_scale=0.3)
    np.testing.assert_allclose(out.numpy(), ref_attention(q, k, v, j <= i, 0.3)[0], atol=1e-12)
    res = F.flashmask_attention(tq, tk, tv, return_seed_offset=True)
    assert isinstance(res, list) and len(res) == 2


def test_flashmask_attention_grad_and_errors():
    q, k, v = (RNG.standard_normal((1, 4, 1, 2)) for _ in range(3))
    idx = oar.to_tensor(np.array([[[[4], [3], [4], [4]]]], "int32"))
    check_grad(lambda a, b, c: F.flashmask_attention(a, b, c, idx, causal=True), [q, k, v])
    t = oar.zeros([1, 4, 1, 2])
    with pytest.raises(TypeError, match="int32"):
        F.flashmask_attention(t, t, t, oar.zeros([1, 1, 4, 1], "int64"), causal=True)
    with pytest.raises(ValueError, match="either 1 or 2"):
        F.flashmask_attention(t, t, t, oar.zeros([1, 1, 4, 4], "int32"), causal=True)
    with pytest.raises(ValueError, match="either 2 or 4"):
        F.flashmask_attention(t, t, t, oar.zeros([1, 1, 4, 1], "int32"))
    with pytest.raises(ValueError, match="seqlen_k"):
        F.flashmask_attention(t, t, t, oar.zeros([1, 1, 3, 1], "int32"), causal=True)
    with pytest.raises(ValueError, match="window_size"):
        F.flashmask_attention(t, t, t, oar.zeros([1, 1, 4, 1], "int32"), causal=True, window_size=1)


# ---------------------------------------------------------------- sparse_attention
def _csr_keep(off, cols, s):
    keep = np.zeros(off.shape[:2] + (s, s), bool)
    for b in range(off.shape[0]):
        for h in range(off.shape[1]):
            for i in range(s):
                keep[b, h, i, cols[b, h, off[b, h, i]:off[b, h, i + 1]]] = True
    return keep


def test_sparse_attention_paddle_docstring_example():
    x = oar.to_tensor([[[[0.0, 1.0], [2.0, 3.0], [0.0, 1.0], [2.0, 3.0]]]])
    off = oar.to_tensor([[[0, 2, 4, 6, 8]]], dtype="int32")
    cols = oar.to_tensor([[[0, 1, 0, 1, 2, 3, 2, 3]]], dtype="int32")
    kp = oar.to_tensor([[1.0, 1.0, 1.0, 0.0]])
    am = oar.to_tensor([[1.0, 0, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1]])
    out = F.sparse_attention(x, x, x, off, cols, key_padding_mask=kp, attn_mask=am)
    np.testing.assert_allclose(out.numpy()[0, 0], [[0, 1], [1.9983027, 2.9983027], [0, 1], [0, 1]], rtol=1e-6)
    out = F.sparse_attention(x, x, x, off, cols)
    np.testing.assert_allclose(out.numpy()[0, 0], [[1.6088594, 2.6088595], [1.9983027, 2.9983027],
                                                   [1.6088594, 2.6088595], [1.9983027, 2.9983027]], rtol=1e-6)


def test_sparse_attention_numpy_and_grad():
    b, h, s, d = 2, 2, 5, 3
    q, k, v = (RNG.standard_normal((b, h, s, d)) for _ in range(3))
    pattern = RNG.random((b, h, s, s)) < 0.5
    pattern[..., 2, :] = False  # an empty row: zeros
    off = np.zeros((b, h, s + 1), "int32")
    off[..., 1:] = np.cumsum(pattern.sum(-1), -1)
    nnz = off[..., -1].max()
    cols = np.zeros((b, h, nnz), "int32")
    for bi in range(b):
        for hi in range(h):
            c = np.nonzero(pattern[bi, hi])[1]
            cols[bi, hi, :c.size] = c
    kp = (RNG.random((b, s)) < 0.8).astype("float64")
    out = F.sparse_attention(*map(oar.to_tensor, (q, k, v, off, cols)), key_padding_mask=oar.to_tensor(kp))
    keep = _csr_keep(off, cols, s) & (kp != 0)[:, None, None, :]
    tr = lambda a: a.transpose(0, 2, 1, 3)
    ro = tr(ref_attention(tr(q), tr(k), tr(v), keep)[0])
    np.testing.assert_allclose(out.numpy(), ro, rtol=1e-10, atol=1e-12)
    assert np.all(out.numpy()[:, :, 2] == 0)
    to, tc = oar.to_tensor(off), oar.to_tensor(cols)
    check_grad(lambda a, c, e: F.sparse_attention(a, c, e, to, tc), [q, k, v])


def test_sparse_attention_errors():
    x = oar.zeros([1, 1, 4, 2])
    off = oar.to_tensor([[[0, 2, 4, 6, 8]]], dtype="int32")
    with pytest.raises(IndexError, match="sparse_csr_columns"):
        F.sparse_attention(x, x, x, off, oar.to_tensor([[[0, 1, 0, 1, 2, 3, 2, 9]]], dtype="int32"))
    with pytest.raises(ValueError, match="sparse_csr_offset"):
        F.sparse_attention(x, x, x, oar.to_tensor([[[0, 2, 4]]], dtype="int32"),
                           oar.to_tensor([[[0, 1, 0, 1]]], dtype="int32"))
    with pytest.raises(TypeError, match="float32 or float64"):
        F.sparse_attention(x.astype("float16"), x, x, off, oar.to_tensor([[[0] * 8]], dtype="int32"))


# ---------------------------------------------------------------- rnnt_loss
def ref_rnnt(acts, labels, il, ll, blank=0):
    out = []
    for b in range(acts.shape[0]):
        t_len, u_len = il[b], ll[b] + 1
        lp = acts[b, :t_len, :u_len]
        al = np.full((t_len, u_len), -np.inf)
        al[0, 0] = 0.0
        for t in range(t_len):
            for u in range(u_len):
                if t == 0 and u == 0:
                    continue
                terms = []
                if t > 0:
                    terms.append(al[t - 1, u] + lp[t - 1, u, blank])
                if u > 0:
                    terms.append(al[t, u - 1] + lp[t, u - 1, labels[b, u - 1]])
                al[t, u] = np.logaddexp.reduce(terms)
        out.append(-(al[-1, -1] + lp[-1, -1, blank]))
    return np.array(out)


ACTS = RNG.standard_normal((3, 5, 4, 6))
LABELS = np.array([[1, 2, 3], [2, 4, 0], [5, 0, 0]], "int32")
ILENS = np.array([5, 3, 4], "int32")
LLENS = np.array([3, 2, 1], "int32")


def _rnnt(acts, **kw):
    return F.rnnt_loss(acts, oar.to_tensor(LABELS), oar.to_tensor(ILENS), oar.to_tensor(LLENS), **kw)


@pytest.mark.parametrize("blank", [0, 5])
def test_rnnt_loss_numpy(blank):
    labels = LABELS if blank == 0 else np.where(LABELS == 5, 1, LABELS)
    ref = ref_rnnt(ACTS, labels, ILENS, LLENS, blank)
    got = F.rnnt_loss(oar.to_tensor(ACTS), oar.to_tensor(labels), oar.to_tensor(ILENS), oar.to_tensor(LLENS),
                      blank=blank, reduction="none")
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-12)
    assert got.dtype.name == "float64" and list(got.shape) == [3]
    np.testing.assert_allclose(float(_rnnt(oar.to_tensor(ACTS), blank=0, reduction="sum")),
                               ref_rnnt(ACTS, LABELS, ILENS, LLENS).sum(), rtol=1e-12)
    np.testing.assert_allclose(float(_rnnt(oar.to_tensor(ACTS))), ref_rnnt(ACTS, LABELS, ILENS, LLENS).sum() / 3,
                               rtol=1e-12)


def test_rnnt_loss_grad():
    check_grad(lambda a: _rnnt(a, reduction="none", fastemit_lambda=0.0), [ACTS.copy()])


def test_rnnt_loss_fastemit_scales_label_gradient():
    """FastEmit keeps the loss and scales the gradient of the label emissions by 1 + lambda."""
    grads = []
    for lam in (0.0, 0.5):
        x = oar.to_tensor(ACTS, stop_gradient=False)
        loss = _rnnt(x, reduction="sum", fastemit_lambda=lam)
        loss.backward()
        grads.append((float(loss), x.grad.numpy()))
    assert grads[0][0] == pytest.approx(grads[1][0], rel=1e-14)
    mask = np.zeros(ACTS.shape, bool)
    for b in range(3):
        for u in range(LLENS[b]):
            mask[b, :, u, LABELS[b, u]] = True
    g0, g1 = grads[0][1], grads[1][1]
    np.testing.assert_allclose(g1[mask], 1.5 * g0[mask], rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(g1[~mask], g0[~mask], rtol=1e-10, atol=1e-14)


@needs_paddle
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rnnt_loss_matches_paddle(reduction, dtype):
    paddle = _paddle()
    a = ACTS.astype(dtype)
    x = oar.to_tensor(a, stop_gradient=False)
    loss = _rnnt(x, reduction=reduction, fastemit_lambda=0.01)
    loss.sum().backward()
    px = paddle.to_tensor(a, stop_gradient=False)
    pl = paddle.nn.functional.rnnt_loss(px, paddle.to_tensor(LABELS), paddle.to_tensor(ILENS),
                                        paddle.to_tensor(LLENS), fastemit_lambda=0.01, reduction=reduction)
    pl.sum().backward()
    tol = 1e-5 if dtype == "float32" else 1e-7
    assert loss.dtype.name == dtype and list(loss.shape) == list(pl.shape)
    np.testing.assert_allclose(loss.numpy(), pl.numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(x.grad.numpy(), px.grad.numpy(), rtol=tol, atol=tol)


def test_rnnt_loss_layer_and_errors():
    layer = oar.nn.RNNTLoss(blank=0, fastemit_lambda=0.0, reduction="none")
    got = layer(oar.to_tensor(ACTS), oar.to_tensor(LABELS), oar.to_tensor(ILENS), oar.to_tensor(LLENS))
    np.testing.assert_allclose(got.numpy(), ref_rnnt(ACTS, LABELS, ILENS, LLENS), rtol=1e-12)
    assert repr(oar.nn.RNNTLoss()) == "RNNTLoss()"
    x = oar.to_tensor(ACTS)
    with pytest.raises(ValueError, match="reduction"):
        oar.nn.RNNTLoss(reduction="avg")
    with pytest.raises(ValueError, match="reduction"):
        _rnnt(x, reduction="avg")
    with pytest.raises(TypeError, match="int32"):
        F.rnnt_loss(x, oar.to_tensor(LABELS.astype("int64")), oar.to_tensor(ILENS), oar.to_tensor(LLENS))
    with pytest.raises(ValueError, match="label_lengths"):
        F.rnnt_loss(x, oar.to_tensor(LABELS), oar.to_tensor(ILENS), oar.to_tensor(np.array([4, 1, 1], "int32")))
    with pytest.raises(ValueError, match="blank"):
        _rnnt(x, blank=6)
    with pytest.raises(ValueError, match="4-D"):
        F.rnnt_loss(x[0], oar.to_tensor(LABELS), oar.to_tensor(ILENS), oar.to_tensor(LLENS))
    with pytest.raises(TypeError, match="float32 or float64"):
        _rnnt(x.astype("float16"))


# ---------------------------------------------------------------- class_center_sample
def test_class_center_sample():
    label = np.array([9, 5, 5, 1, 7])
    oar.seed(3)
    remapped, centres = F.class_center_sample(oar.to_tensor(label), 20, 8)
    c = centres.numpy()
    assert c.dtype == np.int64 and c.shape == (8,) and len(set(c.tolist())) == 8
    np.testing.assert_array_equal(c[:4], [1, 5, 7, 9])
    assert np.all((c >= 0) & (c < 20))
    np.testing.assert_array_equal(c[remapped.numpy()], label)
    oar.seed(3)
    again = F.class_center_sample(oar.to_tensor(label), 20, 8)[1].numpy()
    np.testing.assert_array_equal(again, c)
    # more positives than samples: only the positives
    r, c = F.class_center_sample(oar.to_tensor(np.array([3, 1, 2], "int32")), 5, 2)
    assert r.dtype.name == "int32" and c.numpy().tolist() == [1, 2, 3] and r.numpy().tolist() == [2, 0, 1]


def test_class_center_sample_errors():
    with pytest.raises(ValueError, match="num_samples less than or equal to 5"):
        F.class_center_sample(oar.to_tensor([1, 2]), 5, 6)
    with pytest.raises(ValueError, match="1-D"):
        F.class_center_sample(oar.to_tensor([[1, 2]]), 5, 3)
    with pytest.raises(TypeError, match="int32 or int64"):
        F.class_center_sample(oar.to_tensor([1.0, 2.0]), 5, 3)
    with pytest.raises(ValueError, match=r"\[0, 5\)"):
        F.class_center_sample(oar.to_tensor([1, 7]), 5, 3)


# ---------------------------------------------------------------- dynamic_decode / BeamSearchDecoder
def _decoder(lib, beam, end_bias=0.0):
    cell = lib.nn.GRUCell(input_size=6, hidden_size=6)
    emb, lin = lib.nn.Embedding(9, 6), lib.nn.Linear(6, 9)
    rng = np.random.default_rng(7)
    for layer in (cell, emb, lin):
        for _, p in sorted(layer.named_parameters()):
            p.set_value(rng.standard_normal(p.shape).astype("float32") * 0.8)
    b = lin.bias.numpy()
    b[1] += end_bias
    lin.bias.set_value(b)
    return lib.nn.BeamSearchDecoder(cell, start_token=0, end_token=1, beam_size=beam, embedding_fn=emb, output_fn=lin)


def _run_decode(lib, beam, batch, end_bias, **kw):
    h0 = lib.to_tensor(np.random.default_rng(1).standard_normal((batch, 6)).astype("float32"))
    return lib.nn.dynamic_decode(_decoder(lib, beam, end_bias), inits=h0, return_length=True, **kw)


@needs_paddle
@pytest.mark.parametrize("beam,batch,end_bias", [(1, 2, 0.0), (3, 2, 0.0), (3, 3, 2.5), (4, 1, 6.0)])
def test_dynamic_decode_matches_paddle(beam, batch, end_bias):
    paddle = _paddle()
    got = _run_decode(oar, beam, batch, end_bias, max_step_num=6)
    ref = _run_decode(paddle, beam, batch, end_bias, max_step_num=6)
    np.testing.assert_array_equal(got[0].numpy(), ref[0].numpy())
    np.testing.assert_array_equal(got[2].numpy(), ref[2].numpy())
    np.testing.assert_array_equal(got[1].finished.numpy(), ref[1].finished.numpy())
    np.testing.assert_allclose(got[1].log_probs.numpy(), ref[1].log_probs.numpy(), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(got[1].cell_states.numpy(), ref[1].cell_states.numpy(), rtol=1e-5, atol=1e-5)


def test_dynamic_decode_stops_when_finished():
    """A huge end-token bias: the single beam ends at the first step, so one step runs; with two
    beams the runner-up takes one more step to end."""
    ids, states, lengths = _run_decode(oar, 1, 3, 50.0, max_step_num=10)
    assert list(ids.shape) == [3, 1, 1]
    assert np.all(states.finished.numpy()) and np.all(ids.numpy() == 1) and np.all(lengths.numpy() == 1)
    ids, states, lengths = _run_decode(oar, 2, 3, 50.0, max_step_num=10)
    assert list(ids.shape) == [3, 2, 2]
    np.testing.assert_array_equal(lengths.numpy(), [[1, 2]] * 3)
    ids, _, _ = _run_decode(oar, 2, 3, -50.0, max_step_num=4, output_time_major=True)
    assert list(ids.shape) == [5, 3, 2]  # max_step_num + 1 steps, time major


def test_beam_search_decoder_helpers():
    x = oar.to_tensor(np.arange(6.0).reshape(2, 3))
    t = oar.nn.BeamSearchDecoder.tile_beam_merge_with_batch(x, 2).numpy()
    np.testing.assert_array_equal(t, np.repeat(np.arange(6.0).reshape(2, 3), 2, axis=0))
    with pytest.raises(ValueError, match="beam_size"):
        oar.nn.BeamSearchDecoder(oar.nn.GRUCell(2, 2), 0, 1, beam_size=0)
    with pytest.raises(TypeError, match="decoder"):
        oar.nn.dynamic_decode(object())
