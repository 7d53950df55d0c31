"""oar.distributed.communication.stream (paddle.distributed.stream): the collectives with explicit
`sync_op` and `use_calc_stream` arguments, and tensor forms of the list collectives (all_gather
into one tensor, reduce_scatter/scatter from one tensor, alltoall between two tensors, each split
or joined along dim 0).

oar's collectives run on host tensors through Gloo: there is no separate communication stream,
so use_calc_stream=True changes nothing but is checked as Paddle checks it (it needs
sync_op=True, else RuntimeError). A call returns the collective's task (already complete when
sync_op=True; wait() on it otherwise), or None on a rank outside `group`."""
import warnings

from ... import _C
from .. import collective as _c
from ..collective import ReduceOp

__all__ = ["all_gather", "all_reduce", "alltoall", "alltoall_single", "broadcast", "reduce", "reduce_scatter",
           "recv", "scatter", "send", "gather"]


def _check(sync_op, use_calc_stream):
    if not sync_op and use_calc_stream:
        raise RuntimeError("use_calc_stream can only be true in sync op behavior.")


def _is_tensor(x):
    return isinstance(x, _C.Tensor)


def _n(group):
    return _c._group(group).nranks


def _split(t, n, op):
    if t.shape[0] % n:
        raise ValueError(f"{op}: dim 0 of the input ({t.shape[0]}) must divide into {n} equal parts, one per rank")
    size = t.shape[0] // n
    return [t[i * size:(i + 1) * size] for i in range(n)]


def _into(out, parts, op):
    from ... import concat
    joined = concat(parts, axis=0)
    if list(joined.shape) != list(out.shape):
        raise ValueError(f"{op}: the output tensor has shape {list(out.shape)}, but the result has shape "
                         f"{list(joined.shape)}")
    out.copy_(joined, False)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, sync_op=True, use_calc_stream=False):
    """Reduces `tensor` over the group's ranks; every rank gets the result in place.

    Args:
        tensor (Tensor): The input and output.
        op (ReduceOp, optional): SUM, MAX, MIN, PROD or AVG. Default: ReduceOp.SUM.
        group (Group, optional): The group. Default: None, every rank.
        sync_op (bool, optional): Wait for the result before returning. Default: True.
        use_calc_stream (bool, optional): Run on the computation stream (needs sync_op). Default: False.

    Returns:
        Task|None: The collective's task; None on a rank outside `group`.

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> if dist.is_initialized():
        ...     x = oar.to_tensor([1.0, 2.0])
        ...     task = dist.stream.all_reduce(x, sync_op=False)
        ...     task.wait()
    """
    _check(sync_op, use_calc_stream)
    return _c.all_reduce(tensor, op, group, sync_op)


def broadcast(tensor, src, group=None, sync_op=True, use_calc_stream=False):
    """Copies global rank `src`'s tensor into every rank's `tensor`.

    Args:
        tensor (Tensor): The input (on src) and output (elsewhere).
        src (int): The global rank that sends.
        group (Group, optional): The group. Default: None, every rank.
        sync_op (bool, optional): Wait before returning. Default: True.
        use_calc_stream (bool, optional): Run on the computation stream (needs sync_op). Default: False.

    Returns:
        Task|None

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> if dist.is_initialized():
        ...     x = oar.to_tensor([float(dist.get_rank())])
        ...     dist.stream.broadcast(x, src=0)
    """
    _check(sync_op, use_calc_stream)
    return _c.broadcast(tensor, src, group, sync_op)


def reduce(tensor, dst=0, op=ReduceOp.SUM, group=None, sync_op=True, use_calc_stream=False):
    """Reduces `tensor` over the group's ranks into global rank `dst`'s tensor.

    Args:
        tensor (Tensor): The input, and the output on dst.
        dst (int, optional): The global rank that receives. Default: 0.
        op (ReduceOp, optional): The reduction. Default: ReduceOp.SUM.
        group (Group, optional): The group. Default: None.
        sync_op (bool, optional): Wait before returning. Default: True.
        use_calc_stream (bool, optional): Run on the computation stream (needs sync_op). Default: False.

    Returns:
        Task|None

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> if dist.is_initialized():
        ...     x = oar.to_tensor([1.0])
        ...     dist.stream.reduce(x, dst=0)
    """
    _check(sync_op, use_calc_stream)
    return _c.reduce(tensor, dst, op, group, sync_op)


def all_gather(tensor_or_tensor_list, tensor, group=None, sync_op=True, use_calc_stream=False):
    """Gathers every rank's `tensor`: into a list (filled when empty), or into one tensor whose
    dim 0 is the ranks' tensors joined in rank order.

    Args:
        tensor_or_tensor_list (Tensor|list[Tensor]): The output.
        tensor (Tensor): This rank's input.
        group (Group, optional): The group. Default: None.
        sync_op (bool, optional): Wait before returning. Default: True.
        use_calc_stream (bool, optional): Run on the computation stream (needs sync_op). Default: False.

    Returns:
        Task|None

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> if dist.is_initialized():
        ...     out = oar.empty([2 * dist.get_world_size()])
        ...     dist.stream.all_gather(out, oar.to_tensor([1.0, 2.0]))
    """
    if group is not None and not group.is_member():
        raise RuntimeError("The group should not be None and all ranks which invoke this operation should be "
                           "the member of this group.")
    _check(sync_op, use_calc_stream)
    if _is_tensor(tensor_or_tensor_list):
        parts = []
        task = _c.all_gather(parts, tensor, group, True)
        _into(tensor_or_tensor_list, parts, "all_gather")
        return task
    return _c.all_gather(tensor_or_tensor_list, tensor, group, sync_op)


def reduce_scatter(tensor, tensor_or_tensor_list, op=ReduceOp.SUM, group=None, sync_op=True,
                   use_calc_stream=False):
    """`tensor` gets the reduction over ranks of part [this rank] of each rank's input: a list
    with one tensor per rank, or one tensor split along dim 0 into equal parts.

    Args:
        tensor (Tensor): The output.
        tensor_or_tensor_list (Tensor|list[Tensor]): The input.
        op (ReduceOp, optional): The reduction. Default: ReduceOp.SUM.
        group (Group, optional): The group. Default: None.
        sync_op (bool, optional): Wait before returning. Default: True.
        use_calc_stream (bool, optional): Run on the computation stream (needs sync_op). Default: False.

    Returns:
        Task|None

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> if dist.is_initialized():
        ...     out = oar.empty([1])
        ...     dist.stream.reduce_scatter(out, oar.ones([dist.get_world_size()]))
    """
    _check(sync_op, use_calc_stream)
    if _c._pg(group) is None:
        return None
    parts = tensor_or_tensor_list
    if _is_tensor(parts):
        parts = _split(parts, _n(group), "reduce_scatter")
    return _c.reduce_scatter(tensor, list(parts), op, group, sync_op)


def scatter(tensor, tensor_or_tensor_list=None, src=0, group=None, sync_op=True, use_calc_stream=False):
    """`tensor` gets part [this rank] of global rank `src`'s input: a list with one tensor per
    rank, or one tensor split along dim 0. Other ranks' inputs are ignored (with a warning).

    Args:
        tensor (Tensor): The output.
        tensor_or_tensor_list (Tensor|list[Tensor], optional): The input, on src. Default: None.
        src (int, optional): The global rank that sends. Default: 0.
        group (Group, optional): The group. Default: None.
        sync_op (bool, optional): Wait before returning. Default: True.
        use_calc_stream (bool, optional): Run on the computation stream (needs sync_op). Default: False.

    Returns:
        Task|None

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> if dist.is_initialized():
        ...     out = oar.empty([1])
        ...     data = oar.arange(dist.get_world_size(), dtype='float32')
        ...     dist.stream.scatter(out, data if dist.get_rank() == 0 else None, src=0)
    """
    _check(sync_op, use_calc_stream)
    pg = _c._pg(group)
    if pg is None:
        return None
    if src != _c.get_rank():
        if tensor_or_tensor_list is not None:
            warnings.warn("Specific `tensor_or_tensor_list` is meaningless for rank which is not src.")
        tensor_or_tensor_list = None
    elif _is_tensor(tensor_or_tensor_list):
        tensor_or_tensor_list = _split(tensor_or_tensor_list, pg.size, "scatter")
    return _c.scatter(tensor, tensor_or_tensor_list, src, group, sync_op)


def gather(tensor, gather_list=None, dst=0, group=None, sync_op=True, use_calc_stream=False):
    """Global rank `dst` gets every rank's `tensor` in `gather_list` (filled when empty); the
    other ranks' gather_list is ignored (with a warning).

    Args:
        tensor (Tensor): This rank's input.
        gather_list (list[Tensor], optional): The output, on dst (required there). Default: None.
        dst (int, optional): The global rank that receives. Default: 0.
        group (Group, optional): The group. Default: None.
        sync_op (bool, optional): Wait before returning. Default: True.
        use_calc_stream (bool, optional): Run on the computation stream (needs sync_op). Default: False.

    Returns:
        Task|None

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> if dist.is_initialized():
        ...     out = [] if dist.get_rank() == 0 else None
        ...     dist.stream.gather(oar.to_tensor([1.0]), out, dst=0)
    """
    if _c._pg(group) is None:
        return None
    _check(sync_op, use_calc_stream)
    if dst != _c.get_rank():
        if gather_list is not None:
            warnings.warn("Specific `gather_list` is meaningless for rank which is not dst.")
        gather_list = []
    elif gather_list is None:
        raise ValueError("gather: gather_list must not be None on the dst rank")
    return _c.gather(tensor, gather_list, dst, group, sync_op)


def alltoall(out_tensor_or_tensor_list, in_tensor_or_tensor_list, group=None, sync_op=True,
             use_calc_stream=False):
    """Rank i's input part j goes to rank j's output part i. Both arguments are lists (one tensor
    per rank; the output list is filled when empty) or both tensors (parts along dim 0).

    Args:
        out_tensor_or_tensor_list (Tensor|list[Tensor]): The output.
        in_tensor_or_tensor_list (Tensor|list[Tensor]): The input.
        group (Group, optional): The group. Default: None.
        sync_op (bool, optional): Wait before returning. Default: True.
        use_calc_stream (bool, optional): Run on the computation stream (needs sync_op). Default: False.

    Returns:
        Task|None

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> if dist.is_initialized():
        ...     n = dist.get_world_size()
        ...     out = oar.empty([n])
        ...     dist.stream.alltoall(out, oar.arange(n, dtype='float32'))
    """
    _check(sync_op, use_calc_stream)
    if out_tensor_or_tensor_list is None:
        raise RuntimeError("The output should be specified.")
    if in_tensor_or_tensor_list is None:
        raise RuntimeError("The input should be specified.")
    pg = _c._pg(group)
    if pg is None:
        return None
    out_t, in_t = _is_tensor(out_tensor_or_tensor_list), _is_tensor(in_tensor_or_tensor_list)
    if out_t != in_t:
        raise RuntimeError("The output and input should be both tensor or tensor list.")
    if in_t:
        parts = []
        task = _c.alltoall(parts, _split(in_tensor_or_tensor_list, pg.size, "alltoall"), group, True)
        _into(out_tensor_or_tensor_list, parts, "alltoall")
        return task
    if not list(in_tensor_or_tensor_list):
        raise RuntimeError("The input tensor_list should not be empty.")
    return _c.alltoall(out_tensor_or_tensor_list, in_tensor_or_tensor_list, group, sync_op)


def alltoall_single(out_tensor, in_tensor, out_split_sizes=None, in_split_sizes=None, group=None, sync_op=True,
                    use_calc_stream=False):
    """alltoall on one tensor split along dim 0 (equal parts, or `in_split_sizes`); the parts
    received are written into `out_tensor` in rank order (`out_split_sizes`). Note the argument
    order: out_split_sizes comes before in_split_sizes, as in Paddle's stream API.

    Args:
        out_tensor (Tensor): The output.
        in_tensor (Tensor): The input.
        out_split_sizes (list[int], optional): Rows received from each rank. Default: None, equal.
        in_split_sizes (list[int], optional): Rows sent to each rank. Default: None, equal.
        group (Group, optional): The group. Default: None.
        sync_op (bool, optional): Wait before returning. Default: True.
        use_calc_stream (bool, optional): Run on the computation stream (needs sync_op). Default: False.

    Returns:
        Task|None

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> if dist.is_initialized():
        ...     n = dist.get_world_size()
        ...     out = oar.empty([n])
        ...     dist.stream.alltoall_single(out, oar.arange(n, dtype='float32'))
    """
    _check(sync_op, use_calc_stream)
    return _c.alltoall_single(out_tensor, in_tensor, in_split_sizes, out_split_sizes, group, sync_op)


def send(tensor, dst=0, group=None, sync_op=True, use_calc_stream=False):
    """Sends `tensor` to global rank `dst` (which calls recv).

    Args:
        tensor (Tensor): The data.
        dst (int, optional): The receiving global rank. Default: 0.
        group (Group, optional): The group. Default: None.
        sync_op (bool, optional): Wait before returning. Default: True.
        use_calc_stream (bool, optional): Run on the computation stream (needs sync_op). Default: False.

    Returns:
        Task|None

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> if dist.is_initialized() and dist.get_world_size() > 1:
        ...     x = oar.to_tensor([1.0])
        ...     if dist.get_rank() == 0:
        ...         dist.stream.send(x, dst=1)
        ...     elif dist.get_rank() == 1:
        ...         dist.stream.recv(x, src=0)
    """
    if use_calc_stream and not sync_op:
        raise RuntimeError("use_calc_stream can only be True in sync op behavior.")
    return _c.send(tensor, dst, group, sync_op)


def recv(tensor, src=0, group=None, sync_op=True, use_calc_stream=False):
    """Receives into `tensor` what global rank `src` sends.

    Args:
        tensor (Tensor): The output.
        src (int, optional): The sending global rank. Default: 0.
        group (Group, optional): The group. Default: None.
        sync_op (bool, optional): Wait before returning. Default: True.
        use_calc_stream (bool, optional): Run on the computation stream (needs sync_op). Default: False.

    Returns:
        Task|None

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> if dist.is_initialized() and dist.get_world_size() > 1:
        ...     x = oar.empty([1])
        ...     if dist.get_rank() == 1:
        ...         dist.stream.recv(x, src=0)
    """
    if use_calc_stream and not sync_op:
        raise RuntimeError("use_calc_stream can only be True in sync op behavior.")
    return _c.recv(tensor, src, group, sync_op)
