"""Mixture-of-experts helpers of paddle.incubate.nn.functional (Paddle's ERNIE MoE kernels, GPU-only
there): combining expert outputs, expert-id bookkeeping, the auxiliary load-balancing loss and
integer bin counts. Each is a composition of oar's ops; index bookkeeping on small host metadata
is done with NumPy."""
from __future__ import annotations

import numpy as np

from .... import _C

__all__ = ["moe_combine", "expand_modality_expert_id", "build_src_rank_and_local_expert_id",
           "cal_aux_loss", "int_bincount", "embedding_grad_add_to_", "blha_get_max_len",
           "fused_swiglu_weighted_bwd"]


def _tensor(op, arg, t):
    if not isinstance(t, _C.Tensor):
        raise TypeError(f"{op}: argument '{arg}' should be a Tensor, got {type(t).__name__}")


def _host(a, dtype):
    from ....tensor.creation import to_tensor
    return to_tensor(np.ascontiguousarray(a, dtype=dtype))


def moe_combine(x, combine_weights, scatter_index, name=None):
    r"""Combines the expert outputs of each token: y[s] = sum_j combine_weights[s, j] * x[scatter_index[s, j]].

    Args:
        x (Tensor): [seqlen * k, hidden_size], the expert outputs (one row per routed copy).
        combine_weights (Tensor): [seqlen, k], the gate weights (x's dtype).
        scatter_index (Tensor): int32/int64 [seqlen, k], the row of x holding each copy.
        name (str, optional): Unused.

    Returns:
        Tensor: [seqlen, hidden_size], differentiable in x and combine_weights.

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import moe_combine
        >>> x = oar.arange(1, 13, dtype="float32").reshape([4, 3])
        >>> w = oar.to_tensor([[1.0, 0.0], [0.25, 0.75]])
        >>> idx = oar.to_tensor([[0, 1], [2, 3]], dtype="int32")
        >>> print(moe_combine(x, w, idx).numpy().tolist())
        [[1.0, 2.0, 3.0], [9.25, 10.25, 11.25]]
    """
    op = "moe_combine"
    for arg, t in (("x", x), ("combine_weights", combine_weights), ("scatter_index", scatter_index)):
        _tensor(op, arg, t)
    if x.ndim != 2:
        raise ValueError(f"{op}: argument 'x' should be 2-D [seqlen * k, hidden_size], got {list(x.shape)}")
    if combine_weights.ndim != 2:
        raise ValueError(f"{op}: argument 'combine_weights' should be 2-D [seqlen, k], got "
                         f"{list(combine_weights.shape)}")
    if list(scatter_index.shape) != list(combine_weights.shape):
        raise ValueError(f"{op}: scatter_index {list(scatter_index.shape)} should have combine_weights' "
                         f"shape {list(combine_weights.shape)}")
    if scatter_index.dtype.name not in ("int32", "int64"):
        raise TypeError(f"{op}: argument 'scatter_index' should be int32 or int64, got {scatter_index.dtype.name}")
    s, k = combine_weights.shape
    flat = _C.reshape(_C.cast(scatter_index, "int64"), [s * k])
    gathered = _C.reshape(_C.gather(x, flat, 0), [s, k, x.shape[1]])
    w = _C.unsqueeze(_C.cast(combine_weights, x.dtype), [2])
    return _C.sum(gathered * w, [1])


def expand_modality_expert_id(expert_id, num_expert_per_modality, group_size, modality_offset, is_group_expert,
                              name=None):
    r"""Maps per-modality expert ids to global ids when experts of two modalities are interleaved
    per rank: with r = e // num_expert_per_modality and i = e % num_expert_per_modality, the id
    becomes r * 2 * num_expert_per_modality + modality_offset * num_expert_per_modality + i. With
    is_group_expert, column j of expert_id [..., k] first adds j * group_size.

    Args:
        expert_id (Tensor): int32/int64 [seqlen, k] expert ids.
        num_expert_per_modality (int): Experts of one modality per rank.
        group_size (int): Experts per group (with is_group_expert).
        modality_offset (int): 0 for the first modality, 1 for the second.
        is_group_expert (bool): Whether column j's id is relative to group j.
        name (str, optional): Unused.

    Returns:
        Tensor: expert_id's shape and dtype.

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import expand_modality_expert_id
        >>> ids = oar.to_tensor([[0, 3], [5, 1]])
        >>> print(expand_modality_expert_id(ids, 2, 4, 1, False).numpy().tolist())
        [[2, 7], [11, 3]]
    """
    op = "expand_modality_expert_id"
    _tensor(op, "expert_id", expert_id)
    if expert_id.dtype.name not in ("int32", "int64"):
        raise TypeError(f"{op}: argument 'expert_id' should be int32 or int64, got {expert_id.dtype.name}")
    if num_expert_per_modality <= 0:
        raise ValueError(f"{op}: argument 'num_expert_per_modality' should be positive, got "
                         f"{num_expert_per_modality}")
    e = expert_id
    if is_group_expert:
        k = expert_id.shape[-1] if expert_id.ndim else 1
        cols = _host((np.arange(k) * int(group_size)).astype(np.int64), expert_id.dtype.name)
        e = e + cols
    n = int(num_expert_per_modality)
    rank = _C.floor_divide(e, _C.full([1], n, e.dtype))
    inner = e - rank * n
    return rank * (2 * n) + inner + int(modality_offset) * n


def build_src_rank_and_local_expert_id(expert_num_global_tensor, expert_num_global, num_local_experts, name=None):
    r"""For tokens laid out expert by expert (expert_num_global[i] tokens for global expert i), the
    rank that owns each token's expert (i // num_local_experts) and its id there (i % num_local_experts).

    Args:
        expert_num_global_tensor (Tensor): int64 [num_global_experts], the counts as a tensor.
        expert_num_global (list[int]): The same counts as a list.
        num_local_experts (int): Experts per rank.
        name (str, optional): Unused.

    Returns:
        tuple: (src_rank, local_expert_id), int32 [sum(expert_num_global)] each.

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import build_src_rank_and_local_expert_id
        >>> counts = [1, 2, 0, 1]
        >>> rank, local = build_src_rank_and_local_expert_id(oar.to_tensor(counts), counts, 2)
        >>> print(rank.numpy().tolist(), local.numpy().tolist())
        [0, 0, 0, 1] [0, 1, 1, 1]
    """
    op = "build_src_rank_and_local_expert_id"
    _tensor(op, "expert_num_global_tensor", expert_num_global_tensor)
    counts = np.asarray(list(expert_num_global), dtype=np.int64)
    if counts.ndim != 1 or expert_num_global_tensor.size != counts.size:
        raise ValueError(f"{op}: expert_num_global ({counts.size} entries) should match "
                         f"expert_num_global_tensor's {expert_num_global_tensor.size}")
    if np.any(counts < 0):
        raise ValueError(f"{op}: expert_num_global should be non-negative, got {counts.tolist()}")
    if num_local_experts <= 0:
        raise ValueError(f"{op}: argument 'num_local_experts' should be positive, got {num_local_experts}")
    experts = _host(np.arange(counts.size), np.int32)
    reps = _host(counts, np.int64)
    ids = _C.repeat_interleave(experts, reps, 0) if counts.sum() else _C.zeros([0], "int32")
    n = _C.full([1], int(num_local_experts), "int32")
    rank = _C.floor_divide(ids, n)
    return rank, ids - rank * n


def cal_aux_loss(gate_prob, dispatch_mask, tokens_mask, dispatch_tokens_mask, num_experts, use_group, moe_k,
                 clip_min, name=None):
    r"""The MoE load-balancing auxiliary loss (as GShard / Switch):
    l_aux = num_experts * sum_e me[e] * ce[e], with me = sum over tokens of gate_prob / seqlen and
    ce = dispatch counts / seqlen (no gradient); divided by moe_k with use_group.

    seqlen is sum(dispatch_tokens_mask) when given (and then, when tokens_mask is given and
    gate_prob has another token count, the loss's gradient is scaled by
    seqlen / max(sum(tokens_mask), clip_min)), else sum(tokens_mask), else the number of tokens;
    at least clip_min.

    Args:
        gate_prob (Tensor): [seqlen, num_experts] gate probabilities.
        dispatch_mask (Tensor): [num_experts] token counts per expert, or [seqlen, num_experts].
        tokens_mask (Tensor|None): [seqlen] 1 for real tokens.
        dispatch_tokens_mask (Tensor|None): [global_seqlen] the dispatched tokens' mask.
        num_experts (int): The number of experts.
        use_group (bool): Divide by moe_k.
        moe_k (int): Experts per token.
        clip_min (float): The least seqlen.
        name (str, optional): Unused.

    Returns:
        tuple: (l_aux 0-D, seqlen_float 0-D, ce [num_experts]); l_aux differentiable in gate_prob.

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import cal_aux_loss
        >>> prob = oar.to_tensor([[0.5, 0.5], [1.0, 0.0]])
        >>> l_aux, seqlen, ce = cal_aux_loss(prob, oar.to_tensor([1, 1]), None, None, 2, False, 1, 0.0)
        >>> print(round(float(l_aux), 4), float(seqlen), ce.numpy().tolist())
        1.0 2.0 [0.5, 0.5]
    """
    op = "cal_aux_loss"
    _tensor(op, "gate_prob", gate_prob)
    _tensor(op, "dispatch_mask", dispatch_mask)
    if gate_prob.ndim != 2:
        raise ValueError(f"{op}: argument 'gate_prob' should be 2-D [seqlen, num_experts], got "
                         f"{list(gate_prob.shape)}")
    dt = gate_prob.dtype
    if tokens_mask is not None and tokens_mask.dtype != dt:
        tokens_mask = _C.cast(tokens_mask, dt)
    scale = None
    if dispatch_tokens_mask is not None:
        seqlen = _C.sum(_C.cast(dispatch_tokens_mask, dt))
        if tokens_mask is not None and gate_prob.shape[0] != dispatch_tokens_mask.shape[0]:
            scale = seqlen / _C.clip(_C.sum(tokens_mask), float(clip_min))
    elif tokens_mask is not None:
        seqlen = _C.sum(tokens_mask)
    else:
        seqlen = _C.full([], float(gate_prob.size) / num_experts, dt)
    seqlen = _C.clip(seqlen, float(clip_min))
    counts = _C.sum(dispatch_mask, [0]) if dispatch_mask.ndim == 2 else dispatch_mask
    ce = _C.cast(counts, dt).detach() / seqlen
    me = _C.sum(gate_prob, [0]) / seqlen
    l_aux = _C.sum(me * ce) * float(num_experts)
    if use_group:
        l_aux = l_aux / float(moe_k)
    if scale is not None:
        l_aux = l_aux + (scale - 1.0) * l_aux.detach()
    return l_aux, seqlen, ce


def int_bincount(x, low, high, dtype=None, name=None):
    r"""Counts of each integer in [low, high) among the elements of x.

    Args:
        x (Tensor): int32 or int64 values, 0-D, 1-D or 2-D, non-negative.
        low (int): The first counted value.
        high (int): One past the last counted value (high >= low).
        dtype (str|dtype, optional): 'int32' or 'int64'; default x's dtype.
        name (str, optional): Unused.

    Returns:
        Tensor: [high - low] counts.

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import int_bincount
        >>> print(int_bincount(oar.to_tensor([1, 2, 2, 5]), 1, 4, "int64").numpy().tolist())
        [1, 2, 0]
    """
    op = "int_bincount"
    _tensor(op, "x", x)
    if x.ndim not in (0, 1, 2):
        raise ValueError(f"x must be a 0D, 1D or 2D tensor, but got ndim={x.ndim}")
    if x.dtype.name not in ("int32", "int64"):
        raise ValueError(f"x.dtype must be int32 or int64, but got {x.dtype.name}")
    dt = x.dtype.name if dtype is None else getattr(dtype, "name", str(dtype)).replace("paddle.", "")
    if dt not in ("int32", "int64"):
        raise ValueError(f"dtype must be 'int32' or 'int64', but got '{dtype}'")
    if high < low:
        raise ValueError(f"'high' ({high}) must be greater than or equal to 'low' ({low})")
    if x.size == 0:
        return _C.zeros([high - low], dt)
    flat = _C.reshape(x, [-1])
    lo = int(_C.min(flat).item())
    if lo < 0:
        raise ValueError(f"Elements of x must be non-negative, but got min={lo}")
    from ....tensor.statistics import bincount
    counts = bincount(flat, None, int(high))
    return _C.cast(_C.slice(counts, [0], [int(low)], [int(high)]), dt)


def embedding_grad_add_to_(token_indices, main_grad_, out_grad, name=None):
    r"""Accumulates an embedding's gradient into a main-gradient buffer in place:
    main_grad_[token_indices[i]] += out_grad[i] for every token i (out_grad cast to main_grad_'s dtype).

    Args:
        token_indices (Tensor): int32/int64 token ids, any shape [...].
        main_grad_ (Tensor): [vocab_size, hidden_size], updated in place.
        out_grad (Tensor): [..., hidden_size], the gradient of the embedding's output.
        name (str, optional): Unused.

    Returns:
        Tensor: main_grad_.

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import embedding_grad_add_to_
        >>> g = oar.zeros([3, 2])
        >>> _ = embedding_grad_add_to_(oar.to_tensor([0, 2, 2]), g, oar.ones([3, 2]))
        >>> print(g.numpy().tolist())
        [[1.0, 1.0], [0.0, 0.0], [2.0, 2.0]]
    """
    op = "embedding_grad_add_to_"
    for arg, t in (("token_indices", token_indices), ("main_grad_", main_grad_), ("out_grad", out_grad)):
        _tensor(op, arg, t)
    if token_indices.dtype.name not in ("int32", "int64"):
        raise TypeError(f"{op}: argument 'token_indices' should be int32 or int64, got {token_indices.dtype.name}")
    if main_grad_.ndim != 2:
        raise ValueError(f"{op}: argument 'main_grad_' should be 2-D [vocab_size, hidden_size], got "
                         f"{list(main_grad_.shape)}")
    hidden = main_grad_.shape[1]
    if out_grad.shape[-1] != hidden or out_grad.size != token_indices.size * hidden:
        raise ValueError(f"{op}: out_grad {list(out_grad.shape)} should be token_indices' shape "
                         f"{list(token_indices.shape)} + [{hidden}]")
    idx = _C.reshape(_C.cast(token_indices, "int64"), [-1])
    if idx.size:
        lo, hi = int(_C.min(idx).item()), int(_C.max(idx).item())
        if lo < 0 or hi >= main_grad_.shape[0]:
            raise IndexError(f"{op}: token_indices should be in [0, {main_grad_.shape[0]}), got values in "
                             f"[{lo}, {hi}]")
    src = _C.cast(_C.reshape(out_grad, [-1, hidden]), main_grad_.dtype)
    return main_grad_.index_add_(idx, 0, src)


def blha_get_max_len(seq_lens_encoder, seq_lens_decoder, batch_size):
    r"""The longest encoder and decoder lengths of this step's batch, for block_multihead_attention:
    max(seq_lens_encoder[:bsz]) and max(seq_lens_decoder[:bsz]) with bsz = batch_size.shape[0].

    Args:
        seq_lens_encoder (Tensor): int32 [max_batch] encoder lengths.
        seq_lens_decoder (Tensor): int32 [max_batch] decoder lengths.
        batch_size (Tensor): a tensor whose dim 0 is the batch size (its values are not read).

    Returns:
        tuple: (max_enc_len_this_time, max_dec_len_this_time), int32 [1] each.

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import blha_get_max_len
        >>> enc = oar.to_tensor([3, 0, 7], dtype="int32")
        >>> dec = oar.to_tensor([0, 5, 9], dtype="int32")
        >>> e, d = blha_get_max_len(enc, dec, oar.ones([2]))
        >>> print(e.numpy().tolist(), d.numpy().tolist())
        [3] [5]
    """
    op = "blha_get_max_len"
    for arg, t in (("seq_lens_encoder", seq_lens_encoder), ("seq_lens_decoder", seq_lens_decoder),
                   ("batch_size", batch_size)):
        _tensor(op, arg, t)
    bsz = batch_size.shape[0] if batch_size.ndim else 1
    outs = []
    for arg, t in (("seq_lens_encoder", seq_lens_encoder), ("seq_lens_decoder", seq_lens_decoder)):
        flat = _C.reshape(t, [-1])
        if flat.shape[0] < bsz:
            raise ValueError(f"{op}: argument '{arg}' has {flat.shape[0]} entries, fewer than the batch size {bsz}")
        head = _C.slice(flat, [0], [0], [bsz])
        outs.append(_C.reshape(_C.cast(_C.max(head) if bsz else _C.zeros([], "int32"), "int32"), [1]))
    return outs[0], outs[1]


def fused_swiglu_weighted_bwd(o1, do2_s, unzipped_probs, name=None):
    r"""The backward of an expert's probability-weighted SwiGLU, o2_s = silu(x1) * x2 * prob with
    o1 = [x1, x2] split in halves on the last dim; it also recomputes o2_s.

    Args:
        o1 (Tensor): [..., 2 * intermediate_size], the forward input.
        do2_s (Tensor): [..., intermediate_size], the gradient of o2_s.
        unzipped_probs (Tensor): [...], each row's probability.
        name (str, optional): Unused.

    Returns:
        tuple: (do1 [..., 2 * intermediate_size] = (do2_s * prob * x2 * silu'(x1),
        do2_s * prob * silu(x1)); probs_grad [...] = sum(do2_s * silu(x1) * x2) in float32;
        o2_s [..., intermediate_size]), do1 and o2_s in o1's dtype.

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import fused_swiglu_weighted_bwd
        >>> o1 = oar.to_tensor([[0.0, 2.0]])
        >>> do1, probs_grad, o2_s = fused_swiglu_weighted_bwd(o1, oar.ones([1, 1]), oar.to_tensor([0.5]))
        >>> print(do1.numpy().tolist(), probs_grad.numpy().tolist(), o2_s.numpy().tolist())
        [[0.5, 0.0]] [0.0] [[0.0]]
    """
    op = "fused_swiglu_weighted_bwd"
    for arg, t in (("o1", o1), ("do2_s", do2_s), ("unzipped_probs", unzipped_probs)):
        _tensor(op, arg, t)
    if o1.ndim < 1 or o1.shape[-1] % 2:
        raise ValueError(f"{op}: o1's last dim should be even (2 * intermediate_size), got shape {list(o1.shape)}")
    half = o1.shape[-1] // 2
    if list(do2_s.shape) != list(o1.shape[:-1]) + [half]:
        raise ValueError(f"{op}: do2_s should have shape {list(o1.shape[:-1]) + [half]}, got {list(do2_s.shape)}")
    if list(unzipped_probs.shape) != list(o1.shape[:-1]):
        raise ValueError(f"{op}: unzipped_probs should have shape {list(o1.shape[:-1])}, got "
                         f"{list(unzipped_probs.shape)}")
    cdt = "float64" if o1.dtype.name == "float64" else "float32"
    x = _C.cast(o1, cdt)
    x1 = _C.slice(x, [x.ndim - 1], [0], [half])
    x2 = _C.slice(x, [x.ndim - 1], [half], [2 * half])
    g = _C.cast(do2_s, cdt)
    p = _C.unsqueeze(_C.cast(unzipped_probs, cdt), [-1])
    sig = _C.sigmoid(x1)
    silu = x1 * sig
    act = silu * x2
    gp = g * p
    dx1 = gp * x2 * (sig * (1.0 + x1 * (1.0 - sig)))
    dx2 = gp * silu
    do1 = _C.cast(_C.concat([dx1, dx2], x.ndim - 1), o1.dtype)
    probs_grad = _C.cast(_C.sum(g * act, [-1]), "float32")
    return do1, probs_grad, _C.cast(act * p, o1.dtype)
