"""Attention (paddle.nn.functional.scaled_dot_product_attention) over the fused C++ kernel."""
from ... import _C
from .. import attention as _attention_backends

__all__ = ["scaled_dot_product_attention"]


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, training=True, backend=None, scale=None,
                                 enable_gqa=True, name=None):
    """query [batch, seq_len, num_heads, head_dim], key/value [batch, seq_len_kv, kv_heads, ...];
    attn_mask (bool: True attends; float: added to the scores) broadcasts to
    [batch, num_heads, seq_len, seq_len_kv]; scale defaults to 1 / sqrt(head_dim)."""
    _attention_backends._select()  # sdpa_kernel(...) may have allowed no backend oar has
    if not enable_gqa and query.ndim == 4 and key.ndim == 4 and query.shape[2] != key.shape[2]:
        raise ValueError("scaled_dot_product_attention: query has "
                         f"{query.shape[2]} heads and key {key.shape[2]}; grouped heads need "
                         "enable_gqa=True")
    return _C.scaled_dot_product_attention(query, key, value, attn_mask, float(dropout_p),
                                           bool(is_causal), bool(training), scale)
