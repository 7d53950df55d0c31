"""Compact node ids for sampled subgraphs (paddle.geometric.reindex_graph, reindex_heter_graph)."""
from __future__ import annotations

from .. import _C
from ._checks import INDEX_DTYPES, check_tensor

__all__ = ["reindex_graph", "reindex_heter_graph"]


def _check_buffers(fn, value_buffer, index_buffer):
    # Paddle's GPU hash-table buffers: accepted (and unused) on the CPU, as in Paddle's CPU build.
    for name, b in (("value_buffer", value_buffer), ("index_buffer", index_buffer)):
        if b is not None:
            check_tensor(fn, name, b, INDEX_DTYPES)


def reindex_graph(x, neighbors, count, value_buffer=None, index_buffer=None, name=None):
    """Relabels the edges of a sampled graph with compact node ids.

    x's nodes get ids 0..len(x)-1 in order, then each new node of neighbors gets the next id in
    order of first appearance. neighbors lists the sampled neighbours of x[0] (count[0] of them),
    then of x[1], and so on.

    Args:
        x (Tensor): int32 or int64, the input nodes.
        neighbors (Tensor): x's dtype, the sampled neighbours of x's nodes, one after another.
        count (Tensor): int32, how many neighbours each node of x has.
        value_buffer (Tensor, optional): Unused on the CPU. Default: None.
        index_buffer (Tensor, optional): Unused on the CPU. Default: None.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        tuple: (reindex_src, reindex_dst, out_nodes): the neighbours' new ids, the new id of the
        node of x each edge leads to, and the original id of every new id; all x's dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([0, 1, 2], dtype="int64")
        >>> neighbors = oar.to_tensor([8, 9, 0, 4, 7, 6, 7], dtype="int64")
        >>> count = oar.to_tensor([2, 3, 2], dtype="int32")
        >>> src, dst, nodes = oar.geometric.reindex_graph(x, neighbors, count)
        >>> print(src.numpy(), dst.numpy(), nodes.numpy())
        [3 4 0 5 6 7 6] [0 0 1 1 1 2 2] [0 1 2 8 9 4 7 6]
    """
    fn = "reindex_graph"
    check_tensor(fn, "x", x, INDEX_DTYPES)
    check_tensor(fn, "neighbors", neighbors, INDEX_DTYPES)
    check_tensor(fn, "count", count, ("int32",))
    _check_buffers(fn, value_buffer, index_buffer)
    return tuple(_C.graph_reindex(x, [neighbors], [count]))


def reindex_heter_graph(x, neighbors, count, value_buffer=None, index_buffer=None, name=None):
    """reindex_graph for a heterogeneous graph: one neighbour list and count per edge type.

    Node ids are shared by every edge type: x's nodes first, then new neighbours in order of
    first appearance across the lists; the edges of every type follow one another in the results.

    Args:
        x (Tensor): int32 or int64, the input nodes.
        neighbors (list[Tensor]): Per edge type, the sampled neighbours of x's nodes.
        count (list[Tensor]): Per edge type, int32 counts of neighbours of each node of x.
        value_buffer (Tensor, optional): Unused on the CPU. Default: None.
        index_buffer (Tensor, optional): Unused on the CPU. Default: None.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        tuple: (reindex_src, reindex_dst, out_nodes), x's dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([0, 1, 2], dtype="int64")
        >>> a = oar.to_tensor([8, 9, 0, 4, 7, 6, 7], dtype="int64")
        >>> b = oar.to_tensor([0, 5, 3], dtype="int64")
        >>> ca = oar.to_tensor([2, 3, 2], dtype="int32")
        >>> cb = oar.to_tensor([1, 1, 1], dtype="int32")
        >>> src, dst, nodes = oar.geometric.reindex_heter_graph(x, [a, b], [ca, cb])
        >>> print(nodes.numpy())
        [0 1 2 8 9 4 7 6 5 3]
    """
    fn = "reindex_heter_graph"
    check_tensor(fn, "x", x, INDEX_DTYPES)
    if not isinstance(neighbors, (list, tuple)) or not isinstance(count, (list, tuple)):
        raise TypeError(f"{fn}: neighbors and count should be lists of Tensors, got "
                        f"{type(neighbors).__name__} and {type(count).__name__}")
    for n in neighbors:
        check_tensor(fn, "neighbors", n, INDEX_DTYPES)
    for c in count:
        check_tensor(fn, "count", c, ("int32",))
    _check_buffers(fn, value_buffer, index_buffer)
    return tuple(_C.graph_reindex(x, list(neighbors), list(count)))
