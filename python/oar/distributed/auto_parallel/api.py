"""The dynamic-graph auto-parallel API around distributed tensors: shard_layer, LocalLayer,
local_map, shard_optimizer with the ShardingStage rules, shard_scaler, shard_dataloader, and
Strategy / DistModel / to_static (the training loop Paddle compiles statically, run eagerly).

Gradients in oar are computed on local shards. A parameter replicated along a mesh dimension gets,
on each rank, the gradient of that rank's part of the computation: the optimizer of
shard_optimizer (and DistModel) averages those gradients over the mesh dimensions along which the
parameter is replicated (the data-parallel average; along a model-parallel dimension the ranks'
gradients are equal, so averaging keeps them). The parallel plans (parallelize, ColWiseParallel,
...) insert the communication that makes model-parallel gradients whole."""
import copy

from ... import _C
from ...autograd import no_grad
from ...nn import Layer
from .. import collective
from . import comm
from .dtensor import DistTensor, _coordinate, dtensor_from_local, is_dist_tensor, reshard, shard_tensor
from .placement import Partial, Placement, Replicate, Shard, check_placements
from .process_mesh import ProcessMesh, get_mesh

__all__ = ["shard_layer", "LocalLayer", "local_map", "shard_optimizer", "shard_scaler", "ShardingStage1",
           "ShardingStage2", "ShardingStage3", "shard_dataloader", "ShardDataloader", "Strategy", "DistModel",
           "to_static"]


def _replicate_params(layer, mesh):
    """Every parameter and buffer of `layer` itself that is not distributed yet becomes a
    replicated one on `mesh`."""
    for name, p in list(layer._parameters.items()):
        if p is not None and not is_dist_tensor(p):
            layer._parameters[name] = shard_tensor(p, mesh, [Replicate()] * mesh.ndim)
    for name, b in list(layer._buffers.items()):
        if b is not None and not is_dist_tensor(b):
            layer._buffers[name] = shard_tensor(b, mesh, [Replicate()] * mesh.ndim)


def shard_layer(layer, process_mesh, shard_fn=None, input_fn=None, output_fn=None):
    """Makes a layer's parameters distributed on a mesh: ``shard_fn(name, sublayer, mesh)`` is
    called for every sublayer (itself included, name '') and may shard its parameters with
    shard_tensor; the parameters it leaves become replicated. ``input_fn(inputs, mesh)`` and
    ``output_fn(outputs, mesh)`` become forward pre- and post-hooks of `layer`.

    Args:
        layer (Layer): The layer (changed in place and returned).
        process_mesh (ProcessMesh): The mesh.
        shard_fn (callable, optional): Default: None (every parameter replicated).
        input_fn (callable, optional): Default: None.
        output_fn (callable, optional): Default: None.

    Returns:
        Layer: `layer`.

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> mesh = dist.ProcessMesh([0], dim_names=["x"])
        >>> def shard_fn(name, sub, mesh):
        ...     if isinstance(sub, oar.nn.Linear):
        ...         sub.weight = dist.shard_tensor(sub.weight, mesh, [dist.Shard(1)])
        >>> net = dist.shard_layer(oar.nn.Linear(4, 2), mesh, shard_fn)
        >>> print(net.weight.placements, net.bias.placements)
        [Shard(dim=1)] [Replicate()]
    """
    if not isinstance(layer, Layer):
        raise TypeError(f"shard_layer: layer must be an oar.nn.Layer, got {type(layer).__name__}")
    if not isinstance(process_mesh, ProcessMesh):
        raise TypeError(f"shard_layer: process_mesh must be a ProcessMesh, got {type(process_mesh).__name__}")
    for name, sub in layer.named_sublayers(include_self=True):
        if shard_fn is not None:
            shard_fn(name, sub, process_mesh)
        _replicate_params(sub, process_mesh)
    if input_fn is not None:
        layer.register_forward_pre_hook(lambda _, inputs: input_fn(inputs, process_mesh))
    if output_fn is not None:
        layer.register_forward_post_hook(lambda _, inputs, outputs: output_fn(outputs, process_mesh))
    return layer


def _map_tensors(obj, fn):
    if isinstance(obj, _C.Tensor):
        return fn(obj)
    if isinstance(obj, (list, tuple)):
        out = [_map_tensors(o, fn) for o in obj]
        return type(obj)(out) if isinstance(obj, list) else tuple(out)
    if isinstance(obj, dict):
        return {k: _map_tensors(v, fn) for k, v in obj.items()}
    return obj


def _flatten_outputs(out):
    if isinstance(out, (list, tuple)):
        return list(out), type(out)
    return [out], None


def _local(t):
    return t._local_value() if is_dist_tensor(t) else t


class LocalLayer(Layer):
    """A layer whose forward runs on local tensors: distributed inputs are given to forward as
    their local shards, and output i becomes a distributed tensor on ``out_dist_attrs[i] =
    (mesh, placements)`` (a Shard axis's global size being the local size times the ranks).

    Args:
        out_dist_attrs (list[tuple[ProcessMesh, list[Placement]]]): One per output.
        grad_dist_attrs (list[tuple[ProcessMesh, list[Placement]]], optional): The layout of the
            inputs' gradients (kept for Paddle compatibility: gradients are local). Default: None.

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> mesh = dist.ProcessMesh([0], dim_names=["x"])
        >>> class LocalSum(dist.LocalLayer):
        ...     def __init__(self):
        ...         super().__init__(out_dist_attrs=[(mesh, [dist.Partial()])], grad_dist_attrs=[None])
        ...     def forward(self, x):
        ...         return x.sum()
        >>> x = dist.shard_tensor(oar.ones([4]), mesh, [dist.Shard(0)])
        >>> out = LocalSum()(x)
        >>> print(out.placements, float(out))
        [Partial(reduce_type=SUM)] 4.0
    """

    def __init__(self, out_dist_attrs, grad_dist_attrs=None):
        super().__init__()
        if not isinstance(out_dist_attrs, (list, tuple)):
            raise TypeError(f"LocalLayer: out_dist_attrs must be a list of (mesh, placements), got "
                            f"{type(out_dist_attrs).__name__}")
        self.out_dist_attrs = list(out_dist_attrs)
        self.grad_dist_attrs = list(grad_dist_attrs) if grad_dist_attrs is not None else None

    def __call__(self, *inputs, **kwargs):
        inputs = _map_tensors(inputs, _local)
        kwargs = _map_tensors(kwargs, _local)
        out = super().__call__(*inputs, **kwargs)
        outs, kind = _flatten_outputs(out)
        if len(outs) != len(self.out_dist_attrs):
            raise ValueError(f"LocalLayer: forward returned {len(outs)} outputs but out_dist_attrs describes "
                             f"{len(self.out_dist_attrs)}")
        wrapped = [dtensor_from_local(o, *attr) if isinstance(o, _C.Tensor) and attr is not None else o
                   for o, attr in zip(outs, self.out_dist_attrs)]
        return wrapped[0] if kind is None else kind(wrapped)


def local_map(func, out_placements, in_placements=None, process_mesh=None, reshard_inputs=False):
    """Wraps `func` to run on local shards: each distributed argument is passed as its local
    tensor (after checking it has ``in_placements[i]``, or resharding it there when
    `reshard_inputs`), and each tensor output i becomes a distributed tensor with
    ``out_placements[i]`` on `process_mesh` (default: the mesh of the distributed arguments).
    Without distributed arguments and `process_mesh`, `func` runs as it is.

    Args:
        func (callable): The function.
        out_placements (list[list[Placement]|None]): One per output (None: left local).
        in_placements (list[list[Placement]|None], optional): One per positional argument.
            Default: None (not checked).
        process_mesh (ProcessMesh, optional): Default: None.
        reshard_inputs (bool, optional): Reshard mismatched inputs instead of raising. Default: False.

    Returns:
        callable: The wrapped function.

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> mesh = dist.ProcessMesh([0], dim_names=["x"])
        >>> local_sum = dist.local_map(lambda t: t.sum(), out_placements=[[dist.Partial()]])
        >>> out = local_sum(dist.shard_tensor(oar.ones([4]), mesh, [dist.Shard(0)]))
        >>> print(out.placements, float(out))
        [Partial(reduce_type=SUM)] 4.0
    """
    if not callable(func):
        raise TypeError(f"local_map: func must be callable, got {type(func).__name__}")

    def wrapped(*args, **kwargs):
        mesh = process_mesh
        new_args = []
        for i, a in enumerate(args):
            want = in_placements[i] if in_placements is not None and i < len(in_placements) else None
            if is_dist_tensor(a):
                mesh = mesh or a.process_mesh
                if want is not None:
                    want = check_placements(want, a.process_mesh, len(a._global_shape), "local_map")
                    if a.placements != want:
                        if not reshard_inputs:
                            raise ValueError(f"local_map: argument {i} has placements {a.placements} but "
                                             f"in_placements says {want} (pass reshard_inputs=True to reshard)")
                        a = reshard(a, a.process_mesh, want)
                a = a._local_value()
            new_args.append(a)
        kwargs = _map_tensors(kwargs, _local)
        out = func(*new_args, **kwargs)
        if mesh is None:
            return out
        outs, kind = _flatten_outputs(out)
        if len(outs) != len(out_placements):
            raise ValueError(f"local_map: func returned {len(outs)} outputs but out_placements has "
                             f"{len(out_placements)}")
        res = [dtensor_from_local(o, mesh, p) if isinstance(o, _C.Tensor) and p is not None else o
               for o, p in zip(outs, out_placements)]
        return res[0] if kind is None else kind(res)

    return wrapped


# ---------------------------------------------------------------- the optimizer

class _ShardingStageBase:
    def __init__(self, sharding_mesh_dim, mesh=None):
        if not isinstance(sharding_mesh_dim, (int, str)) or isinstance(sharding_mesh_dim, bool):
            raise TypeError(f"{type(self).__name__}: sharding_mesh_dim must be a mesh dimension name or index, "
                            f"got {sharding_mesh_dim!r}")
        if mesh is not None and not isinstance(mesh, ProcessMesh):
            raise TypeError(f"{type(self).__name__}: mesh must be a ProcessMesh, got {type(mesh).__name__}")
        self._sharding_mesh_dim = sharding_mesh_dim
        self._mesh = mesh

    def _resolve(self, params):
        mesh = self._mesh or next((p.process_mesh for p in params if is_dist_tensor(p)), None) or get_mesh()
        if mesh is None:
            raise ValueError(f"{type(self).__name__}: give a mesh (no parameter is distributed and no mesh "
                             "was set with set_mesh)")
        return mesh, mesh._dim_index(self._sharding_mesh_dim)

    def __call__(self, key, param, tensor):
        """The optimizer state `tensor` of `param` (called by shard_optimizer for each state)."""
        return tensor


class ShardingStage1(_ShardingStageBase):
    """ZeRO stage 1 for shard_optimizer: the optimizer states are split over the ranks of mesh
    dimension `sharding_mesh_dim` (each parameter's states on one owner, Paddle's greedy
    partition); after the step each parameter is broadcast from its owner.

    Args:
        sharding_mesh_dim (int|str): The mesh dimension (usually the data-parallel one).
        mesh (ProcessMesh, optional): Default: None (the parameters' mesh, or get_mesh()).

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> mesh = dist.ProcessMesh([0], dim_names=["dp"])
        >>> net = oar.nn.Linear(4, 2)
        >>> opt = dist.shard_optimizer(oar.optimizer.Adam(parameters=net.parameters()),
        ...                            dist.ShardingStage1("dp", mesh))
        >>> net(oar.ones([3, 4])).sum().backward()
        >>> opt.step(); opt.clear_grad()
    """
    _stage = 1


class ShardingStage2(_ShardingStageBase):
    """ZeRO stage 2 for shard_optimizer: as ShardingStage1, and each rank keeps only the gradients
    of the parameters it owns once they are averaged (the others are dropped).

    Args:
        sharding_mesh_dim (int|str): The mesh dimension.
        mesh (ProcessMesh, optional): Default: None.

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> stage = dist.ShardingStage2("dp", dist.ProcessMesh([0], dim_names=["dp"]))
        >>> type(stage).__name__
        'ShardingStage2'
    """
    _stage = 2


class ShardingStage3(_ShardingStageBase):
    """ZeRO stage 3 for shard_optimizer: as ShardingStage2 (optimizer states and gradients split
    over the ranks of `sharding_mesh_dim`); oar keeps whole parameters on every rank (see
    oar.distributed.sharding.group_sharded_parallel(level='p_g_os') for parameter sharding).

    Args:
        sharding_mesh_dim (int|str): The mesh dimension.
        mesh (ProcessMesh, optional): Default: None.

    Examples:
        >>> import oar.distributed as dist
        >>> stage = dist.ShardingStage3(0)
        >>> type(stage).__name__
        'ShardingStage3'
    """
    _stage = 3


def _grad_sync_groups(p, default_mesh):
    """The groups (along the mesh dimensions where p is replicated) whose gradients are averaged."""
    mesh = p.process_mesh if is_dist_tensor(p) else default_mesh
    if mesh is None or _coordinate(mesh) is None:
        return []
    placements = p.placements if is_dist_tensor(p) else [Replicate()] * mesh.ndim
    out = []
    for d, pl in enumerate(placements):
        if not isinstance(pl, Shard) and mesh.shape[d] > 1:
            g = comm.mesh_dim_group(mesh, d, required=False)
            if g is not None:
                out.append(g)
    return out


@no_grad()
def sync_gradients(params, default_mesh=None, scale=None):
    """Averages each parameter's gradient over the mesh dimensions along which it is replicated
    (one fused all-reduce per group and dtype); `scale` then multiplies them."""
    buckets = {}
    for p in params:
        if p.stop_gradient or p.grad is None:
            continue
        for g in _grad_sync_groups(p, default_mesh):
            buckets.setdefault((g[0].id, str(p.grad.dtype)), (g, []))[1].append(p)
    for (_, _), (g, ps) in buckets.items():
        flat = _C.concat([_C.reshape(p.grad, [-1]) for p in ps], 0)
        collective.all_reduce(flat, op=collective.ReduceOp.AVG, group=g[0])
        offset = 0
        for p in ps:
            n = p.grad.numel()
            p.grad.copy_(_C.reshape(flat[offset:offset + n], p.grad.shape), False)
            offset += n
    if scale is not None and scale != 1:
        for p in params:
            if p.grad is not None:
                p.grad.copy_(p.grad * scale, False)


def _all_params(optim):
    if getattr(optim, "_grouped", False):
        return [p for grp in optim._param_groups for p in grp["params"]]
    return list(optim._parameter_list or [])


class _ShardOptimizer:
    """What shard_optimizer returns: the optimizer, with gradients averaged over the data-parallel
    mesh dimensions before each step and, with a ShardingStage, its states split over ranks."""

    def __init__(self, optimizer, shard_fn=None, gradient_accumulation_steps=1):
        from ...optimizer import Optimizer
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"shard_optimizer: optimizer must be an oar.optimizer.Optimizer, got "
                            f"{type(optimizer).__name__}")
        if shard_fn is not None and not callable(shard_fn):
            raise TypeError(f"shard_optimizer: shard_fn must be callable or a ShardingStage, got {shard_fn!r}")
        if isinstance(gradient_accumulation_steps, bool) or not isinstance(gradient_accumulation_steps, int) \
                or gradient_accumulation_steps < 1:
            raise ValueError(f"shard_optimizer: gradient_accumulation_steps must be an int >= 1, got "
                             f"{gradient_accumulation_steps!r}")
        self._inner_opt = optimizer
        self._shard_fn = shard_fn
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self._params = _all_params(optimizer)
        self._mesh = None
        self._sharded = None
        if isinstance(shard_fn, _ShardingStageBase):
            mesh, dim = shard_fn._resolve(self._params)
            self._mesh = mesh
            g = comm.mesh_dim_group(mesh, dim, required=False)
            if g is not None:
                from ..sharding.group_sharded import GroupShardedOptimizerStage2
                self._sharded = GroupShardedOptimizerStage2(self._params, optimizer, group=g[0])
                self._drop_grads = shard_fn._stage >= 2

    def __getattr__(self, name):
        if name == "_inner_opt":
            raise AttributeError(name)
        return getattr(self._inner_opt, name)

    def step(self):
        """Averages the gradients, then updates (this rank's partition, then broadcasts it, with a
        ShardingStage)."""
        k = self.gradient_accumulation_steps
        sync_gradients(self._params, self._mesh, 1.0 / k if k > 1 else None)
        if self._sharded is not None:
            if self._drop_grads:
                owned = {id(p) for p in self._sharded._owned}
                for p in self._params:
                    if id(p) not in owned and p.grad is not None:
                        p.clear_gradient(False)
            self._sharded.step()
        else:
            self._inner_opt.step()

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        self.step()
        return [], []

    def clear_grad(self, set_to_zero=True):
        for p in self._params:
            p.clear_gradient(set_to_zero)

    clear_gradients = clear_grad

    def state_dict(self):
        return self._inner_opt.state_dict()

    def set_state_dict(self, state_dict):
        return self._inner_opt.set_state_dict(state_dict)


def shard_optimizer(optimizer, shard_fn=None, gradient_accumulation_steps=1):
    """Makes an optimizer work on distributed parameters: before each step the gradients are
    averaged over the mesh dimensions along which each parameter is replicated (and divided by
    `gradient_accumulation_steps`); with `shard_fn` a ShardingStage1/2/3, the optimizer states are
    split over the ranks of its mesh dimension (ZeRO).

    Args:
        optimizer (Optimizer): The optimizer, built on the layer's (distributed) parameters.
        shard_fn (ShardingStage1|ShardingStage2|ShardingStage3|callable, optional): Default: None.
        gradient_accumulation_steps (int, optional): Backward passes summed into each step.
            Default: 1.

    Returns:
        The wrapped optimizer (step, clear_grad, state_dict, and the optimizer's other methods).

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> net = oar.nn.Linear(4, 2)
        >>> opt = dist.shard_optimizer(oar.optimizer.SGD(0.1, parameters=net.parameters()))
        >>> net(oar.ones([2, 4])).mean().backward()
        >>> opt.step(); opt.clear_grad()
    """
    return _ShardOptimizer(optimizer, shard_fn, gradient_accumulation_steps)


def shard_scaler(scaler):
    """Makes a GradScaler agree across ranks: whether any gradient overflowed is combined over
    every rank of the job before the step is taken or skipped (so all ranks skip together).

    Args:
        scaler (GradScaler): The scaler (changed in place and returned).

    Returns:
        GradScaler: `scaler`.

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> scaler = dist.shard_scaler(oar.amp.GradScaler(init_loss_scaling=1024))
        >>> type(scaler).__name__
        'GradScaler'
    """
    from ...amp import GradScaler
    if not isinstance(scaler, GradScaler):
        raise TypeError(f"shard_scaler: scaler must be an oar.amp.GradScaler, got {type(scaler).__name__}")
    if getattr(scaler, "_oar_sharded", False):
        return scaler
    original = scaler._unscale

    def unscale(optimizer):
        inner = getattr(optimizer, "_inner_opt", optimizer)
        original(inner)
        if collective.is_initialized() and collective.get_world_size() > 1:
            flag = _C.full([1], 1 if scaler._found_inf else 0, "int32")
            collective.all_reduce(flag, op=collective.ReduceOp.MAX)
            scaler._found_inf = bool(flag.item())

    scaler._unscale = unscale
    scaler._oar_sharded = True
    return scaler


# ---------------------------------------------------------------- data

class ShardDataloader:
    """What shard_dataloader returns: iterates the loader, each rank reading its part of every
    batch, and gives the batches as distributed tensors (Shard(0) along the shard dimension,
    replicated along the others)."""

    def __init__(self, dataloader, meshes, input_keys=None, shard_dims=None, is_dataset_splitted=False,
                 dense_tensor_idx=None):
        from ...io import DataLoader, DistributedBatchSampler
        if is_dataset_splitted and shard_dims is None:
            raise ValueError("shard_dataloader: shard_dims must be set when is_dataset_splitted is True")
        meshes = list(meshes) if isinstance(meshes, (list, tuple)) else [meshes]
        if not meshes:
            raise ValueError("shard_dataloader: meshes must be set")
        for m in meshes:
            if not isinstance(m, ProcessMesh):
                raise TypeError(f"shard_dataloader: meshes must be ProcessMesh objects, got {type(m).__name__}")
        me = collective.get_rank() if collective.is_initialized() else 0
        if sum(m.contains(me) for m in set(meshes)) > 1:
            raise ValueError(f"shard_dataloader: process {me} is in more than one mesh ({meshes})")
        if isinstance(shard_dims, (list, tuple)):
            if len(shard_dims) != len(meshes):
                raise ValueError(f"shard_dataloader: shard_dims must have one entry per mesh ({len(meshes)}), got "
                                 f"{len(shard_dims)}")
            dims = list(shard_dims)
        else:
            dims = [shard_dims] * len(meshes)
        self._meshes, self._shard_dims = meshes, dims
        self._input_keys = input_keys
        self.dense_tensor_idx = dense_tensor_idx
        index = next((i for i, m in enumerate(meshes) if m.contains(me)), 0)
        self._mesh, self._dim = meshes[index], dims[index]
        sampler = getattr(dataloader, "batch_sampler", None)
        if is_dataset_splitted or self._dim is None or sampler is None or isinstance(sampler, DistributedBatchSampler):
            self._dataloader = dataloader
            self.batch_size = getattr(sampler, "batch_size", None)
        else:
            ways = self._mesh.get_dim_size(self._dim)
            coord = self._mesh.get_rank_by_dim_and_process_id(self._dim, me)
            self.batch_size = sampler.batch_size // ways
            if self.batch_size * ways != sampler.batch_size:
                raise ValueError(f"shard_dataloader: the batch size {sampler.batch_size} does not divide into "
                                 f"{ways} ranks along mesh dimension {self._dim!r}")
            self.batch_sampler = DistributedBatchSampler(dataloader.dataset, batch_size=self.batch_size,
                                                         num_replicas=ways, rank=max(coord, 0),
                                                         shuffle=getattr(sampler, "shuffle", False),
                                                         drop_last=getattr(sampler, "drop_last", False))
            self._dataloader = DataLoader(dataloader.dataset, batch_sampler=self.batch_sampler,
                                          collate_fn=getattr(dataloader, "collate_fn", None),
                                          num_workers=getattr(dataloader, "num_workers", 0),
                                          return_list=getattr(dataloader, "return_list", True))

    def __len__(self):
        return len(self._dataloader)

    def _placements(self):
        placements = [Replicate()] * self._mesh.ndim
        if self._dim is not None:
            placements[self._mesh._dim_index(self._dim)] = Shard(0)
        return placements

    def _to_dist(self, t):
        if not isinstance(t, _C.Tensor):
            return t
        return dtensor_from_local(t, self._mesh, self._placements())

    def __iter__(self):
        for batch in self._dataloader:
            if isinstance(batch, dict):
                keys = self._input_keys or list(batch)
                yield {k: (self._to_dist(v) if k in keys else v) for k, v in batch.items()}
            else:
                yield _map_tensors(batch, self._to_dist)

    def __call__(self):
        return self.__iter__()


def shard_dataloader(dataloader, meshes, input_keys=None, shard_dims=None, is_dataset_splitted=False,
                     dense_tensor_idx=None):
    """Splits a DataLoader's batches over the ranks of mesh dimension `shard_dims`: each rank reads
    batch_size / ranks samples of each batch (through a DistributedBatchSampler) and gets them as
    distributed tensors sharded on axis 0. ``shard_dims=None`` leaves the batches whole
    (replicated); ``is_dataset_splitted=True`` means each rank's loader already reads its part.

    Args:
        dataloader (DataLoader): The loader of the whole batches.
        meshes (ProcessMesh|list[ProcessMesh]): The mesh (one per pipeline stage).
        input_keys (list[str], optional): For dict batches, the keys to distribute. Default: None.
        shard_dims (int|str|list, optional): The mesh dimension to split along. Default: None.
        is_dataset_splitted (bool, optional): Default: False.
        dense_tensor_idx (list, optional): Kept for Paddle compatibility. Default: None.

    Returns:
        ShardDataloader: An iterable of batches.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> import oar.distributed as dist
        >>> class Data(oar.io.Dataset):
        ...     def __len__(self): return 4
        ...     def __getitem__(self, i): return np.full([2], i, "float32")
        >>> loader = oar.io.DataLoader(Data(), batch_size=2)
        >>> mesh = dist.ProcessMesh([0], dim_names=["dp"])
        >>> batches = list(dist.shard_dataloader(loader, mesh, shard_dims="dp"))
        >>> print(len(batches), batches[0].placements)
        2 [Shard(dim=0)]
    """
    return ShardDataloader(dataloader, meshes, input_keys, shard_dims, is_dataset_splitted, dense_tensor_idx)


# ---------------------------------------------------------------- Strategy, DistModel, to_static

class _Config:
    """One category of Strategy settings (attributes; unknown names are errors)."""
    _defaults = {}

    def __init__(self, config=None):
        for k, v in self._defaults.items():
            object.__setattr__(self, k, copy.deepcopy(v))
        for k, v in (config or {}).items():
            setattr(self, k, v)

    def __setattr__(self, name, value):
        if name not in self._defaults:
            raise ValueError(f"{type(self).__name__}: unknown setting {name!r} (known: {sorted(self._defaults)})")
        object.__setattr__(self, name, value)

    def to_dict(self):
        return {k: getattr(self, k) for k in self._defaults}

    def __repr__(self):
        return f"{type(self).__name__}({self.to_dict()})"


class ShardingConfig(_Config):
    _defaults = {"enable": False, "stage": 1, "degree": 8, "enable_overlap": False, "param_comm_stream_num": 1,
                 "grad_comm_stream_num": 1, "param_bucket_size_numel": 1, "grad_bucket_size_numel": 1,
                 "enable_hierarchical_comm": False, "partition_algor": "greedy_even", "enable_tensor_fusion": False,
                 "release_gradients": False, "comm_buffer_size_MB": -1, "enable_stage1_tensor_fusion": False,
                 "enable_stage1_overlap": False, "enable_stage2_overlap": False}


class GradientMergeConfig(_Config):
    _defaults = {"enable": False, "k_steps": 1, "avg": True, "dp_gradient_sync_after_accumulate": False}


class PipelineConfig(_Config):
    _defaults = {"enable": False, "schedule_mode": "1F1B", "micro_batch_size": 1, "accumulate_steps": 1,
                 "generation_batch_size": 1, "enable_send_recv_overlap": False, "job_schedule_profiler_start": -1,
                 "job_schedule_profiler_stop": -1, "program_runtimes": [61, 72, 71, 34, 3], "memory_limit_times": -1,
                 "split_backward": False, "pp_degree": 1, "vpp_degree": 1, "vpp_seg_method": "",
                 "enable_dynamic_shape": False}


class AMPConfig(_Config):
    _defaults = {"enable": False, "dtype": "float16", "level": "O1", "init_loss_scaling": 32768.0,
                 "incr_every_n_steps": 1000, "decr_every_n_nan_or_inf": 2, "incr_ratio": 2.0, "decr_ratio": 0.8,
                 "use_dynamic_loss_scaling": True, "custom_white_list": [], "custom_black_list": [],
                 "custom_black_varnames": [], "use_fp16_guard": False, "use_bf16_guard": False,
                 "use_master_grad": False, "use_promote": True}


class FusedPassesConfig(_Config):
    _defaults = {"enable": False, "fused_passes_list": []}


class RecomputeConfig(_Config):
    _defaults = {"enable": False, "checkpoints": [], "no_recompute_segments": [], "sr": 0, "refined_ops_patterns": [],
                 "enable_tuning": False}


class Strategy:
    """The settings of a DistModel (to_static): ``sharding`` (stage, degree: the optimizer states
    split over the data-parallel ranks), ``gradient_merge`` (k_steps, avg), ``amp`` (enable,
    dtype, level, loss scaling), ``pipeline``, ``fused_passes``, ``recompute``. Each is an object
    whose attributes are the settings; unknown settings are errors.

    Args:
        config (dict, optional): {category: {setting: value}}. Default: None (the defaults).

    Examples:
        >>> import oar.distributed as dist
        >>> strategy = dist.Strategy()
        >>> strategy.sharding.enable = True
        >>> strategy.sharding.stage = 2
        >>> strategy.gradient_merge.enable = True
        >>> strategy.gradient_merge.k_steps = 2
        >>> print(strategy.sharding.stage, strategy.gradient_merge.k_steps, strategy.pipeline.enable)
        2 2 False
    """

    _categories = {"sharding": ShardingConfig, "gradient_merge": GradientMergeConfig, "pipeline": PipelineConfig,
                   "amp": AMPConfig, "fused_passes": FusedPassesConfig, "recompute": RecomputeConfig}

    def __init__(self, config=None):
        if config is not None and not isinstance(config, dict):
            raise ValueError(f"Strategy: expected a dictionary, but received: {config!r}")
        config = copy.deepcopy(config or {})
        for k in config:
            if k not in self._categories and k not in ("auto_mode", "seed", "gradient_scale", "split_data"):
                raise ValueError(f"Strategy: unknown category {k!r} (known: {sorted(self._categories)})")
        for name, cls in self._categories.items():
            object.__setattr__(self, "_" + name, cls(config.get(name)))
        self.auto_mode = config.get("auto_mode", "semi")
        self.seed = config.get("seed", None)
        self.gradient_scale = config.get("gradient_scale", True)
        self.split_data = config.get("split_data", True)

    sharding = property(lambda self: self._sharding)
    gradient_merge = property(lambda self: self._gradient_merge)
    pipeline = property(lambda self: self._pipeline)
    amp = property(lambda self: self._amp)
    fused_passes = property(lambda self: self._fused_passes)
    recompute = property(lambda self: self._recompute)

    def __repr__(self):
        return "Strategy(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in self._categories) + ")"


class DistModel:
    """A layer with its loss and optimizer run as one step per call (what to_static returns).
    Paddle compiles it into a static distributed program; oar runs the same computation eagerly.
    Set the mode with train() / eval() / predict(), then call it on a batch:

    - train: ``loss = dist_model(*inputs, label)`` runs forward, the loss, backward and the
      optimizer step (the gradients averaged over the data-parallel ranks; gradient_merge
      applies the step every k_steps calls), and returns the loss;
    - eval: the loss, without gradients;
    - predict: the layer's outputs for ``dist_model(*inputs)``.

    The returned loss is averaged over the ranks that read different data (the loader's shard
    dimension), as Paddle's global loss is.

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> net = oar.nn.Linear(4, 1)
        >>> opt = oar.optimizer.SGD(0.1, parameters=net.parameters())
        >>> model = dist.to_static(net, None, oar.nn.MSELoss(), opt)
        >>> model.train()
        >>> loss = model(oar.ones([2, 4]), oar.zeros([2, 1]))
        >>> print(loss.shape, model._mode)
        [] train
    """

    def __init__(self, layer, loader=None, loss=None, optimizer=None, strategy=None, metrics=None, input_spec=None):
        if not isinstance(layer, Layer):
            raise TypeError(f"DistModel: layer must be an oar.nn.Layer, got {type(layer).__name__}")
        if strategy is not None and not isinstance(strategy, Strategy):
            raise TypeError(f"DistModel: strategy must be a dist.Strategy, got {type(strategy).__name__}")
        self._layer = layer
        self._loss = loss
        self._strategy = strategy or Strategy()
        self._metrics = metrics
        self._loader = loader
        self._data_mesh = None
        if isinstance(loader, ShardDataloader) and loader._dim is not None:
            self._data_mesh = (loader._mesh, loader._mesh._dim_index(loader._dim))
        opt = optimizer
        sh = self._strategy.sharding
        if opt is not None and not isinstance(opt, _ShardOptimizer):
            stage = None
            if sh.enable:
                mesh = get_mesh() or next((p.process_mesh for p in _all_params(opt) if is_dist_tensor(p)), None)
                if mesh is not None:
                    dim = self._data_mesh[1] if self._data_mesh else 0
                    stage = {1: ShardingStage1, 2: ShardingStage2, 3: ShardingStage3}[int(sh.stage)](dim, mesh)
            opt = _ShardOptimizer(opt, stage)
        self._optimizer = opt
        self._merge_count = 0
        self._scaler = None
        if self._strategy.amp.enable:
            from ...amp import GradScaler
            a = self._strategy.amp
            if a.dtype == "float16" and a.use_dynamic_loss_scaling:
                self._scaler = shard_scaler(GradScaler(init_loss_scaling=a.init_loss_scaling,
                                                       incr_ratio=a.incr_ratio, decr_ratio=a.decr_ratio,
                                                       incr_every_n_steps=a.incr_every_n_steps,
                                                       decr_every_n_nan_or_inf=a.decr_every_n_nan_or_inf))
        self._mode = None
        if loss is not None and optimizer is not None:
            self.train()
        elif loss is not None:
            self.eval()
        else:
            self.predict()

    def train(self):
        """Training mode: each call runs a training step."""
        if self._optimizer is None or self._loss is None:
            raise RuntimeError("DistModel.train: the model needs a loss and an optimizer to train (give them to "
                               "to_static)")
        self._mode = "train"
        self._layer.train()

    def eval(self):
        """Evaluation mode: each call returns the loss."""
        if self._loss is None:
            raise RuntimeError("DistModel.eval: the model needs a loss to evaluate (give it to to_static)")
        self._mode = "eval"
        self._layer.eval()

    def predict(self):
        """Prediction mode: each call returns the layer's outputs."""
        self._mode = "predict"
        self._layer.eval()

    def _amp_context(self):
        import contextlib
        a = self._strategy.amp
        if not a.enable:
            return contextlib.nullcontext()
        from ...amp import auto_cast
        return auto_cast(True, custom_white_list=a.custom_white_list or None,
                         custom_black_list=a.custom_black_list or None, level=a.level, dtype=a.dtype)

    def _global_loss(self, loss):
        if self._data_mesh is None:
            return loss
        g = comm.mesh_dim_group(self._data_mesh[0], self._data_mesh[1], required=False)
        if g is None:
            return loss
        value = _local(loss).detach().clone()
        collective.all_reduce(value, op=collective.ReduceOp.AVG, group=g[0])
        return value

    def __call__(self, *args):
        if self._mode is None:
            raise RuntimeError("DistModel: set the mode with train(), eval() or predict() first")
        if self._mode == "predict":
            with no_grad():
                return self._layer(*args)
        if len(args) < 2:
            raise ValueError(f"DistModel: in {self._mode} mode call it with the inputs and the label, got "
                             f"{len(args)} argument(s)")
        inputs, label = args[:-1], args[-1]
        if self._mode == "eval":
            with no_grad(), self._amp_context():
                return self._global_loss(self._loss(self._layer(*inputs), label))
        with self._amp_context():
            loss = self._loss(self._layer(*inputs), label)
        gm = self._strategy.gradient_merge
        k = int(gm.k_steps) if gm.enable else 1
        scaled = loss / k if k > 1 and gm.avg else loss
        if self._scaler is not None:
            self._scaler.scale(scaled).backward()
        else:
            scaled.backward()
        self._merge_count += 1
        if self._merge_count % k == 0:
            if self._scaler is not None:
                self._scaler.step(self._optimizer)
                self._scaler.update()
            else:
                self._optimizer.step()
            self._optimizer.clear_grad()
        return self._global_loss(loss.detach())

    def state_dict(self, mode="all"):
        """The parameters ('param'), optimizer states ('opt') or both ('all')."""
        if mode not in ("all", "param", "opt"):
            raise ValueError(f"DistModel.state_dict: mode must be 'all', 'param' or 'opt', got {mode!r}")
        out = {}
        if mode in ("all", "param"):
            out.update(self._layer.state_dict())
        if mode in ("all", "opt") and self._optimizer is not None:
            out.update(self._optimizer.state_dict())
        return out

    def set_state_dict(self, state_dict):
        """Loads parameters (and optimizer states) by name."""
        params = self._layer.state_dict()
        self._layer.set_state_dict({k: v for k, v in state_dict.items() if k in params})
        rest = {k: v for k, v in state_dict.items() if k not in params}
        if rest and self._optimizer is not None:
            self._optimizer.set_state_dict(rest)

    def parameters(self):
        return self._layer.parameters()

    def dist_main_program(self, mode=None):
        raise NotImplementedError("DistModel.dist_main_program: oar runs DistModel eagerly; there is no static "
                                  "program")

    dist_startup_program = dist_main_program
    serial_main_program = dist_main_program


def to_static(layer, loader=None, loss=None, optimizer=None, strategy=None, input_spec=None):
    """A DistModel of the layer, its loss and optimizer (Paddle compiles it to a static
    distributed program; oar runs the same steps eagerly: see DistModel).

    Args:
        layer (Layer): The layer (its parameters distributed with shard_layer / shard_tensor, or not).
        loader (ShardDataloader|DataLoader, optional): The data. Default: None.
        loss (Layer|callable, optional): loss(outputs, label). Default: None.
        optimizer (Optimizer, optional): Default: None.
        strategy (Strategy, optional): Default: None.
        input_spec (list, optional): Kept for Paddle compatibility. Default: None.

    Returns:
        DistModel: In train mode with a loss and an optimizer, eval mode with a loss only, else
        predict mode.

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> net = oar.nn.Linear(2, 1)
        >>> model = dist.to_static(net)
        >>> print(model(oar.ones([3, 2])).shape)
        [3, 1]
    """
    return DistModel(layer, loader, loss, optimizer, strategy, input_spec=input_spec)
