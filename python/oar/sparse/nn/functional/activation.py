"""Activations, softmax and attention of sparse tensors: activations act on the stored values
(f(0) = 0 for each, so the pattern is kept); softmax normalises over each row's stored
elements (absent ones do not count, unlike a dense softmax of to_dense())."""
import math

from ..._lazy import oar
import oar.nn.functional as F

from ..._tensor import SparseCooTensor, SparseCsrTensor, SparseTensor, coo_to_csr, csr_rows
from ..._matmul import _global_pattern, masked_matmul
from .... import _C

__all__ = ["relu", "relu6", "leaky_relu", "softmax", "attention"]


def _check(op, x):
    if not isinstance(x, SparseTensor):
        raise TypeError(f"sparse.nn.functional.{op}: x must be a sparse COO or CSR tensor, got {type(x).__name__}")


def _activation_doc(summary, values, call, printed, extra_arg=""):
    """The docstring of an activation of the stored values: `summary`, then Args, Returns and an
    example applying `call` (e.g. "relu(x)") to a 2 x 2 COO tensor with the stored `values`."""
    return f"""{summary}

    Args:
        x (SparseCooTensor|SparseCsrTensor): The input.{extra_arg}
        name (str, optional): Unused.

    Returns:
        SparseCooTensor|SparseCsrTensor: x's format and pattern.

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 1], [1, 0]], {values}, [2, 2])
        >>> print(oar.sparse.nn.functional.{call}.values().numpy())
        {printed}
    """


def _on_values(op, x, fn, *args):
    """fn(values, *args) as a sparse tensor of x's format and pattern (x checked for op)."""
    _check(op, x)
    return x._with_values(fn(x.values(), *args))


def relu(x, name=None):
    return _on_values("relu", x, F.relu)


def relu6(x, name=None):
    return _on_values("relu6", x, F.relu6)


def leaky_relu(x, negative_slope=0.01, name=None):
    return _on_values("leaky_relu", x, F.leaky_relu, negative_slope)


relu.__doc__ = _activation_doc("max(x, 0) for each stored element of a sparse tensor.",
                               "[-2.0, 3.0]", "relu(x)", "[0. 3.]")
relu6.__doc__ = _activation_doc("min(max(x, 0), 6) for each stored element.",
                                "[-2.0, 8.0]", "relu6(x)", "[0. 6.]")
leaky_relu.__doc__ = _activation_doc(
    "x if x >= 0 else negative_slope * x, for each stored element.", "[-2.0, 3.0]",
    "leaky_relu(x, 0.5)", "[-1.  3.]",
    extra_arg="\n        negative_slope (float): The slope for negative values.")


def _row_softmax(values, rows, n_rows):
    """softmax of values within each row (rows: sorted int64 row ids, one per value)."""
    peak = oar.geometric.segment_max(values.detach(), rows)
    if int(peak.shape[0]) < n_rows:
        peak = oar.concat([peak, oar.zeros([n_rows - int(peak.shape[0])] + list(peak.shape[1:]), peak.dtype)])
    e = oar.exp(values - oar.gather(peak, rows))
    total = oar.geometric.send_u_recv(e, oar.arange(int(e.shape[0]), dtype="int64"), rows, reduce_op="sum",
                                      out_size=n_rows)
    return e / oar.gather(total, rows)


def softmax(x, axis=-1, name=None):
    """Softmax over the last axis, each row normalised over its stored elements only.

    Args:
        x (SparseCsrTensor|SparseCooTensor): 2-D or 3-D; a COO tensor has no dense dims.
        axis (int): -1 (the only axis Paddle supports).
        name (str, optional): Unused.

    Returns:
        SparseCsrTensor|SparseCooTensor: x's format and pattern.

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_csr_tensor([0, 2, 3], [0, 1, 0], [1.0, 1.0, 5.0], [2, 2])
        >>> print(oar.sparse.nn.functional.softmax(x).values().numpy())
        [0.5 0.5 1. ]
    """
    _check("softmax", x)
    if axis not in (-1, x.ndim - 1):
        raise ValueError(f"sparse.nn.functional.softmax: only axis=-1 is supported, got {axis}")
    if isinstance(x, SparseCooTensor):
        if x.dense_dim():
            raise ValueError("sparse.nn.functional.softmax: a COO input must have no dense dims")
        csr = coo_to_csr(x)
        return softmax(csr).to_sparse_coo()
    batches = 1 if x.ndim == 2 else x.shape[0]
    rows = csr_rows(x)
    return x._with_values(_row_softmax(x.values(), rows, batches * x.shape[-2]))


def attention(query, key, value, sparse_mask, key_padding_mask=None, attn_mask=None, name=None):
    """Scaled dot-product attention computed only at sparse_mask's pattern:
    softmax(Q·Kᵀ/√D + masks, over each row's stored positions) · V.

    Args:
        query (Tensor): [B, H, S, D], float32 or float64.
        key (Tensor): [B, H, S, D].
        value (Tensor): [B, H, S, D].
        sparse_mask (SparseCsrTensor): [B * H, S, S], the positions to attend.
        key_padding_mask (Tensor, optional): [B, S]: 0 masks a key out (added as -inf), 1 keeps it.
        attn_mask (Tensor, optional): [S, S]: 0 masks a position out, 1 keeps it.
        name (str, optional): Unused.

    Returns:
        Tensor: [B, H, S, D].

    Examples:
        >>> import oar
        >>> q = oar.ones([1, 1, 2, 4])
        >>> mask = oar.sparse.sparse_csr_tensor([0, 1, 3], [0, 0, 1], [1.0, 1.0, 1.0], [1, 2, 2])
        >>> print(oar.sparse.nn.functional.attention(q, q, q, mask).shape)
        [1, 1, 2, 4]
    """
    for arg, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, oar.Tensor) or t.ndim != 4:
            raise ValueError(f"sparse.nn.functional.attention: {arg} must be a 4-D tensor [B, H, S, D]")
    b, h, s, d = query.shape
    if not isinstance(sparse_mask, SparseCsrTensor) or sparse_mask.shape != [b * h, s, s]:
        raise ValueError(f"sparse.nn.functional.attention: sparse_mask must be a CSR tensor of shape {[b * h, s, s]}, "
                         f"got {getattr(sparse_mask, 'shape', type(sparse_mask).__name__)}")
    q = (query / math.sqrt(d)).reshape([b * h, s, d])
    k = key.reshape([b * h, s, d])
    scores = masked_matmul(q, k.transpose([0, 2, 1]), sparse_mask).values()
    if key_padding_mask is not None or attn_mask is not None:
        rows = csr_rows(sparse_mask)  # (batch*head) * S + query row
        cols = sparse_mask.cols().astype("int64")
        neg_inf = float("-inf")
        if key_padding_mask is not None:
            bh = rows // s
            kp = key_padding_mask.reshape([b, s]).astype(scores.dtype)
            keep = oar.gather_nd(kp, oar.stack([bh // h, cols], axis=1))
            scores = oar.where(keep == 0, oar.full_like(scores, neg_inf), scores)
        if attn_mask is not None:
            am = attn_mask.reshape([s, s]).astype(scores.dtype)
            keep = oar.gather_nd(am, oar.stack([rows % s, cols], axis=1))
            scores = oar.where(keep == 0, oar.full_like(scores, neg_inf), scores)
    probs = _row_softmax(scores, csr_rows(sparse_mask), b * h * s)
    crows, gcols = _global_pattern(sparse_mask, s)
    out = _C.sparse_csr_matmul(crows, gcols, probs, value.reshape([b * h * s, d]))
    return out.reshape([b, h, s, d])
