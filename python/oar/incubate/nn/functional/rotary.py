"""fused_rotary_position_embedding (paddle.incubate.nn.functional): rotary position embedding
(RoPE) of q, k and v in one op."""
from __future__ import annotations

import math

from .... import _C

__all__ = ["fused_rotary_position_embedding"]


def _tables(fn, q, sin, cos, position_ids, use_neox_rotary_style, time_major, base):
    """sin and cos broadcastable to q: [1, s, 1, d] ([s, 1, 1, d] time-major, [b, s, 1, d] with
    position_ids)."""
    seq, dim = q.shape[0 if time_major else 1], q.shape[-1]
    if (sin is None) != (cos is None):
        raise ValueError(f"{fn}: sin and cos should be given together")
    if sin is None:
        if position_ids is not None:
            raise ValueError(f"{fn}: position_ids without sin/cos is not supported")
        inv_freq = _C.exp(_C.arange(0, dim, 2, "float64") * (-math.log(base) / dim))  # base^(-2i/d)
        freqs = _C.unsqueeze(_C.arange(0, seq, 1, "float64"), [1]) * _C.unsqueeze(inv_freq, [0])
        if use_neox_rotary_style:  # pair i is dims (2i, 2i + 1)
            angles = _C.reshape(_C.stack([freqs, freqs], 2), [seq, dim])
        else:  # pair i is dims (i, i + d/2)
            angles = _C.concat([freqs, freqs], 1)
        sin, cos = _C.cast(_C.sin(angles), q.dtype), _C.cast(_C.cos(angles), q.dtype)
    else:
        for what, t in (("sin", sin), ("cos", cos)):
            if not (t.ndim == 2 or t.ndim == 4 and t.shape[0] == 1 and t.shape[2] == 1) or t.shape[-1] != dim:
                raise ValueError(f"{fn}: the shape of {what} must be [seq_len, head_dim] or "
                                 f"[1, seq_len, 1, head_dim], got {list(t.shape)}")
        sin = _C.cast(_C.reshape(sin, [-1, dim]), q.dtype)
        cos = _C.cast(_C.reshape(cos, [-1, dim]), q.dtype)
    if position_ids is not None:
        batch = q.shape[1 if time_major else 0]
        if list(position_ids.shape) != [batch, seq]:
            raise ValueError(f"{fn}: the shape of position_ids must be [batch_size, seq_len] = "
                             f"{[batch, seq]}, got {list(position_ids.shape)}")
        ids = _C.reshape(position_ids, [-1])
        sin = _C.reshape(_C.gather(sin, ids, 0), [batch, seq, 1, dim])
        cos = _C.reshape(_C.gather(cos, ids, 0), [batch, seq, 1, dim])
        if time_major:
            sin, cos = _C.transpose(sin, [1, 0, 2, 3]), _C.transpose(cos, [1, 0, 2, 3])
        return sin, cos
    if sin.shape[0] < seq:
        raise ValueError(f"{fn}: sin and cos have {sin.shape[0]} positions, fewer than seq_len {seq}")
    sin, cos = sin[:seq], cos[:seq]
    shape = [seq, 1, 1, dim] if time_major else [1, seq, 1, dim]
    return _C.reshape(sin, shape), _C.reshape(cos, shape)


def _rotate(x, every_two):
    """The partner of each element, signed: (-x[2i+1], x[2i]) per adjacent pair, or
    (-x2, x1) for the halves x1, x2."""
    dim = x.shape[-1]
    if every_two:
        pairs = _C.reshape(x, list(x.shape[:-1]) + [dim // 2, 2])
        even, odd = _C.chunk(pairs, 2, pairs.ndim - 1)
        return _C.reshape(_C.concat([-odd, even], pairs.ndim - 1), list(x.shape))
    first, second = _C.chunk(x, 2, x.ndim - 1)
    return _C.concat([-second, first], x.ndim - 1)


def fused_rotary_position_embedding(q, k=None, v=None, sin=None, cos=None, position_ids=None,
                                    use_neox_rotary_style=True, time_major=False, rotary_emb_base=10000.0):
    """Rotary position embedding of q, k and v: out = x * cos + rotate(x) * sin.

    The head dim is split into pairs rotated by an angle that grows with the position:
    use_neox_rotary_style=True pairs adjacent dims (2i, 2i + 1), rotate giving
    (-x[2i + 1], x[2i]); False pairs dim i with i + head_dim / 2 (the halves x1, x2; rotate
    giving (-x2, x1)). Without sin / cos, pair i at position p turns by
    p * rotary_emb_base^(-2i / head_dim). With position_ids, row position_ids[b, s] of sin / cos
    serves token s of batch b.

    Args:
        q (Tensor): [batch, seq_len, heads, head_dim] ([seq_len, batch, ...] if time_major);
            head_dim even.
        k (Tensor, optional): Like q (its own number of heads). Default: None.
        v (Tensor, optional): Like q. Default: None.
        sin (Tensor, optional): [seq_len, head_dim] or [1, seq_len, 1, head_dim]. Default: None.
        cos (Tensor, optional): sin's shape. Default: None.
        position_ids (Tensor, optional): int64 [batch, seq_len], rows of sin / cos. Default: None.
        use_neox_rotary_style (bool, optional): Adjacent pairs (True) or halves (False). Default: True.
        time_major (bool, optional): Whether the sequence is q's first dim. Default: False.
        rotary_emb_base (float, optional): The base of the angles without sin / cos. Default: 10000.0.

    Returns:
        tuple: (out_q, out_k, out_v), each its input's shape and dtype; None for an input not given.

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import fused_rotary_position_embedding
        >>> q = oar.ones([1, 2, 1, 2])
        >>> out_q, out_k, out_v = fused_rotary_position_embedding(q)
        >>> print(out_q.numpy().round(4).reshape([2, 2]))
        [[ 1.      1.    ]
         [-0.3012  1.3818]]
        >>> print(out_k, out_v)
        None None
    """
    fn = "fused_rotary_position_embedding"
    if not isinstance(q, _C.Tensor):
        raise TypeError(f"{fn}: q should be a Tensor, got {type(q).__name__}")
    for what, t in (("q", q), ("k", k), ("v", v)):
        if t is None:
            continue
        if t.ndim != 4:
            raise ValueError(f"{fn}: {what} should be 4-D, got shape {list(t.shape)}")
        if t.shape[-1] % 2 or t.shape[-1] != q.shape[-1] or t.shape[:2] != q.shape[:2]:
            raise ValueError(f"{fn}: {what} should have an even head_dim and q's batch, seq_len and "
                             f"head_dim, got shapes {list(t.shape)} and {list(q.shape)}")
    sin, cos = _tables(fn, q, sin, cos, position_ids, use_neox_rotary_style, time_major, rotary_emb_base)
    return tuple(None if t is None else t * cos + _rotate(t, use_neox_rotary_style) * sin for t in (q, k, v))
