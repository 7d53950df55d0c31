"""paddle.distributed.sharding: ZeRO-style sharded data parallelism over a process group.

``group_sharded_parallel(model, optimizer, level)`` with Paddle's three levels:

- ``'os'`` (ZeRO-1): every rank keeps the whole model and whole gradients; the parameters are
  partitioned between the ranks (greedily by size, in parameter order) and each rank's optimizer
  holds the state of its own partition only. After backward the gradients are all-reduced
  (averaged); ``step()`` updates the rank's partition, then every parameter is broadcast from its
  owner.
- ``'os_g'`` (ZeRO-2): as 'os', but after backward each gradient is reduced to its owner only;
  the other ranks drop theirs (``.grad`` is None), so a rank holds the gradients of its partition.
- ``'p_g_os'`` (ZeRO-3): the parameters too: each trainable parameter larger than
  ``segment_size`` elements is flattened, padded to a multiple of the group size and cut into
  equal shards; a rank keeps only its shard (the layer's parameter *is* the shard outside
  forward). A forward pre-hook on each layer all-gathers its parameters just before its forward
  and the post-hook puts the shards back; the gathered tensor's backward reduce-scatters its
  gradient, so each rank receives the averaged gradient of its own shard. The optimizer updates
  the shards (its state is 1/N too). Smaller parameters, and those of ``exclude_layer``, stay
  whole on every rank, their gradients all-reduced.

All communication is on ``group`` (default: every rank) with the collectives of
oar.distributed (Gloo on the host)."""
import contextlib
import os

import numpy as np

from ... import _C
from ...autograd import PyLayer, no_grad
from ...framework.parameter import Parameter
from ...nn.layer.layers import Layer
from .. import collective

__all__ = ["group_sharded_parallel", "save_group_sharded_model"]

_LEVELS = ("os", "os_g", "p_g_os")


def _group_info(group):
    g = collective._group(group)
    if not g.is_member():
        raise ValueError("group_sharded_parallel: this rank is not a member of the sharding group "
                         f"(ranks {g.ranks})")
    return g


def _trainable(params):
    return [p for p in params if not p.stop_gradient]


def _partition(params, nranks):
    """{id(p): owner group rank}: each parameter to the rank holding the fewest elements so far
    (Paddle's greedy partition), in parameter order."""
    sizes = [0] * nranks
    owner = {}
    for p in params:
        r = min(range(nranks), key=lambda k: sizes[k])
        owner[id(p)] = r
        sizes[r] += p.numel()
    return owner


def _flat(tensors):
    return _C.concat([_C.reshape(t, [-1]) for t in tensors], 0)


@no_grad()
def _broadcast_from_rank0(layer, group):
    g = collective._group(group)
    if g.nranks > 1:
        for t in list(layer.parameters()) + [b for b in layer.buffers() if b is not None]:
            collective.broadcast(t, src=g.ranks[0], group=group)


@no_grad()
def _broadcast_owned(params, owner, group):
    """Every parameter from its owner, coalesced: one broadcast per (owner, dtype)."""
    g = collective._group(group)
    by_owner = {}
    for p in params:
        by_owner.setdefault((owner[id(p)], p.dtype), []).append(p)
    for (r, _), ps in by_owner.items():
        flat = _flat(ps)
        collective.broadcast(flat, src=g.ranks[r], group=group)
        if r != g.rank:
            offset = 0
            for p in ps:
                n = p.numel()
                p.copy_(_C.reshape(flat[offset:offset + n], p.shape), False)
                offset += n


class _GradSync:
    """Synchronises the gradients of `params` at the end of every backward pass (an autograd
    end-of-backward callback queued by the first gradient hook of the pass): all-reduced to the
    average on every rank (owner=None), or reduced to each parameter's owner, the others dropping
    theirs (owner={id(p): group rank}). Only this pass's contribution is communicated, so
    gradients accumulated over several backward passes stay right."""

    def __init__(self, params, group, owner=None):
        self.params = list(params)
        self.group = group
        self.owner = owner
        self.enabled = True
        self._pass = None
        g = collective._group(group)
        self._world, self._rank, self._ranks = g.nranks, g.rank, g.ranks
        for p in self.params:
            p.register_hook(self._hook_for(p))

    def _hook_for(self, p):
        def hook(grad):
            if self.enabled and self._world > 1:
                state = self._pass
                if state is None:
                    state = self._pass = {"local": {}, "fresh": {}}
                    _C._queue_backward_callback(self._finish)
                local = state["local"]
                if id(p) not in local:
                    state["fresh"][id(p)] = p.grad is None
                    local[id(p)] = grad
                else:
                    local[id(p)] = local[id(p)] + grad
            return grad
        return hook

    @no_grad()
    def _finish(self):
        state, self._pass = self._pass, None
        local, fresh = state["local"], state["fresh"]
        groups = {}
        for p in self.params:
            key = (self.owner[id(p)] if self.owner is not None else -1, p.dtype)
            groups.setdefault(key, []).append(p)
        tasks = []
        for (r, _), ps in groups.items():
            flat = _flat([local[id(p)] if id(p) in local else _C.zeros_like(p) for p in ps])
            if r < 0:
                task = collective.all_reduce(flat, group=self.group, sync_op=False)
            else:
                task = collective.reduce(flat, dst=self._ranks[r], group=self.group, sync_op=False)
            tasks.append((r, ps, flat, task))
        scale = 1.0 / self._world
        for r, ps, flat, task in tasks:
            task.wait()
            offset = 0
            for p in ps:
                n = p.numel()
                part = flat[offset:offset + n]
                offset += n
                if r >= 0 and r != self._rank:
                    p.clear_grad(False)  # ZeRO-2: only the owner keeps this gradient
                    continue
                avg = _C.scale(_C.reshape(part, p.shape), scale, 0.0, True)
                if p.grad is None or fresh.get(id(p), True):
                    p.grad = avg
                else:  # earlier passes' (already synchronised) gradient plus this pass's average
                    p.grad = p.grad - local[id(p)] + avg


class _FixedScaleClip:
    """Stands in for a ClipGradByGlobalNorm during a sharded step: the scale was computed from the
    norm over every rank's partition."""

    def __init__(self, scale):
        self.scale = scale

    def _grad_scales(self, pairs):
        return [self.scale if getattr(p, "need_clip", True) else None for p, _ in pairs]


@contextlib.contextmanager
def _global_norm_clip(optim, counted, group):
    """If the optimizer clips by global norm, the norm of the gradients of `counted` (this rank's
    share, each gradient counted by one rank) summed over the group, applied during the step."""
    from ...nn.clip import ClipGradByGlobalNorm
    clip = optim._grad_clip
    if not isinstance(clip, ClipGradByGlobalNorm):
        yield
        return
    sq = 0.0
    for p in counted:
        if p.grad is not None and getattr(p, "need_clip", True):
            g = p.grad.astype("float64")
            sq += float((g * g).sum().item())
    total = _C.full([1], sq, "float64")
    collective.all_reduce(total, group=group)
    norm = float(np.sqrt(total.item()))
    scale = None if clip.auto_skip_clip and not norm > clip.clip_norm else clip.clip_norm / max(norm, clip.clip_norm)
    stand_in = _FixedScaleClip(scale)
    saved_groups = []
    optim._grad_clip = stand_in
    optim._default_dict["grad_clip"] = stand_in
    if optim._grouped:
        for grp in optim._param_groups:
            if grp.get("grad_clip") is clip:
                grp["grad_clip"] = stand_in
                saved_groups.append(grp)
    try:
        yield
    finally:
        optim._grad_clip = clip
        optim._default_dict["grad_clip"] = clip
        for grp in saved_groups:
            grp["grad_clip"] = clip


def _set_optimizer_params(optim, keep=None, replace=None):
    """Points the optimizer at a subset of its parameters (keep: ids) or at stand-ins
    (replace: {id(p): new})."""
    def fix(ps):
        out = []
        for p in ps:
            if replace is not None:
                out.append(replace.get(id(p), p))
            elif id(p) in keep:
                out.append(p)
        return out
    if optim._grouped:
        for grp in optim._param_groups:
            grp["params"] = fix(grp["params"])
    else:
        optim._param_groups = fix(optim._param_groups)
        optim._parameter_list = optim._param_groups


class _OptimizerWrapper:
    """Delegates what it does not define to the wrapped optimizer (`_optim`)."""

    def __getattr__(self, name):
        if name == "_optim":
            raise AttributeError(name)
        return getattr(self._optim, name)

    def state_dict(self):
        """This rank's optimizer state (its partition's)."""
        return self._optim.state_dict()

    def set_state_dict(self, state_dict):
        """Loads states by name: a full (single-process) state dict loads too, each rank taking
        the states of its own parameters."""
        return self._optim.set_state_dict(state_dict)

    set_dict = set_state_dict
    load_state_dict = set_state_dict

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        self.step()
        return [], []


class GroupShardedOptimizerStage2(_OptimizerWrapper):
    """The optimizer of levels 'os' and 'os_g' (and of fleet's sharding): the wrapped optimizer
    keeps only this rank's partition of the parameters (so only its states); ``step()`` updates
    that partition, then broadcasts every parameter from its owner. Clipping by global norm uses
    the norm over all partitions."""

    def __init__(self, params, optim, group=None, offload=False, dp_group=None, device="cpu", **kwargs):
        if offload:
            raise NotImplementedError("group_sharded_parallel: offload=True is not implemented in oar "
                                      "(the optimizer states already live in host memory)")
        if dp_group is not None:
            raise NotImplementedError("group_sharded_parallel: dp_group (sharding combined with an outer "
                                      "data-parallel group) is not implemented in oar")
        g = _group_info(group)
        self._optim = optim
        self._group = group
        self._all_params = _trainable(params)
        self._owner = _partition(self._all_params, g.nranks)
        self._rank = g.rank
        self._owned = [p for p in self._all_params if self._owner[id(p)] == g.rank]
        _set_optimizer_params(optim, keep={id(p) for p in self._owned})

    @property
    def _parameter_list(self):
        return list(self._all_params)

    @no_grad()
    def step(self):
        """Updates this rank's partition, then broadcasts each parameter from its owner."""
        with _global_norm_clip(self._optim, self._owned, self._group):
            self._optim.step()
        _broadcast_owned(self._all_params, self._owner, self._group)

    def clear_grad(self, set_to_zero=True):
        for p in self._all_params:
            p.clear_grad(set_to_zero)

    clear_gradients = clear_grad


class _ShardedModel(Layer):
    _group = None
    _sync_buffers = False  # sync_buffers=True: rank 0's buffers before every forward

    def __init__(self, layer):
        super().__init__()
        if not isinstance(layer, Layer):
            raise TypeError(f"group_sharded_parallel: model must be a Layer, but got {type(layer).__name__}")
        self._layer = layer

    def forward(self, *inputs, **kwargs):
        if self._sync_buffers:
            g = collective._group(self._group)
            with no_grad():
                for b in self._layer.buffers():
                    if b is not None:
                        collective.broadcast(b, src=g.ranks[0], group=self._group)
        return self._layer(*inputs, **kwargs)

    def state_dict(self, *args, **kwargs):
        return self._layer.state_dict(*args, **kwargs)

    def set_state_dict(self, state_dict, *args, **kwargs):
        return self._layer.set_state_dict(state_dict, *args, **kwargs)

    set_dict = set_state_dict
    load_dict = set_state_dict


class GroupShardedStage2(_ShardedModel):
    """The model of levels 'os' (gradients all-reduced: ZeRO-1) and 'os_g' (each gradient reduced
    to its owner, dropped elsewhere: ZeRO-2). Rank 0's parameters and buffers are broadcast at
    wrap time."""

    def __init__(self, layer, sharding_optimizer, group=None, sync_buffers=False, buffer_max_size=2 ** 23,
                 dp_group=None, device="cpu", reduce_to_owner=True, **kwargs):
        super().__init__(layer)
        _group_info(group)
        if dp_group is not None:
            raise NotImplementedError("group_sharded_parallel: dp_group is not implemented in oar")
        self._sharding_optimizers = [sharding_optimizer]
        self._group = group
        self._sync_buffers = sync_buffers
        _broadcast_from_rank0(layer, group)
        opt = sharding_optimizer
        self._grad_sync = _GradSync(opt._all_params, group, owner=opt._owner if reduce_to_owner else None)


class _GatherParam(PyLayer):
    """The whole parameter from every rank's shard; its gradient is reduce-scattered back to the
    shards (averaged over the ranks)."""

    @staticmethod
    def forward(ctx, shard, info):
        ctx.info = info
        return info.gather(shard)

    @staticmethod
    def backward(ctx, grad):
        return ctx.info.scatter_grad(grad)


class _ShardInfo:
    def __init__(self, layer, key, param, group, rank, world):
        self.layer, self.key, self.group = layer, key, group
        self.shape = list(param.shape)
        self.numel = param.numel()
        self.world, self.rank = world, rank
        self.size = -(-self.numel // world)  # elements per shard
        with no_grad():
            flat = _C.reshape(param, [-1])
            pad = self.size * world - self.numel
            if pad:
                flat = _C.concat([flat, _C.zeros([pad], param.dtype)], 0)
            value = flat[rank * self.size:(rank + 1) * self.size].clone()
        self.shard = Parameter(value, name=param.name, trainable=not param.stop_gradient,
                               learning_rate=param.optimize_attr.get("learning_rate", 1.0),
                               regularizer=param.regularizer, need_clip=param.need_clip)
        self.original_name = param.name

    @no_grad()
    def gather(self, shard):
        parts = []
        collective.all_gather(parts, shard.detach(), group=self.group)
        full = _C.concat(parts, 0)
        return _C.reshape(full[:self.numel], self.shape)

    @no_grad()
    def scatter_grad(self, grad):
        flat = _C.reshape(grad, [-1])
        pad = self.size * self.world - self.numel
        if pad:
            flat = _C.concat([flat, _C.zeros([pad], flat.dtype)], 0)
        chunks = [flat[k * self.size:(k + 1) * self.size].contiguous() for k in range(self.world)]
        out = _C.empty_like(chunks[0])
        collective.reduce_scatter(out, chunks, group=self.group)
        return _C.scale(out, 1.0 / self.world, 0.0, True)

    def full_parameter(self):
        """A whole, detached Parameter (a collective: every rank calls it)."""
        return Parameter(self.gather(self.shard), name=self.original_name, trainable=not self.shard.stop_gradient)

    def shard_of(self, value):
        """This rank's shard of a whole value (a numpy array or tensor of the full shape)."""
        arr = np.asarray(value.numpy() if isinstance(value, _C.Tensor) else value).reshape(-1)
        arr = np.concatenate([arr, np.zeros(self.size * self.world - self.numel, arr.dtype)])
        return arr[self.rank * self.size:(self.rank + 1) * self.size]


class GroupShardedStage3(_ShardedModel):
    """The model of level 'p_g_os' (ZeRO-3): see the module docstring. ``state_dict()`` is this
    rank's shards (a per-rank checkpoint); ``set_state_dict`` takes per-rank shards or whole
    parameters (each rank keeps its shard); ``get_all_parameters()`` (every rank calls it) puts
    whole parameters back into the layers until the next forward."""

    def __init__(self, layer, optimizer=None, group=None, sync_buffers=False, device="cpu", segment_size=2 ** 20,
                 pertrain_sync_models=True, offload=False, sync_comm=False, dp_group=None, exclude_layer=None,
                 **kwargs):
        super().__init__(layer)
        g = _group_info(group)
        if offload:
            raise NotImplementedError("group_sharded_parallel: offload=True is not implemented in oar")
        if dp_group is not None:
            raise NotImplementedError("group_sharded_parallel: dp_group is not implemented in oar")
        if isinstance(segment_size, bool) or not isinstance(segment_size, int) or segment_size < 0:
            raise ValueError(f"group_sharded_parallel: segment_size must be an integer >= 0, got {segment_size!r}")
        exclude = [] if exclude_layer is None else exclude_layer
        if not isinstance(exclude, (list, tuple)):
            raise TypeError("group_sharded_parallel: exclude_layer must be a list of layer class names or "
                            f"id(layer), got {type(exclude_layer).__name__}")
        self._group, self._sync_buffers, self._offload = group, sync_buffers, offload
        self._segment_size = segment_size
        world, rank = g.nranks, g.rank
        if pertrain_sync_models:
            _broadcast_from_rank0(layer, group)
        self._infos = []      # every sharded parameter
        self._by_layer = {}   # id(layer) -> [info]
        self._unsliced = []   # trainable parameters kept whole
        seen = set()
        originals = []  # the whole parameters, until the optimizer is re-pointed at the shards
        for _, sub in layer.named_sublayers(include_self=True):
            excluded = id(sub) in exclude or type(sub).__name__ in exclude
            for key, p in list(sub._parameters.items()):
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                if p.stop_gradient:
                    continue
                # Shards of at least two elements (a state of shape [1] is then never a shard).
                if excluded or world == 1 or p.numel() <= segment_size or p.numel() < 2 * world:
                    self._unsliced.append(p)
                    continue
                info = _ShardInfo(sub, key, p, group, rank, world)
                sub._parameters[key] = info.shard
                originals.append(p)
                self._infos.append(info)
                self._by_layer.setdefault(id(sub), []).append(info)
        for _, sub in layer.named_sublayers(include_self=True):
            if id(sub) in self._by_layer:
                sub.register_forward_pre_hook(self._pre_hook)
                sub.register_forward_post_hook(self._post_hook)
        self._grad_sync = _GradSync(self._unsliced, group) if self._unsliced and world > 1 else None
        self._optimizer = None
        if optimizer is not None:
            self._optimizer = _Stage3Optimizer(optimizer, self, originals)
        del originals

    def _pre_hook(self, sub, inputs):
        for info in self._by_layer[id(sub)]:
            if _C.is_grad_enabled() and not info.shard.stop_gradient:
                full = _GatherParam.apply(info.shard, info)
            else:
                full = info.gather(info.shard)
            sub._parameters[info.key] = full

    def _post_hook(self, sub, inputs, outputs):
        for info in self._by_layer[id(sub)]:
            sub._parameters[info.key] = info.shard  # the whole tensor lives on only in autograd

    def _structured(self):
        names = {}
        for lname, sub in self._layer.named_sublayers(include_self=True):
            for info in self._by_layer.get(id(sub), []):
                names[f"{lname}.{info.key}" if lname else info.key] = info
        return names

    def get_all_parameters(self, convert2cpu=False):
        """Puts every whole parameter back into its layer (a collective: every rank calls it); the
        next forward goes back to the shards (which stay the values the optimizer updates)."""
        for info in self._infos:
            info.layer._parameters[info.key] = info.full_parameter()

    def _full_state_dict(self):
        """The state dict with whole parameters (a collective)."""
        sd = self._layer.state_dict()
        for name, info in self._structured().items():
            sd[name] = info.gather(info.shard)
        return sd

    def set_state_dict(self, state_dict, *args, **kwargs):
        infos = self._structured()
        fixed = {}
        for k, v in state_dict.items():
            info = infos.get(k)
            if info is not None and list(getattr(v, "shape", [])) == info.shape and info.shape != [info.size]:
                v = info.shard_of(v)
            fixed[k] = v
        return self._layer.set_state_dict(fixed, *args, **kwargs)

    set_dict = set_state_dict
    load_dict = set_state_dict


class _Stage3Optimizer(_OptimizerWrapper):
    """The user's optimizer pointed at the shards (and the parameters kept whole); clipping by
    global norm uses the norm over all shards."""

    def __init__(self, optim, model, originals):
        self._optim, self._model = optim, model
        _set_optimizer_params(optim, replace={id(p): info.shard for info, p in zip(model._infos, originals)})
        self._params = [info.shard for info in model._infos] + list(model._unsliced)

    @property
    def _parameter_list(self):
        return list(self._params)

    @no_grad()
    def step(self):
        g = collective._group(self._model._group)
        counted = [info.shard for info in self._model._infos] + (list(self._model._unsliced) if g.rank == 0 else [])
        with _global_norm_clip(self._optim, counted, self._model._group):
            self._optim.step()

    def clear_grad(self, set_to_zero=True):
        for p in self._params:
            p.clear_grad(set_to_zero)

    clear_gradients = clear_grad

    def _full_state(self):
        """Every rank's states merged into the states of whole parameters (a collective); None
        on ranks other than the group's first. States loaded by set_state_dict that no step has
        claimed yet count too (a checkpoint loaded and saved again keeps them)."""
        by_name = {info.shard.name: info for info in self._model._infos}
        # {slot: (state name, parameter name, value)}; a slot names the same state on every rank.
        mine = {}
        for key, table in self._optim._accumulators.items():
            for pname, acc in table.items():
                mine[("live", key, pname)] = (acc.name, pname, acc.numpy())
        live_names = {name for name, _, _ in mine.values()}
        for name, value in self._optim._accumulators_holder.items():
            if name not in live_names:
                pname = next((p for p in by_name if name.startswith(p + "_")), None)
                mine[("held", name)] = (name, pname, value.numpy() if hasattr(value, "numpy") else np.asarray(value))
        gathered = []
        collective.all_gather_object(gathered, mine, group=self._model._group)
        out = {}
        for slot, (name, pname, value) in gathered[0].items():
            info = by_name.get(pname)
            if info is not None and list(value.shape) == [info.size]:
                parts = [r[slot][2] for r in gathered]
                value = np.concatenate(parts)[:info.numel].reshape(info.shape)
            out[name] = value
        sd = self._optim.state_dict()
        for k in ("master_weights", "LR_Scheduler"):
            if k in sd:
                out[k] = sd[k]
        return out

    def set_state_dict(self, state_dict):
        """Loads this rank's states or a whole (single-process) optimizer state dict: states of
        whole sharded parameters are cut to this rank's shard."""
        infos = {info.shard.name: info for info in self._model._infos}
        fixed = {}
        for k, v in state_dict.items():
            info = next((c for name, c in infos.items() if k.startswith(name + "_")), None)
            if info is not None and list(getattr(v, "shape", np.shape(v))) == info.shape and info.shape != [info.size]:
                v = info.shard_of(v)
            fixed[k] = v
        return self._optim.set_state_dict(fixed)

    set_dict = set_state_dict
    load_state_dict = set_state_dict


def group_sharded_parallel(model, optimizer, level, scaler=None, group=None, offload=False, sync_buffers=False,
                           buffer_max_size=2 ** 23, segment_size=2 ** 20, sync_comm=False, dp_group=None,
                           exclude_layer=None):
    """Shards the optimizer states ('os', ZeRO-1), plus the gradients ('os_g', ZeRO-2), plus the
    parameters ('p_g_os', ZeRO-3) of `model` across the ranks of `group`
    (paddle.distributed.sharding.group_sharded_parallel). Call it on every rank, after
    ``init_parallel_env()`` (or ``fleet.init``), with the optimizer built on ``model.parameters()``.

    Args:
        model (Layer): The model.
        optimizer (Optimizer): Its optimizer.
        level (str): 'os', 'os_g' or 'p_g_os'.
        scaler (GradScaler, optional): Returned as given. Default: None.
        group (Group, optional): The sharding group. Default: None (every rank).
        offload (bool, optional): Not implemented (must be False).
        sync_buffers (bool, optional): Broadcast rank 0's buffers before each forward. Default: False.
        buffer_max_size (int, optional): Accepted (gradients are reduced in one fused buffer per
            owner and dtype). Default: 2**23.
        segment_size (int, optional): 'p_g_os': parameters of at most this many elements stay
            whole on every rank. Default: 2**20.
        sync_comm (bool, optional): Accepted (communication is synchronous). Default: False.
        dp_group (Group, optional): Not implemented (must be None).
        exclude_layer (list, optional): 'p_g_os': layers (class names or ``id(layer)``) whose
            parameters stay whole. Default: None.

    Returns:
        tuple: (model, optimizer, scaler), the wrapped model and optimizer.
    """
    if not isinstance(model, Layer):
        raise TypeError(f"group_sharded_parallel: model must be a Layer, but got {type(model).__name__}")
    from ...optimizer.optimizer import Optimizer
    if not isinstance(optimizer, Optimizer):
        raise TypeError("group_sharded_parallel: optimizer must be an oar.optimizer.Optimizer, but got "
                        f"{type(optimizer).__name__}")
    if level not in _LEVELS:
        raise ValueError(f"group_sharded_parallel: level must be one of {list(_LEVELS)}, got {level!r}")
    if not collective.is_initialized():
        raise RuntimeError("group_sharded_parallel: call oar.distributed.init_parallel_env() (or fleet.init) first")
    mine = {id(p) for p in model.parameters()}
    if any(id(p) not in mine for p in optimizer._parameters_flat()):
        raise ValueError("group_sharded_parallel: the optimizer updates parameters that are not the model's; "
                         "build it on model.parameters()")
    if optimizer._accumulators:
        raise ValueError("group_sharded_parallel: the optimizer already has states (it has stepped); wrap "
                         "the model and optimizer before training, or load the states afterwards")
    if level in ("os", "os_g"):
        optimizer = GroupShardedOptimizerStage2(optimizer._parameters_flat(), optimizer, group=group,
                                                offload=offload, dp_group=dp_group)
        model = GroupShardedStage2(model, optimizer, group=group, sync_buffers=sync_buffers,
                                   buffer_max_size=buffer_max_size, dp_group=dp_group,
                                   reduce_to_owner=(level == "os_g"))
        model._level = level
    else:
        model = GroupShardedStage3(model, optimizer=optimizer, group=group, sync_buffers=sync_buffers,
                                   segment_size=segment_size, offload=offload, sync_comm=sync_comm,
                                   dp_group=dp_group, exclude_layer=exclude_layer)
        model._level = level
        optimizer = model._optimizer
    return model, optimizer, scaler


def _to_host(sd):
    out = {}
    for k, v in sd.items():
        out[k] = v.numpy() if isinstance(v, _C.Tensor) else v
    return out


def save_group_sharded_model(model, output, optimizer=None):
    """Saves a sharded model's whole state dict, and its optimizer's (all ranks' states merged),
    as a single process would have them: ``output/model.pdmodel`` and ``output/model.pdopt``,
    written by the group's first rank. Every rank calls it (ZeRO-3 gathers the parameters).
    Load them with ``oar.load`` into the plain model and optimizer (before wrapping again).

    Args:
        model (Layer): A model returned by group_sharded_parallel.
        output (str): The directory.
        optimizer (optional): The optimizer returned with it. Default: None (not saved).
    """
    from ...framework.io import save_together
    if os.path.isfile(output):
        raise ValueError(f"save_group_sharded_model: output ({output}) should be a directory, not a file")
    if not isinstance(model, (GroupShardedStage2, GroupShardedStage3)):
        raise ValueError("save_group_sharded_model: use the model returned by group_sharded_parallel")
    g = collective._group(model._group)
    first = g.rank == 0
    if isinstance(model, GroupShardedStage3):
        state = model._full_state_dict()
    else:
        state = model._layer.state_dict()
    opt_state = None
    if optimizer is not None:
        if isinstance(optimizer, _Stage3Optimizer):
            opt_state = optimizer._full_state()
        elif isinstance(optimizer, GroupShardedOptimizerStage2):
            gathered = []
            collective.all_gather_object(gathered, _to_host({k: v for k, v in optimizer._optim.state_dict().items()
                                                             if isinstance(v, _C.Tensor)}), group=model._group)
            opt_state = {}
            for part in gathered:
                opt_state.update(part)
            for k, v in optimizer._optim.state_dict().items():
                if not isinstance(v, _C.Tensor):
                    opt_state[k] = v
        else:
            raise ValueError("save_group_sharded_model: use the optimizer returned by group_sharded_parallel")
    if first:
        os.makedirs(output, exist_ok=True)
        files = [(state, os.path.join(output, "model.pdmodel"))]
        if opt_state is not None:
            files.append(({k: (_C._from_array(np.ascontiguousarray(v), True) if isinstance(v, np.ndarray) else v)
                           for k, v in opt_state.items()}, os.path.join(output, "model.pdopt")))
        save_together(files)  # a kill mid-save leaves the previous pair (bar the renames' instant)
    collective.barrier(model._group)
