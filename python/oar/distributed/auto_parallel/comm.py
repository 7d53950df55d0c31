"""The communication of the auto-parallel API: the group of the ranks along one mesh dimension,
and differentiable collectives over it (PyLayers whose backward is the collective's adjoint under
the rule that a gradient has its tensor's placement, a Partial tensor's gradient being Replicate).

Everything here acts on local tensors (this rank's shard). With one rank along the mesh dimension,
or in a process that has not joined a job of several, every collective is the identity."""
import numpy as np

from ... import _C
from ...autograd.py_layer import PyLayer
from .. import collective

_groups = {}


def _job_size():
    return collective.get_world_size() if collective.is_initialized() else 1


def mesh_dim_group(mesh, dim, required=True):
    """(group, ordered process ids) of this rank's ranks along mesh dimension `dim`, or None when
    no communication is needed (one rank along it, or this rank is not on the mesh). Groups are
    made for every slice of that dimension at once, the same on every rank. A process that is not
    in a job as large as the mesh cannot communicate: RuntimeError when `required`, else None."""
    if mesh.shape[dim] == 1:
        return None
    if _job_size() == 1:
        if not required:
            return None
        raise RuntimeError(f"the mesh dimension '{mesh.dim_names[dim]}' spans {mesh.shape[dim]} ranks, but this "
                           "process is not in a job of several ranks: start it with python -m "
                           "oar.distributed.launch (or oar.distributed.spawn) and call "
                           "oar.distributed.init_parallel_env() first")
    key = (tuple(mesh.shape), tuple(mesh.process_ids), dim)
    if key not in _groups:
        moved = np.moveaxis(mesh.mesh, dim, -1).reshape(-1, mesh.shape[dim])
        world = collective.get_world_size()
        if moved.max() >= world:
            raise ValueError(f"the mesh {mesh} names rank {int(moved.max())} but the job has {world} ranks")
        made = {}
        for row in moved:
            ranks = [int(r) for r in row]
            if sorted(ranks) == list(range(world)):
                g = collective.get_group(0)
            else:
                g = collective.new_group(ranks)
            for r in ranks:
                made[r] = (g, ranks)
        _groups[key] = made
    return _groups[key].get(collective.get_rank())


def split_sizes(n, k):
    """The sizes of the k pieces of an axis of n elements (ceil(n / k) each, the last fewer)."""
    c = -(-n // k) if k else 0
    return [max(0, min(c, n - i * c)) for i in range(k)]


def _slice_axis(x, axis, start, size):
    index = [slice(None)] * x.ndim
    index[axis] = slice(start, start + size)
    return x[tuple(index)]


def _gather_concat(x, axis, group, ranks, sizes):
    """Every rank's piece along `axis`, concatenated in mesh order (pieces padded to one size for
    the collective, then cut back)."""
    g, _ = group
    longest = max(sizes)
    shape = list(x.shape)
    if shape[axis] < longest:
        pad_shape = list(shape)
        pad_shape[axis] = longest - shape[axis]
        x = _C.concat([x, _C.zeros(pad_shape, x.dtype)], axis)
    x = x.contiguous() if hasattr(x, "contiguous") else x
    parts = []
    collective.all_gather(parts, x.clone(), group=g)
    # all_gather answers in group-rank order (sorted global ranks); the mesh order may differ.
    order = sorted(ranks)
    pieces = [_slice_axis(parts[order.index(r)], axis, 0, s) for r, s in zip(ranks, sizes)]
    return _C.concat(pieces, axis)


class AllGather(PyLayer):
    """Shard -> Replicate along one mesh dimension: the pieces gathered; backward keeps this rank's
    piece of the (replicated) gradient."""

    @staticmethod
    def forward(ctx, x, axis, group, sizes):
        ctx.axis, ctx.sizes = axis, sizes
        ctx.index = group[1].index(collective.get_rank())
        return _gather_concat(x, axis, group, group[1], sizes)

    @staticmethod
    def backward(ctx, grad):
        start = sum(ctx.sizes[:ctx.index])
        return _slice_axis(grad, ctx.axis, start, ctx.sizes[ctx.index]).clone()


class Split(PyLayer):
    """Replicate -> Shard along one mesh dimension: this rank's piece; backward gathers the pieces'
    gradients into the replicated gradient."""

    @staticmethod
    def forward(ctx, x, axis, group, sizes):
        ctx.axis, ctx.sizes, ctx.group = axis, sizes, group
        i = group[1].index(collective.get_rank())
        return _slice_axis(x, axis, sum(sizes[:i]), sizes[i]).clone()

    @staticmethod
    def backward(ctx, grad):
        return _gather_concat(grad, ctx.axis, ctx.group, ctx.group[1], ctx.sizes)


_OPS = {0: collective.ReduceOp.SUM, 1: collective.ReduceOp.MAX, 2: collective.ReduceOp.MIN,
        3: collective.ReduceOp.PROD, 4: collective.ReduceOp.AVG}


class AllReduce(PyLayer):
    """Partial -> Replicate: the parts combined; backward passes the replicated gradient to each
    part (divided by the number of ranks for an average)."""

    @staticmethod
    def forward(ctx, x, reduce_type, group):
        if int(reduce_type) not in _OPS:
            raise NotImplementedError(f"reshard: Partial({reduce_type}) cannot be reduced (only sum, max, min, "
                                      "prod and avg)")
        ctx.scale = 1.0 / len(group[1]) if int(reduce_type) == 4 else None
        y = x.clone()
        collective.all_reduce(y, op=_OPS[int(reduce_type)], group=group[0])
        return y

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.scale if ctx.scale is not None else grad


class CopyToParallel(PyLayer):
    """Identity forward; backward sums the gradient over the group (a replicated input whose
    consumers on each rank see only a part of the computation, as a column-parallel Linear's input)."""

    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        g = grad.clone()
        collective.all_reduce(g, group=ctx.group[0])
        return g


class KeepOnFirst(PyLayer):
    """Replicate -> Partial: the first rank along the dimension keeps the value, the others hold
    zeros (the sum is the value); backward passes the replicated gradient on."""

    @staticmethod
    def forward(ctx, x, group):
        if group[1].index(collective.get_rank()) == 0:
            return x.clone()
        return _C.zeros_like(x)

    @staticmethod
    def backward(ctx, grad):
        return grad
