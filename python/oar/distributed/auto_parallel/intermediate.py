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
           "SplitPoint", "ConvParallel", "ContextParallel", "PrepareContextParallel"]


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


class _SequencePlan(PlanBase):
    """A sequence-parallel plan with `need_transpose`: hooks that split a layer's output along
    the sequence over 'mp', or gather its input."""

    def __init__(self, need_transpose=True):
        self.need_transpose = bool(need_transpose)

    def _split_output(self, layer, process_mesh):
        d, t = _mp(process_mesh), self.need_transpose
        layer.register_forward_post_hook(lambda _, inputs, out: _seq_split(out, process_mesh, d, t))

    def _gather_input(self, layer, process_mesh, local):
        """The layer's first input tensor, gathered along the sequence (its local value with `local`)."""
        d, t = _mp(process_mesh), self.need_transpose

        def pre(_, inputs):
            x = _seq_gather(_first_tensor(inputs), process_mesh, d, t)
            return _replace_first(inputs, x._local_value() if local else x)
        layer.register_forward_pre_hook(pre)


class SequenceParallelBegin(_SequencePlan):
    """The layer's output ([batch, seq, hidden], transposed to [seq, batch, hidden] with
    `need_transpose`) is split along the sequence over mesh dimension 'mp' (Shard(0)).

    Args:
        need_transpose (bool, optional): Default: True.

    Examples:
        >>> import oar.distributed as dist
        >>> dist.SequenceParallelBegin().need_transpose
        True
    """

    def apply(self, layer, process_mesh, shard_param_list=None):
        self._split_output(layer, process_mesh)


class SequenceParallelEnd(_SequencePlan):
    """The layer's input, split along the sequence over 'mp', is gathered (and transposed back to
    [batch, seq, hidden] with `need_transpose`).

    Args:
        need_transpose (bool, optional): Default: True.

    Examples:
        >>> import oar.distributed as dist
        >>> dist.SequenceParallelEnd(need_transpose=False).need_transpose
        False
    """

    def apply(self, layer, process_mesh, shard_param_list=None):
        self._gather_input(layer, process_mesh, local=False)


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


class SequenceParallelDisable(_SequencePlan):
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

    def apply(self, layer, process_mesh, shard_param_list=None):
        self._gather_input(layer, process_mesh, local=True)
        self._split_output(layer, process_mesh)


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


def _conv_width_padding(layer):
    """The convolution's (height, width) zero padding when it is symmetric and given as numbers;
    None otherwise (string paddings, per-side paddings, padding modes: the layer stays dense)."""
    p = layer._padding
    if getattr(layer, "_padding_mode", "zeros") != "zeros" or isinstance(p, str):
        return None
    if isinstance(p, int):
        return [p, p]
    p = list(p)
    if len(p) == 2 and all(isinstance(v, int) for v in p):
        return p
    return None


class ConvParallel(PlanBase):
    """Splits a Conv2D's input along its width over mesh dimension 'mp' (Shard(3) for NCHW,
    Shard(2) for NHWC): each rank computes the output columns of its part of the width, reading
    the few input columns its kernel needs beyond its part (the halo) from its neighbours' parts;
    the output is width-sharded. As Paddle's, it applies only where that split is regular: width
    divisible by the 'mp' size, dilation 1, and either stride 1 with padding (kernel_w // 2 <=
    width) or no padding with stride == kernel width dividing the width; any other convolution
    runs as it is, on the whole input.

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> mesh = dist.ProcessMesh([0], dim_names=["mp"])
        >>> net = oar.nn.Sequential(oar.nn.Conv2D(2, 3, 3, padding=1))
        >>> x = oar.randn([1, 2, 4, 4])
        >>> dense = net(x)
        >>> net, _ = dist.parallelize(net, mesh=mesh, config={"mp_config": {"parallelize_plan": {"0": dist.ConvParallel()}}})
        >>> y = net(x)
        >>> print(y.placements, bool(oar.allclose(y, dense)))
        [Shard(dim=3)] True
    """

    def __init__(self):
        super().__init__()

    @staticmethod
    def _is_supported(input_size, kernel_size, stride, padding, dilation, data_format, mp_group_size):
        if data_format == "NCHW":
            w_in, w_k = 3, 3
        elif data_format == "NHWC":
            w_in, w_k = 2, 3
        else:
            return False
        if input_size[w_in] % mp_group_size != 0:
            return False
        if dilation[1] != 1:
            return False
        input_w, kernel_w, stride_w = input_size[w_in], kernel_size[w_k], stride[1]
        if padding[1] == 0:
            return input_w % stride_w == 0 and stride_w == kernel_w
        return stride_w == 1 and kernel_w // 2 <= input_w

    def apply(self, layer, process_mesh, shard_param_list=None):
        from ...nn import functional as F
        mesh = process_mesh
        d = _mp(mesh)
        fmt = layer._data_format
        if fmt not in ("NCHW", "NHWC"):
            raise ValueError(f"Unsupported data_format: {fmt}. Only NCHW and NHWC are supported.")
        w_axis = 3 if fmt == "NCHW" else 2
        k = mesh.shape[d]
        dense_forward = layer.forward

        def forward(x, *args, **kwargs):
            pad = _conv_width_padding(layer)
            gshape = list(x._global_shape) if is_dist_tensor(x) else list(x.shape)
            if pad is None or args or kwargs or len(gshape) != 4 or not ConvParallel._is_supported(
                    gshape, list(layer.weight.shape), layer._stride, pad, layer._dilation, fmt, k):
                return dense_forward(_gather_if_sharded(x, mesh, d) if is_dist_tensor(x) else x, *args, **kwargs)
            g = _mp_group(mesh)
            # The whole input width on every rank: gathered if it comes split, and the identity
            # whose backward sums the ranks' gradients (each rank reads a different window).
            full = _gather_if_sharded(x, mesh, d) if is_dist_tensor(x) else x
            if g is not None and not full.stop_gradient:
                full = comm.CopyToParallel.apply(full, g)
            ph, pw = pad
            kw, sw = layer.weight.shape[3], layer._stride[1]
            width = gshape[w_axis]
            out_w = (width + 2 * pw - (kw - 1) - 1) // sw + 1
            sizes = comm.split_sizes(out_w, k)
            i = g[1].index(_this_rank()) if g is not None else 0
            o0, o1 = sum(sizes[:i]), sum(sizes[:i + 1])
            if pw:
                amount = [pw, pw, 0, 0]   # [left, right, top, bottom]: the width
                full = F.pad(full, amount, mode="constant", value=0.0, data_format=fmt)
            index = [slice(None)] * 4
            index[w_axis] = slice(o0 * sw, (o1 - 1) * sw + kw)
            window = full[tuple(index)]
            # The weight (and bias) are replicated but each rank's output columns give only a part
            # of their gradient: an identity whose backward sums it over 'mp'.
            weight, bias = _local(layer.weight), _local(layer.bias) if layer.bias is not None else None
            if g is not None:
                weight = comm.CopyToParallel.apply(weight, g) if not weight.stop_gradient else weight
                if bias is not None and not bias.stop_gradient:
                    bias = comm.CopyToParallel.apply(bias, g)
            out = F.conv2d(window, weight, bias, stride=layer._stride, padding=[ph, 0], dilation=layer._dilation,
                           groups=layer._groups, data_format=fmt)
            global_shape = list(out.shape)
            global_shape[w_axis] = out_w
            return DistTensor(out, mesh, _placements(mesh, d, Shard(w_axis)), global_shape)

        layer.forward = forward


def _sep(mesh):
    if "sep" not in mesh.dim_names:
        raise ValueError(f"parallelize: a context-parallel plan needs a mesh dimension named 'sep', the mesh has "
                         f"{mesh.dim_names}")
    return mesh.dim_names.index("sep")


def _with_placement(x, mesh, d, placement):
    p = list(x.placements) if is_dist_tensor(x) else [Replicate()] * mesh.ndim
    p[d] = placement
    return p


class PrepareContextParallel(PlanBase):
    """Splits a model's token inputs ([batch, seq] distributed tensors) along the sequence over
    mesh dimension 'sep' before the layer runs. 'all2all': contiguous parts (seq divisible by the
    'sep' size). 'p2p' (ring attention): load-balanced parts: the sequence is cut into 2 x sep
    chunks and rank r holds chunks r and 2 x sep - 1 - r (inputs replicated on 'sep').

    Args:
        backend (str, optional): 'p2p' or 'all2all'. Default: 'p2p'.

    Examples:
        >>> import oar.distributed as dist
        >>> print(dist.PrepareContextParallel("all2all").backend)
        all2all
    """

    def __init__(self, backend="p2p"):
        super().__init__()
        self.backend = backend
        assert self.backend in ["p2p", "all2all"], f"backend must be 'p2p' or 'all2all', but got {self.backend}"

    def _split(self, mesh, x):
        from . import dtensor as _dt
        d = _sep(mesh)
        cp = mesh.shape[d]
        assert is_dist_tensor(x), "Input tensor must be a distributed tensor."
        assert len(x._global_shape) == 2, f"input_ids should be [batch_size, seq_len], but got {x._global_shape}"
        if self.backend == "all2all":
            seq = x._global_shape[1]
            assert seq % cp == 0, f"sequence length {seq} must be divisible by cp degree {cp}"
            return _dt.reshard(x, mesh, _with_placement(x, mesh, d, Shard(1)))
        assert isinstance(x.placements[d], Replicate), "Input tensor must be a replicated tensor in cp mesh."
        if cp > 1:
            local = x._local_value()
            chunks = _C.split(local, 2 * cp, 1)
            order = [c for r in range(cp) for c in (r, 2 * cp - 1 - r)]
            local = _C.concat([chunks[c] for c in order], 1)
            x = DistTensor(local, mesh, list(x.placements), x._global_shape)
        return _dt.reshard(x, mesh, _with_placement(x, mesh, d, Shard(1)))

    def apply(self, layer, process_mesh, shard_param_list=None):
        def pre(_, args):
            if isinstance(args, (list, tuple)):
                return tuple(self._split(process_mesh, a) for a in args)
            raise ValueError(f"Unsupported argument type: {type(args)}. Expected list of tensors or single tensor.")
        layer.register_forward_pre_hook(pre)


class ContextParallel(PlanBase):
    """Context parallelism for an attention layer whose inputs (query, key, value: [batch, seq,
    heads, dim] or [batch, seq, hidden]) come split along the sequence (Shard(1)) over mesh
    dimension 'sep'. 'all2all': the inputs are laid out by heads instead (Shard(2)), the layer
    attends over the whole sequence with this rank's heads, and its output goes back to the
    sequence split. 'p2p': the inputs stay split and the layer is called with ``backend='p2p'``
    (its attention must implement ring attention over 'sep').

    Args:
        backend (str, optional): 'p2p' or 'all2all'. Default: 'p2p'.

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> mesh = dist.ProcessMesh([0], dim_names=["sep"])
        >>> attn = oar.nn.Layer()
        >>> attn.forward = lambda q, k, v: oar.nn.functional.scaled_dot_product_attention(q, k, v)
        >>> dist.ContextParallel("all2all").apply(attn, mesh, None)
        >>> q = dist.shard_tensor(oar.randn([1, 4, 2, 8]), mesh, [dist.Shard(1)])
        >>> print(attn(q, q, q).placements)
        [Shard(dim=1)]
    """

    def __init__(self, backend="p2p"):
        super().__init__()
        self.backend = backend

    def apply(self, layer, process_mesh, shard_param_list=None):
        from . import dtensor as _dt
        mesh = process_mesh
        d = _sep(mesh)
        if self.backend == "all2all":
            def pre(_, args):
                out = []
                for a in args:
                    assert is_dist_tensor(a), f"arg {a} must be a distributed tensor."
                    assert len(a._global_shape) in (3, 4)
                    assert a.placements[d] == Shard(1), f"arg {a} must be sharded in sequence dimension."
                    out.append(_dt.reshard(a, mesh, _with_placement(a, mesh, d, Shard(2))))
                return tuple(out)

            def post(_, inputs, output):
                if not is_dist_tensor(output):   # the layer ran on the local (head-split) values
                    src = inputs[0] if inputs and is_dist_tensor(inputs[0]) else None
                    p = list(src.placements) if src is not None else [Replicate()] * mesh.ndim
                    p[d] = Shard(2)
                    output = dtensor_from_local(output, mesh, p)
                assert len(output._global_shape) in (3, 4)
                assert output.placements[d] == Shard(2), f"output {output} must be Shard(2) in sequence dimension."
                return _dt.reshard(output, mesh, _with_placement(output, mesh, d, Shard(1)))
            layer.register_forward_pre_hook(pre)
            layer.register_forward_post_hook(post)
        elif self.backend == "p2p":
            forward = layer.forward

            def p2p_forward(*args, **kwargs):
                for a in args:
                    assert is_dist_tensor(a), "Input tensor must be a distributed tensor."
                    assert len(a._global_shape) in (3, 4)
                    assert a.placements[d] == Shard(1), f"arg {a} must be Shard(1) in sequence dimension."
                kwargs["backend"] = "p2p"
                return forward(*args, **kwargs)
            layer.forward = p2p_forward
        else:
            import logging
            logging.getLogger("oar.distributed").warning(
                f"{self.backend} is not supported backend for context parallel")


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
    mp = config.get("mp_config")
    cp = config.get("cp_config")
    if cp is not None:
        if not isinstance(cp, dict) or "parallelize_plan" not in cp:
            raise ValueError("parallelize: cp_config must be a dict with 'parallelize_plan'")
        if mp is not None:
            if not isinstance(mp, dict) or "parallelize_plan" not in mp:
                raise ValueError("parallelize: mp_config must be a dict with 'parallelize_plan'")
            mp["parallelize_plan"].update(cp["parallelize_plan"])   # as Paddle: the cp plans join the mp plans
        else:
            mp = cp
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
