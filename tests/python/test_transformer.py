"""MultiHeadAttention and the Transformer family: a NumPy reference of attention, masks, caches,
state-dict names, and live comparisons with Paddle (parameters copied by state-dict name,
dropout 0) of outputs and gradients."""
import numpy as np
import pytest

import oar

RNG = np.random.default_rng(11)


def _np_mha(layer, q, k, v, mask=None):
    """NumPy multi-head attention with the layer's own parameters."""
    p = {n: t.numpy() for n, t in layer.state_dict().items()}
    H, D = layer.num_heads, layer.head_dim

    def heads(x, name):
        y = x @ p[f"{name}.weight"] + p[f"{name}.bias"]
        return y.reshape(y.shape[0], y.shape[1], H, D).transpose(0, 2, 1, 3)

    qh, kh, vh = heads(q, "q_proj"), heads(k, "k_proj"), heads(v, "v_proj")
    s = (qh * D ** -0.5) @ kh.transpose(0, 1, 3, 2)
    if mask is not None:
        s = s + mask
    w = np.exp(s - s.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    o = (w @ vh).transpose(0, 2, 1, 3).reshape(q.shape[0], q.shape[1], H * D)
    return o @ p["out_proj.weight"] + p["out_proj.bias"], w


def test_mha_matches_numpy_with_masks_and_weights():
    m = oar.nn.MultiHeadAttention(8, 2, kdim=6, vdim=5, need_weights=True)
    q = RNG.standard_normal((2, 3, 8)).astype("float32")
    k = RNG.standard_normal((2, 4, 6)).astype("float32")
    v = RNG.standard_normal((2, 4, 5)).astype("float32")
    keep = RNG.random((2, 1, 3, 4)) > 0.3
    keep[..., 0] = True
    add = np.where(keep, 0.0, -1e9).astype("float32")
    ref, ref_w = _np_mha(m, q, k, v, add)
    for mask in (oar.to_tensor(keep), oar.to_tensor(keep.astype("int32")), oar.to_tensor(add)):
        out, w = m(oar.to_tensor(q), oar.to_tensor(k), oar.to_tensor(v), attn_mask=mask)
        np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(w.numpy(), ref_w, rtol=1e-5, atol=1e-6)
    assert list(m.state_dict().keys()) == [f"{n}.{w}" for n in ("q_proj", "k_proj", "v_proj", "out_proj")
                                           for w in ("weight", "bias")]
    assert list(m.k_proj.weight.shape) == [6, 8]


@pytest.mark.parametrize("mask_kind", ["none", "causal", "batch_bool", "full_float", "learned"])
def test_mha_fused_training_path_equals_composition(mask_kind):
    """Eager training without dropout runs the fused attention kernel; evaluation runs the
    composition. Outputs and gradients (inputs, parameters, a learned mask) agree, and match
    NumPy, for masks broadcast over the batch and heads or given in full."""
    oar.seed(3)
    m = oar.nn.MultiHeadAttention(12, 3, kdim=7, vdim=5)
    q = RNG.standard_normal((2, 5, 12)).astype("float64")
    k = RNG.standard_normal((2, 6, 7)).astype("float64")
    v = RNG.standard_normal((2, 6, 5)).astype("float64")
    m.to(dtype="float64")
    add = None
    if mask_kind == "causal":
        add = np.triu(np.full((5, 6), -np.inf), 2)
    elif mask_kind == "batch_bool":
        keep = RNG.random((2, 1, 5, 6)) > 0.4
        keep[..., 0] = True
        add = np.where(keep, 0.0, -1e9)
        mask = lambda: oar.to_tensor(keep)
    elif mask_kind in ("full_float", "learned"):
        add = RNG.standard_normal((2, 3, 5, 6))
    if mask_kind not in ("none", "batch_bool"):
        mask = lambda: oar.to_tensor(add, stop_gradient=mask_kind != "learned")
    results = []
    for training in (True, False):
        m.train() if training else m.eval()
        ts = [oar.to_tensor(a, stop_gradient=False) for a in (q, k, v)]
        mk = None if mask_kind == "none" else mask()
        out = m(*ts, attn_mask=mk)
        wanted = ts + list(m.parameters()) + ([mk] if mask_kind == "learned" else [])
        grads = oar.grad([(out * out).sum()], wanted)
        results.append([out.numpy()] + [g.numpy() for g in grads])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    ref, _ = _np_mha(m, q, k, v, add)
    np.testing.assert_allclose(results[0][0], ref, rtol=1e-10, atol=1e-12)


def test_mha_incremental_cache_equals_full_causal_attention():
    m = oar.nn.MultiHeadAttention(8, 2)
    x = oar.to_tensor(RNG.standard_normal((2, 4, 8)).astype("float32"))
    causal = oar.nn.Transformer(8, 2, 1, 1, 16).generate_square_subsequent_mask(4)
    full = m(x, attn_mask=causal).numpy()
    cache = m.gen_cache(x)
    assert list(cache.k.shape) == [2, 2, 0, 4]
    steps = []
    for t in range(4):
        out, cache = m(x[:, t:t + 1], cache=cache)
        steps.append(out.numpy())
    assert list(cache.k.shape) == [2, 2, 4, 4]
    np.testing.assert_allclose(np.concatenate(steps, 1), full, rtol=1e-5, atol=1e-5)
    static = m.gen_cache(x, x, type=oar.nn.MultiHeadAttention.StaticCache)
    out, same = m(x[:, :2], x, x, cache=static)
    assert same is static
    np.testing.assert_allclose(out.numpy(), m(x[:, :2], x, x).numpy(), rtol=1e-6, atol=1e-6)


def test_square_subsequent_mask():
    mask = oar.nn.Transformer(8, 2, 1, 1, 16).generate_square_subsequent_mask(3).numpy()
    assert mask.dtype == np.float32
    np.testing.assert_array_equal(mask, np.triu(np.full((3, 3), -np.inf, "float32"), 1))


def test_errors_and_config():
    with pytest.raises(ValueError, match="divisible"):
        oar.nn.MultiHeadAttention(10, 3)
    with pytest.raises(ValueError, match="activation"):
        oar.nn.TransformerEncoderLayer(8, 2, 16, activation="nope")
    enc = oar.nn.TransformerEncoder(oar.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 3)
    assert len(enc.layers) == 3
    a, b = enc.layers[0].linear1.weight.numpy(), enc.layers[1].linear1.weight.numpy()
    assert a.shape == b.shape and not np.array_equal(a, b)  # fresh parameters per copy


# ---- live comparison with Paddle -----------------------------------------------------------------
def _copy(pd_layer, layer):
    pd_keys = list(pd_layer.state_dict().keys())
    assert pd_keys == list(layer.state_dict().keys())
    layer.set_state_dict({k: oar.to_tensor(v.numpy()) for k, v in pd_layer.state_dict().items()})


def _check_grads(pd_layer, layer, pd_inputs, inputs, pd_out, out):
    w = RNG.standard_normal(pd_out.shape).astype("float32")
    (pd_out * paddle_mod().to_tensor(w)).sum().backward()
    (out * oar.to_tensor(w)).sum().backward()
    for a, b in zip(inputs, pd_inputs):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-3, atol=1e-4)
    pd_params = dict(pd_layer.named_parameters())
    for n, p in layer.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), pd_params[n].grad.numpy(), rtol=1e-3, atol=1e-4, err_msg=n)


def paddle_mod():
    import paddle
    return paddle


def _pair(paddle, arr):
    return paddle.to_tensor(arr, stop_gradient=False), oar.to_tensor(arr, stop_gradient=False)


@pytest.mark.parametrize("normalize_before", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_matches_paddle(normalize_before, activation):
    paddle = pytest.importorskip("paddle")
    paddle.seed(1)
    kw = dict(dropout=0.0, activation=activation, normalize_before=normalize_before)
    pd = paddle.nn.TransformerEncoder(paddle.nn.TransformerEncoderLayer(8, 2, 16, **kw), 2,
                                      paddle.nn.LayerNorm(8))
    me = oar.nn.TransformerEncoder(oar.nn.TransformerEncoderLayer(8, 2, 16, **kw), 2, oar.nn.LayerNorm(8))
    _copy(pd, me)
    (px, ox) = _pair(paddle, RNG.standard_normal((2, 5, 8)).astype("float32"))
    mask = RNG.random((2, 1, 5, 5)) > 0.2
    mask[..., 0] = True
    po = pd(px, src_mask=paddle.to_tensor(mask))
    oo = me(ox, src_mask=oar.to_tensor(mask))
    np.testing.assert_allclose(oo.numpy(), po.numpy(), rtol=1e-4, atol=1e-5)
    _check_grads(pd, me, [px], [ox], po, oo)


@pytest.mark.parametrize("normalize_before", [False, True])
def test_transformer_matches_paddle(normalize_before):
    paddle = pytest.importorskip("paddle")
    paddle.seed(2)
    kw = dict(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=16,
              dropout=0.0, normalize_before=normalize_before)
    pd = paddle.nn.Transformer(**kw)
    mt = oar.nn.Transformer(**kw)
    _copy(pd, mt)
    (ps, os_) = _pair(paddle, RNG.standard_normal((2, 5, 8)).astype("float32"))
    (pt, ot) = _pair(paddle, RNG.standard_normal((2, 4, 8)).astype("float32"))
    pmask, omask = pd.generate_square_subsequent_mask(4), mt.generate_square_subsequent_mask(4)
    np.testing.assert_array_equal(omask.numpy(), pmask.numpy())
    po = pd(ps, pt, tgt_mask=pmask)
    oo = mt(os_, ot, tgt_mask=omask)
    np.testing.assert_allclose(oo.numpy(), po.numpy(), rtol=1e-4, atol=1e-5)
    _check_grads(pd, mt, [ps, pt], [os_, ot], po, oo)


def test_decoder_cache_matches_paddle():
    paddle = pytest.importorskip("paddle")
    paddle.seed(4)
    pd = paddle.nn.TransformerDecoder(paddle.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2)
    md = oar.nn.TransformerDecoder(oar.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2)
    _copy(pd, md)
    mem = RNG.standard_normal((2, 5, 8)).astype("float32")
    tgt = RNG.standard_normal((2, 3, 8)).astype("float32")
    pc, oc = pd.gen_cache(paddle.to_tensor(mem)), md.gen_cache(oar.to_tensor(mem))
    for t in range(3):
        po, pc = pd(paddle.to_tensor(tgt[:, t:t + 1]), paddle.to_tensor(mem), cache=pc)
        oo, oc = md(oar.to_tensor(tgt[:, t:t + 1]), oar.to_tensor(mem), cache=oc)
        np.testing.assert_allclose(oo.numpy(), po.numpy(), rtol=1e-4, atol=1e-5)
    assert list(oc[0][0].k.shape) == list(pc[0][0].k.shape)


def test_mha_need_weights_matches_paddle():
    paddle = pytest.importorskip("paddle")
    paddle.seed(6)
    pm = paddle.nn.MultiHeadAttention(8, 4, kdim=6, vdim=6, need_weights=True)
    om = oar.nn.MultiHeadAttention(8, 4, kdim=6, vdim=6, need_weights=True)
    _copy(pm, om)
    q = RNG.standard_normal((2, 3, 8)).astype("float32")
    kv = RNG.standard_normal((2, 4, 6)).astype("float32")
    add = RNG.standard_normal((2, 4, 3, 4)).astype("float32")
    po, pw = pm(paddle.to_tensor(q), paddle.to_tensor(kv), paddle.to_tensor(kv), paddle.to_tensor(add))
    oo, ow = om(oar.to_tensor(q), oar.to_tensor(kv), oar.to_tensor(kv), oar.to_tensor(add))
    np.testing.assert_allclose(oo.numpy(), po.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ow.numpy(), pw.numpy(), rtol=1e-4, atol=1e-6)
    assert repr(om) == repr(pm)
