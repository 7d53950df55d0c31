"""Message passing along edge lists: send_u_recv, send_ue_recv and send_uv (paddle.geometric)."""
from __future__ import annotations

from .. import _C
from ..framework.mode import is_symbolic
from ._checks import INDEX_DTYPES, VALUE_DTYPES, Tensor, check_tensor

__all__ = ["send_u_recv", "send_ue_recv", "send_uv"]

_REDUCE_OPS = ("sum", "mean", "max", "min")
_MESSAGE_OPS = ("add", "sub", "mul", "div")


def _check_reduce(reduce_op):
    if reduce_op not in _REDUCE_OPS:
        raise ValueError(f"reduce_op should be `sum`, `mean`, `max` or `min`, but received {reduce_op}")


def _check_message(message_op):
    if message_op not in _MESSAGE_OPS:
        raise ValueError(f"message_op should be `add`, `sub`, `mul`, `div`, but received {message_op}")


def _rows(fn, out_size):
    """out_size as the kernel takes it: an int (0: as many rows as x)."""
    if out_size is None:
        return 0
    if isinstance(out_size, Tensor):
        if is_symbolic(out_size):
            raise NotImplementedError(f"{fn}: out_size given as a value of the program being built; "
                                      "pass an int")
        if out_size.size != 1:
            raise ValueError(f"{fn}: out_size should hold one integer, got shape {out_size.shape}")
        out_size = out_size.item()
    if isinstance(out_size, bool) or not isinstance(out_size, int) and not hasattr(out_size, "__index__"):
        raise TypeError(f"{fn}: out_size should be an int, a Tensor or None, got {type(out_size).__name__}")
    return int(out_size)


def _check_edges(fn, x, src_index, dst_index):
    check_tensor(fn, "x", x, VALUE_DTYPES)
    check_tensor(fn, "src_index", src_index, INDEX_DTYPES)
    check_tensor(fn, "dst_index", dst_index, INDEX_DTYPES)


def send_u_recv(x, src_index, dst_index, reduce_op="sum", out_size=None, name=None):
    """Gathers rows of x along edges and reduces them at the edges' destinations.

    Row src_index[i] of x travels along edge i to row dst_index[i] of the output, where the rows
    arriving at one node are reduced by reduce_op; a row no edge reaches is 0.

    Args:
        x (Tensor): Node features [nodes, ...]: float16, bfloat16, float32, float64, int32 or int64.
        src_index (Tensor): int32 or int64 [edges], the source node of each edge.
        dst_index (Tensor): int32 or int64 [edges], the destination node of each edge.
        reduce_op (str, optional): 'sum', 'mean', 'max' or 'min'. Default: 'sum'.
        out_size (int|Tensor|None, optional): Rows of the output (at least max(dst_index) + 1);
            None or 0 or less: as many as x. Default: None.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: [out_size or x's rows, x's features], x's dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0, 2, 3], [1, 4, 5], [2, 6, 7]], dtype="float32")
        >>> src = oar.to_tensor([0, 1, 2, 0], dtype="int32")
        >>> dst = oar.to_tensor([1, 2, 1, 0], dtype="int32")
        >>> print(oar.geometric.send_u_recv(x, src, dst, reduce_op="sum").numpy())
        [[ 0.  2.  3.]
         [ 2.  8. 10.]
         [ 1.  4.  5.]]
    """
    _check_reduce(reduce_op)
    _check_edges("send_u_recv", x, src_index, dst_index)
    return _C.graph_send_recv(x, None, src_index, dst_index, "copy", reduce_op,
                              _rows("send_u_recv", out_size))[0]


def send_ue_recv(x, y, src_index, dst_index, message_op="add", reduce_op="sum", out_size=None, name=None):
    """Combines rows of x with edge features y along edges and reduces them at the destinations.

    Edge i carries message_op(x[src_index[i]], y[i]) to row dst_index[i] of the output, where
    the messages arriving at one node are reduced by reduce_op; a row no edge reaches is 0.
    x's and y's feature dims broadcast.

    Args:
        x (Tensor): Node features [nodes, ...]: float16, bfloat16, float32, float64, int32 or int64.
        y (Tensor): Edge features [edges, ...], x's dtype.
        src_index (Tensor): int32 or int64 [edges], the source node of each edge.
        dst_index (Tensor): int32 or int64 [edges], the destination node of each edge.
        message_op (str, optional): 'add', 'sub', 'mul' or 'div'. Default: 'add'.
        reduce_op (str, optional): 'sum', 'mean', 'max' or 'min'. Default: 'sum'.
        out_size (int|Tensor|None, optional): Rows of the output; None or 0 or less: as many
            as x. Default: None.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: [out_size or x's rows, broadcast features], x's dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0, 2, 3], [1, 4, 5], [2, 6, 7]], dtype="float32")
        >>> y = oar.to_tensor([1, 1, 1, 1], dtype="float32")
        >>> src = oar.to_tensor([0, 1, 2, 0], dtype="int32")
        >>> dst = oar.to_tensor([1, 2, 1, 0], dtype="int32")
        >>> print(oar.geometric.send_ue_recv(x, y, src, dst, "add", "sum").numpy())
        [[ 1.  3.  4.]
         [ 4. 10. 12.]
         [ 2.  5.  6.]]
    """
    _check_message(message_op)
    _check_reduce(reduce_op)
    _check_edges("send_ue_recv", x, src_index, dst_index)
    check_tensor("send_ue_recv", "y", y, VALUE_DTYPES)
    if y.ndim == 1:  # one value per edge: a feature dim of 1
        y = y.unsqueeze(-1)
    return _C.graph_send_recv(x, y, src_index, dst_index, message_op, reduce_op,
                              _rows("send_ue_recv", out_size))[0]


def send_uv(x, y, src_index, dst_index, message_op="add", name=None):
    """Computes one message per edge from the features of its two end nodes.

    Edge i gets message_op(x[src_index[i]], y[dst_index[i]]); x's and y's feature dims broadcast.

    Args:
        x (Tensor): Features of the source nodes [nodes, ...].
        y (Tensor): Features of the destination nodes [nodes, ...], x's dtype.
        src_index (Tensor): int32 or int64 [edges].
        dst_index (Tensor): int32 or int64 [edges].
        message_op (str, optional): 'add', 'sub', 'mul' or 'div'. Default: 'add'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: [edges, broadcast features], x's dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0, 2, 3], [1, 4, 5], [2, 6, 7]], dtype="float32")
        >>> y = oar.to_tensor([[0, 1, 2], [2, 3, 4], [4, 5, 6]], dtype="float32")
        >>> src = oar.to_tensor([0, 1, 2, 0], dtype="int32")
        >>> dst = oar.to_tensor([1, 2, 1, 0], dtype="int32")
        >>> print(oar.geometric.send_uv(x, y, src, dst, message_op="add").numpy())
        [[ 2.  5.  7.]
         [ 5.  9. 11.]
         [ 4.  9. 11.]
         [ 0.  3.  5.]]
    """
    _check_message(message_op)
    _check_edges("send_uv", x, src_index, dst_index)
    check_tensor("send_uv", "y", y, VALUE_DTYPES)
    return _C.graph_send_uv(x, y, src_index, dst_index, message_op)
