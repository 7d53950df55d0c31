"""variable_length_memory_efficient_attention (paddle.incubate.nn.functional): attention over a
padded batch whose sequences have their own query and key lengths."""
from __future__ import annotations

import math

from .... import _C
from ..._softmax_mask import softmax_mask

__all__ = ["variable_length_memory_efficient_attention"]


def _lengths(fn, what, t, batch):
    if not isinstance(t, _C.Tensor) or t.dtype.name not in ("int32", "int64"):
        raise TypeError(f"{fn}: {what} should be an int32 or int64 Tensor")
    if t.size != batch:
        raise ValueError(f"{fn}: {what} should hold one length per sequence ([batch, 1]), got shape "
                         f"{list(t.shape)} for batch {batch}")
    return _C.reshape(_C.cast(t, "int64"), [batch, 1, 1, 1])


def variable_length_memory_efficient_attention(query, key, value, seq_lens, kv_seq_lens, mask=None, scale=None,
                                               causal=False, pre_cache_length=0):
    """softmax(query key^T * scale + mask) value, per sequence of a padded batch.

    Sequence b has seq_lens[b] queries and kv_seq_lens[b] keys: keys at or past kv_seq_lens[b]
    are left out of the softmax, and the output rows at or past seq_lens[b] are 0. causal: query
    i sees keys j <= i + pre_cache_length. key / value may have fewer heads than query (grouped
    query attention: each serves num_heads / kv_heads query heads).

    Args:
        query (Tensor): [batch, num_heads, seq_len, head_dim].
        key (Tensor): [batch, kv_heads, kv_seq_len, head_dim].
        value (Tensor): key's shape.
        seq_lens (Tensor): int32 [batch, 1], the queries of each sequence.
        kv_seq_lens (Tensor): int32 [batch, 1], the keys of each sequence.
        mask (Tensor, optional): Added to the scores, broadcast to [batch, num_heads, seq_len,
            kv_seq_len] (e.g. [batch, 1, seq_len, kv_seq_len]). Default: None.
        scale (float, optional): The scores' scale; None: 1 / sqrt(head_dim). Default: None.
        causal (bool, optional): Whether each query sees only the keys up to its own position.
            Default: False.
        pre_cache_length (int, optional): Keys in front of the sequence (a prefix cache), visible
            to every query under causal. Default: 0.

    Returns:
        Tensor: [batch, num_heads, seq_len, head_dim], query's dtype.

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import variable_length_memory_efficient_attention
        >>> q = k = v = oar.randn([2, 2, 4, 8])
        >>> lens = oar.to_tensor([[4], [2]], dtype="int32")
        >>> out = variable_length_memory_efficient_attention(q, k, v, lens, lens)
        >>> print(out.shape, float(out[1, :, 2:].abs().sum()))
        [2, 2, 4, 8] 0.0
    """
    fn = "variable_length_memory_efficient_attention"
    for what, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, _C.Tensor) or t.ndim != 4:
            raise ValueError(f"{fn}: {what} should be a 4-D Tensor [batch, heads, seq_len, head_dim]")
    batch, heads, seq, dim = query.shape
    if list(key.shape) != list(value.shape) or key.shape[0] != batch or key.shape[3] != dim:
        raise ValueError(f"{fn}: key and value should be [batch, kv_heads, kv_seq_len, head_dim] with query's "
                         f"batch and head_dim, got {list(key.shape)} and {list(value.shape)}")
    if heads % key.shape[1]:
        raise ValueError(f"{fn}: query's heads ({heads}) should be a multiple of key's ({key.shape[1]})")
    if key.shape[1] != heads:
        group = heads // key.shape[1]
        key = _C.repeat_interleave(key, _C.full([key.shape[1]], group, "int64"), 1)
        value = _C.repeat_interleave(value, _C.full([value.shape[1]], group, "int64"), 1)
    q_len = _lengths(fn, "seq_lens", seq_lens, batch)
    kv_len = _lengths(fn, "kv_seq_lens", kv_seq_lens, batch)
    if scale is None:
        scale = 1.0 / math.sqrt(dim)
    kv_seq = key.shape[2]
    q_pos = _C.reshape(_C.arange(0, seq, 1, "int64"), [1, 1, seq, 1])
    k_pos = _C.reshape(_C.arange(0, kv_seq, 1, "int64"), [1, 1, 1, kv_seq])
    keep = _C.less_than(k_pos, kv_len)
    if causal:
        keep = _C.logical_and(keep, _C.less_equal(k_pos, q_pos + pre_cache_length))
    # A large finite negative (not -inf): a row that sees no key stays finite, then is zeroed.
    drop = -65000.0 if query.dtype.name == "float16" else -1e30
    bias = _C.where(keep, _C.zeros([], query.dtype), _C.full([], drop, query.dtype))
    if mask is not None:
        bias = bias + _C.cast(mask, query.dtype)
    probs = softmax_mask(_C.matmul(query, key, False, True) * scale, bias)
    out = _C.matmul(probs, value)
    return _C.where(_C.less_than(q_pos, q_len), out, _C.zeros([], out.dtype))
