"""rnnt_loss (paddle.nn.functional.rnnt_loss): the RNN-T (Graves 2012) transducer loss with
Paddle's warp-transducer semantics, composed of oar's ops.

The lattice recursion alpha[t, u] = logaddexp(alpha[t-1, u] + blank[t-1, u],
alpha[t, u-1] + emit[t, u-1]) runs over anti-diagonals n = t + u: each step is a handful of
tensor ops on all cells of one diagonal of every batch item, so T + U steps in all and the
gradient comes from autograd through them. As Paddle's kernel, the input is taken as log
probabilities as given (no log_softmax), and FastEmit (Yu et al. 2021) scales the gradient of
the label emissions by 1 + fastemit_lambda while leaving the loss value unchanged."""
from __future__ import annotations

import numpy as np

from ... import _C

__all__ = ["rnnt_loss"]


def _host(a):
    from ...tensor.creation import to_tensor
    return to_tensor(np.ascontiguousarray(a))


def rnnt_loss(input, label, input_lengths, label_lengths, blank=0, fastemit_lambda=0.001,
              reduction="mean", name=None):
    r"""The RNN-T loss, -log P(label | input), summed over the alignments of the transducer lattice.

    Args:
        input (Tensor): [batch_size, max_time, max_label_len + 1, num_classes] log probabilities
            (used as given: no softmax is applied), float32 or float64.
        label (Tensor): int32 [batch_size, max_label_len], the label sequences (padded).
        input_lengths (Tensor): int32 [batch_size], the frames of each item.
        label_lengths (Tensor): int32 [batch_size], the labels of each item.
        blank (int, optional): The blank class, in [0, num_classes). Default: 0.
        fastemit_lambda (float, optional): FastEmit regularisation: the gradient of the label
            emissions is scaled by 1 + fastemit_lambda (the loss value is unchanged). Default: 0.001.
        reduction (str, optional): 'none' (a [batch_size] loss), 'sum', or 'mean' (the sum divided
            by batch_size). Default: 'mean'.
        name (str, optional): Unused.

    Returns:
        Tensor: [batch_size] with reduction 'none', else a 0-D tensor; input's dtype.

    Examples:
        >>> import oar
        >>> import oar.nn.functional as F
        >>> acts = oar.to_tensor([[[[0.1, 0.6, 0.1], [0.1, 0.1, 0.6]],
        ...                        [[0.1, 0.6, 0.1], [0.7, 0.1, 0.2]]]], dtype="float64")
        >>> label = oar.to_tensor([[1]], dtype="int32")
        >>> lens = oar.to_tensor([2], dtype="int32")
        >>> loss = F.rnnt_loss(acts, label, lens, oar.to_tensor([1], dtype="int32"), reduction="sum")
        >>> print(round(float(loss), 6))
        -2.093147
    """
    op = "rnnt_loss"
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{op}: argument 'reduction' must be one of 'mean', 'sum', 'none', got {reduction!r}")
    for arg, t in (("input", input), ("label", label), ("input_lengths", input_lengths),
                   ("label_lengths", label_lengths)):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"{op}: argument '{arg}' should be a Tensor, got {type(t).__name__}")
    if input.dtype.name not in ("float32", "float64"):
        raise TypeError(f"{op}: argument 'input' should be float32 or float64, got {input.dtype.name}")
    for arg, t in (("label", label), ("input_lengths", input_lengths), ("label_lengths", label_lengths)):
        if t.dtype.name != "int32":
            raise TypeError(f"{op}: argument '{arg}' should be an int32 tensor, got {t.dtype.name}")
    if input.ndim != 4:
        raise ValueError(f"{op}: argument 'input' should be 4-D [batch_size, max_time, max_label_len + 1, "
                         f"num_classes], got shape {list(input.shape)}")
    B, T, U, V = input.shape
    if not 0 <= blank < V:
        raise ValueError(f"{op}: argument 'blank' should be in [0, {V}), got {blank}")
    lab = label.numpy().astype(np.int64).reshape(B, -1) if label.size else np.zeros((B, 0), np.int64)
    il = input_lengths.numpy().astype(np.int64).reshape(-1)
    ll = label_lengths.numpy().astype(np.int64).reshape(-1)
    if il.size != B or ll.size != B or lab.shape[0] != B:
        raise ValueError(f"{op}: label, input_lengths and label_lengths should have batch_size ({B}) rows, "
                         f"got {lab.shape[0]}, {il.size} and {ll.size}")
    if np.any(il < 1) or np.any(il > T):
        raise ValueError(f"{op}: input_lengths should be in [1, {T}], got {il.tolist()}")
    if np.any(ll < 0) or np.any(ll + 1 > U) or np.any(ll > lab.shape[1]):
        raise ValueError(f"{op}: label_lengths should be in [0, {min(U - 1, lab.shape[1])}] (input's dim 2 "
                         f"is max_label_len + 1 = {U}), got {ll.tolist()}")
    used = lab[:, :U - 1] if lab.shape[1] >= U - 1 else np.pad(lab, ((0, 0), (0, U - 1 - lab.shape[1])))
    for b in range(B):
        row = used[b, :ll[b]]
        if row.size and (row.min() < 0 or row.max() >= V):
            raise ValueError(f"{op}: labels should be in [0, {V}), got {row.tolist()} in item {b}")
    neg = -1e30
    dt = input.dtype

    # Emission log-probs: blank_lp[b, t, u] and emit_lp[b, t, u] = input[b, t, u, label[b, u]]
    # (the last u has no label: a pad that no used cell reaches).
    blank_lp = _C.squeeze(_C.slice(input, [3], [blank], [blank + 1]), [3])
    emit_idx = np.zeros((B, 1, U, 1), np.int64)
    emit_idx[:, 0, :U - 1, 0] = np.clip(used, 0, V - 1)
    emit_lp = _C.squeeze(_C.take_along_axis(input, _host(np.broadcast_to(emit_idx, (B, T, U, 1))), 3, False), [3])
    if fastemit_lambda:
        lam = float(fastemit_lambda)
        emit_lp = emit_lp * (1.0 + lam) - emit_lp.detach() * lam

    # Skew onto anti-diagonals: S[b, n, t] = X[b, t, n - t] (pad where n - t is outside [0, U)).
    N = T + U - 1
    n_idx = np.arange(N)[:, None]
    t_idx = np.arange(T)[None, :]
    u_idx = n_idx - t_idx
    valid = (u_idx >= 0) & (u_idx < U)
    flat = np.where(valid, t_idx * U + np.clip(u_idx, 0, U - 1), T * U)  # T*U: the pad slot
    gather = _host(np.broadcast_to(flat.reshape(1, N * T), (B, N * T)).astype(np.int64))
    pad = _C.full([B, 1], neg, dt)

    def skew(x):
        src = _C.concat([_C.reshape(x, [B, T * U]), pad], 1)
        return _C.reshape(_C.take_along_axis(src, gather, 1, False), [B, N, T])

    blank_s, emit_s = skew(blank_lp), skew(emit_lp)
    first = np.full((1, T), neg)
    first[0, 0] = 0.0
    alpha = _C.expand(_host(first.astype(dt.name)), [B, T])
    diags = [alpha]
    edge = _C.full([B, 1], neg, dt)
    for n in range(1, N):
        prev_b = _C.squeeze(_C.slice(blank_s, [1], [n - 1], [n]), [1])
        prev_e = _C.squeeze(_C.slice(emit_s, [1], [n - 1], [n]), [1])
        from_t = alpha + prev_b  # moves t -> t + 1: shift right by one cell
        from_t = _C.concat([edge, _C.slice(from_t, [1], [0], [T - 1])], 1) if T > 1 else edge
        from_u = alpha + prev_e
        m = _C.maximum(from_t, from_u).detach()  # log(e^a + e^b), stable; exact gradient
        alpha = m + _C.log(_C.exp(from_t - m) + _C.exp(from_u - m))
        diags.append(alpha)
    alphas = _C.stack(diags, 1)  # [B, N, T]

    # loss[b] = -(alpha[T_b - 1, U_b - 1] + blank[T_b - 1, U_b - 1]), U_b = label_length + 1.
    end_n = il - 1 + ll
    end_t = il - 1
    pick = _host((end_n * T + end_t).reshape(B, 1).astype(np.int64))
    a_end = _C.take_along_axis(_C.reshape(alphas, [B, N * T]), pick, 1, False)
    b_end = _C.take_along_axis(_C.reshape(blank_lp, [B, T * U]), _host(((il - 1) * U + ll).reshape(B, 1)), 1,
                               False)
    loss = _C.reshape(-(a_end + b_end), [B])
    if reduction == "sum":
        return _C.sum(loss)
    if reduction == "mean":
        return _C.sum(loss) / float(B)
    return loss
