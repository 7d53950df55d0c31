"""oar.incubate.nn.functional and oar.incubate.nn (paddle.incubate.nn): the fused ops against
NumPy references of their documented formulas, float64 gradients against central differences,
real Paddle where its CPU build runs them (fused_rms_norm, fused_layer_norm, fused_dropout_add,
the layers' state_dicts), and Paddle's errors for bad arguments."""
import math

import numpy as np
import pytest

import oar
import oar.incubate.nn.functional as IF
from op_test import assert_close, check_grad, rand


def t(a, stop_gradient=True):
    return oar.to_tensor(a, stop_gradient=stop_gradient)


# ---- NumPy references ----

def np_layer_norm(h, w=None, b=None, eps=1e-5):
    mu = h.mean(-1, keepdims=True)
    out = (h - mu) / np.sqrt(((h - mu) ** 2).mean(-1, keepdims=True) + eps)
    return out * (1 if w is None else w) + (0 if b is None else b)


def np_rms_norm(h, w=None, b=None, eps=1e-5):
    out = h / np.sqrt((h * h).mean(-1, keepdims=True) + eps)
    return out * (1 if w is None else w) + (0 if b is None else b)


def np_softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def np_gelu(x):
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / np.sqrt(2)))


def np_silu(x):
    return x / (1 + np.exp(-x))


def np_attention(x, qkv_w, qkv_b, lin_w, lin_b, mask=None, cache=None):
    """x [b, s, e]; qkv_w [3, h, d, e] -> out before the residual, and the cache."""
    b, s, e = x.shape
    _, h, d, _ = qkv_w.shape
    qkv = x @ qkv_w.reshape(3 * h * d, e).T + (0 if qkv_b is None else qkv_b.reshape(-1))
    qkv = qkv.reshape(b, s, 3, h, d).transpose(2, 0, 3, 1, 4)
    q, k, v = qkv
    if cache is not None:
        k = np.concatenate([cache[0], k], 2)
        v = np.concatenate([cache[1], v], 2)
    scores = (q * d ** -0.5) @ k.transpose(0, 1, 3, 2)
    if mask is not None:
        scores = scores + mask
    out = (np_softmax(scores) @ v).transpose(0, 2, 1, 3).reshape(b, s, h * d)
    return out @ lin_w + (0 if lin_b is None else lin_b), np.stack([k, v])


# ---- fused_rms_norm / fused_layer_norm ----

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_norms_match_numpy(dtype):
    x, r = rand((2, 3, 4), dtype, seed=1), rand((2, 3, 4), dtype, seed=2)
    w, nb, bias = rand((4,), dtype, 0.5, 1.5, seed=3), rand((4,), dtype, seed=4), rand((4,), dtype, seed=5)
    out, res = IF.fused_rms_norm(t(x), t(w), t(nb), 1e-5, begin_norm_axis=2)
    assert_close(out, np_rms_norm(x, w, nb), dtype)
    assert res.shape == [0]
    out, res = IF.fused_rms_norm(t(x), t(w), None, 1e-5, 2, bias=t(bias), residual=t(r))
    assert_close(out, np_rms_norm(x + bias + r, w), dtype)
    assert_close(res, x + bias + r, dtype)
    out, res, mean, invvar = IF.fused_layer_norm(t(x), t(w), t(nb), 1e-5, 0.5, 2, bias=t(bias), residual=t(r))
    h = x + bias + 0.5 * r
    assert_close(out, np_layer_norm(h, w, nb), dtype)
    assert_close(res, h, dtype)
    assert_close(mean, h.mean(-1).ravel(), dtype)
    assert_close(invvar, 1 / np.sqrt(h.var(-1).ravel() + 1e-5), dtype)
    # begin_norm_axis=1 normalises the last two dims together.
    w12 = rand((12,), dtype, seed=6)
    out, _ = IF.fused_rms_norm(t(x), t(w12), None, 1e-5, begin_norm_axis=1)
    assert_close(out, np_rms_norm(x.reshape(2, 12), w12).reshape(2, 3, 4), dtype)
    # Without norm weights, fused_layer_norm returns the fused sum.
    out = IF.fused_layer_norm(t(x), None, None, 1e-5, begin_norm_axis=2, residual=t(r))[0]
    assert_close(out, x + r, dtype)


def test_fused_norms_gradients():
    x, r = rand((2, 3, 4), seed=1), rand((2, 3, 4), seed=2)
    w, nb, bias = rand((4,), low=0.5, high=1.5, seed=3), rand((4,), seed=4), rand((4,), seed=5)
    check_grad(lambda x, w, nb, b, r: IF.fused_rms_norm(x, w, nb, 1e-5, 2, bias=b, residual=r),
               [x, w, nb, bias, r])
    check_grad(lambda x, w, nb, b, r: IF.fused_layer_norm(x, w, nb, 1e-5, 0.7, 2, bias=b, residual=r)[:2],
               [x, w, nb, bias, r])


def test_fused_norms_match_paddle():
    paddle = pytest.importorskip("paddle")
    PF = paddle.incubate.nn.functional
    x, r = rand((2, 3, 8), "float32", seed=1), rand((2, 3, 8), "float32", seed=2)
    w, nb, bias = rand((8,), "float32", 0.5, 1.5, seed=3), rand((8,), "float32", seed=4), rand((8,), "float32", seed=5)
    for kwargs in ({}, {"bias": bias}, {"bias": bias, "residual": r}, {"residual": r}):
        pk = {k: paddle.to_tensor(v) for k, v in kwargs.items()}
        ok = {k: t(v) for k, v in kwargs.items()}
        exp = PF.fused_rms_norm(paddle.to_tensor(x), paddle.to_tensor(w), paddle.to_tensor(nb), 1e-5, 2, **pk)
        got = IF.fused_rms_norm(t(x), t(w), t(nb), 1e-5, 2, **ok)
        assert_close(got[0], exp[0].numpy(), "float32", f"rms {list(kwargs)}")
        exp = PF.fused_layer_norm(paddle.to_tensor(x), paddle.to_tensor(w), paddle.to_tensor(nb), 1e-5, 1.5, 2, **pk)
        got = IF.fused_layer_norm(t(x), t(w), t(nb), 1e-5, 1.5, 2, **ok)
        assert_close(got[0], exp[0].numpy(), "float32", f"layer {list(kwargs)}")
        assert_close(got[2], exp[2].numpy(), "float32", "mean")
        assert_close(got[3], exp[3].numpy(), "float32", "invvar")
        if "residual" in kwargs:
            assert_close(got[1], exp[1].numpy(), "float32", "residual_out")


def test_fused_norms_errors():
    x = oar.ones([2, 3, 4])
    with pytest.raises(ValueError, match="normalized size of Input\\(X\\)"):
        IF.fused_rms_norm(x, oar.ones([4]), None, 1e-5, begin_norm_axis=1)
    with pytest.raises(NotImplementedError, match="quant_scale"):
        IF.fused_layer_norm(x, oar.ones([4]), None, 1e-5, begin_norm_axis=2, quant_scale=1.0)
    with pytest.raises(ValueError, match="begin_norm_axis"):
        IF.fused_rms_norm(x, oar.ones([4]), None, 1e-5, begin_norm_axis=3)


# ---- matmul + bias + activation ----

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_matmul_bias_linear_activation(dtype):
    x, w, b = rand((2, 3, 4), dtype, seed=1), rand((4, 5), dtype, seed=2), rand((5,), dtype, seed=3)
    assert_close(IF.fused_matmul_bias(t(x), t(w), t(b)), x @ w + b, dtype)
    assert_close(IF.fused_matmul_bias(t(x), t(w)), x @ w, dtype)
    assert_close(IF.fused_matmul_bias(t(x), t(w.T), t(b), transpose_y=True), x @ w + b, dtype)
    assert_close(IF.fused_linear(t(x), t(w.T), t(b), transpose_weight=True), x @ w + b, dtype)
    assert_close(IF.fused_linear_activation(t(x[0]), t(w), t(b), activation="relu"), np.maximum(x[0] @ w + b, 0), dtype)
    h = x[0] @ w + b
    gelu_tanh = 0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h ** 3)))
    assert_close(IF.fused_linear_activation(t(x[0]), t(w), t(b), activation="gelu"), gelu_tanh, dtype)
    check_grad(lambda x, w, b: IF.fused_linear(x, w, b), [x, w, b])
    with pytest.raises(ValueError, match="activation"):
        IF.fused_linear_activation(t(x[0]), t(w), t(b), activation="tanh")
    with pytest.raises(ValueError, match="rank of y"):
        IF.fused_matmul_bias(t(x), t(x))


@pytest.mark.parametrize("act", ["gelu", "relu", "silu", "swiglu", "geglu"])
def test_fused_bias_act(act):
    x, b = rand((3, 6), seed=1), rand((6,), seed=2)
    h = x + b
    a, g = h[:, :3], h[:, 3:]
    ref = {"gelu": np_gelu(h), "relu": np.maximum(h, 0), "silu": np_silu(h), "swiglu": np_silu(a) * g,
           "geglu": np_gelu(a) * g}[act]
    assert_close(IF.fused_bias_act(t(x), t(b), act_method=act), ref, "float64", act)
    check_grad(lambda x, b: IF.fused_bias_act(x, b, act_method=act), [x, b])


def test_fused_bias_act_errors():
    with pytest.raises(ValueError, match="act_method"):
        IF.fused_bias_act(oar.ones([2, 4]), act_method="tanh")
    with pytest.raises(NotImplementedError, match="dequant_scales"):
        IF.fused_bias_act(oar.ones([2, 4]), dequant_scales=oar.ones([4]))
    with pytest.raises(NotImplementedError, match="quant_scale"):
        IF.fused_bias_act(oar.ones([2, 4]), quant_scale=2.0)
    with pytest.raises(ValueError, match="even"):
        IF.fused_bias_act(oar.ones([2, 3]), act_method="swiglu")


def test_swiglu_alias():
    x = rand((2, 6), seed=1)
    assert_close(IF.swiglu(t(x)), np_silu(x[:, :3]) * x[:, 3:], "float64")
    assert "swiglu" not in IF.__all__


# ---- dropout + add ----

def test_fused_dropout_add():
    x, y = oar.ones([64, 64]), oar.ones([64, 64])
    assert_close(IF.fused_dropout_add(x, y, p=0.5, training=False), np.full((64, 64), 2.0), "float32")
    assert_close(IF.fused_dropout_add(x, y, p=0.5, training=False, mode="downscale_in_infer"),
                 np.full((64, 64), 1.5), "float32")
    out = IF.fused_dropout_add(x, y, p=0.5).numpy()
    assert set(np.unique(out)) <= {1.0, 3.0} and 0.4 < (out == 1.0).mean() < 0.6
    out = IF.fused_dropout_add(x, y, p=0.5, mode="downscale_in_infer").numpy()
    assert set(np.unique(out)) <= {1.0, 2.0}
    assert_close(IF.fused_dropout_add(x, y, p=0.0), np.full((64, 64), 2.0), "float32")
    with pytest.raises(ValueError, match="p argument should between 0 and 1"):
        IF.fused_dropout_add(x, y, p=1.5)
    with pytest.raises(ValueError, match="mode argument"):
        IF.fused_dropout_add(x, y, mode="foo")


def test_fused_dropout_add_matches_paddle_at_inference():
    paddle = pytest.importorskip("paddle")
    x, y = rand((3, 4), "float32", seed=1), rand((3, 4), "float32", seed=2)
    for mode in ("upscale_in_train", "downscale_in_infer"):
        exp = paddle.incubate.nn.functional.fused_dropout_add(paddle.to_tensor(x), paddle.to_tensor(y), 0.3,
                                                              training=False, mode=mode)
        assert_close(IF.fused_dropout_add(t(x), t(y), 0.3, training=False, mode=mode), exp.numpy(), "float32")


# ---- rotary position embedding ----

def np_rope(x, sin, cos, every_two):
    """x [b, s, h, d]; sin / cos [b or 1, s, 1, d]."""
    if every_two:
        rot = np.empty_like(x)
        rot[..., 0::2], rot[..., 1::2] = -x[..., 1::2], x[..., 0::2]
    else:
        half = x.shape[-1] // 2
        rot = np.concatenate([-x[..., half:], x[..., :half]], -1)
    return x * cos + rot * sin


def np_default_tables(seq, dim, every_two, base=10000.0):
    inv = base ** (-np.arange(0, dim, 2) / dim)
    freqs = np.arange(seq)[:, None] * inv[None]
    ang = np.repeat(freqs, 2, axis=1) if every_two else np.concatenate([freqs, freqs], 1)
    return np.sin(ang)[None, :, None], np.cos(ang)[None, :, None]


@pytest.mark.parametrize("neox", [True, False])
def test_fused_rope_with_tables_and_position_ids(neox):
    q, k, v = rand((2, 5, 3, 8), seed=1), rand((2, 5, 2, 8), seed=2), rand((2, 5, 3, 8), seed=3)
    sin, cos = np.sin(rand((5, 8), seed=4) * 3), np.cos(rand((5, 8), seed=5) * 3)
    out = IF.fused_rotary_position_embedding(t(q), t(k), t(v), t(sin), t(cos), use_neox_rotary_style=neox)
    for o, x in zip(out, (q, k, v)):
        assert_close(o, np_rope(x, sin[None, :, None], cos[None, :, None], neox), "float64")
    pos = np.array([[4, 3, 2, 1, 0], [0, 0, 1, 1, 2]], dtype="int64")
    out_q, out_k, out_v = IF.fused_rotary_position_embedding(t(q), t(k), None, t(sin[None, :, None]),
                                                             t(cos[None, :, None]), position_ids=t(pos),
                                                             use_neox_rotary_style=neox)
    assert out_v is None
    assert_close(out_q, np_rope(q, sin[pos][:, :, None], cos[pos][:, :, None], neox), "float64")
    # time-major: the same rotation with batch and sequence swapped.
    out_tm = IF.fused_rotary_position_embedding(t(q.transpose(1, 0, 2, 3)), sin=t(sin), cos=t(cos),
                                                use_neox_rotary_style=neox, time_major=True)[0]
    assert_close(out_tm, np_rope(q, sin[None, :, None], cos[None, :, None], neox).transpose(1, 0, 2, 3), "float64")
    check_grad(lambda q, k: IF.fused_rotary_position_embedding(q, k, sin=t(sin), cos=t(cos),
                                                               use_neox_rotary_style=neox)[:2], [q, k])


@pytest.mark.parametrize("neox", [True, False])
def test_fused_rope_default_tables(neox):
    q = rand((2, 6, 2, 8), seed=1)
    sin, cos = np_default_tables(6, 8, neox, base=500.0)
    out = IF.fused_rotary_position_embedding(t(q), use_neox_rotary_style=neox, rotary_emb_base=500.0)[0]
    assert_close(out, np_rope(q, sin, cos, neox), "float64")


def test_fused_rope_errors():
    q = oar.ones([2, 3, 2, 4])
    with pytest.raises(ValueError, match="4-D"):
        IF.fused_rotary_position_embedding(oar.ones([3, 4]))
    with pytest.raises(ValueError, match="even head_dim"):
        IF.fused_rotary_position_embedding(oar.ones([2, 3, 2, 5]))
    with pytest.raises(ValueError, match="together"):
        IF.fused_rotary_position_embedding(q, sin=oar.ones([3, 4]))
    with pytest.raises(ValueError, match="position_ids"):
        IF.fused_rotary_position_embedding(q, position_ids=oar.zeros([2, 3], "int64"))


# ---- feed-forward, bias-dropout-residual-layer-norm, multi-head attention ----

@pytest.mark.parametrize("pre", [False, True])
@pytest.mark.parametrize("act", ["relu", "gelu"])
def test_fused_feedforward(pre, act):
    x, w1, w2 = rand((2, 3, 4), seed=1), rand((4, 6), seed=2), rand((6, 4), seed=3)
    b1, b2, s1, c1, s2, c2 = (rand(s, seed=i) for i, s in enumerate([(6,), (4,), (4,), (4,), (4,), (4,)], 4))
    h = np_layer_norm(x, s1, c1) if pre else x
    h = h @ w1 + b1
    h = (np.maximum(h, 0) if act == "relu" else np_gelu(h)) @ w2 + b2
    ref = x + h if pre else np_layer_norm(x + h, s2, c2)
    args = dict(activation=act, pre_layer_norm=pre, training=False)
    out = IF.fused_feedforward(t(x), t(w1), t(w2), t(b1), t(b2), t(s1), t(c1), t(s2), t(c2), **args)
    assert_close(out, ref, "float64")
    out = IF.fused_feedforward(t(x), t(w1), t(w2), t(b1), t(b2), t(s1), t(c1), t(s2), t(c2), add_residual=False,
                               **args)
    assert_close(out, h if pre else np_layer_norm(h, s2, c2), "float64")
    check_grad(lambda x, w1, w2, b1, b2, s1, c1, s2, c2: IF.fused_feedforward(x, w1, w2, b1, b2, s1, c1, s2, c2,
                                                                              **args),
               [x, w1, w2, b1, b2, s1, c1, s2, c2])


def test_fused_bias_dropout_residual_layer_norm():
    x, r, b, s, c = rand((2, 3, 4), seed=1), rand((2, 3, 4), seed=2), rand((4,), seed=3), rand((4,), seed=4), \
        rand((4,), seed=5)
    out = IF.fused_bias_dropout_residual_layer_norm(t(x), t(r), t(b), t(s), t(c), training=False)
    assert_close(out, np_layer_norm(r + x + b, s, c), "float64")
    out = IF.fused_bias_dropout_residual_layer_norm(t(x), t(r), dropout_rate=0.0)
    assert_close(out, np_layer_norm(r + x), "float64")
    check_grad(lambda x, r, b, s, c: IF.fused_bias_dropout_residual_layer_norm(x, r, b, s, c, training=False),
               [x, r, b, s, c])
    with pytest.raises(ValueError, match="same shape"):
        IF.fused_bias_dropout_residual_layer_norm(t(x), t(r[0]))


@pytest.mark.parametrize("pre", [False, True])
def test_fused_multi_head_attention(pre):
    x = rand((2, 3, 8), seed=1)
    qkv_w, qkv_b, lin_w, lin_b = rand((3, 2, 4, 8), seed=2), rand((3, 2, 4), seed=3), rand((8, 8), seed=4), \
        rand((8,), seed=5)
    s, c = rand((8,), seed=6), rand((8,), seed=7)
    mask = np.where(np.tril(np.ones((3, 3))) > 0, 0.0, -1e9)[None, None].repeat(2, 0)
    h = np_layer_norm(x, s, c) if pre else x
    att, _ = np_attention(h, qkv_w, qkv_b, lin_w, lin_b, mask)
    ref = x + att if pre else np_layer_norm(x + att, s, c)
    ln = dict(pre_ln_scale=t(s), pre_ln_bias=t(c)) if pre else dict(ln_scale=t(s), ln_bias=t(c))
    out = IF.fused_multi_head_attention(t(x), t(qkv_w), t(lin_w), pre, qkv_bias=t(qkv_b), linear_bias=t(lin_b),
                                        attn_mask=t(mask), training=False, **ln)
    assert_close(out, ref, "float64")
    # A bool mask (True attends) is the same as the additive one.
    out = IF.fused_multi_head_attention(t(x), t(qkv_w), t(lin_w), pre, qkv_bias=t(qkv_b), linear_bias=t(lin_b),
                                        attn_mask=t(mask == 0), training=False, **ln)
    assert_close(out, ref, "float64")
    # transpose_qkv_wb: the [embed, 3 * embed] layout of the same weights.
    out = IF.fused_multi_head_attention(t(x), t(qkv_w.reshape(24, 8).T), t(lin_w), pre,
                                        qkv_bias=t(qkv_b.reshape(-1)), linear_bias=t(lin_b), attn_mask=t(mask),
                                        training=False, num_heads=2, transpose_qkv_wb=True, **ln)
    assert_close(out, ref, "float64")
    out = IF.fused_multi_head_attention(t(x), t(qkv_w), t(lin_w), pre, qkv_bias=t(qkv_b), linear_bias=t(lin_b),
                                        attn_mask=t(mask), training=False, add_residual=False, **ln)
    assert_close(out, att if pre else np_layer_norm(att, s, c), "float64")
    check_grad(lambda x, w, lw, b: IF.fused_multi_head_attention(x, w, lw, pre, qkv_bias=b, attn_mask=t(mask),
                                                                 training=False, **ln),
               [x, qkv_w, lin_w, qkv_b])


def test_fused_multi_head_attention_cache_kv():
    x, qkv_w, lin_w = rand((2, 1, 8), seed=1), rand((3, 2, 4, 8), seed=2), rand((8, 8), seed=3)
    cache = rand((2, 2, 2, 3, 4), seed=4)
    att, cache_ref = np_attention(np_layer_norm(x), qkv_w, None, lin_w, None, cache=cache)
    out, cache_out = IF.fused_multi_head_attention(t(x), t(qkv_w), t(lin_w), True, cache_kv=t(cache),
                                                   training=False)
    assert_close(out, x + att, "float64")
    assert_close(cache_out, cache_ref, "float64")


def test_fused_multi_head_attention_errors():
    x = oar.ones([2, 3, 8])
    with pytest.raises(ValueError, match="num_heads"):
        IF.fused_multi_head_attention(x, oar.ones([8, 24]), oar.ones([8, 8]), transpose_qkv_wb=True)
    with pytest.raises(ValueError, match="3-D"):
        IF.fused_multi_head_attention(oar.ones([3, 8]), oar.ones([3, 2, 4, 8]), oar.ones([8, 8]))
    with pytest.raises(NotImplementedError, match="ring_id"):
        IF.fused_multi_head_attention(x, oar.ones([3, 2, 4, 8]), oar.ones([8, 8]), ring_id=0)
    with pytest.raises(ValueError, match="p argument"):
        IF.fused_multi_head_attention(x, oar.ones([3, 2, 4, 8]), oar.ones([8, 8]), dropout_rate=2.0)


# ---- variable-length attention ----

def np_varlen(q, k, v, q_lens, kv_lens, mask=None, scale=None, causal=False, pre=0):
    b, h, s, d = q.shape
    scale = d ** -0.5 if scale is None else scale
    out = np.zeros_like(q)
    for i in range(b):
        for j in range(q_lens[i]):
            keys = [n for n in range(kv_lens[i]) if not causal or n <= j + pre]
            sc = np.einsum("hd,hnd->hn", q[i, :, j], k[i][:, keys]) * scale
            if mask is not None:
                sc = sc + mask[i, 0, j, keys]
            out[i, :, j] = np.einsum("hn,hnd->hd", np_softmax(sc), v[i][:, keys])
    return out


@pytest.mark.parametrize("causal", [False, True])
def test_variable_length_memory_efficient_attention(causal):
    q, k, v = rand((2, 2, 4, 8), seed=1), rand((2, 2, 5, 8), seed=2), rand((2, 2, 5, 8), seed=3)
    mask = rand((2, 1, 4, 5), seed=4)
    q_lens, kv_lens = np.array([[4], [2]], "int32"), np.array([[5], [3]], "int32")
    out = IF.variable_length_memory_efficient_attention(t(q), t(k), t(v), t(q_lens), t(kv_lens), t(mask),
                                                        scale=0.3, causal=causal, pre_cache_length=1)
    assert_close(out, np_varlen(q, k, v, q_lens.ravel(), kv_lens.ravel(), mask, 0.3, causal, 1), "float64")
    check_grad(lambda q, k, v: IF.variable_length_memory_efficient_attention(q, k, v, t(q_lens), t(kv_lens),
                                                                             causal=causal), [q, k, v])


def test_variable_length_attention_grouped_heads_and_errors():
    q, kv = rand((1, 4, 3, 8), seed=1), rand((1, 2, 3, 8), seed=2)
    lens = np.array([[3]], "int32")
    out = IF.variable_length_memory_efficient_attention(t(q), t(kv), t(kv), t(lens), t(lens))
    full = kv.repeat(2, axis=1)
    assert_close(out, np_varlen(q, full, full, [3], [3]), "float64")
    with pytest.raises(ValueError, match="multiple"):
        IF.variable_length_memory_efficient_attention(t(q), t(rand((1, 3, 3, 8))), t(rand((1, 3, 3, 8))),
                                                      t(lens), t(lens))
    with pytest.raises(TypeError, match="seq_lens"):
        IF.variable_length_memory_efficient_attention(t(q), t(kv), t(kv), t(lens.astype("float32")), t(lens))


# ---- fused_multi_transformer ----

def _mt_params(layers, e=8, h=2, f=16, glu=False, seed=0):
    rng = np.random.default_rng(seed)
    p = {k: [] for k in ("ln_s", "ln_b", "qkv_w", "qkv_b", "lin_w", "lin_b", "ffn_ln_s", "ffn_ln_b", "w1", "b1",
                         "w2", "b2")}
    d = e // h
    for _ in range(layers):
        p["ln_s"].append(rng.uniform(0.5, 1.5, e)), p["ln_b"].append(rng.uniform(-.5, .5, e))
        p["qkv_w"].append(rng.uniform(-.5, .5, (3, h, d, e))), p["qkv_b"].append(rng.uniform(-.5, .5, (3, h, d)))
        p["lin_w"].append(rng.uniform(-.5, .5, (e, e))), p["lin_b"].append(rng.uniform(-.5, .5, e))
        p["ffn_ln_s"].append(rng.uniform(0.5, 1.5, e)), p["ffn_ln_b"].append(rng.uniform(-.5, .5, e))
        p["w1"].append(rng.uniform(-.5, .5, (e, 2 * f if glu else f)))
        p["b1"].append(rng.uniform(-.5, .5, 2 * f if glu else f))
        p["w2"].append(rng.uniform(-.5, .5, (f, e))), p["b2"].append(rng.uniform(-.5, .5, e))
    return p


def np_multi_transformer(x, p, pre, act="gelu", norm="layernorm", alpha=1.0, mask=None):
    nf = np_layer_norm if norm == "layernorm" else np_rms_norm
    for i in range(len(p["qkv_w"])):
        h = nf(x, p["ln_s"][i], p["ln_b"][i]) if pre else x
        att, _ = np_attention(h, p["qkv_w"][i], p["qkv_b"][i], p["lin_w"][i], p["lin_b"][i], mask)
        x = alpha * x + att if pre else nf(alpha * x + att, p["ln_s"][i], p["ln_b"][i])
        h = nf(x, p["ffn_ln_s"][i], p["ffn_ln_b"][i]) if pre else x
        h = h @ p["w1"][i] + p["b1"][i]
        if act == "gelu":
            h = np_gelu(h)
        elif act == "relu":
            h = np.maximum(h, 0)
        else:
            a, g = np.split(h, 2, -1)
            h = (np_silu(a) if act == "swiglu" else np_gelu(a)) * g
        h = h @ p["w2"][i] + p["b2"][i]
        x = alpha * x + h if pre else nf(alpha * x + h, p["ffn_ln_s"][i], p["ffn_ln_b"][i])
    return x


def _mt_call(x, p, **kw):
    T = lambda k: [t(a) for a in p[k]]  # noqa: E731
    return IF.fused_multi_transformer(t(x), T("ln_s"), T("ln_b"), T("qkv_w"), T("qkv_b"), T("lin_w"), T("lin_b"),
                                      T("ffn_ln_s"), T("ffn_ln_b"), T("w1"), T("b1"), T("w2"), T("b2"), **kw)


@pytest.mark.parametrize("pre,act,norm", [(True, "gelu", "layernorm"), (False, "relu", "layernorm"),
                                          (True, "swiglu", "rmsnorm"), (False, "geglu", "rmsnorm")])
def test_fused_multi_transformer(pre, act, norm):
    x = rand((2, 3, 8), seed=1)
    p = _mt_params(2, glu=act.endswith("glu"))
    mask = np.where(np.tril(np.ones((3, 3))) > 0, 0.0, -1e9)[None, None]
    out = _mt_call(x, p, pre_layer_norm=pre, activation=act, norm_type=norm, residual_alpha=0.8, attn_mask=t(mask))
    assert_close(out, np_multi_transformer(x, p, pre, act, norm, 0.8, mask), "float64")


def test_fused_multi_transformer_qkv_layout_and_cache():
    x = rand((1, 3, 8), seed=1)
    p = _mt_params(1)
    mask = np.where(np.tril(np.ones((3, 3))) > 0, 0.0, -1e9)[None, None]
    ref = np_multi_transformer(x, p, True, mask=mask)
    p2 = dict(p, qkv_w=[w.transpose(3, 0, 1, 2) for w in p["qkv_w"]])
    assert_close(_mt_call(x, p2, trans_qkvw=False, attn_mask=t(mask)), ref, "float64")
    # Prefill the cache with 2 tokens, then decode the third: the same last row as the full pass.
    cache = [oar.zeros([2, 1, 2, 4, 4], "float64")]
    _mt_call(x[:, :2], p, cache_kvs=cache, attn_mask=t(mask[..., :2, :2]))
    out, cache = _mt_call(x[:, 2:], p, cache_kvs=cache, time_step=t(np.array([2])))
    assert_close(out, ref[:, 2:], "float64")
    assert np.abs(cache[0].numpy()[:, :, :, 3]).max() == 0


def test_fused_multi_transformer_unsupported_options():
    x = rand((1, 3, 8), seed=1)
    p = _mt_params(1)
    for kw in ({"rotary_embs": oar.ones([2, 1, 1, 3, 4])}, {"pre_caches": [oar.ones([1])]},
               {"beam_offset": oar.ones([1])}, {"seq_lens": oar.ones([1], "int32")}):
        with pytest.raises(NotImplementedError, match=list(kw)[0]):
            _mt_call(x, p, **kw)
    with pytest.raises(ValueError, match="norm_type"):
        _mt_call(x, p, norm_type="batchnorm")
    with pytest.raises(ValueError, match="activation"):
        _mt_call(x, p, activation="tanh")


# ---- layers ----

LAYERS = [
    ("FusedLinear", (4, 6), {}), ("FusedLinear", (4, 6), {"transpose_weight": True}),
    ("FusedFeedForward", (8, 16), {}), ("FusedFeedForward", (8, 16), {"normalize_before": True}),
    ("FusedMultiHeadAttention", (8, 2), {}), ("FusedMultiHeadAttention", (8, 2), {"transpose_qkv_wb": True}),
    ("FusedMultiHeadAttention", (8, 2), {"normalize_before": True}),
    ("FusedTransformerEncoderLayer", (8, 2, 16), {}), ("FusedBiasDropoutResidualLayerNorm", (8,), {}),
    ("FusedDropoutAdd", (), {}), ("FusedMultiTransformer", (8, 2, 16), {"num_layers": 2}),
    ("FusedMultiTransformer", (8, 2, 16), {"num_layers": 1, "trans_qkvw": False, "norm_type": "rmsnorm"}),
    ("FusedMultiTransformer", (8, 4, 16), {"num_layers": 1, "gqa_group_size": 2}),
    ("FusedMultiTransformer", (8, 2, 16), {"num_layers": 1, "activation": "swiglu",
                                           "ffn1_bias_attrs": True, "ln_bias_attrs": True}),
]


def _strip_counter(key):
    # FusedMultiTransformer's keys are its parameters' names, whose layer counter differs per process.
    return key.split(".", 1)[1] if key.startswith("fused_multi_transformer_") else key


def test_layer_state_dicts_match_paddle():
    paddle = pytest.importorskip("paddle")
    for name, args, kwargs in LAYERS:
        exp = getattr(paddle.incubate.nn, name)(*args, **kwargs).state_dict()
        got = getattr(oar.incubate.nn, name)(*args, **kwargs).state_dict()
        assert [(_strip_counter(k), list(v.shape)) for k, v in got.items()] == \
            [(_strip_counter(k), list(v.shape)) for k, v in exp.items()], (name, kwargs)


def test_layers_forward_as_their_functions():
    oar.seed(0)
    x = oar.randn([2, 3, 8])
    lin = oar.incubate.nn.FusedLinear(8, 4)
    assert_close(lin(x), x.numpy() @ lin.weight.numpy() + lin.bias.numpy(), "float32")
    attn = oar.incubate.nn.FusedMultiHeadAttention(8, 2)
    attn.eval()
    ref = IF.fused_multi_head_attention(x, attn.qkv_weight, attn.linear_weight, False, ln_scale=attn.ln_scale,
                                        ln_bias=attn.ln_bias, qkv_bias=attn.qkv_bias, linear_bias=attn.linear_bias,
                                        training=False)
    assert_close(attn(x), ref.numpy(), "float32")
    enc = oar.incubate.nn.FusedTransformerEncoderLayer(8, 2, 16)
    enc.eval()
    assert_close(enc(x), enc.ffn(enc.fused_attn(x)).numpy(), "float32")
    mt = oar.incubate.nn.FusedMultiTransformer(8, 2, 16, num_layers=2)
    assert mt(x).shape == [2, 3, 8]
    assert len(mt.parameters()) == 12 and mt.ln_biases is None
    bdr = oar.incubate.nn.FusedBiasDropoutResidualLayerNorm(8, dropout_rate=0.0)
    assert_close(bdr(x, x), np_layer_norm(2 * x.numpy()), "float32")
    ffn = oar.incubate.nn.FusedFeedForward(8, 16, dropout_rate=0.0)
    out = ffn(x)
    out.sum().backward()
    assert ffn._linear1_weight.grad is not None


def test_layer_errors():
    with pytest.raises(ValueError, match="divisible"):
        oar.incubate.nn.FusedMultiHeadAttention(8, 3)
    with pytest.raises(ValueError, match="need_weight"):
        oar.incubate.nn.FusedMultiHeadAttention(8, 2, need_weights=True)
    with pytest.raises(NotImplementedError, match="nranks"):
        oar.incubate.nn.FusedFeedForward(8, 16, nranks=2, ring_id=0)
    with pytest.raises(ValueError, match="greater than 0"):
        oar.incubate.nn.FusedFeedForward(0, 16)
    with pytest.raises(ValueError, match="p argument"):
        oar.incubate.nn.FusedDropoutAdd(p=2.0)
