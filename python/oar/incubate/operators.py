"""The operators paddle.incubate lists at its top level: the graph operators' older names (thin
wrappers over oar.geometric, with their incubating argument names), the fused softmax-with-mask
forms (composed from oar ops), and identity_loss."""
import warnings

from .. import geometric as _geometric



def _deprecated(old, new):
    # Paddle deprecates the graph_* names since 2.4.0 and warns on each call.
    warnings.warn(f'API "paddle.incubate.{old}" is deprecated since 2.4.0, and will be removed in future '
                  f'versions. Please use "{new}" instead.', DeprecationWarning, stacklevel=3)


__all__ = ["segment_sum", "segment_mean", "segment_max", "segment_min", "graph_send_recv",
           "graph_reindex", "graph_sample_neighbors", "softmax_mask_fuse",
           "softmax_mask_fuse_upper_triangle", "identity_loss"]


def segment_sum(data, segment_ids, name=None):
    """paddle.incubate.segment_sum: oar.geometric.segment_sum."""
    return _geometric.segment_sum(data, segment_ids)


def segment_mean(data, segment_ids, name=None):
    """paddle.incubate.segment_mean: oar.geometric.segment_mean."""
    return _geometric.segment_mean(data, segment_ids)


def segment_max(data, segment_ids, name=None):
    """paddle.incubate.segment_max: oar.geometric.segment_max."""
    return _geometric.segment_max(data, segment_ids)


def segment_min(data, segment_ids, name=None):
    """paddle.incubate.segment_min: oar.geometric.segment_min."""
    return _geometric.segment_min(data, segment_ids)


def graph_send_recv(x, src_index, dst_index, pool_type="sum", out_size=None, name=None):
    """paddle.incubate.graph_send_recv: oar.geometric.send_u_recv with the reduction named
    pool_type ('sum', 'mean', 'max' or 'min', lower case as in Paddle)."""
    if pool_type not in ("sum", "mean", "max", "min"):
        raise ValueError(f"pool_type should be `sum`, `mean`, `max` or `min`, but received {pool_type}")
    _deprecated("graph_send_recv", "paddle.geometric.send_u_recv")
    return _geometric.send_u_recv(x, src_index, dst_index, reduce_op=pool_type, out_size=out_size)


def graph_reindex(x, neighbors, count, value_buffer=None, index_buffer=None, flag_buffer_hashtable=False,
                  name=None):
    """paddle.incubate.graph_reindex: oar.geometric.reindex_graph; with flag_buffer_hashtable the
    two buffers are required (Paddle's check)."""
    _deprecated("graph_reindex", "paddle.geometric.reindex_graph")
    if flag_buffer_hashtable and (value_buffer is None or index_buffer is None):
        raise ValueError("`value_buffer` and `index_buffer` should not be None if `flag_buffer_hashtable` is True.")
    return _geometric.reindex_graph(x, neighbors, count, value_buffer, index_buffer)


def graph_sample_neighbors(row, colptr, input_nodes, eids=None, perm_buffer=None, sample_size=-1,
                           return_eids=False, flag_perm_buffer=False, name=None):
    """paddle.incubate.graph_sample_neighbors: oar.geometric.sample_neighbors (perm_buffer is a
    GPU speed-up in Paddle; it does not change what is sampled)."""
    _deprecated("graph_sample_neighbors", "paddle.geometric.sample_neighbors")
    if return_eids and eids is None:
        raise ValueError("`eids` should not be None if `return_eids` is True.")
    if flag_perm_buffer and perm_buffer is None:
        raise ValueError("`perm_buffer` should not be None if `flag_perm_buffer` is True.")
    return _geometric.sample_neighbors(row, colptr, input_nodes, sample_size=sample_size, eids=eids,
                                       return_eids=return_eids)


def softmax_mask_fuse(x, mask, name=None):
    """paddle.incubate.softmax_mask_fuse: softmax(x + mask) over the last axis."""
    from ..nn import functional as F
    return F.softmax(x + mask, axis=-1)


def softmax_mask_fuse_upper_triangle(x):
    """paddle.incubate.softmax_mask_fuse_upper_triangle: the softmax over the last axis of x
    ([..., seq, seq]) with the entries above the diagonal masked out (causal attention: row i
    attends to columns 0..i). Paddle's CPU build has no kernel for it (GPU only); oar composes it."""
    import oar
    from ..nn import functional as F
    n, m = x.shape[-2], x.shape[-1]
    upper = oar.triu(oar.ones([n, m], dtype="bool"), diagonal=1)
    return F.softmax(oar.where(upper, oar.full([n, m], float("-inf"), dtype=x.dtype), x), axis=-1)


def identity_loss(x, reduction="none"):
    """paddle.incubate.identity_loss: marks x as the loss (an IPU notion); reduction 'sum' (0),
    'mean' (1) or 'none' (2) is applied to it."""
    if isinstance(reduction, str):
        reduction = {"sum": 0, "mean": 1, "none": 2}.get(reduction.lower())
        if reduction is None:
            raise TypeError("Unsupported reduction type.")
    if reduction == 0:
        return x.sum()
    if reduction == 1:
        return x.mean()
    if reduction == 2:
        return x
    raise ValueError(f"identity_loss: reduction must be 0, 1 or 2 ('sum', 'mean', 'none'), got {reduction}")
