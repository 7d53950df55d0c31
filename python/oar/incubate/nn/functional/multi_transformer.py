"""fused_multi_transformer (paddle.incubate.nn.functional): a stack of transformer layers for
inference, with an optional key/value cache for generation. Norms (and the residual adds that
precede them) go through _norm.fused_norm, the attention softmax through softmax_mask."""
from __future__ import annotations

from .... import _C
from ....autograd import no_grad
from ._norm import fused_norm
from .bias_act import fused_bias_act
from .dropout_add import check_dropout, dropout
from .transformer import additive_mask, attention

__all__ = ["fused_multi_transformer"]

_NORMS = {"layernorm": "layer", "rmsnorm": "rms"}
_UNSUPPORTED = ("beam_offset", "pre_caches", "seq_lens", "rotary_embs")


def _qkv(fn, h, weight, bias, trans_qkvw, num_heads, gqa_group_size):
    """q [b, heads, s, d] and k, v [b, kv_heads, s, d] of h [b, s, embed]."""
    batch, seq, embed = h.shape
    if trans_qkvw:  # [3, heads, d, embed] or [heads + 2 * groups, d, embed]
        head_dim = weight.shape[-2]
        w = _C.transpose(_C.reshape(weight, [-1, embed]), [1, 0])
    else:  # [embed, 3, heads, d] or [embed, heads + 2 * groups, d]
        head_dim = weight.shape[-1]
        w = _C.reshape(weight, [embed, -1])
    kv_heads = gqa_group_size if gqa_group_size > 0 else num_heads
    if w.shape[1] != (num_heads + 2 * kv_heads) * head_dim:
        raise ValueError(f"{fn}: qkv_weights {list(weight.shape)} do not fit num_heads {num_heads}")
    qkv = _C.matmul(h, w)
    if bias is not None:
        qkv = qkv + _C.reshape(bias, [-1])
    qkv = _C.transpose(_C.reshape(qkv, [batch, seq, num_heads + 2 * kv_heads, head_dim]), [0, 2, 1, 3])
    q, k, v = _C.split(qkv, [num_heads, kv_heads, kv_heads], 1)
    return q, k, v, head_dim


def _cached(cache, k, v, time_step):
    """Writes k, v into the cache [2, b, kv_heads, max_len, d]; returns the keys and values to
    attend to: this step's (prefill, no time_step) or the cache's up to time_step (decoding)."""
    with no_grad():
        if time_step is None:
            cache[0, :, :, :k.shape[2]] = k
            cache[1, :, :, :v.shape[2]] = v
            return k, v
        t = int(time_step.item()) if isinstance(time_step, _C.Tensor) else int(time_step)
        cache[0, :, :, t:t + k.shape[2]] = k
        cache[1, :, :, t:t + v.shape[2]] = v
        end = t + k.shape[2]
        return cache[0, :, :, :end], cache[1, :, :, :end]


def _repeat_heads(t, heads):
    if t.shape[1] == heads:
        return t
    return _C.repeat_interleave(t, _C.full([t.shape[1]], heads // t.shape[1], "int64"), 1)


def _at(values, i):
    return None if values is None else values[i]


def fused_multi_transformer(x, ln_scales, ln_biases, qkv_weights, qkv_biases, linear_weights, linear_biases,
                            ffn_ln_scales, ffn_ln_biases, ffn1_weights, ffn1_biases, ffn2_weights, ffn2_biases,
                            pre_layer_norm=True, epsilon=1e-05, residual_alpha=1.0, cache_kvs=None,
                            beam_offset=None, pre_caches=None, seq_lens=None, rotary_embs=None, time_step=None,
                            attn_mask=None, dropout_rate=0.0, rotary_emb_dims=0, activation="gelu",
                            training=False, mode="upscale_in_train", trans_qkvw=True, ring_id=-1,
                            norm_type="layernorm", use_neox_rotary_style=False, gqa_group_size=-1, name=None):
    """A stack of transformer layers (attention then feed-forward), for inference.

    Layer i, pre_layer_norm: x = alpha * x + dropout(attn(norm(x))); x = alpha * x +
    dropout(ffn(ffn_norm(x))). Post-norm: x = norm(alpha * x + dropout(attn(x))); x =
    ffn_norm(alpha * x + dropout(ffn(x))). alpha is residual_alpha; attn(h) is multi-head
    self-attention (softmax(q k^T / sqrt(head_dim) + attn_mask) v, heads merged, @ linear_weight +
    linear_bias); ffn(h) = act(h @ ffn1_weight + ffn1_bias) @ ffn2_weight + ffn2_bias, act 'gelu',
    'relu', or the gated 'swiglu' / 'geglu' (ffn1 twice as wide). With cache_kvs, each layer's keys
    and values are written into its cache [2, batch, kv_heads, max_seq_len, head_dim]: at
    positions 0..seq_len-1 without time_step (prefill, attending to this step's keys), or from
    time_step on (decoding, attending to the cache up to there).

    Args:
        x (Tensor): [batch, seq_len, embed_dim].
        ln_scales, ln_biases (list[Tensor]): The attention norms', [embed_dim] (ln_biases may be None).
        qkv_weights (list[Tensor]): [3, num_heads, head_dim, embed_dim] ([embed_dim, 3, num_heads,
            head_dim] with trans_qkvw=False); with gqa_group_size g, num_heads + 2 * g for the 3, num_heads.
        qkv_biases (list[Tensor]|None): [3, num_heads, head_dim].
        linear_weights (list[Tensor]): [num_heads * head_dim, embed_dim].
        linear_biases (list[Tensor]|None): [embed_dim].
        ffn_ln_scales, ffn_ln_biases (list[Tensor]): The feed-forward norms', [embed_dim].
        ffn1_weights (list[Tensor]): [embed_dim, dim_feedforward] (twice that for swiglu / geglu).
        ffn1_biases (list[Tensor]|None): ffn1's bias.
        ffn2_weights (list[Tensor]): [dim_feedforward, embed_dim].
        ffn2_biases (list[Tensor]|None): [embed_dim].
        pre_layer_norm (bool, optional): Pre-norm (True) or post-norm layers. Default: True.
        epsilon (float, optional): The norms' epsilon. Default: 1e-05.
        residual_alpha (float, optional): The residual stream's scale. Default: 1.0.
        cache_kvs (list[Tensor], optional): Each layer's cache, written in place. Default: None.
        beam_offset, pre_caches, seq_lens, rotary_embs: Paddle's GPU generation options: not
            supported (NotImplementedError when given). Default: None.
        time_step (Tensor|int, optional): The decoding position in the cache. Default: None.
        attn_mask (Tensor, optional): Added to the scores, broadcast to [batch, num_heads, seq_len,
            kv_len]. Default: None.
        dropout_rate (float, optional): Default: 0.0.
        rotary_emb_dims (int, optional): Only 0 (no rotary) supported. Default: 0.
        activation (str, optional): 'gelu', 'relu', 'swiglu' or 'geglu'. Default: 'gelu'.
        training (bool, optional): Whether dropout drops. Default: False.
        mode (str, optional): 'upscale_in_train' or 'downscale_in_infer'. Default: 'upscale_in_train'.
        trans_qkvw (bool, optional): The qkv weights' layout (see qkv_weights). Default: True.
        ring_id (int, optional): Tensor-parallel ring; only -1 supported. Default: -1.
        norm_type (str, optional): 'layernorm' or 'rmsnorm'. Default: 'layernorm'.
        use_neox_rotary_style (bool, optional): Used only with rotary_embs. Default: False.
        gqa_group_size (int, optional): Key / value heads for grouped-query attention; -1: as
            many as the query heads. Default: -1.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x's shape and dtype; with cache_kvs, (out, cache_kvs).

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import fused_multi_transformer
        >>> x = oar.randn([1, 3, 8])
        >>> ones, zeros = [oar.ones([8])], [oar.zeros([8])]
        >>> out = fused_multi_transformer(
        ...     x, ones, zeros, [oar.randn([3, 2, 4, 8])], None, [oar.randn([8, 8])], None,
        ...     ones, zeros, [oar.randn([8, 16])], None, [oar.randn([16, 8])], None)
        >>> print(out.shape)
        [1, 3, 8]
    """
    fn = "fused_multi_transformer"
    for what, value in zip(_UNSUPPORTED, (beam_offset, pre_caches, seq_lens, rotary_embs)):
        if value is not None:
            raise NotImplementedError(f"{fn}: {what} is not supported")
    if rotary_emb_dims:
        raise NotImplementedError(f"{fn}: rotary_emb_dims (rotary embedding) is not supported")
    if ring_id != -1:
        raise NotImplementedError(f"{fn}: ring_id (tensor model parallel) is not supported")
    if norm_type not in _NORMS:
        raise ValueError(f"{fn}: norm_type should be 'layernorm' or 'rmsnorm', got {norm_type!r}")
    if activation not in ("gelu", "relu", "swiglu", "geglu"):
        raise ValueError(f"{fn}: activation should be 'gelu', 'relu', 'swiglu' or 'geglu', got {activation!r}")
    check_dropout(dropout_rate, mode)
    if x.ndim != 3:
        raise ValueError(f"{fn}: x should be 3-D [batch, seq_len, embed_dim], got shape {list(x.shape)}")
    layers = len(qkv_weights)
    if cache_kvs is not None and len(cache_kvs) != layers:
        raise ValueError(f"{fn}: cache_kvs should have one cache per layer ({layers}), got {len(cache_kvs)}")
    if time_step is not None and cache_kvs is None:
        raise ValueError(f"{fn}: time_step needs cache_kvs")
    kind = _NORMS[norm_type]
    mask = additive_mask(attn_mask, x.dtype)
    batch, seq, embed = x.shape

    def norm(h, scale, bias, residual=None):
        return fused_norm(h, scale, bias, epsilon, h.ndim - 1, residual=residual, residual_alpha=residual_alpha,
                          kind=kind)

    for i in range(layers):
        h = norm(x, ln_scales[i], _at(ln_biases, i))[0] if pre_layer_norm else x
        trans = trans_qkvw
        heads = qkv_weights[i].shape[1] if gqa_group_size <= 0 and trans else (
            qkv_weights[i].shape[2] if gqa_group_size <= 0 else
            (qkv_weights[i].shape[0 if trans else 1] - 2 * gqa_group_size))
        q, k, v, head_dim = _qkv(fn, h, qkv_weights[i], _at(qkv_biases, i), trans, heads, gqa_group_size)
        if cache_kvs is not None:
            k, v = _cached(cache_kvs[i], k, v, time_step)
        out = attention(q, _repeat_heads(k, heads), _repeat_heads(v, heads), mask, dropout_rate, training, mode,
                        head_dim ** -0.5)
        out = _C.reshape(_C.transpose(out, [0, 2, 1, 3]), [batch, seq, heads * head_dim])
        out = _C.matmul(out, linear_weights[i])
        if _at(linear_biases, i) is not None:
            out = out + linear_biases[i]
        out = dropout(out, dropout_rate, training, mode)
        if pre_layer_norm:  # x = alpha * x + out, and its ffn norm, in one
            h, x = norm(out, ffn_ln_scales[i], _at(ffn_ln_biases, i), residual=x)
        else:
            x = norm(out, ln_scales[i], _at(ln_biases, i), residual=x)[0]
            h = x
        h = fused_bias_act(_C.matmul(h, ffn1_weights[i]), _at(ffn1_biases, i), act_method=activation)
        h = dropout(h, dropout_rate, training, mode)
        h = _C.matmul(h, ffn2_weights[i])
        if _at(ffn2_biases, i) is not None:
            h = h + ffn2_biases[i]
        h = dropout(h, dropout_rate, training, mode)
        if pre_layer_norm:
            x = h + (x if residual_alpha == 1.0 else x * residual_alpha)
        else:
            x = norm(h, ffn_ln_scales[i], _at(ffn_ln_biases, i), residual=x)[0]
    return x if cache_kvs is None else (x, cache_kvs)
