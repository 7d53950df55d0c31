"""Distributed tensors: a tensor laid out on a ProcessMesh with one Placement per mesh dimension,
each rank holding its local shard (paddle.distributed.shard_tensor, reshard, dtensor_from_fn,
unshard_dtensor).

oar runs every op on the local shard: a DistTensor *is* its local tensor for the ops (they see
its local shape, and their results are plain local tensors), with the mesh, the placements and
the global shape attached. With every placement Replicate (in particular on a mesh of one rank,
or in a job of one process) the local tensor is the whole tensor and every result equals the
dense computation. Communication happens where the API says so: reshard, unshard_dtensor, the
parallel plans of parallelize / shard_layer, the optimizer of shard_optimizer."""
from ... import _C
from ...framework.parameter import Parameter
from .. import collective
from . import comm
from .placement import Partial, Replicate, Shard, check_placements
from .process_mesh import ProcessMesh

__all__ = ["DistTensor", "DistParameter", "shard_tensor", "dtensor_from_fn", "dtensor_from_local", "reshard",
           "unshard_dtensor", "is_dist_tensor"]


def _this_rank():
    return collective.get_rank() if collective.is_initialized() else 0


def _coordinate(mesh):
    """This rank's coordinate on the mesh; a process outside any job holds rank 0's shard when
    0 is on the mesh (a single process simulating the mesh), else None."""
    return mesh.coordinate(_this_rank())


def local_region(global_shape, mesh, placements, coord):
    """[(start, size)] per tensor axis of the shard at mesh coordinate `coord`."""
    region = [(0, int(n)) for n in global_shape]
    for d, p in enumerate(placements):
        if isinstance(p, Shard):
            a = p.get_dim()
            start, n = region[a]
            sizes = comm.split_sizes(n, mesh.shape[d])
            region[a] = (start + sum(sizes[:coord[d]]), sizes[coord[d]])
    return region


def _brief_placements(placements):
    return "[" + ", ".join(repr(p) for p in placements) + "]"


class _DistMixin:
    """The distributed attributes (shared by DistTensor and DistParameter)."""

    def _set_dist(self, mesh, placements, global_shape):
        self._dist_mesh = mesh
        self._dist_placements = list(placements)
        self._dist_global_shape = [int(s) for s in global_shape]

    @property
    def process_mesh(self):
        """The mesh the tensor is laid out on."""
        return self._dist_mesh

    @property
    def placements(self):
        """How it lies along each mesh dimension."""
        return list(self._dist_placements)

    @property
    def _global_shape(self):
        return list(self._dist_global_shape)

    @property
    def _local_shape(self):
        return list(_C.Tensor.shape.__get__(self))

    def is_dist(self):
        return True

    def _local_value(self):
        """This rank's shard as a plain tensor (sharing storage and autograd history)."""
        return _C.Tensor(self)

    def _placements_str(self):
        return _brief_placements(self._dist_placements)

    def _dist_repr(self, head=""):
        whole = all(isinstance(p, Replicate) for p in self._dist_placements) or _job_size_one(self._dist_mesh)
        body = _C.Tensor.__repr__(_C.Tensor(self))
        inner = body.split("\n", 1)[1] if "\n" in body else body
        prefix = body.split("\n", 1)[0].rstrip(",")
        prefix = prefix.replace(f"shape={self._local_shape}", f"shape={self._global_shape}")
        kind = "GlobalDenseTensor" if whole else f"LocalDenseTensor(local_shape={self._local_shape})"
        return (f"{head}{prefix}, process_mesh={self._dist_mesh._brief()}, "
                f"placements={self._placements_str()}, {kind}=\n{inner}")


def _job_size_one(mesh):
    return mesh.size == 1


class DistTensor(_C.Tensor):
    """A tensor laid out on a ProcessMesh (what shard_tensor returns): the ops see this rank's local
    shard; ``process_mesh``, ``placements`` and ``_local_value()`` describe it.

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> mesh = dist.ProcessMesh([0], dim_names=["x"])
        >>> d = dist.shard_tensor(oar.ones([2, 3]), mesh, [dist.Shard(0)])
        >>> print(d.is_dist(), d.placements, d._local_value().shape)
        True [Shard(dim=0)] [2, 3]
    """

    def __init__(self, local, mesh, placements, global_shape):
        super().__init__(local)
        self._set_dist(mesh, placements, global_shape)

    def __repr__(self):
        return self._dist_repr()

    __str__ = __repr__


class DistParameter(Parameter):
    """A Parameter laid out on a ProcessMesh: its storage is this rank's shard, which the
    optimizer updates.

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> linear = oar.nn.Linear(4, 2)
        >>> mesh = dist.ProcessMesh([0], dim_names=["mp"])
        >>> linear.weight = dist.shard_tensor(linear.weight, mesh, [dist.Shard(1)])
        >>> print(type(linear.weight).__name__, linear.weight.placements)
        DistParameter [Shard(dim=1)]
    """

    def __init__(self, local, mesh, placements, global_shape, like=None):
        if like is not None:
            super().__init__(local, name=like.name, trainable=like.trainable,
                             learning_rate=like.optimize_attr["learning_rate"], regularizer=like.regularizer,
                             need_clip=like.need_clip)
        else:
            super().__init__(local)
        self._set_dist(mesh, placements, global_shape)

    def __repr__(self):
        return self._dist_repr("Parameter containing:\n")

    __str__ = __repr__

    def __deepcopy__(self, memo):
        p = DistParameter(_C.Tensor.clone(self).detach(), self._dist_mesh, self._dist_placements,
                          self._dist_global_shape, like=self)
        memo[id(self)] = p
        return p


# nanobind classes take one base: the mixin's members are copied in.
for _cls in (DistTensor, DistParameter):
    for _k, _v in vars(_DistMixin).items():
        if not _k.startswith("__"):
            setattr(_cls, _k, _v)


def is_dist_tensor(tensor):
    """Whether `tensor` is a distributed tensor."""
    return isinstance(tensor, (DistTensor, DistParameter))


def _wrap(local, mesh, placements, global_shape, like=None):
    if isinstance(like, Parameter):
        if local.is_leaf is False or local._is_same(like):
            local = local.detach()
        return DistParameter(local, mesh, placements, global_shape, like=like)
    return DistTensor(local, mesh, placements, global_shape)


def _check_mesh(mesh, where):
    if not isinstance(mesh, ProcessMesh):
        raise TypeError(f"{where}: mesh must be a ProcessMesh, got {type(mesh).__name__}")


def _empty_local(x):
    return _C.zeros([0] * max(x.ndim, 1), x.dtype)


def _shard_local(x, mesh, placements):
    """This rank's shard of the whole tensor x (differentiable: slices of x)."""
    coord = _coordinate(mesh)
    if coord is None:
        return _empty_local(x)
    region = local_region(x.shape, mesh, placements, coord)
    local = x
    if any(size != n for (_, size), n in zip(region, x.shape)):
        local = x[tuple(slice(s, s + n) for s, n in region)]
        local = local.contiguous() if x.stop_gradient else local.clone()
    for d, p in enumerate(placements):
        if isinstance(p, Partial) and coord[d] != 0:
            if p.reduce_type() == 0:
                local = local * 0
            elif p.reduce_type() == 3:
                local = local * 0 + 1
    return local


def shard_tensor(data, mesh, placements, dtype=None, place=None, stop_gradient=None):
    """Lays a tensor out on a mesh: every rank passes the same whole tensor and keeps its shard
    (Shard: its piece of that axis; Replicate: all of it; Partial: the first rank along that mesh
    dimension keeps the value, the others zeros for a sum).

    Args:
        data (Tensor|array_like): The whole tensor (the same on every rank).
        mesh (ProcessMesh): The mesh.
        placements (list[Placement]): One per mesh dimension (missing ones are Replicate).
        dtype (str, optional): The dtype when `data` is not a tensor. Default: None.
        place (Place, optional): Where the tensor lives. Default: None.
        stop_gradient (bool, optional): Default: None (that of `data`, True for non-tensors).

    Returns:
        Tensor: A DistTensor (a DistParameter for a Parameter).

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> mesh = dist.ProcessMesh([0], dim_names=["x"])
        >>> d = dist.shard_tensor([[1.0, 2.0], [3.0, 4.0]], mesh, [dist.Replicate()])
        >>> print(d.process_mesh.process_ids, d.placements, d.shape)
        [0] [Replicate()] [2, 2]
    """
    from ... import to_tensor
    _check_mesh(mesh, "shard_tensor")
    if is_dist_tensor(data):
        return reshard(data, mesh, placements)
    if not isinstance(data, _C.Tensor):
        data = to_tensor(data, dtype=dtype, place=place)
    elif dtype is not None and str(data.dtype).split(".")[-1] != str(dtype).split(".")[-1]:
        data = data.astype(dtype)
    placements = check_placements(placements, mesh, data.ndim, "shard_tensor")
    sg = data.stop_gradient if stop_gradient is None else bool(stop_gradient)
    local = _shard_local(data, mesh, placements)
    if isinstance(data, Parameter):
        out = _wrap(local.detach(), mesh, placements, data.shape, like=data)
        out.stop_gradient = sg
        return out
    if data.is_leaf or sg:
        local = local.detach()
        local.stop_gradient = sg
    return DistTensor(local, mesh, placements, data.shape)


def dtensor_from_fn(fn, mesh, placements, *args, **kwargs):
    """Builds the whole tensor with fn(*args, **kwargs) and lays it out on the mesh (shard_tensor).

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> mesh = dist.ProcessMesh([0], dim_names=["x"])
        >>> d = dist.dtensor_from_fn(oar.ones, mesh, [dist.Shard(0)], shape=[2, 3])
        >>> print(d.shape, d.placements)
        [2, 3] [Shard(dim=0)]
    """
    if not callable(fn):
        raise TypeError(f"dtensor_from_fn: fn must be callable, got {type(fn).__name__}")
    return shard_tensor(fn(*args, **kwargs), mesh, placements)


def dtensor_from_local(local_tensor, mesh, placements):
    """A DistTensor from each rank's local shard (Shard axes: the global size is the sum of the
    ranks' sizes along that mesh dimension, assumed equal)."""
    _check_mesh(mesh, "dtensor_from_local")
    placements = check_placements(placements, mesh, local_tensor.ndim, "dtensor_from_local")
    shape = list(local_tensor.shape)
    for d, p in enumerate(placements):
        if isinstance(p, Shard):
            shape[p.get_dim()] *= mesh.shape[d]
    if is_dist_tensor(local_tensor):
        local_tensor = local_tensor._local_value()
    return DistTensor(local_tensor, mesh, placements, shape)


def _parent_sizes(global_shape, mesh, placements, coord):
    """Per mesh dimension that shards an axis: the size of that axis before its split at this level."""
    sizes = [int(n) for n in global_shape]
    out = {}
    for d, p in enumerate(placements):
        if isinstance(p, Shard):
            a = p.get_dim()
            out[d] = sizes[a]
            sizes[a] = comm.split_sizes(sizes[a], mesh.shape[d])[coord[d]]
    return out


def _reshard_same_mesh(x, local, mesh, src, dst, global_shape):
    coord = _coordinate(mesh)
    if coord is None:  # not on the mesh: nothing to hold
        return local
    cur = list(src)
    # 1. Partial -> Replicate (sum, max, ...) where the target differs.
    for d in range(mesh.ndim):
        if isinstance(cur[d], Partial) and cur[d] != dst[d]:
            g = comm.mesh_dim_group(mesh, d)
            if g is not None:
                local = comm.AllReduce.apply(local, cur[d].reduce_type(), g)
            cur[d] = Replicate()
    # 2. Shard -> Replicate, innermost split first; an axis split on several mesh dimensions is
    # gathered on all of them when any changes.
    changed_axes = {cur[d].get_dim() for d in range(mesh.ndim) if isinstance(cur[d], Shard) and cur[d] != dst[d]}
    for d in reversed(range(mesh.ndim)):
        if isinstance(cur[d], Shard) and cur[d].get_dim() in changed_axes:
            a = cur[d].get_dim()
            parent = _parent_sizes(global_shape, mesh, cur, coord)[d]
            g = comm.mesh_dim_group(mesh, d)
            if g is not None:
                local = comm.AllGather.apply(local, a, g, comm.split_sizes(parent, mesh.shape[d]))
            cur[d] = Replicate()
    # 3. Replicate -> Shard, outermost first.
    for d in range(mesh.ndim):
        if isinstance(cur[d], Replicate) and isinstance(dst[d], Shard):
            a = dst[d].get_dim()
            trial = list(cur)
            trial[d] = dst[d]
            parent = _parent_sizes(global_shape, mesh, trial, coord)[d]
            sizes = comm.split_sizes(parent, mesh.shape[d])
            g = comm.mesh_dim_group(mesh, d, required=False)
            if g is not None:
                local = comm.Split.apply(local, a, g, sizes)
            elif mesh.shape[d] > 1:  # one process holding rank coord's shard
                index = [slice(None)] * local.ndim
                index[a] = slice(sum(sizes[:coord[d]]), sum(sizes[:coord[d] + 1]))
                local = local[tuple(index)]
            cur[d] = dst[d]
    # 4. Replicate -> Partial: the first rank keeps the value.
    for d in range(mesh.ndim):
        if isinstance(cur[d], Replicate) and isinstance(dst[d], Partial):
            g = comm.mesh_dim_group(mesh, d, required=False)
            if g is not None:
                local = comm.KeepOnFirst.apply(local, g)
            elif coord[d] != 0:
                local = local * 0
            cur[d] = dst[d]
    return local


def _reshard_cross_mesh(x, local, src_mesh, src, mesh, dst, global_shape):
    """Between meshes of the same shape: each rank of the source mesh sends its shard (after
    resharding to the target placements there) to the rank at the same coordinate of the target."""
    if src_mesh.shape != mesh.shape:
        raise NotImplementedError(f"reshard: between meshes of different shapes ({src_mesh.shape} and "
                                  f"{mesh.shape})")
    me = _this_rank()
    if src_mesh.contains(me):
        local = _reshard_same_mesh(x, local, src_mesh, src, dst, global_shape)
    out = local
    if collective.is_initialized() and collective.get_world_size() > 1:
        c_src, c_dst = src_mesh.coordinate(me), mesh.coordinate(me)
        if c_src is not None:
            peer = int(mesh.mesh[tuple(c_src)])
            if peer != me:
                collective.send(local.detach().contiguous(), dst=peer)
        if c_dst is not None:
            peer = int(src_mesh.mesh[tuple(c_dst)])
            if peer != me:
                region = local_region(global_shape, mesh, dst, c_dst)
                out = _C.zeros([n for _, n in region], x.dtype)
                collective.recv(out, src=peer)
        if c_dst is None:
            out = _C.zeros([0] * max(len(global_shape), 1), x.dtype)
    return out


def reshard(dist_tensor, mesh, placements):
    """Lays a distributed tensor out anew, communicating as needed: Shard -> Replicate all-gathers,
    Partial -> Replicate all-reduces, Replicate -> Shard keeps this rank's piece, Partial -> Shard
    reduces then keeps the piece; between two meshes of the same shape each rank sends its shard
    to the rank at the same coordinate. Differentiable (the backward is the adjoint
    communication). A plain tensor counts as replicated on `mesh`.

    Args:
        dist_tensor (Tensor): The distributed tensor.
        mesh (ProcessMesh): The target mesh.
        placements (list[Placement]): The target placements.

    Returns:
        Tensor: A DistTensor.

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> mesh = dist.ProcessMesh([0], dim_names=["x"])
        >>> d = dist.shard_tensor(oar.arange(4.0), mesh, [dist.Shard(0)])
        >>> r = dist.reshard(d, mesh, [dist.Replicate()])
        >>> print(r.placements, r.numpy())
        [Replicate()] [0. 1. 2. 3.]
    """
    _check_mesh(mesh, "reshard")
    if not isinstance(dist_tensor, _C.Tensor):
        raise TypeError(f"reshard: dist_tensor must be a Tensor, got {type(dist_tensor).__name__}")
    if not is_dist_tensor(dist_tensor):
        return shard_tensor(dist_tensor, mesh, placements)
    global_shape = dist_tensor._global_shape
    placements = check_placements(placements, mesh, len(global_shape), "reshard")
    src_mesh, src = dist_tensor.process_mesh, dist_tensor.placements
    local = dist_tensor._local_value()
    if src_mesh == mesh or (src_mesh.process_ids == mesh.process_ids and src_mesh.shape == mesh.shape):
        if src == placements:
            return DistTensor(local, mesh, placements, global_shape)
        out = _reshard_same_mesh(dist_tensor, local, mesh, src, placements, global_shape)
    else:
        out = _reshard_cross_mesh(dist_tensor, local, src_mesh, src, mesh, placements, global_shape)
    return DistTensor(out, mesh, placements, global_shape)


def unshard_dtensor(dist_tensor):
    """The whole tensor, gathered on every rank (a plain Tensor); a plain tensor comes back as it is.

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> mesh = dist.ProcessMesh([0], dim_names=["x"])
        >>> d = dist.shard_tensor(oar.arange(4.0), mesh, [dist.Shard(0)])
        >>> print(dist.unshard_dtensor(d).numpy())
        [0. 1. 2. 3.]
    """
    if not isinstance(dist_tensor, _C.Tensor):
        raise TypeError(f"unshard_dtensor: dist_tensor must be a Tensor, got {type(dist_tensor).__name__}")
    if not is_dist_tensor(dist_tensor):
        return dist_tensor
    mesh = dist_tensor.process_mesh
    full = reshard(dist_tensor, mesh, [Replicate()] * mesh.ndim)._local_value()
    if isinstance(dist_tensor, Parameter):
        return Parameter(full.detach(), name=dist_tensor.name, trainable=dist_tensor.trainable)
    return full
