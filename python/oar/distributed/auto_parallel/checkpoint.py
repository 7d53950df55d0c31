"""Distributed checkpoints (paddle.distributed.save_state_dict, load_state_dict,
load_merged_state_dict, and the flex-checkpoint ShardedWeight API).

A checkpoint is a directory: each rank writes ``<rank>_<id>.distcp`` (its shards: {key: array},
a pickle that oar's safe loader reads) and the coordinator writes ``<id>.metadata`` (per key:
the global shape, dtype and every saved chunk's global offset, shape and file). A chunk held by
several ranks (replicated) is written once, by the first of them. Every file is written
crash-safely (a temporary beside it, fsynced, renamed: oar.framework.atomic_files). Loading
reads, for each target tensor, the chunks that overlap this rank's part of it and copies the
overlap in: a checkpoint saved with some placements (or number of ranks) loads into others."""
import os
import pickle
import re

import numpy as np

from ... import _C
from ...framework import atomic_files, safe_pickle
from .. import collective
from .dtensor import _coordinate, is_dist_tensor, local_region, reshard
from .placement import Partial, Replicate, Shard

__all__ = ["save_state_dict", "load_state_dict", "load_merged_state_dict", "ShardedWeight", "ShardedStateDict",
           "shard_weight", "build_sharded_state_dict"]


class ShardedWeight:
    """One rank's piece of a weight: its local tensor, where it lies in the whole
    (`global_offset`, `local_shape`) and the whole's shape (flex checkpoint).

    Args:
        key (str): The weight's name in the checkpoint.
        local_tensor (Tensor): This rank's piece.
        local_shape (tuple[int]): Its shape.
        global_shape (tuple[int]): The whole weight's shape.
        global_offset (tuple[int]): Where the piece starts in the whole.
        is_flattened (bool, optional): Default: False.
        flattened_range (slice, optional): Default: None.

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> w = dist.ShardedWeight("w", oar.ones([2, 3]), (2, 3), (4, 3), (2, 0))
        >>> print(w.key, w.global_shape, w.global_offset)
        w (4, 3) (2, 0)
    """

    def __init__(self, key, local_tensor, local_shape, global_shape, global_offset, is_flattened=False,
                 flattened_range=None):
        if not isinstance(local_tensor, _C.Tensor):
            raise TypeError(f"ShardedWeight: local_tensor must be a Tensor, got {type(local_tensor).__name__}")
        self.key = key
        self.local_tensor = local_tensor
        self.local_shape = tuple(int(s) for s in local_shape)
        self.global_shape = tuple(int(s) for s in global_shape)
        self.global_offset = tuple(int(s) for s in global_offset)
        self.is_flattened = bool(is_flattened)
        self.flattened_range = flattened_range
        if not (len(self.local_shape) == len(self.global_shape) == len(self.global_offset)):
            raise ValueError(f"ShardedWeight {key!r}: local_shape, global_shape and global_offset must have one entry "
                             "per axis")
        for o, l, g in zip(self.global_offset, self.local_shape, self.global_shape):
            if o < 0 or o + l > g:
                raise ValueError(f"ShardedWeight {key!r}: the piece at offset {self.global_offset} of shape "
                                 f"{self.local_shape} does not fit in {self.global_shape}")

    def __repr__(self):
        return (f"ShardedWeight(key={self.key!r}, local_shape={self.local_shape}, global_shape={self.global_shape}, "
                f"global_offset={self.global_offset})")


class ShardedStateDict(dict):
    """A state dict of ShardedWeights ({key: ShardedWeight}); Paddle names the type so (a plain
    dict of ShardedWeights is one too, for save_state_dict and load_state_dict).

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> sd = dist.ShardedStateDict(w=dist.ShardedWeight("w", oar.ones([2]), (2,), (2,), (0,)))
        >>> print(list(sd))
        ['w']
    """


def _group_of(group):
    if group is not None:
        return group
    return collective.get_group(0) if collective.is_initialized() else None


def shard_weight(key, weight, axis, group):
    """The ShardedWeight of `weight`, this rank's equal piece along `axis` of a weight split over
    the ranks of `group` in rank order.

    Args:
        key (str): The name.
        weight (Tensor): The local piece.
        axis (int): The split axis.
        group (Group): The ranks that split it (None: a job of one, the piece is the whole).

    Returns:
        ShardedWeight.

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> print(dist.shard_weight("w", oar.ones([2, 3]), 0, None).global_shape)
        (2, 3)
    """
    shape = list(weight.shape)
    axis = axis % len(shape)
    g = _group_of(group)
    n, r = (g.nranks, g.rank) if g is not None else (1, 0)
    gshape = list(shape)
    gshape[axis] *= n
    offset = [0] * len(shape)
    offset[axis] = r * shape[axis]
    return ShardedWeight(key, weight, shape, gshape, offset)


def build_sharded_state_dict(state_dict, shard_rules=None, prefix=""):
    """{prefix + key: ShardedWeight}: a distributed tensor gives its shard's place from its
    placements; a key in `shard_rules` ({key: axis}) is split along that axis over the default
    group (shard_weight); any other tensor is whole.

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> sd = dist.build_sharded_state_dict(oar.nn.Linear(2, 3).state_dict(), prefix="fc.")
        >>> print(sorted(sd), sd["fc.weight"].global_shape)
        ['fc.bias', 'fc.weight'] (2, 3)
    """
    shard_rules = shard_rules or {}
    out = {}
    for k, t in state_dict.items():
        if not isinstance(t, _C.Tensor):
            continue
        name = prefix + k
        if is_dist_tensor(t):
            offsets, sizes = _dist_region(t)
            out[name] = ShardedWeight(name, t._local_value(), sizes, t._global_shape, offsets)
        elif k in shard_rules:
            out[name] = shard_weight(name, t, shard_rules[k], None)
        else:
            out[name] = ShardedWeight(name, t, t.shape, t.shape, [0] * t.ndim)
    return out


def _this_rank():
    return collective.get_rank() if collective.is_initialized() else 0


def _dist_region(t):
    coord = _coordinate(t.process_mesh)
    region = local_region(t._global_shape, t.process_mesh, t.placements, coord)
    return [s for s, _ in region], [n for _, n in region]


def _writes_chunk(t):
    """Whether this rank writes its shard of t (the first of the ranks holding the same chunk)."""
    coord = _coordinate(t.process_mesh)
    if coord is None:
        return False
    return all(c == 0 for c, p in zip(coord, t.placements) if not isinstance(p, Shard))


def _entries(state_dict, save_replicas):
    """[(key, array, global_shape, offset, dtype)] of what this rank writes."""
    rank = _this_rank()
    out = []
    for key in state_dict:  # the same order on every rank: resharding Partial communicates
        v = state_dict[key]
        if isinstance(v, ShardedWeight):
            arr = v.local_tensor.numpy()
            out.append((key, arr, v.global_shape, v.global_offset))
            continue
        if not isinstance(v, _C.Tensor):
            raise TypeError(f"save_state_dict: the value of {key!r} must be a Tensor or a ShardedWeight, got "
                            f"{type(v).__name__}")
        if is_dist_tensor(v):
            if any(isinstance(p, Partial) for p in v.placements):
                v = reshard(v, v.process_mesh, [Replicate() if isinstance(p, Partial) else p for p in v.placements])
            if _coordinate(v.process_mesh) is None or not (save_replicas or _writes_chunk(v)):
                continue
            offsets, _ = _dist_region(v)
            out.append((key, v._local_value().numpy(), tuple(v._global_shape), tuple(offsets)))
        elif save_replicas or rank == 0 or not collective.is_initialized():
            out.append((key, v.numpy(), tuple(v.shape), (0,) * v.ndim))
    return out


def _ids(path):
    ids = []
    for f in os.listdir(path):
        m = re.fullmatch(r"(\d+)\.metadata", f)
        if m:
            ids.append(int(m.group(1)))
    return sorted(ids)


def _dump(obj):
    def write(f):
        pickle.dump(obj, f, protocol=4)
    return write


def save_state_dict(state_dict, path, process_group=None, coordinator_rank=0, unique_id=None, async_save=False,
                    safetensors=False, save_replicas=False):
    """Saves a state dict of (distributed) tensors or ShardedWeights as a distributed checkpoint
    in directory `path`: every rank of the job calls it; each writes its shards, the coordinator
    the metadata. Files are written crash-safely.

    Args:
        state_dict (dict[str, Tensor|ShardedWeight]): What to save.
        path (str): The directory.
        process_group (Group, optional): Default: None (every rank).
        coordinator_rank (int, optional): The rank writing the metadata. Default: 0.
        unique_id (int, optional): The checkpoint's number in the directory. Default: None (one
            more than the last).
        async_save (bool, optional): Must be False (oar saves synchronously). Default: False.
        safetensors (bool, optional): Must be False. Default: False.
        save_replicas (bool, optional): Every rank writes its chunks, replicated or not.
            Default: False.

    Examples:
        >>> import tempfile
        >>> import oar
        >>> import oar.distributed as dist
        >>> path = tempfile.mkdtemp()
        >>> dist.save_state_dict({"w": oar.ones([2, 2])}, path)
        >>> sd = {"w": oar.zeros([2, 2])}
        >>> dist.load_state_dict(sd, path)
        >>> print(sd["w"].numpy().sum())
        4.0
    """
    if not isinstance(state_dict, dict):
        raise TypeError(f"save_state_dict: state_dict must be a dict, got {type(state_dict).__name__}")
    if not isinstance(path, str):
        raise TypeError(f"save_state_dict: path must be a str, got {type(path).__name__}")
    if async_save:
        raise NotImplementedError("save_state_dict: async_save=True is not implemented in oar (saves are synchronous)")
    if safetensors:
        raise NotImplementedError("save_state_dict: safetensors=True is not implemented in oar")
    multi = collective.is_initialized() and collective.get_world_size() > 1
    rank = _this_rank()
    os.makedirs(path, exist_ok=True)
    if unique_id is None:
        ids = _ids(path)
        candidate = [ids[-1] + 1 if ids else 0]
        if multi:  # the coordinator's answer, for everyone
            collective.broadcast_object_list(candidate, src=coordinator_rank, group=process_group)
        unique_id = candidate[0]
    entries = _entries(state_dict, save_replicas)
    fname = f"{rank}_{unique_id}.distcp"
    atomic_files.write_file(os.path.join(path, fname), _dump({k: a for k, a, _, _ in entries}))
    mine = [(k, tuple(g), tuple(o), tuple(a.shape), str(a.dtype), fname) for k, a, g, o in entries]
    everyone = [mine]
    if multi:
        everyone = []
        collective.all_gather_object(everyone, mine, group=process_group)
    if rank == coordinator_rank or not multi:
        meta = {"version": 1, "state_dict_metadata": {}}
        seen = set()
        for chunks in everyone:
            for k, g, o, s, dt, f in chunks:
                if (k, o, s) in seen:
                    continue
                seen.add((k, o, s))
                entry = meta["state_dict_metadata"].setdefault(k, {"global_shape": list(g), "dtype": dt, "chunks": []})
                entry["chunks"].append({"global_offset": list(o), "local_shape": list(s), "file": f})
        atomic_files.write_file(os.path.join(path, f"{unique_id}.metadata"), _dump(meta))
    if multi:
        collective.barrier(process_group)


def _read(path, name):
    with open(os.path.join(path, name), "rb") as f:
        return safe_pickle.load(f)


def _metadata(path, unique_id, where):
    if not os.path.isdir(path):
        raise FileNotFoundError(f"{where}: no checkpoint directory {path!r}")
    ids = _ids(path)
    if not ids:
        raise FileNotFoundError(f"{where}: {path!r} holds no distributed checkpoint (no <id>.metadata)")
    uid = ids[-1] if unique_id is None else int(unique_id)
    if uid not in ids:
        raise FileNotFoundError(f"{where}: {path!r} has no checkpoint {uid} (it has {ids})")
    meta = _read(path, f"{uid}.metadata")
    if not isinstance(meta, dict) or "state_dict_metadata" not in meta:
        raise ValueError(f"{where}: {path}/{uid}.metadata is not a distributed checkpoint's metadata")
    return meta["state_dict_metadata"]


def _assemble(path, entry, offsets, sizes, files):
    """The region [offsets, offsets + sizes) of a saved tensor, from the chunks overlapping it."""
    out = np.zeros(sizes, dtype=np.dtype(entry["dtype"]) if entry["dtype"] != "bfloat16" else np.float32)
    covered = 0
    for c in entry["chunks"]:
        lo = [max(a, b) for a, b in zip(offsets, c["global_offset"])]
        hi = [min(a + n, b + m) for a, n, b, m in zip(offsets, sizes, c["global_offset"], c["local_shape"])]
        if any(l >= h for l, h in zip(lo, hi)) and len(sizes):
            continue
        if c["file"] not in files:
            files[c["file"]] = _read(path, c["file"])
        data = files[c["file"]][entry["key"]]
        src = tuple(slice(l - o, h - o) for l, h, o in zip(lo, hi, c["global_offset"]))
        dst = tuple(slice(l - o, h - o) for l, h, o in zip(lo, hi, offsets))
        out[dst] = data[src]
        covered += int(np.prod([h - l for l, h in zip(lo, hi)]))
    if covered < int(np.prod(sizes)):
        raise ValueError(f"load_state_dict: the checkpoint's chunks of {entry['key']!r} do not cover the region at "
                         f"{list(offsets)} of shape {list(sizes)}")
    return out


def load_state_dict(state_dict, path, process_group=None, coordinator_rank=0, unique_id=None, offload=False,
                    mw_name_compatibility=True, aoa_config=None, safetensors=False, worker_groups=None,
                    comm_method="broadcast"):
    """Loads a distributed checkpoint into the tensors of `state_dict`, in place: each rank reads the
    part of every tensor that its placements give it (whatever placements or number of ranks the
    checkpoint was saved with).

    Args:
        state_dict (dict[str, Tensor|ShardedWeight]): The tensors to fill.
        path (str): The checkpoint directory.
        process_group (Group, optional): Default: None.
        coordinator_rank (int, optional): Default: 0.
        unique_id (int, optional): Which checkpoint. Default: None (the last).
        offload (bool, optional): Kept for Paddle compatibility. Default: False.

    Examples:
        >>> import tempfile
        >>> import oar
        >>> import oar.distributed as dist
        >>> path = tempfile.mkdtemp()
        >>> dist.save_state_dict({"b": oar.arange(3.0)}, path)
        >>> sd = {"b": oar.zeros([3])}
        >>> dist.load_state_dict(sd, path)
        >>> print(sd["b"].numpy())
        [0. 1. 2.]
    """
    if not isinstance(state_dict, dict):
        raise TypeError(f"load_state_dict: state_dict must be a dict, got {type(state_dict).__name__}")
    if safetensors:
        raise NotImplementedError("load_state_dict: safetensors=True is not implemented in oar")
    meta = _metadata(path, unique_id, "load_state_dict")
    files = {}
    from ... import to_tensor
    for key, target in state_dict.items():
        if key not in meta:
            raise KeyError(f"load_state_dict: {key!r} is not in the checkpoint at {path!r}")
        entry = dict(meta[key], key=key)
        if isinstance(target, ShardedWeight):
            local, offsets, sizes = target.local_tensor, target.global_offset, target.local_shape
            zero = False
        elif is_dist_tensor(target):
            if _coordinate(target.process_mesh) is None:
                continue
            offsets, sizes = _dist_region(target)
            local = target._local_value()
            coord = _coordinate(target.process_mesh)
            zero = any(isinstance(p, Partial) and c != 0 for p, c in zip(target.placements, coord))
        elif isinstance(target, _C.Tensor):
            local, offsets, sizes = target, [0] * target.ndim, list(target.shape)
            zero = False
        else:
            raise TypeError(f"load_state_dict: the value of {key!r} must be a Tensor or a ShardedWeight, got "
                            f"{type(target).__name__}")
        if list(entry["global_shape"]) != (list(target.global_shape) if isinstance(target, ShardedWeight) else
                                           target._global_shape if is_dist_tensor(target) else list(target.shape)):
            raise ValueError(f"load_state_dict: {key!r} has shape {entry['global_shape']} in the checkpoint but the "
                             f"target's is {target._global_shape if is_dist_tensor(target) else list(target.shape)}")
        arr = _assemble(path, entry, list(offsets), list(sizes), files)
        if zero:
            arr = np.zeros_like(arr)
        value = to_tensor(arr).astype(local.dtype)
        with _no_grad():
            _C.Tensor.copy_(local, value, False)


def _no_grad():
    from ...autograd import no_grad
    return no_grad()


def load_merged_state_dict(path, prefix=None, unique_id=None, offload=False, aoa_config=None, safetensors=False):
    """The whole tensors of a distributed checkpoint ({key: Tensor}), assembled from every rank's
    chunks; with `prefix`, only the keys that start with it.

    Examples:
        >>> import tempfile
        >>> import oar
        >>> import oar.distributed as dist
        >>> path = tempfile.mkdtemp()
        >>> dist.save_state_dict({"w": oar.ones([2])}, path)
        >>> print(dist.load_merged_state_dict(path)["w"].numpy())
        [1. 1.]
    """
    from ... import to_tensor
    meta = _metadata(path, unique_id, "load_merged_state_dict")
    files = {}
    out = {}
    for key, entry in meta.items():
        if prefix is not None and not key.startswith(prefix):
            continue
        shape = list(entry["global_shape"])
        out[key] = to_tensor(_assemble(path, dict(entry, key=key), [0] * len(shape), shape, files))
    return out
