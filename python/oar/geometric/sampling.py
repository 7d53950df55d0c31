"""Neighbour sampling on graphs in compressed sparse column form (paddle.geometric.sample_neighbors,
weighted_sample_neighbors)."""
from __future__ import annotations

from .. import _C
from ._checks import INDEX_DTYPES, check_tensor

__all__ = ["sample_neighbors", "weighted_sample_neighbors"]


def _check_common(fn, row, colptr, input_nodes, sample_size, eids, return_eids):
    check_tensor(fn, "row", row, INDEX_DTYPES)
    check_tensor(fn, "colptr", colptr, INDEX_DTYPES)
    check_tensor(fn, "input_nodes", input_nodes, INDEX_DTYPES)
    if isinstance(sample_size, bool) or not isinstance(sample_size, int):
        raise TypeError(f"{fn}: sample_size should be an int, got {type(sample_size).__name__}")
    if return_eids:
        if eids is None:
            raise ValueError("`eids` should not be None if `return_eids` is True.")
        check_tensor(fn, "eids", eids, INDEX_DTYPES)


def _results(out, return_eids):
    neighbors, count, eids = out
    return (neighbors, count, eids) if return_eids else (neighbors, count)


def sample_neighbors(row, colptr, input_nodes, sample_size=-1, eids=None, return_eids=False,
                     perm_buffer=None, name=None):
    """Samples neighbours of the input nodes uniformly, without replacement.

    The graph is in compressed sparse column form: the neighbours of node v are
    row[colptr[v]:colptr[v + 1]]. A node with at most sample_size neighbours keeps all of them,
    in order. Draws come from oar's generator (oar.seed).

    Args:
        row (Tensor): int32 or int64 [edges], the source node of each edge, grouped by destination.
        colptr (Tensor): row's dtype [nodes + 1], where each node's edges start in row.
        input_nodes (Tensor): row's dtype, the nodes whose neighbours are sampled.
        sample_size (int, optional): Neighbours per node; -1: all. Default: -1.
        eids (Tensor, optional): int32 or int64 [edges], the edges' ids. Default: None.
        return_eids (bool, optional): Also return the ids of the sampled edges (needs eids). Default: False.
        perm_buffer (Tensor, optional): Unused on the CPU (Paddle's GPU buffer). Default: None.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        tuple: (out_neighbors (row's dtype), out_count (int32, one per input node)), and
        out_eids with return_eids.

    Examples:
        >>> import oar
        >>> row = oar.to_tensor([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7], dtype="int64")
        >>> colptr = oar.to_tensor([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13], dtype="int64")
        >>> nodes = oar.to_tensor([0, 8, 1, 2], dtype="int64")
        >>> neighbors, count = oar.geometric.sample_neighbors(row, colptr, nodes, sample_size=2)
        >>> print(count.numpy())
        [2 2 2 1]
    """
    _check_common("sample_neighbors", row, colptr, input_nodes, sample_size, eids, return_eids)
    out = _C.graph_sample_neighbors(row, colptr, None, input_nodes, eids if return_eids else None,
                                    sample_size, return_eids)
    return _results(out, return_eids)


def weighted_sample_neighbors(row, colptr, edge_weight, input_nodes, sample_size=-1, eids=None,
                              return_eids=False, name=None):
    """Samples neighbours of the input nodes without replacement, with probability proportional
    to the edges' weights (weighted reservoir sampling).

    Args:
        row (Tensor): int32 or int64 [edges], the source node of each edge, grouped by destination.
        colptr (Tensor): row's dtype [nodes + 1], where each node's edges start in row.
        edge_weight (Tensor): float32 [edges], non-negative sampling weights.
        input_nodes (Tensor): row's dtype, the nodes whose neighbours are sampled.
        sample_size (int, optional): Neighbours per node; -1: all. Default: -1.
        eids (Tensor, optional): int32 or int64 [edges], the edges' ids. Default: None.
        return_eids (bool, optional): Also return the ids of the sampled edges (needs eids). Default: False.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        tuple: (out_neighbors, out_count (int32)), and out_eids with return_eids.

    Examples:
        >>> import oar
        >>> row = oar.to_tensor([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7], dtype="int64")
        >>> colptr = oar.to_tensor([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13], dtype="int64")
        >>> weight = oar.ones([13])
        >>> nodes = oar.to_tensor([0, 8, 1, 2], dtype="int64")
        >>> neighbors, count = oar.geometric.weighted_sample_neighbors(row, colptr, weight, nodes, sample_size=2)
        >>> print(count.numpy())
        [2 2 2 1]
    """
    fn = "weighted_sample_neighbors"
    _check_common(fn, row, colptr, input_nodes, sample_size, eids, return_eids)
    check_tensor(fn, "edge_weight", edge_weight, ("float32",))
    out = _C.graph_sample_neighbors(row, colptr, edge_weight, input_nodes, eids if return_eids else None,
                                    sample_size, return_eids)
    return _results(out, return_eids)
