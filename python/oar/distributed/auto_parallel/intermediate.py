"""parallelize and its plans (paddle.distributed.parallelize, ColWiseParallel, RowWiseParallel,
SequenceParallel*, PrepareLayerInput/Output, SplitPoint): Megatron-style tensor parallelism over
the mesh dimension 'mp', data parallelism / ZeRO over 'dp'.

A ColWiseParallel Linear holds the columns of its weight (and bias) of this rank; its input
passes through an identity whose backward sums the input gradient over 'mp', its output is the
rank's columns (Shard on the last axis; gathered with gather_output=True). A RowWiseParallel
Linear holds rows of its weight; it multiplies the rank's slice of the input's last axis, sums
the products over 'mp' (all-reduce) and adds the bias. A Col -> Row pair therefore communicates
once forward and once backward, and a run on several ranks computes what one rank computes."""
import enum
import re

from ... import _C
from ...nn import Layer
from . import comm
from .api import _ShardOptimizer, ShardingStage1, ShardingStage2, ShardingStage3
from .dtensor import DistTensor, dtensor_from_local, is_dist_tensor, shard_tensor
from .placement import Replicate, Shard
from .process_mesh import ProcessMesh, get_mesh, set_mesh

__all__ = ["parallelize", "ColWiseParallel", "RowWiseParallel", "SequenceParallelBegin", "SequenceParallelEnd",
           "SequenceParallelEnable", "SequenceParallelDisable", "PrepareLayerInput", "PrepareLayerOutput",
           "SplitPoint"]


class SplitPoint(enum.Enum):
    """Where a pipeline stage boundary lies relative to a layer (pp_config's split_spec).

    Examples:
        >>> import oar.distributed as dist
        >>> print(dist.SplitPoint.END.value)
        1
    """
    BEGINNING = 0
    END = 1


def _mp(mesh):
    if "mp" not in mesh.dim_names:
        raise ValueError(f"parallelize: a tensor-parallel plan needs a mesh dimension named 'mp', the mesh has "
                         f"{mesh.dim_names}")
    return mesh.dim_names.index("mp")


def _placements(mesh, dim, placement):
    p = [Replicate()] * mesh.ndim
    p[dim] = placement
    return p


def _first_tensor(inputs):
    return inputs[0] if isinstance(inputs, (list, tuple)) else inputs


def _replace_first(inputs, x):
    if isinstance(inputs, (list, tuple)):
        return (x,) + tuple(inputs[1:])
    return x


def _local(x):
    return x._local_value() if is_dist_tensor(x) else x


def _mp_group(mesh):
    return comm.mesh_dim_group(mesh, _mp(mesh), required=False)


def _gather_if_sharded(x, mesh, d):
    """x replicated along mesh dimension d (gathering a Shard along it)."""
    if is_dist_tensor(x) and isinstance(x.placements[d], Shard):
        g = comm.mesh_dim_group(mesh, d, required=False)
        a = x.placements[d].get_dim()
        n = x._global_shape[a]
        local = x._local_value()
        if g is not None:
            local = comm.AllGather.apply(local, a, g, comm.split_sizes(n, mesh.shape[d]))
        return local
    return _local(x)


def _shard_param(layer, name, mesh, placement):
    p = getattr(layer, name, None)
    if p is None:
        return
    if is_dist_tensor(p):
        return
    setattr(layer, name, shard_tensor(p, mesh, placement))


class PlanBase:
    """A tensor-parallel plan for one layer (apply(layer, mesh, shard_param_list))."""

    def apply(self, layer, process_mesh, shard_param_list=None):
        raise NotImplementedError


def _is_embedding(layer):
    from ...nn import Embedding
    return isinstance(layer, Embedding)


class ColWiseParallel(PlanBase):
    """Splits a Linear's (or Embedding's) weight by columns over mesh dimension 'mp' (Shard(1);
    the Linear bias Shard(0)); the output holds this rank's columns, or all of them with
    `gather_output`.

    Args:
        gather_output (bool, optional): All-gather the output's last axis. Default: False.

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> mesh = dist.ProcessMesh([0], dim_names=["mp"])
        >>> net = oar.nn.Sequential(oar.nn.Linear(4, 8), oar.nn.Linear(8, 2))
        >>> plan = {"0": dist.ColWiseParallel(), "1": dist.RowWiseParallel()}
        >>> net, _ = dist.parallelize(net, mesh=mesh, config={"mp_config": {"parallelize_plan": plan}})
        >>> print(net[0].weight.placements, net[1].weight.placements, net(oar.ones([3, 4])).shape)
        [Shard(dim=1)] [Shard(dim=0)] [3, 2]
    """

    def __init__(self, gather_output=False):
        self.gather_output = bool(gather_output)

    def apply(self, layer, process_mesh, shard_param_list=None):
        mesh = process_mesh
        d = _mp(mesh)
        names = shard_param_list or ["weight", "bias"]
        for name in names:
            p = getattr(layer, name, None)
            if p is None:
                continue
            axis = p.ndim - 1 if name != "bias" else 0
            _shard_param(layer, name, mesh, _placements(mesh, d, Shard(axis)))
        embedding = _is_embedding(layer)
        gather = self.gather_output

        def pre(_, inputs):
            x = _gather_if_sharded(_first_tensor(inputs), mesh, d)
            g = _mp_group(mesh)
            if g is not None and not embedding and not x.stop_gradient:
                x = comm.CopyToParallel.apply(x, g)
            return _replace_first(inputs, x)

        def post(_, inputs, out):
            g = _mp_group(mesh)
            local = _local(out)
            if gather:
                if g is not None:
                    n = local.shape[-1] * mesh.shape[d]
                    local = comm.AllGather.apply(local, local.ndim - 1, g, comm.split_sizes(n, mesh.shape[d]))
                return dtensor_from_local(local, mesh, [Replicate()] * mesh.ndim)
            return dtensor_from_local(local, mesh, _placements(mesh, d, Shard(local.ndim - 1)))

        layer.register_forward_pre_hook(pre)
        layer.register_forward_post_hook(post)


class RowWiseParallel(PlanBase):
    """Splits a Linear's weight by rows over mesh dimension 'mp' (Shard(0); the bias replicated):
    each rank multiplies its slice of the input's last axis, the products are summed over 'mp',
    then the bias is added. An Embedding's rows are its vocabulary: each rank looks up the ids
    in its range. `is_input_parallel` says the input already holds this rank's slice (the output
    of a ColWiseParallel layer); otherwise the whole input is sliced.

    Args:
        is_input_parallel (bool, optional): Default: True.

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> mesh = dist.ProcessMesh([0], dim_names=["mp"])
        >>> net = oar.nn.Sequential(oar.nn.Linear(4, 2))
        >>> plan = {"0": dist.RowWiseParallel(is_input_parallel=False)}
        >>> net, _ = dist.parallelize(net, mesh=mesh, config={"mp_config": {"parallelize_plan": plan}})
        >>> print(net(oar.ones([3, 4])).shape)
        [3, 2]
    """

    def __init__(self, is_input_parallel=True):
        self.is_input_parallel = bool(is_input_parallel)

    def apply(self, layer, process_mesh, shard_param_list=None):
        from ...nn import functional as F
        mesh = process_mesh
        d = _mp(mesh)
        names = shard_param_list or ["weight"]
        for name in names:
            if name != "bias":
                _shard_param(layer, name, mesh, _placements(mesh, d, Shard(0)))
        if getattr(layer, "bias", None) is not None and not is_dist_tensor(layer.bias):
            layer.bias = shard_tensor(layer.bias, mesh, [Replicate()] * mesh.ndim)
        input_parallel = self.is_input_parallel
        k = mesh.shape[d]

        if _is_embedding(layer):
            vocab = layer.weight._global_shape[0]

            def forward(ids, *args, **kwargs):
                g = _mp_group(mesh)
                ids = _local(ids)
                w = layer.weight
                if g is None:
                    return F.embedding(ids, w, padding_idx=getattr(layer, "_padding_idx", None))
                i = g[1].index(_this_rank())
                sizes = comm.split_sizes(vocab, k)
                start, size = sum(sizes[:i]), sizes[i]
                inside = (ids >= start) & (ids < start + size)
                local_ids = _C.where(inside, ids - start, _C.zeros_like(ids))
                out = F.embedding(local_ids, w) * inside.astype(w.dtype).unsqueeze(-1)
                out = comm.AllReduce.apply(out, 0, g)
                return dtensor_from_local(out, mesh, [Replicate()] * mesh.ndim)
        else:
            def forward(x, *args, **kwargs):
                g = _mp_group(mesh)
                if is_dist_tensor(x) and isinstance(x.placements[d], Shard) and \
                        x.placements[d].get_dim() == len(x._global_shape) - 1:
                    x = x._local_value()
                elif not input_parallel or is_dist_tensor(x):
                    x = _gather_if_sharded(x, mesh, d) if is_dist_tensor(x) else x
                    if g is not None:
                        n = x.shape[-1]
                        x = comm.Split.apply(x, x.ndim - 1, g, comm.split_sizes(n, k))
                out = _C.matmul(_local(x), layer.weight)
                if g is not None:
                    out = comm.AllReduce.apply(out, 0, g)
                if layer.bias is not None:
                    out = out + layer.bias
                return dtensor_from_local(out, mesh, [Replicate()] * mesh.ndim)

        layer.forward = forward


def _this_rank():
    from .. import collective
    return collective.get_rank() if collective.is_initialized() else 0


def _seq_split(x, mesh, d, transpose):
    x = _local(x)
    if transpose:
        x = x.transpose([1, 0] + list(range(2, x.ndim)))
    g = comm.mesh_dim_group(mesh, d, required=False)
    n = x.shape[0]
    if g is not None:
        x = comm.Split.apply(x, 0, g, comm.split_sizes(n, mesh.shape[d]))
    out = DistTensor(x, mesh, _placements(mesh, d, Shard(0)), [n] + list(x.shape[1:]))
    return out


def _seq_gather(x, mesh, d, transpose):
    if is_dist_tensor(x):
        x = _gather_if_sharded(x, mesh, d)
    if transpose:
        x = x.transpose([1, 0] + list(range(2, x.ndim)))
    return dtensor_from_local(x, mesh, [Replicate()] * mesh.ndim)


class SequenceParallelBegin(PlanBase):
    """The layer's output ([batch, seq, hidden], transposed to [seq, batch, hidden] with
    `need_transpose`) is split along the sequence over mesh dimension 'mp' (Shard(0)).

    Args:
        need_transpose (bool, optional): Default: True.

    Examples:
        >>> import oar.distributed as dist
        >>> dist.SequenceParallelBegin().need_transpose
        True
    """

    def __init__(self, need_transpose=True):
        self.need_transpose = bool(need_transpose)

    def apply(self, layer, process_mesh, shard_param_list=None):
        d = _mp(process_mesh)
        t = self.need_transpose
        layer.register_forward_post_hook(lambda _, inputs, out: _seq_split(out, process_mesh, d, t))


class SequenceParallelEnd(PlanBase):
    """The layer's input, split along the sequence over 'mp', is gathered (and transposed back to
    [batch, seq, hidden] with `need_transpose`).

    Args:
        need_transpose (bool, optional): Default: True.

    Examples:
        >>> import oar.distributed as dist
        >>> dist.SequenceParallelEnd(need_transpose=False).need_transpose
        False
    """

    def __init__(self, need_transpose=True):
        self.need_transpose = bool(need_transpose)

    def apply(self, layer, process_mesh, shard_param_list=None):
        d = _mp(process_mesh)
        t = self.need_transpose

        def pre(_, inputs):
            return _replace_first(inputs, _seq_gather(_first_tensor(inputs), process_mesh, d, t))
        layer.register_forward_pre_hook(pre)


def _sum_grads_over_mp(layer, mesh, d):
    """The layer's replicated parameters see a part of the sequence on each rank: their gradients
    are summed over 'mp' as they are computed."""
    from .. import collective
    for p in layer.parameters(include_sublayers=False):
        if p.stop_gradient:
            continue

        def hook(grad):
            g = comm.mesh_dim_group(mesh, d, required=False)
            if g is None:
                return grad
            out = grad.clone()
            collective.all_reduce(out, group=g[0])
            return out
        p.register_hook(hook)


class SequenceParallelEnable(PlanBase):
    """The layer (a norm, a dropout, ...) runs on the rank's part of the sequence (its input split
    along axis 0 over 'mp' if it is not yet); its parameters' gradients are summed over 'mp'.

    Examples:
        >>> import oar.distributed as dist
        >>> type(dist.SequenceParallelEnable()).__name__
        'SequenceParallelEnable'
    """

    def apply(self, layer, process_mesh, shard_param_list=None):
        mesh = process_mesh
        d = _mp(mesh)

        def pre(_, inputs):
            x = _first_tensor(inputs)
            if not (is_dist_tensor(x) and x.placements[d] == Shard(0)):
                x = _seq_split(x, mesh, d, False)
            return _replace_first(inputs, x._local_value())

        def post(_, inputs, out):
            local = _local(out)
            n = local.shape[0] * mesh.shape[d]
            return DistTensor(local, mesh, _placements(mesh, d, Shard(0)), [n] + list(local.shape[1:]))

        layer.register_forward_pre_hook(pre)
        layer.register_forward_post_hook(post)
        _sum_grads_over_mp(layer, mesh, d)


class SequenceParallelDisable(PlanBase):
    """The layer runs on the whole sequence inside a sequence-parallel region: its input is
    gathered along the sequence (and transposed to [batch, seq, ...] with `need_transpose`), its
    output transposed back and split again.

    Args:
        need_transpose (bool, optional): Default: True.

    Examples:
        >>> import oar.distributed as dist
        >>> dist.SequenceParallelDisable().need_transpose
        True
    """

    def __init__(self, need_transpose=True):
        self.need_transpose = bool(need_transpose)

    def apply(self, layer, process_mesh, shard_param_list=None):
        d = _mp(process_mesh)
        t = self.need_transpose

        def pre(_, inputs):
            return _replace_first(inputs, _seq_gather(_first_tensor(inputs), process_mesh, d, t)._local_value())

        layer.register_forward_pre_hook(pre)
        layer.register_forward_post_hook(lambda _, inputs, out: _seq_split(out, process_mesh, d, t))


class PrepareLayerInput(PlanBase):
    """Adds a forward pre-hook ``fn(process_mesh)`` (which returns hook(layer, inputs) -> inputs).

    Args:
        fn (callable): Default: None.

    Examples:
        >>> import oar.distributed as dist
        >>> plan = dist.PrepareLayerInput(lambda mesh: (lambda layer, inputs: inputs))
        >>> type(plan).__name__
        'PrepareLayerInput'
    """

    def __init__(self, fn=None):
        if fn is None or not callable(fn):
            raise TypeError(f"PrepareLayerInput: fn must be callable, got {fn!r}")
        self.fn = fn

    def apply(self, layer, process_mesh, shard_param_list=None):
        layer.register_forward_pre_hook(self.fn(process_mesh=process_mesh))


class PrepareLayerOutput(PlanBase):
    """Adds a forward post-hook ``fn(process_mesh)`` (which returns hook(layer, inputs, outputs)
    -> outputs).

    Args:
        fn (callable): Default: None.

    Examples:
        >>> import oar.distributed as dist
        >>> plan = dist.PrepareLayerOutput(lambda mesh: (lambda layer, inputs, outputs: outputs))
        >>> type(plan).__name__
        'PrepareLayerOutput'
    """

    def __init__(self, fn=None):
        if fn is None or not callable(fn):
            raise TypeError(f"PrepareLayerOutput: fn must be callable, got {fn!r}")
        self.fn = fn

    def apply(self, layer, process_mesh, shard_param_list=None):
        layer.register_forward_post_hook(self.fn(process_mesh=process_mesh))


def _match(plan_key, layer, name):
    attr = plan_key.split(".")[-1]
    params = []
    key = plan_key
    if "." in plan_key and attr in getattr(layer, "_parameters", {}):
        key = plan_key[:-(len(attr) + 1)]
        params = [attr]
    m = re.match(key, name)
    if key == name or (m is not None and m.end() - m.start() == len(name)):
        return params
    return None


def parallelize(model, optimizer=None, mesh=None, config=None):
    """Parallelizes a model (and its optimizer) on a mesh by a config:

    - ``mp_config = {"parallelize_plan": {layer name (a regular expression) or "layer.param":
      plan or [plans]}}``: tensor parallelism over mesh dimension 'mp' (ColWiseParallel,
      RowWiseParallel, SequenceParallel*, PrepareLayerInput/Output);
    - ``dp_config = {"sharding_level": 0|1|2|3}``: gradients averaged over mesh dimension 'dp',
      and from level 1 the optimizer states split over it (ZeRO; see ShardingStage1/2/3);
    - ``pp_config``: pipeline parallelism, accepted only when the mesh's 'pp' dimension has one
      rank (oar has no pipeline schedule: NotImplementedError otherwise).

    Parameters that no plan touches become replicated on the mesh; the optimizer is wrapped by
    shard_optimizer. Without a config the model and optimizer come back as they are.

    Args:
        model (Layer): The model.
        optimizer (Optimizer, optional): Default: None.
        mesh (ProcessMesh, optional): Default: None (get_mesh(); given, it becomes the default mesh).
        config (dict, optional): Default: None.

    Returns:
        tuple: (model, optimizer).

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> mesh = dist.ProcessMesh([[0]], dim_names=["dp", "mp"])
        >>> net = oar.nn.Sequential(oar.nn.Linear(4, 8), oar.nn.ReLU(), oar.nn.Linear(8, 2))
        >>> opt = oar.optimizer.SGD(0.1, parameters=net.parameters())
        >>> config = {"dp_config": {"sharding_level": 1},
        ...           "mp_config": {"parallelize_plan": {"0": dist.ColWiseParallel(), "2": dist.RowWiseParallel()}}}
        >>> net, opt = dist.parallelize(net, opt, mesh, config)
        >>> net(oar.ones([2, 4])).mean().backward()
        >>> opt.step(); opt.clear_grad()
    """
    if not isinstance(model, Layer):
        raise TypeError(f"parallelize: model must be an oar.nn.Layer, got {type(model).__name__}")
    if config is None:
        return model, optimizer
    if not isinstance(config, dict):
        raise TypeError(f"parallelize: config must be a dict, got {type(config).__name__}")
    unknown = set(config) - {"dp_config", "mp_config", "pp_config", "cp_config"}
    if unknown:
        raise ValueError(f"parallelize: unknown config keys {sorted(unknown)} (dp_config, mp_config, pp_config, "
                         "cp_config)")
    if mesh is not None:
        if not isinstance(mesh, ProcessMesh):
            raise TypeError(f"parallelize: mesh must be a ProcessMesh, got {type(mesh).__name__}")
        set_mesh(mesh)
    mesh = get_mesh()
    if mesh is None:
        raise ValueError("parallelize: give a mesh (or set one with dist.set_mesh)")
    pp = config.get("pp_config")
    if pp is not None and "pp" in mesh.dim_names and mesh.get_dim_size("pp") > 1:
        raise NotImplementedError("parallelize: pipeline parallelism (pp_config over a 'pp' mesh dimension of "
                                  "several ranks) is not implemented in oar")
    if config.get("cp_config") is not None:
        raise NotImplementedError("parallelize: context parallelism (cp_config) is not implemented in oar")
    mp = config.get("mp_config")
    if mp is not None:
        if not isinstance(mp, dict) or "parallelize_plan" not in mp:
            raise ValueError("parallelize: mp_config must be a dict with 'parallelize_plan'")
        plan = mp["parallelize_plan"]
        for key, value in plan.items():
            for p in (value if isinstance(value, (list, tuple)) else [value]):
                if not isinstance(p, PlanBase):
                    raise TypeError(f"parallelize: the plan of {key!r} must be a parallel plan (ColWiseParallel, ...), "
                                    f"got {type(p).__name__}")
        for name, layer in model.named_sublayers():
            for key, value in plan.items():
                params = _match(key, layer, name)
                if params is None:
                    continue
                for p in (value if isinstance(value, (list, tuple)) else [value]):
                    p.apply(layer, mesh, params)
    for _, layer in model.named_sublayers(include_self=True):
        from .api import _replicate_params
        _replicate_params(layer, mesh)
    dp = config.get("dp_config")
    if optimizer is not None and not isinstance(optimizer, _ShardOptimizer):
        stage = None
        if dp is not None:
            level = int(dp.get("sharding_level", 0))
            if level not in (0, 1, 2, 3):
                raise ValueError(f"parallelize: dp_config's sharding_level must be 0, 1, 2 or 3, got {level}")
            if "dp" not in mesh.dim_names:
                raise ValueError(f"parallelize: dp_config needs a mesh dimension named 'dp', the mesh has "
                                 f"{mesh.dim_names}")
            if level:
                stage = {1: ShardingStage1, 2: ShardingStage2, 3: ShardingStage3}[level]("dp", mesh)
        # The optimizer must see the distributed parameters (the plans replaced the layers' ones).
        _repoint_optimizer(optimizer, model)
        optimizer = _ShardOptimizer(optimizer, stage)
    return model, optimizer


def _repoint_optimizer(optimizer, model):
    """Points the optimizer at the model's current parameters (same names) after the plans
    replaced them by distributed ones."""
    by_name = {p.name: p for p in model.parameters()}

    def fix(ps):
        return [by_name.get(getattr(p, "name", None), p) for p in ps]
    if getattr(optimizer, "_grouped", False):
        for grp in optimizer._param_groups:
            grp["params"] = fix(grp["params"])
    else:
        optimizer._param_groups = fix(optimizer._param_groups)
        optimizer._parameter_list = optimizer._param_groups
