"""scaled_dot_product_attention (fused kernel, oar/kernels/cpu/attention.h) against a NumPy
reference: Paddle's [batch, seq, heads, head_dim] layout, bool and additive masks, is_causal,
scale, grouped heads, dropout through oar's Philox generator, gradients and errors."""
import numpy as np
import pytest

import oar
import oar.nn.functional as F
from op_test import check_grad, rand

TOL = {"float32": dict(rtol=1e-5, atol=2e-6), "float64": dict(rtol=1e-12, atol=1e-12)}


def np_sdpa(q, k, v, mask=None, causal=False, scale=None, dmask=None):
    q, k, v = (a.astype(np.float64).transpose(0, 2, 1, 3) for a in (q, k, v))  # [B, H, S, D]
    g = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, g, axis=1), np.repeat(v, g, axis=1)
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ k.transpose(0, 1, 3, 2) * scale
    if mask is not None:
        s = np.where(mask, s, -np.inf) if mask.dtype == bool else s + mask
    if causal:
        s = s + np.triu(np.full(s.shape[-2:], -np.inf), 1)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    if dmask is not None:
        p = p * dmask
    return (p @ v).transpose(0, 2, 1, 3)


def T(a):
    return oar.to_tensor(a)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("B,Sq,Sk,H,Hk,D,Dv", [(2, 5, 6, 3, 3, 4, 4), (1, 1, 7, 2, 2, 8, 3),
                                                (2, 9, 9, 4, 2, 16, 16), (1, 33, 20, 2, 1, 5, 6)])
def test_sdpa_forward(dt, B, Sq, Sk, H, Hk, D, Dv):
    q, k, v = rand((B, Sq, H, D), dt, seed=1), rand((B, Sk, Hk, D), dt, seed=2), \
        rand((B, Sk, Hk, Dv), dt, seed=3)
    out = F.scaled_dot_product_attention(T(q), T(k), T(v))
    assert out.shape == [B, Sq, H, Dv] and out.dtype == getattr(oar, dt)
    np.testing.assert_allclose(out.numpy(), np_sdpa(q, k, v), **TOL[dt])
    out = F.scaled_dot_product_attention(T(q), T(k), T(v), is_causal=True, scale=0.3)
    np.testing.assert_allclose(out.numpy(), np_sdpa(q, k, v, causal=True, scale=0.3), **TOL[dt])


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_sdpa_masks(dt):
    B, Sq, Sk, H, D = 2, 4, 6, 3, 5
    q, k, v = rand((B, Sq, H, D), dt, seed=4), rand((B, Sk, H, D), dt, seed=5), \
        rand((B, Sk, H, D), dt, seed=6)
    bm = rand((Sq, Sk), "bool", seed=7)
    bm[:, 0] = True
    out = F.scaled_dot_product_attention(T(q), T(k), T(v), attn_mask=T(bm))
    np.testing.assert_allclose(out.numpy(), np_sdpa(q, k, v, mask=bm), **TOL[dt])
    fm = rand((B, 1, Sq, Sk), dt, seed=8) * 3
    out = F.scaled_dot_product_attention(T(q), T(k), T(v), attn_mask=T(fm))
    np.testing.assert_allclose(out.numpy(), np_sdpa(q, k, v, mask=fm), **TOL[dt])
    # A non-contiguous query (a transposed view).
    qt = T(np.ascontiguousarray(q.transpose(0, 2, 1, 3))).transpose([0, 2, 1, 3])
    out = F.scaled_dot_product_attention(qt, T(k), T(v), attn_mask=T(fm), is_causal=True)
    np.testing.assert_allclose(out.numpy(), np_sdpa(q, k, v, mask=fm, causal=True), **TOL[dt])
    # Broadcast masks the kernel reads in place through their strides: a padding mask over
    # the keys ([B, 1, 1, Sk]: batch, heads and query rows broadcast), per-head rows
    # ([1, H, 1, Sk]), and one broadcast over the keys ([B, 1, Sq, 1]: copied whole first); with
    # the mask's gradient reduced back to its shape.
    pad = rand((B, 1, 1, Sk), "bool", seed=9)
    pad[..., 0] = True
    out = F.scaled_dot_product_attention(T(q), T(k), T(v), attn_mask=T(pad))
    np.testing.assert_allclose(out.numpy(), np_sdpa(q, k, v, mask=pad), **TOL[dt])
    for shape in ((B, 1, 1, Sk), (1, H, 1, Sk), (B, 1, Sq, 1)):
        m = rand(shape, dt, seed=10) * 2
        mt = oar.to_tensor(m, stop_gradient=False)
        out = F.scaled_dot_product_attention(T(q), T(k), T(v), attn_mask=mt, is_causal=True)
        np.testing.assert_allclose(out.numpy(), np_sdpa(q, k, v, mask=m, causal=True), **TOL[dt])
        w = T(rand(out.shape, dt, seed=11))
        (g,) = oar.grad([(out * w).sum()], [mt])
        # the same gradient through the composition (scores + broadcast mask, softmax, product)
        mc = oar.to_tensor(m, stop_gradient=False)
        qh, kh, vh = (T(a).transpose([0, 2, 1, 3]) for a in (q, k, v))
        causal = T(np.triu(np.full((Sq, Sk), -np.inf), 1).astype(dt))
        sc = oar.matmul(qh, kh, transpose_y=True) * float(1 / np.sqrt(D)) + mc + causal
        ref = oar.matmul(F.softmax(sc), vh).transpose([0, 2, 1, 3])
        (gc,) = oar.grad([(ref * w).sum()], [mc])
        assert g.shape == list(shape)
        np.testing.assert_allclose(g.numpy(), gc.numpy(), **TOL[dt])
    # A fully masked row has no softmax: NaN, as the formula.
    bm2 = np.ones((Sq, Sk), bool)
    bm2[1] = False
    out = F.scaled_dot_product_attention(T(q), T(k), T(v), attn_mask=T(bm2)).numpy()
    assert np.isnan(out[:, 1]).all() and not np.isnan(out[:, 0]).any()


def test_sdpa_dropout_uses_the_global_generator():
    B, S, H, D = 2, 5, 2, 4
    q, k, v = rand((B, S, H, D), "float32", seed=9), rand((B, S, H, D), "float32", seed=10), \
        rand((B, S, H, D), "float32", seed=11)
    oar.seed(42)
    out = F.scaled_dot_product_attention(T(q), T(k), T(v), dropout_p=0.3)
    # The same draws as dropout over a [B, H, S, S] tensor of ones.
    oar.seed(42)
    dm = F.dropout(oar.ones([B, H, S, S]), p=0.3).numpy().astype(np.float64)
    assert (dm == 0).any() and (dm > 1).any()
    np.testing.assert_allclose(out.numpy(), np_sdpa(q, k, v, dmask=dm), rtol=1e-5, atol=2e-6)
    # training=False: no dropout.
    out = F.scaled_dot_product_attention(T(q), T(k), T(v), dropout_p=0.3, training=False)
    np.testing.assert_allclose(out.numpy(), np_sdpa(q, k, v), rtol=1e-5, atol=2e-6)
    out = F.scaled_dot_product_attention(T(q), T(k), T(v), dropout_p=1.0)
    np.testing.assert_array_equal(out.numpy(), 0)


@pytest.mark.parametrize("kw", [dict(), dict(is_causal=True), dict(scale=0.7)])
def test_sdpa_grad(kw):
    q, k, v = rand((2, 3, 2, 4), seed=12), rand((2, 4, 1, 4), seed=13), rand((2, 4, 1, 3), seed=14)
    check_grad(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, **kw), [q, k, v],
               what=f"sdpa {kw}")


def test_sdpa_grad_masks_and_dropout():
    q, k, v = rand((1, 3, 2, 4), seed=15), rand((1, 5, 2, 4), seed=16), rand((1, 5, 2, 4), seed=17)
    fm = rand((1, 2, 3, 5), seed=18)
    bm = rand((3, 5), "bool", seed=19)
    bm[:, 1] = True
    check_grad(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, attn_mask=T(fm)),
               [q, k, v], what="sdpa float mask")
    # A float mask gets a gradient too (as Paddle's), through its broadcast.
    check_grad(lambda a, b, c, m: F.scaled_dot_product_attention(a, b, c, attn_mask=m),
               [q, k, v, fm], what="sdpa mask gradient")
    check_grad(lambda a, m: F.scaled_dot_product_attention(a, T(k), T(v), attn_mask=m),
               [q, rand((3, 5), seed=20)], what="sdpa broadcast mask gradient")
    check_grad(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, attn_mask=T(bm)),
               [q, k, v], what="sdpa bool mask")

    def dropped(a, b, c):
        oar.seed(3)  # the same mask on every call
        return F.scaled_dot_product_attention(a, b, c, dropout_p=0.4)

    check_grad(dropped, [q, k, v], what="sdpa dropout")


def test_sdpa_errors():
    q = T(rand((1, 2, 2, 4), "float32"))
    with pytest.raises(ValueError, match="should be 4-D \\[batch, seq_len, num_heads, head_dim\\]"):
        F.scaled_dot_product_attention(T(rand((2, 2, 4), "float32")), q, q)
    with pytest.raises(TypeError, match="query, key and value must have the same dtype"):
        F.scaled_dot_product_attention(q, T(rand((1, 2, 2, 4))), q)
    with pytest.raises(ValueError, match="should be a multiple of the number of key/value heads"):
        kk = T(rand((1, 2, 3, 4), "float32"))
        F.scaled_dot_product_attention(q, kk, kk)
    with pytest.raises(ValueError, match="cannot be broadcast to"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=T(rand((3, 2), "float32")))
    with pytest.raises(ValueError, match="dropout_p should be in \\[0, 1\\]"):
        F.scaled_dot_product_attention(q, q, q, dropout_p=1.5)
    with pytest.raises(TypeError, match="attn_mask must be a bool or float tensor"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=T(np.ones((2, 2), np.int32)))
    with pytest.raises(ValueError, match="enable_gqa=True"):
        kk = T(rand((1, 2, 1, 4), "float32"))
        F.scaled_dot_product_attention(q, kk, kk, enable_gqa=False)
