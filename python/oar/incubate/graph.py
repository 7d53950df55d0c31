"""The legacy graph functions of paddle.incubate (graph_send_recv, graph_sample_neighbors,
graph_reindex, graph_khop_sampler), kept with their old argument names and orders over
oar.geometric, which does the work."""
from __future__ import annotations

import functools
import warnings

from .. import _C
from ..geometric import reindex_graph, sample_neighbors, send_u_recv
from ..geometric._checks import INDEX_DTYPES, check_tensor
from ..tensor.search import unique

__all__ = ["graph_send_recv", "graph_sample_neighbors", "graph_reindex", "graph_khop_sampler"]


def graph_send_recv(x, src_index, dst_index, pool_type="sum", out_size=None, name=None):
    """Gathers rows of x along edges and pools them at the edges' destinations (the older name
    of oar.geometric.send_u_recv, with reduce_op called pool_type).

    Args:
        x (Tensor): Node features [nodes, ...].
        src_index (Tensor): int32 or int64 [edges], the source node of each edge.
        dst_index (Tensor): int32 or int64 [edges], the destination node of each edge.
        pool_type (str, optional): 'sum', 'mean', 'max' or 'min'. Default: 'sum'.
        out_size (int|Tensor|None, optional): Rows of the output; None: as many as x. Default: None.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: [out_size or nodes, ...], x's dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0, 2, 3], [1, 4, 5], [2, 6, 7]], dtype="float32")
        >>> src = oar.to_tensor([0, 1, 2, 0], dtype="int32")
        >>> dst = oar.to_tensor([1, 2, 1, 0], dtype="int32")
        >>> print(oar.incubate.graph_send_recv(x, src, dst, pool_type="sum").numpy())
        [[ 0.  2.  3.]
         [ 2.  8. 10.]
         [ 1.  4.  5.]]
    """
    if pool_type not in ("sum", "mean", "max", "min"):
        raise ValueError(f"pool_type should be `sum`, `mean`, `max` or `min`, but received {pool_type}")
    return send_u_recv(x, src_index, dst_index, reduce_op=pool_type, out_size=out_size)


def graph_sample_neighbors(row, colptr, input_nodes, eids=None, perm_buffer=None, sample_size=-1,
                           return_eids=False, flag_perm_buffer=False, name=None):
    """Samples neighbours of the input nodes uniformly without replacement (the older name of
    oar.geometric.sample_neighbors, with its arguments in the old order).

    Args:
        row (Tensor): int32 or int64 [edges], the source node of each edge, grouped by destination.
        colptr (Tensor): row's dtype [nodes + 1], where each node's edges start in row.
        input_nodes (Tensor): row's dtype, the nodes whose neighbours are sampled.
        eids (Tensor, optional): The edges' ids (needed with return_eids). Default: None.
        perm_buffer (Tensor, optional): Paddle's GPU buffer; unused here. Default: None.
        sample_size (int, optional): Neighbours per node; -1: all. Default: -1.
        return_eids (bool, optional): Also return the sampled edges' ids. Default: False.
        flag_perm_buffer (bool, optional): Paddle's GPU switch; unused here. Default: False.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        tuple: (out_neighbors, out_count), and out_eids with return_eids.

    Examples:
        >>> import oar
        >>> row = oar.to_tensor([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7], dtype="int64")
        >>> colptr = oar.to_tensor([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13], dtype="int64")
        >>> nodes = oar.to_tensor([0, 8, 1, 2], dtype="int64")
        >>> neighbors, count = oar.incubate.graph_sample_neighbors(row, colptr, nodes, sample_size=2)
        >>> print(count.numpy())
        [2 2 2 1]
    """
    if flag_perm_buffer and perm_buffer is None:
        raise ValueError("`perm_buffer` should not be None if `flag_perm_buffer` is True.")
    return sample_neighbors(row, colptr, input_nodes, sample_size=sample_size, eids=eids,
                            return_eids=return_eids, perm_buffer=perm_buffer)


def graph_reindex(x, neighbors, count, value_buffer=None, index_buffer=None, flag_buffer_hashtable=False,
                  name=None):
    """Relabels the edges of a sampled graph with compact node ids (the older name of
    oar.geometric.reindex_graph).

    Args:
        x (Tensor): int32 or int64, the input nodes.
        neighbors (Tensor): x's dtype, the sampled neighbours of x's nodes, one after another.
        count (Tensor): int32, how many neighbours each node of x has.
        value_buffer (Tensor, optional): Paddle's GPU hash table; unused here. Default: None.
        index_buffer (Tensor, optional): Paddle's GPU hash table; unused here. Default: None.
        flag_buffer_hashtable (bool, optional): Paddle's GPU switch; unused here. Default: False.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        tuple: (reindex_src, reindex_dst, out_nodes).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([0, 1, 2], dtype="int64")
        >>> neighbors = oar.to_tensor([8, 9, 0, 4, 7, 6, 7], dtype="int64")
        >>> count = oar.to_tensor([2, 3, 2], dtype="int32")
        >>> src, dst, nodes = oar.incubate.graph_reindex(x, neighbors, count)
        >>> print(src.numpy(), dst.numpy(), nodes.numpy())
        [3 4 0 5 6 7 6] [0 0 1 1 1 2 2] [0 1 2 8 9 4 7 6]
    """
    if flag_buffer_hashtable and (value_buffer is None or index_buffer is None):
        raise ValueError("`value_buffer` and `index_buffer` should not be None if "
                         "`flag_buffer_hashtable` is True.")
    return reindex_graph(x, neighbors, count, value_buffer, index_buffer)


def graph_khop_sampler(row, colptr, input_nodes, sample_sizes, sorted_eids=None, return_eids=False,
                       name=None):
    """Samples a multi-hop subgraph around the input nodes and relabels it compactly.

    Hop 1 samples up to sample_sizes[0] neighbours of each input node; hop h samples up to
    sample_sizes[h - 1] neighbours of each node first reached in hop h - 1. The edges of all hops
    are relabelled together: the input nodes get ids 0..len(input_nodes)-1, the other nodes the
    next ids in order of first appearance.

    Args:
        row (Tensor): int32 or int64 [edges], the source node of each edge, grouped by destination.
        colptr (Tensor): row's dtype [nodes + 1], where each node's edges start in row.
        input_nodes (Tensor): row's dtype, the centre nodes.
        sample_sizes (list|tuple): Neighbours per node for each hop; -1: all.
        sorted_eids (Tensor, optional): The edges' ids in row's order (needed with return_eids).
            Default: None.
        return_eids (bool, optional): Also return the sampled edges' ids. Default: False.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        tuple: (edge_src [E, 1], edge_dst [E, 1], sample_index (the original id of each new id),
        reindex_nodes (the new ids of input_nodes)), and edge_eids [E] with return_eids; all
        row's dtype.

    Examples:
        >>> import oar
        >>> row = oar.to_tensor([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7], dtype="int64")
        >>> colptr = oar.to_tensor([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13], dtype="int64")
        >>> nodes = oar.to_tensor([0, 8, 1, 2], dtype="int64")
        >>> src, dst, sample_index, reindex_nodes = oar.incubate.graph_khop_sampler(
        ...     row, colptr, nodes, [-1])
        >>> print(src.numpy().ravel(), dst.numpy().ravel())
        [4 5 6 5 0 6 2] [0 0 1 1 2 2 3]
        >>> print(sample_index.numpy(), reindex_nodes.numpy())
        [0 8 1 2 3 7 9] [0 1 2 3]
    """
    fn = "graph_khop_sampler"
    check_tensor(fn, "row", row, INDEX_DTYPES)
    check_tensor(fn, "colptr", colptr, INDEX_DTYPES)
    check_tensor(fn, "input_nodes", input_nodes, INDEX_DTYPES)
    if not isinstance(sample_sizes, (list, tuple)) or not sample_sizes:
        raise TypeError(f"{fn}: sample_sizes should be a non-empty list or tuple of ints, got {sample_sizes!r}")
    if return_eids and sorted_eids is None:
        raise ValueError("`sorted_eid` should not be None if return_eids is True.")
    centers, neighbors, counts, eids = [], [], [], []
    frontier, seen = input_nodes, input_nodes
    for size in sample_sizes:
        out = sample_neighbors(row, colptr, frontier, sample_size=int(size), eids=sorted_eids,
                               return_eids=return_eids)
        centers.append(frontier)
        neighbors.append(out[0])
        counts.append(out[1])
        if return_eids:
            eids.append(out[2])
        if out[0].shape[0] == 0:
            break
        # The next hop samples around the nodes this hop reached first.
        reached = unique(out[0])
        frontier = _C.masked_select(reached, _C.logical_not(_isin(reached, seen)))
        seen = _C.concat([seen, frontier], 0)
        if frontier.shape[0] == 0:
            break
    src, dst, sample_index = reindex_graph(_C.concat(centers, 0), _C.concat(neighbors, 0),
                                           _C.concat(counts, 0))
    reindex_nodes = _C.arange(0, input_nodes.shape[0], 1, input_nodes.dtype)
    result = (_C.reshape(src, [-1, 1]), _C.reshape(dst, [-1, 1]), sample_index, reindex_nodes)
    return result + (_C.concat(eids, 0),) if return_eids else result


def _isin(x, values):
    """Whether each element of the 1-D x occurs in the 1-D values."""
    if values.shape[0] == 0:
        return _C.zeros(x.shape, "bool")
    eq = _C.equal(_C.unsqueeze(x, [1]), _C.unsqueeze(values, [0]))
    return _C.any(eq, [1])


def _deprecated(fn, new):
    """fn warning as Paddle does on each call of these names (deprecated since 2.4.0)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        warnings.warn(f'API "paddle.incubate.{fn.__name__}" is deprecated since 2.4.0, and will be removed in '
                      f'future versions. Please use "{new}" instead.', DeprecationWarning, stacklevel=2)
        return fn(*args, **kwargs)
    return wrapper


graph_send_recv = _deprecated(graph_send_recv, "paddle.geometric.send_u_recv")
graph_sample_neighbors = _deprecated(graph_sample_neighbors, "paddle.geometric.sample_neighbors")
graph_reindex = _deprecated(graph_reindex, "paddle.geometric.reindex_graph")
