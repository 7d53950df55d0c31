"""The flash-attention family of paddle.nn.functional (flash_attn_qkvpacked,
flash_attn_varlen_qkvpacked, flash_attention_v3_varlen, flashmask_attention) and the CSR-sparse
sparse_attention. Paddle runs most of them as CUDA kernels; here each is scaled dot-product
attention composed of oar's ops (matmul, where, softmax), with the mask each variant describes
(causal, sliding window, FlashMask's column-wise row ranges, a CSR pattern, packed sequences).

Shared conventions, as the CUDA kernels: causal masks align to the bottom-right corner when the
query and key lengths differ (query i sees keys j <= i + sk - sq); grouped-query attention maps
query head h to key/value head h // (num_heads / num_heads_k); a query row with no key to attend
gives zeros (and +inf as its log-sum-exp)."""
from __future__ import annotations

import math

import numpy as np

from ... import _C
from ...tensor.manipulation import repeat_interleave as _repeat_interleave
from .common import pad as _pad

__all__ = ["flash_attn_qkvpacked", "flash_attn_varlen_qkvpacked", "flash_attention_v3_varlen",
           "flashmask_attention", "sparse_attention"]


def _check_tensor(op, arg, t, ndim=None):
    if not isinstance(t, _C.Tensor):
        raise TypeError(f"{op}: argument '{arg}' should be a Tensor, got {type(t).__name__}")
    if ndim is not None and t.ndim != ndim:
        raise ValueError(f"{op}: argument '{arg}' should be {ndim}-D, got shape {list(t.shape)}")


def _expand_heads(op, t, num_heads):
    """[B, Hk, S, D] -> [B, num_heads, S, D]: key/value head h // (num_heads / Hk) per query head."""
    hk = t.shape[1]
    if hk == num_heads:
        return t
    if hk == 0 or num_heads % hk != 0:
        raise ValueError(f"{op}: the number of query heads ({num_heads}) should be a multiple of the "
                         f"number of key/value heads ({hk})")
    return _repeat_interleave(t, num_heads // hk, 1)


def _attend(q, k, v, keep=None, scale=None, dropout=0.0, training=True, softcap=0.0, probs=False):
    """Attention over [B, H, Sq, D] / [B, H, Sk, D] tensors.

    keep: a bool tensor broadcasting to [B, H, Sq, Sk] (True attends) or None. Returns
    (out [B, H, Sq, Dv], lse [B, H, Sq] (no gradient; +inf on rows with no key),
    the attention weights or None)."""
    d = q.shape[-1]
    scale = (1.0 / math.sqrt(d) if d else 1.0) if scale is None else float(scale)
    scores = _C.matmul(q * scale, k, False, True)
    if softcap and softcap > 0:
        scores = _C.tanh(scores * (1.0 / softcap)) * softcap
    row_ok = None
    if keep is not None:
        keep = _C.expand(keep, list(scores.shape)) if list(keep.shape) != list(scores.shape) else keep
        low = _C.full([1], float(np.finfo(np.float32).min) if scores.dtype.name != "float64"
                      else float(np.finfo(np.float64).min), scores.dtype)
        scores = _C.where(keep, scores, low)
        row_ok = _C.any(keep, [-1], True)
    weights = _C.softmax(scores, -1)
    lse = _C.logsumexp(scores.detach(), [-1], False)
    if row_ok is not None:
        weights = weights * _C.cast(row_ok, weights.dtype)
        inf = _C.full([1], float("inf"), lse.dtype)
        lse = _C.where(_C.squeeze(row_ok, [-1]), lse, inf)
    shown = weights
    if dropout and dropout > 0.0 and training:
        from .common import dropout as _dropout
        weights = _dropout(weights, float(dropout), training=True, mode="upscale_in_train")
    out = _C.matmul(weights, v, False, False)
    return out, lse, (shown if probs else None)


def _bhsd(t):
    return _C.transpose(t, [0, 2, 1, 3])


def _causal_keep(sq, sk, window=(-1, -1)):
    """The [sq, sk] bool mask of bottom-right-aligned causal attention, optionally with a sliding
    window (left, right; -1: unbounded) — host bookkeeping on index grids."""
    i = np.arange(sq)[:, None] + (sk - sq)
    j = np.arange(sk)[None, :]
    keep = j <= i
    left, right = window
    if left is not None and left >= 0:
        keep &= j >= i - left
    if right is not None and right >= 0:
        keep &= j <= i + right
    return keep


def _window_keep(sq, sk, window):
    i = np.arange(sq)[:, None] + (sk - sq)
    j = np.arange(sk)[None, :]
    keep = np.ones((sq, sk), bool)
    left, right = window
    if left is not None and left >= 0:
        keep &= j >= i - left
    if right is not None and right >= 0:
        keep &= j <= i + right
    return keep


def _host(a, dtype=None):
    """A host NumPy array (index bookkeeping) as a tensor."""
    from ...tensor.creation import to_tensor
    return to_tensor(np.ascontiguousarray(a) if dtype is None else np.ascontiguousarray(a, dtype=dtype))


def _host_bool(a):
    return a if isinstance(a, _C.Tensor) else _host(a, bool)


def _unpack_qkv(op, qkv, lead):
    """qkv [..., num_heads/num_heads_k + 2, num_heads_k, head_dim] -> q, k, v with the query heads
    flattened ([..., num_heads, head_dim]); lead is the number of leading (batch/token) dims."""
    if qkv.ndim != lead + 3:
        raise ValueError(f"{op}: argument 'qkv' should be {lead + 3}-D ([..., num_heads/num_heads_k + 2, "
                         f"num_heads_k, head_dim]), got shape {list(qkv.shape)}")
    groups = qkv.shape[lead] - 2
    if groups < 1:
        raise ValueError(f"{op}: qkv's dim {lead} (num_heads/num_heads_k + 2) should be at least 3, got "
                         f"{qkv.shape[lead]}")
    hk, d = qkv.shape[lead + 1], qkv.shape[lead + 2]
    q = _C.slice(qkv, [lead], [0], [groups])
    q = _C.reshape(q, list(qkv.shape[:lead]) + [groups * hk, d])
    k = _C.squeeze(_C.slice(qkv, [lead], [groups], [groups + 1]), [lead])
    v = _C.squeeze(_C.slice(qkv, [lead], [groups + 1], [groups + 2]), [lead])
    return q, k, v


def flash_attn_qkvpacked(qkv, dropout=0.0, causal=False, return_softmax=False, *, fixed_seed_offset=None,
                         rng_name="", training=True, name=None):
    r"""Attention over a packed query/key/value tensor: softmax(Q K^T / sqrt(d)) V.

    Args:
        qkv (Tensor): [batch_size, seq_len, num_heads/num_heads_k + 2, num_heads_k, head_dim]: the
            query heads, then the key, then the value.
        dropout (float, optional): Dropout on the attention weights (when training). Default: 0.0.
        causal (bool, optional): Causal masking. Default: False.
        return_softmax (bool, optional): Also return the attention weights. Default: False.
        fixed_seed_offset (Tensor, optional): Unused (the CUDA kernel's dropout seed).
        rng_name (str, optional): Unused.
        training (bool, optional): Whether dropout applies. Default: True.
        name (str, optional): Unused.

    Returns:
        tuple: (out [batch_size, seq_len, num_heads, head_dim], the weights
        [batch_size, num_heads, seq_len, seq_len] or None).

    Examples:
        >>> import oar
        >>> q = oar.to_tensor([[[[1.0, 0.0]], [[0.0, 1.0]]]])  # [1, 2, 1, 2]
        >>> qkv = oar.stack([q, q, q], axis=2)                    # [1, 2, 3, 1, 2]
        >>> out, _ = oar.nn.functional.flash_attn_qkvpacked(qkv, causal=True)
        >>> print(out.shape, out.numpy()[0, 0, 0].tolist())
        [1, 2, 1, 2] [1.0, 0.0]
    """
    op = "flash_attn_qkvpacked"
    _check_tensor(op, "qkv", qkv)
    q, k, v = _unpack_qkv(op, qkv, 2)
    out, probs = _dense_attention(op, q, k, v, None, dropout, causal, training, None, (-1, -1), 0.0,
                                  return_softmax)
    return out, (probs if return_softmax else None)


def _dense_attention(op, q, k, v, keep, dropout, causal, training, scale, window, softcap, want_probs,
                     want_lse=False):
    """[B, S, H, D] inputs; keep: host bool [B|1, H|1, Sq, Sk] or None. Returns (out, probs|lse)."""
    for arg, t in (("query", q), ("key", k), ("value", v)):
        _check_tensor(op, arg, t, 4)
    if k.shape[1] != v.shape[1] or k.shape[2] != v.shape[2]:
        raise ValueError(f"{op}: key {list(k.shape)} and value {list(v.shape)} should have the same "
                         "sequence length and head count")
    if q.shape[0] != k.shape[0] or q.shape[-1] != k.shape[-1]:
        raise ValueError(f"{op}: query {list(q.shape)} and key {list(k.shape)} should have the same "
                         "batch size and head_dim")
    h = q.shape[2]
    qb, kb, vb = _bhsd(q), _expand_heads(op, _bhsd(k), h), _expand_heads(op, _bhsd(v), h)
    sq, sk = q.shape[1], k.shape[1]
    mask = None
    if causal:
        mask = _causal_keep(sq, sk, window)
    elif window != (-1, -1) and window is not None:
        mask = _window_keep(sq, sk, window)
    if mask is not None:
        mask = mask[None, None]
        keep = mask if keep is None else (keep & mask)
    keep_t = None if keep is None else _host_bool(keep)
    out, lse, probs = _attend(qb, kb, vb, keep_t, scale, dropout, training, softcap, want_probs)
    out = _bhsd(out)
    return out, (lse if want_lse else probs)


def _cu(op, arg, t):
    _check_tensor(op, arg, t, 1)
    if t.dtype.name not in ("int32", "int64"):
        raise TypeError(f"{op}: argument '{arg}' should be an int32 tensor, got {t.dtype.name}")
    a = t.numpy().astype(np.int64)
    if a.size < 1 or np.any(np.diff(a) < 0) or a[0] != 0:
        raise ValueError(f"{op}: argument '{arg}' should hold non-decreasing cumulative lengths from 0, "
                         f"got {a.tolist()}")
    return a


def _varlen(op, q, k, v, cu_q, cu_k, starts_q, starts_k, lens_q, lens_k, total_out, scale, dropout,
            causal, training, window, softcap, want_lse):
    """Sequences b: query rows starts_q[b] + [0, lens_q[b]) against key rows starts_k[b] + [0, lens_k[b]).
    q [Tq, H, D], k/v [Tk, Hk, D]. Returns out [total_out, H, Dv] (zeros outside sequences) and
    the log-sum-exp [H, total_out] (+inf outside)."""
    h, dv = q.shape[1], v.shape[2]
    pieces, lses, rows = [], [], []
    for b in range(len(lens_q)):
        lq, lk = int(lens_q[b]), int(lens_k[b])
        if lq == 0:
            continue
        qs = _C.unsqueeze(_C.slice(q, [0], [int(starts_q[b])], [int(starts_q[b]) + lq]), [0])
        ks = _C.unsqueeze(_C.slice(k, [0], [int(starts_k[b])], [int(starts_k[b]) + lk]), [0])
        vs = _C.unsqueeze(_C.slice(v, [0], [int(starts_k[b])], [int(starts_k[b]) + lk]), [0])
        if lk == 0:
            o = _C.zeros([lq, h, dv], q.dtype)
            l = _C.full([h, lq], float("inf"), "float32")
        else:
            o, l = _dense_attention(op, qs, ks, vs, None, dropout, causal, training, scale, window, softcap,
                                    False, want_lse=True)
            o = _C.squeeze(o, [0])
            l = _C.cast(_C.squeeze(l, [0]), "float32")
        pieces.append(o)
        lses.append(l)
        rows.append(np.arange(int(starts_q[b]), int(starts_q[b]) + lq))
    out = _C.zeros([total_out, h, dv], q.dtype)
    lse = _C.full([h, total_out], float("inf"), "float32")
    if pieces:
        idx = _host(np.concatenate(rows).astype(np.int64))
        out = _C.scatter(out, idx, _C.concat(pieces, 0), True)
        lse = _C.transpose(_C.scatter(_C.transpose(lse, [1, 0]), idx,
                                      _C.transpose(_C.concat(lses, 1), [1, 0]), True), [1, 0])
    return out, lse


def flash_attn_varlen_qkvpacked(qkv, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, scale,
                                dropout=0.0, causal=False, return_softmax=False, fixed_seed_offset=None,
                                rng_name="", varlen_padded=True, training=True, name=None):
    r"""Attention over packed variable-length sequences with query, key and value in one tensor.

    Sequence b has cu_seqlens_q[b+1] - cu_seqlens_q[b] query tokens and
    cu_seqlens_k[b+1] - cu_seqlens_k[b] key tokens, and attends only within itself. With
    varlen_padded (the default) sequence b's tokens sit at rows b * max_seqlen_q + [0, len) of
    qkv (each sequence padded to max_seqlen_q); otherwise at rows cu_seqlens_q[b] + [0, len).
    Rows outside every sequence are not computed: they come out as zeros.

    Args:
        qkv (Tensor): [total_seq_len, num_heads/num_heads_k + 2, num_heads_k, head_dim].
        cu_seqlens_q (Tensor): int32 [batch_size + 1], the cumulative query lengths.
        cu_seqlens_k (Tensor): int32 [batch_size + 1], the cumulative key lengths.
        max_seqlen_q (int): The padded query length (the row stride with varlen_padded).
        max_seqlen_k (int): The padded key length.
        scale (float): The factor of Q K^T before the softmax.
        dropout (float, optional): Dropout on the attention weights. Default: 0.0.
        causal (bool, optional): Causal masking within each sequence. Default: False.
        return_softmax (bool, optional): Also return the weights, [batch_size, num_heads,
            max_seqlen_q, max_seqlen_k] (zeros outside each sequence). Default: False.
        fixed_seed_offset, rng_name, name: Unused.
        varlen_padded (bool, optional): The row layout described above. Default: True.
        training (bool, optional): Whether dropout applies. Default: True.

    Returns:
        tuple: (out [total_seq_len, num_heads, head_dim], the weights or None).

    Examples:
        >>> import oar
        >>> q = oar.to_tensor([[[1.0, 0.0]], [[0.0, 1.0]], [[1.0, 1.0]]])  # [3, 1, 2]
        >>> qkv = oar.stack([q, q, q], axis=1)                                # [3, 3, 1, 2]
        >>> cu = oar.to_tensor([0, 1, 3], dtype="int32")
        >>> out, _ = oar.nn.functional.flash_attn_varlen_qkvpacked(
        ...     qkv, cu, cu, 2, 2, 0.5, varlen_padded=False)
        >>> print(out.numpy()[0, 0].tolist())
        [1.0, 0.0]
    """
    op = "flash_attn_varlen_qkvpacked"
    _check_tensor(op, "qkv", qkv)
    q, k, v = _unpack_qkv(op, qkv, 1)
    cq, ck = _cu(op, "cu_seqlens_q", cu_seqlens_q), _cu(op, "cu_seqlens_k", cu_seqlens_k)
    if cq.size != ck.size:
        raise ValueError(f"{op}: cu_seqlens_q ({cq.size}) and cu_seqlens_k ({ck.size}) should have the "
                         "same length")
    lq, lk = np.diff(cq), np.diff(ck)
    if varlen_padded:
        sq_start = np.arange(lq.size) * int(max_seqlen_q)
        sk_start = np.arange(lk.size) * int(max_seqlen_k)
    else:
        sq_start, sk_start = cq[:-1], ck[:-1]
    total = qkv.shape[0]
    if lq.size and (np.any(sq_start + lq > total) or np.any(sk_start + lk > total)):
        raise ValueError(f"{op}: the sequences described by cu_seqlens_q/cu_seqlens_k run past qkv's "
                         f"{total} rows")
    out, _ = _varlen(op, q, k, v, cq, ck, sq_start, sk_start, lq, lk, total, scale, dropout, causal,
                     training, (-1, -1), 0.0, False)
    probs = None
    if return_softmax:
        h = q.shape[1]
        mats = []
        for b in range(lq.size):
            m = _C.zeros([h, int(max_seqlen_q), int(max_seqlen_k)], q.dtype)
            if lq[b] and lk[b]:
                qs = _C.unsqueeze(_C.slice(q, [0], [int(sq_start[b])], [int(sq_start[b] + lq[b])]), [0])
                ks = _C.unsqueeze(_C.slice(k, [0], [int(sk_start[b])], [int(sk_start[b] + lk[b])]), [0])
                vs = _C.unsqueeze(_C.slice(v, [0], [int(sk_start[b])], [int(sk_start[b] + lk[b])]), [0])
                _, p = _dense_attention(op, qs, ks, vs, None, 0.0, causal, False, scale, (-1, -1), 0.0, True)
                m = _C.squeeze(_pad(p, [0, int(max_seqlen_k - lk[b]), 0, int(max_seqlen_q - lq[b])],
                                    "constant", 0.0, "NCHW"), [0])
            mats.append(m)
        probs = _C.stack(mats, 0) if mats else _C.zeros([0, h, int(max_seqlen_q), int(max_seqlen_k)], q.dtype)
    return out, probs


def flash_attention_v3_varlen(query, key, value, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                              seqused_q=None, seqused_k=None, softmax_scale=None, causal=False, qv=None,
                              q_descale=None, k_descale=None, v_descale=None, window_size=(-1, -1),
                              softcap=0.0, num_splits=1, pack_gqa=None, sm_margin=0):
    r"""Variable-length attention over unpadded sequences (FlashAttention-3's varlen form).

    Sequence b is query rows cu_seqlens_q[b] + [0, len_q) and key/value rows
    cu_seqlens_k[b] + [0, len_k), where len is the cu_seqlens difference or, when given,
    seqused_q[b] / seqused_k[b]. Query rows outside every sequence come out as zeros.

    Args:
        query (Tensor): [total_q, num_heads, head_dim].
        key (Tensor): [total_k, num_heads_k, head_dim]; num_heads a multiple of num_heads_k.
        value (Tensor): [total_k, num_heads_k, head_dim_v].
        cu_seqlens_q, cu_seqlens_k (Tensor): int32 [batch_size + 1] cumulative lengths.
        max_seqlen_q, max_seqlen_k (int): The longest sequences (checked, not otherwise used).
        seqused_q, seqused_k (Tensor, optional): int32 [batch_size]: tokens used per sequence.
        softmax_scale (float, optional): Default 1 / sqrt(head_dim).
        causal (bool, optional): Causal masking (bottom-right aligned). Default: False.
        qv, q_descale, k_descale, v_descale: Must be None (not supported, as Paddle's qv).
        window_size (tuple, optional): (left, right) sliding window; -1 is unbounded.
        softcap (float, optional): > 0 caps the scores: softcap * tanh(scores / softcap).
        num_splits, pack_gqa, sm_margin: CUDA scheduling hints, unused.

    Returns:
        tuple: (out [total_q, num_heads, head_dim_v], softmax_lse [num_heads, total_q] float32).

    Examples:
        >>> import oar
        >>> q = oar.to_tensor([[[1.0, 0.0]], [[0.0, 1.0]]])  # [2, 1, 2]
        >>> cu = oar.to_tensor([0, 2], dtype="int32")
        >>> out, lse = oar.nn.functional.flash_attention_v3_varlen(q, q, q, cu, cu, 2, 2, causal=True)
        >>> print(out.numpy()[0, 0].tolist(), lse.shape)
        [1.0, 0.0] [1, 2]
    """
    op = "flash_attention_v3_varlen"
    for arg, t in (("query", query), ("key", key), ("value", value)):
        _check_tensor(op, arg, t, 3)
    for arg, t in (("qv", qv), ("q_descale", q_descale), ("k_descale", k_descale), ("v_descale", v_descale)):
        if t is not None:
            raise NotImplementedError(f"{op}: argument '{arg}' is not supported; it should be None")
    cq, ck = _cu(op, "cu_seqlens_q", cu_seqlens_q), _cu(op, "cu_seqlens_k", cu_seqlens_k)
    if cq.size != ck.size:
        raise ValueError(f"{op}: cu_seqlens_q ({cq.size}) and cu_seqlens_k ({ck.size}) should have the "
                         "same length")
    lq, lk = np.diff(cq), np.diff(ck)
    if seqused_q is not None:
        lq = np.minimum(lq, seqused_q.numpy().astype(np.int64))
    if seqused_k is not None:
        lk = np.minimum(lk, seqused_k.numpy().astype(np.int64))
    if cq[-1] > query.shape[0] or ck[-1] > key.shape[0]:
        raise ValueError(f"{op}: cu_seqlens run past the tokens of query ({query.shape[0]}) or key "
                         f"({key.shape[0]})")
    if isinstance(window_size, int):
        window_size = (window_size, window_size)
    window = (int(window_size[0]), int(window_size[1]))
    return _varlen(op, query, key, value, cq, ck, cq[:-1], ck[:-1], lq, lk, query.shape[0], softmax_scale,
                   0.0, causal, False, window, float(softcap), True)


def _flashmask_keep(op, idx, causal, batch, heads, sq, sk):
    """The bool keep-mask [B, H|1, sq, sk] that FlashMask's startend_row_indices describe: for key
    column j, rows in [LTS, LTE) (lower triangle) and [UTS, UTE) (upper) are masked."""
    a = idx.numpy().astype(np.int64)  # [B, h, sk, n]
    rows = np.arange(sq)[None, None, :, None]
    n = a.shape[-1]
    col = lambda c: a[..., c][:, :, None, :]  # [B, h, 1, sk]
    if causal:
        lts = col(0)
        lte = col(1) if n == 2 else np.full_like(lts, np.iinfo(np.int64).max)
        masked = (rows >= lts) & (rows < lte)
        masked |= _causal_keep(sq, sk)[None, None] == False  # noqa: E712
    else:
        lts = col(0)
        if n == 2:
            masked = (rows >= lts) | (rows < col(1))
        else:
            masked = ((rows >= lts) & (rows < col(1))) | ((rows >= col(2)) & (rows < col(3)))
    return ~masked


def flashmask_attention(query, key, value, startend_row_indices=None, *, dropout=0.0, causal=False,
                        window_size=None, return_softmax_lse=False, return_seed_offset=False,
                        fixed_seed_offset=None, rng_name="", training=True, name=None, softmax_scale=None,
                        block_mask=None):
    r"""FlashMask attention: softmax(Q K^T / sqrt(d) + M) V with a column-wise sparse mask M.

    startend_row_indices [batch_size, 1 | num_heads | num_heads_k, seq_len_k, n] (int32) gives, per
    key column j, row ranges to mask. causal=True: n=1 masks rows >= [0] (plus the causal upper
    triangle), n=2 rows in [[0], [1]). causal=False: n=2 masks rows >= [0] and rows < [1]; n=4 rows
    in [[0], [1]) and in [[2], [3]). window_size (int or (left, right)) builds a sliding-window mask
    instead. Fully masked query rows come out as zeros.

    Args:
        query (Tensor): [batch_size, seq_len_q, num_heads, head_dim].
        key (Tensor): [batch_size, seq_len_k, num_heads_k, head_dim].
        value (Tensor): [batch_size, seq_len_k, num_heads_k, head_dim].
        startend_row_indices (Tensor, optional): See above. Default: None.
        dropout (float, optional): Dropout on the attention weights. Default: 0.0.
        causal (bool, optional): Causal masking. Default: False.
        window_size (int|tuple, optional): Sliding window; not with startend_row_indices.
        return_softmax_lse (bool, optional): Also return the log-sum-exp [batch_size, num_heads,
            seq_len_q] (float32). Default: False.
        return_seed_offset (bool, optional): Also return the dropout seed/offset (an int64 [2] tensor
            of zeros: oar's dropout draws from the global generator). Default: False.
        fixed_seed_offset, rng_name, name: Unused.
        training (bool, optional): Whether dropout applies. Default: True.
        softmax_scale (float, optional): Default 1 / sqrt(head_dim).
        block_mask (Tensor, optional): int32 [batch_size, heads, ceil(seq_len_q / 128),
            ceil(seq_len_k / 128)]: 0 masks a whole 128 x 128 block; needs startend_row_indices.

    Returns:
        Tensor, or a list [out, softmax_lse?, seed_offset?] when either flag is set.

    Examples:
        >>> import oar
        >>> q = oar.to_tensor([[[[1.0, 0.0]], [[0.0, 1.0]], [[1.0, 1.0]]]])  # [1, 3, 1, 2]
        >>> idx = oar.to_tensor([3, 3, 3], dtype="int32").reshape([1, 1, 3, 1])
        >>> out = oar.nn.functional.flashmask_attention(q, q, q, idx, causal=True)
        >>> print(out.shape, out.numpy()[0, 0, 0].tolist())
        [1, 3, 1, 2] [1.0, 0.0]
    """
    op = "flashmask_attention"
    for arg, t in (("query", query), ("key", key), ("value", value)):
        _check_tensor(op, arg, t, 4)
    bsz, sq, hq = query.shape[0], query.shape[1], query.shape[2]
    sk, hk = key.shape[1], key.shape[2]
    keep = None
    window = (-1, -1)
    if window_size is not None:
        if startend_row_indices is not None:
            raise ValueError(f"{op}: window_size cannot be used with startend_row_indices")
        if isinstance(window_size, int):
            window_size = (window_size, window_size)
        window = (int(window_size[0]), 0 if causal else int(window_size[1]))
    if block_mask is not None and startend_row_indices is None:
        raise ValueError(f"{op}: block_mask needs startend_row_indices")
    if startend_row_indices is not None:
        s = startend_row_indices
        _check_tensor(op, "startend_row_indices", s)
        if s.dtype.name != "int32":
            raise TypeError(f"{op}: startend_row_indices.dtype must be int32, but got {s.dtype.name}")
        if s.ndim != 4:
            raise ValueError(f"{op}: startend_row_indices rank must be 4, but got {list(s.shape)}")
        if s.shape[0] != bsz:
            raise ValueError(f"{op}: startend_row_indices.shape[0] must be equal to batch_size, but got "
                             f"{s.shape[0]} and {bsz}")
        if s.shape[2] != sk:
            raise ValueError(f"{op}: startend_row_indices.shape[2] must be equal to seqlen_k, but got "
                             f"{s.shape[2]} and {sk}")
        if s.shape[1] not in (1, hq, hk):
            raise ValueError(f"{op}: startend_row_indices head_num must be equal to 1 (broadcast), "
                             f"head_num_q ({hq}) or head_num_k ({hk}), got {s.shape[1]}")
        n = s.shape[3]
        if causal and n not in (1, 2):
            raise ValueError(f"Invalid shape of startend_row_indices, when causal is True, the last "
                             f"dimension should be either 1 or 2 but got {n}")
        if not causal and n not in (2, 4):
            raise ValueError(f"Invalid shape of startend_row_indices, when causal is False, the last "
                             f"dimension should be either 2 or 4 but got {n}")
        keep = _flashmask_keep(op, s, causal, bsz, s.shape[1], sq, sk)
        if keep.shape[1] not in (1, hq):  # per key head: expand to the query heads
            keep = np.repeat(keep, hq // keep.shape[1], axis=1)
        if block_mask is not None:
            b = block_mask.numpy().astype(bool)
            if list(b.shape) != [bsz, s.shape[1], (sq + 127) // 128, (sk + 127) // 128]:
                raise ValueError(f"{op}: block_mask should have shape {[bsz, s.shape[1], (sq + 127) // 128, (sk + 127) // 128]}, "
                                 f"got {list(b.shape)}")
            dense = np.repeat(np.repeat(b, 128, axis=2), 128, axis=3)[:, :, :sq, :sk]
            if dense.shape[1] != keep.shape[1]:
                dense = np.repeat(dense, keep.shape[1] // dense.shape[1], axis=1)
            keep = keep & dense
        causal_flag = False  # folded into keep
    else:
        causal_flag = causal
    out, lse = _dense_attention(op, query, key, value, keep, dropout, causal_flag, training, softmax_scale,
                                window, 0.0, False, want_lse=True)
    if not (return_softmax_lse or return_seed_offset):
        return out
    outputs = [out]
    if return_softmax_lse:
        outputs.append(_C.cast(lse, "float32"))
    if return_seed_offset:
        outputs.append(_C.zeros([2], "int64"))
    return outputs


def sparse_attention(query, key, value, sparse_csr_offset, sparse_csr_columns, key_padding_mask=None,
                     attn_mask=None, name=None):
    r"""Attention restricted to a CSR sparsity pattern: row i of each [batch, head] attends only to
    the key columns sparse_csr_columns[offset[i]:offset[i+1]], softmax(Q K^T / sqrt(d)) V over them.

    Args:
        query, key, value (Tensor): [batch_size, num_heads, seq_len, head_dim], float32 or float64.
        sparse_csr_offset (Tensor): int32 [batch_size, num_heads, seq_len + 1], the row offsets.
        sparse_csr_columns (Tensor): int32 [batch_size, num_heads, nnz], the column of each entry.
        key_padding_mask (Tensor, optional): [batch_size, seq_len]; 0 masks that key.
        attn_mask (Tensor, optional): [seq_len, seq_len]; 0 masks that (query, key) pair.
        name (str, optional): Unused.

    Returns:
        Tensor: [batch_size, num_heads, seq_len, head_dim]; a row with nothing to attend is zeros.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[[[0.0, 1.0], [2.0, 3.0], [0.0, 1.0], [2.0, 3.0]]]])
        >>> offset = oar.to_tensor([[[0, 2, 4, 6, 8]]], dtype="int32")
        >>> columns = oar.to_tensor([[[0, 1, 0, 1, 2, 3, 2, 3]]], dtype="int32")
        >>> out = oar.nn.functional.sparse_attention(x, x, x, offset, columns)
        >>> print(out.numpy()[0, 0, 1].round(4))
        [1.9983 2.9983]
    """
    op = "sparse_attention"
    for arg, t in (("query", query), ("key", key), ("value", value)):
        _check_tensor(op, arg, t, 4)
        if t.dtype.name not in ("float32", "float64"):
            raise TypeError(f"{op}: argument '{arg}' should be float32 or float64, got {t.dtype.name}")
    b, h, s, _ = query.shape
    sk = key.shape[2]
    _check_tensor(op, "sparse_csr_offset", sparse_csr_offset, 3)
    _check_tensor(op, "sparse_csr_columns", sparse_csr_columns, 3)
    for arg, t in (("sparse_csr_offset", sparse_csr_offset), ("sparse_csr_columns", sparse_csr_columns)):
        if t.dtype.name not in ("int32", "int64"):
            raise TypeError(f"{op}: argument '{arg}' should be an int32 tensor, got {t.dtype.name}")
    off = sparse_csr_offset.numpy().astype(np.int64)
    cols = sparse_csr_columns.numpy().astype(np.int64)
    if list(off.shape) != [b, h, s + 1]:
        raise ValueError(f"{op}: sparse_csr_offset should have shape {[b, h, s + 1]}, got {list(off.shape)}")
    if cols.shape[:2] != (b, h):
        raise ValueError(f"{op}: sparse_csr_columns should have shape [{b}, {h}, nnz], got {list(cols.shape)}")
    keep = np.zeros((b, h, s, sk), bool)
    for bi in range(b):
        for hi in range(h):
            o = off[bi, hi]
            if o[0] != 0 or np.any(np.diff(o) < 0) or o[-1] > cols.shape[2]:
                raise ValueError(f"{op}: sparse_csr_offset[{bi}, {hi}] should rise from 0 to at most nnz "
                                 f"({cols.shape[2]}), got {o.tolist()}")
            c = cols[bi, hi, :o[-1]]
            if c.size and (c.min() < 0 or c.max() >= sk):
                raise IndexError(f"{op}: sparse_csr_columns should be in [0, {sk}), got values in "
                                 f"[{c.min()}, {c.max()}]")
            r = np.repeat(np.arange(s), np.diff(o))
            keep[bi, hi, r, c] = True
    if key_padding_mask is not None:
        kp = key_padding_mask.numpy()
        if list(kp.shape) != [b, sk]:
            raise ValueError(f"{op}: key_padding_mask should have shape {[b, sk]}, got {list(kp.shape)}")
        keep &= (kp != 0)[:, None, None, :]
    if attn_mask is not None:
        am = attn_mask.numpy()
        if list(am.shape) != [s, sk]:
            raise ValueError(f"{op}: attn_mask should have shape {[s, sk]}, got {list(am.shape)}")
        keep &= (am != 0)[None, None]
    out, _, _ = _attend(query, key, value, _host_bool(keep))
    return out
