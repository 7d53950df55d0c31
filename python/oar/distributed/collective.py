"""paddle.distributed's process groups and collectives over oar's C++ process groups
(oar/distributed: Gloo for host tensors, rendezvous through a TCP store that rank 0 serves).

Every rank calls the same collectives in the same order; tensors are written in place. With
sync_op=False a call returns a task at once (its wait() gives the result or raises); the group
runs its operations in order on a thread of its own."""
import pickle

import numpy as np

from .. import _C
from .parallel_env import ParallelEnv

__all__ = ["ReduceOp", "Group", "init_parallel_env", "is_initialized", "get_rank", "get_world_size", "new_group",
           "get_group", "destroy_process_group", "all_reduce", "broadcast", "reduce", "all_gather",
           "all_gather_object", "broadcast_object_list", "reduce_scatter", "scatter", "gather", "alltoall",
           "alltoall_single", "send", "recv", "isend", "irecv", "barrier", "wait", "scatter_object_list",
           "send_object_list", "recv_object_list", "is_available", "get_backend", "shutdown_process_group",
           "restart_process_group", "gloo_init_parallel_env", "gloo_barrier", "gloo_release"]

_dist = _C._dist


class ReduceOp:
    """How a reduction combines the ranks' values (paddle.distributed.ReduceOp)."""
    SUM = 0
    MAX = 1
    MIN = 2
    PROD = 3
    AVG = 4


class Group:
    """A set of ranks that communicate (paddle.distributed's Group): ``rank`` is this process's rank
    in the group (-1 when it is not a member), ``ranks`` the members' global ranks."""

    def __init__(self, rank_in_group, id, ranks, pg=None, name=None):
        self._rank = rank_in_group
        self._id = id
        self._ranks = list(ranks)
        self._pg = pg
        self._name = name or f"_default_pg{id}"

    @property
    def rank(self):
        return self._rank

    @property
    def ranks(self):
        return list(self._ranks)

    @property
    def nranks(self):
        return len(self._ranks)

    world_size = nranks

    @property
    def id(self):
        return self._id

    @property
    def name(self):
        return self._name

    @property
    def process_group(self):
        return self._pg

    @property
    def backend(self):
        return "gloo"

    def is_member(self):
        return self._rank >= 0

    def get_group_rank(self, rank):
        """The group rank of global rank `rank` (-1 when it is not a member)."""
        return self._ranks.index(rank) if rank in self._ranks else -1

    def __repr__(self):
        return f"rank: {self._rank}, nranks: {self.nranks}, id: {self._id}, ranks: {', '.join(map(str, self._ranks))}; name: {self._name}"


_state = {"store": None, "groups": {}, "next_id": 1, "env": None}


def _require_gloo():
    if not _dist.available:
        raise RuntimeError("oar.distributed: this oar was built without Gloo (apt install libgloo-dev, then rebuild)")


def is_initialized():
    """Whether init_parallel_env has run in this process.

    Examples:
        >>> import oar
        >>> oar.distributed.is_initialized()
        False
    """
    return 0 in _state["groups"]


def init_parallel_env():
    """Joins the job the environment describes (``python -m oar.distributed.launch`` or
    ``oar.distributed.spawn`` set PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM and PADDLE_MASTER):
    rank 0 serves the rendezvous store at the master address, every rank connects, and the
    default group of all ranks is made. Returns that group. Waits at most PADDLE_PG_TIMEOUT
    milliseconds for the other ranks.
    """
    if is_initialized():
        return _state["groups"][0]
    _require_gloo()
    env = ParallelEnv()
    master = env.master()
    timeout = env.pg_timeout / 1000.0
    if master is None:
        if env.world_size > 1:
            raise ValueError("init_parallel_env: PADDLE_TRAINERS_NUM is "
                             f"{env.world_size} but neither PADDLE_MASTER nor PADDLE_TRAINER_ENDPOINTS names the "
                             "master; start the job with python -m oar.distributed.launch")
        master = ("127.0.0.1", 0)  # a job of one: a private store
    store = _dist.TCPStore(master[0], master[1], env.rank == 0, timeout)
    _state["store"], _state["env"] = store, env
    pg = _dist.ProcessGroupGloo(store, env.rank, env.world_size, "group0/", env.hostname(), timeout)
    group = Group(env.rank, 0, range(env.world_size), pg, "_default_pg0")
    _state["groups"][0] = group
    return group


def _default_group():
    if not is_initialized():
        raise RuntimeError("oar.distributed: call oar.distributed.init_parallel_env() first (the default "
                           "process group does not exist yet)")
    return _state["groups"][0]


def _group(group):
    g = _default_group() if group is None else group
    if not isinstance(g, Group):
        raise TypeError(f"expected a Group from new_group() or None, but got {type(g).__name__}")
    return g


def get_rank(group=None):
    """This process's rank: in `group`, or in the job (PADDLE_TRAINER_ID before init)."""
    if group is not None:
        return _group(group).rank
    if is_initialized():
        return _default_group().rank
    return ParallelEnv().rank


def get_world_size(group=None):
    """The number of ranks: in `group`, or in the job (PADDLE_TRAINERS_NUM before init)."""
    if group is not None:
        return _group(group).nranks
    if is_initialized():
        return _default_group().nranks
    return ParallelEnv().world_size


def new_group(ranks=None, backend=None, timeout=None, **kwargs):
    """A group of some ranks. Every rank of the job calls it with the same `ranks` (in the same
    order relative to other new_group calls); members get a group to communicate in, the others a
    group whose rank is -1."""
    base = _default_group()
    if backend not in (None, "gloo"):
        raise ValueError(f"new_group: backend must be 'gloo' (or None) for host tensors, got {backend!r}")
    ranks = list(range(base.nranks)) if ranks is None else sorted(int(r) for r in ranks)
    if not ranks or len(set(ranks)) != len(ranks) or ranks[0] < 0 or ranks[-1] >= base.nranks:
        raise ValueError(f"new_group: ranks must be distinct ranks in [0, {base.nranks}), got {ranks}")
    gid = _state["next_id"]
    _state["next_id"] += 1
    me = base.rank
    seconds = timeout.total_seconds() if timeout is not None else _state["env"].pg_timeout / 1000.0
    pg = None
    if me in ranks:
        pg = _dist.ProcessGroupGloo(_state["store"], ranks.index(me), len(ranks), f"group{gid}/",
                                    _state["env"].hostname(), seconds)
    group = Group(ranks.index(me) if me in ranks else -1, gid, ranks, pg)
    _state["groups"][gid] = group
    return group


def get_group(id=0):
    """The group with this id (0: the default group), or None."""
    return _state["groups"].get(id)


def destroy_process_group(group=None):
    """Releases `group` (None: every group, and this process leaves the job)."""
    if group is None:
        _state["groups"].clear()
        _state["store"] = None
        _state["next_id"] = 1
        return
    _state["groups"].pop(_group(group).id, None)


def _pg(group):
    g = _group(group)
    if getattr(g, "_shut_down", False):
        raise RuntimeError(f"the process group {g.name} is shut down (call restart_process_group)")
    if not g.is_member():
        return None
    return g.process_group


def _tensor(op, arg, t):
    if not isinstance(t, _C.Tensor):
        raise TypeError(f"{op}: {arg} must be a Tensor, but got {type(t).__name__}")
    return t


def _rank_in(group, rank, op, arg):
    g = _group(group)
    r = g.get_group_rank(rank)
    if r < 0:
        raise ValueError(f"{op}: {arg}={rank} is not a member of the group (ranks {g.ranks})")
    return r


def _reduce_op(op):
    if isinstance(op, bool) or not isinstance(op, int) or not 0 <= op <= 4:
        raise ValueError(f"the reduce op must be a ReduceOp (SUM, MAX, MIN, PROD, AVG), got {op!r}")
    return op


def all_reduce(tensor, op=ReduceOp.SUM, group=None, sync_op=True):
    """Reduces `tensor` over the group's ranks; every rank gets the result in place."""
    pg = _pg(group)
    return pg and pg.all_reduce(_tensor("all_reduce", "tensor", tensor), _reduce_op(op), sync_op)


def broadcast(tensor, src, group=None, sync_op=True):
    """Copies global rank `src`'s tensor into every rank's `tensor`."""
    pg = _pg(group)
    return pg and pg.broadcast(_tensor("broadcast", "tensor", tensor), _rank_in(group, src, "broadcast", "src"), sync_op)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, sync_op=True):
    """Reduces `tensor` over the group's ranks into global rank `dst`'s tensor."""
    pg = _pg(group)
    return pg and pg.reduce(_tensor("reduce", "tensor", tensor), _rank_in(group, dst, "reduce", "dst"),
                            _reduce_op(op), sync_op)


def _empty_like(t):
    return _C.empty_like(t)


def all_gather(tensor_list, tensor, group=None, sync_op=True):
    """Gathers every rank's `tensor` into `tensor_list` (filled when empty), in rank order."""
    pg = _pg(group)
    if pg is None:
        return None
    _tensor("all_gather", "tensor", tensor)
    if not isinstance(tensor_list, list):
        raise TypeError(f"all_gather: tensor_list must be a list, but got {type(tensor_list).__name__}")
    if not tensor_list:
        tensor_list.extend(_empty_like(tensor) for _ in range(pg.size))
    return pg.all_gather(tensor_list, tensor, sync_op)


def _to_bytes_tensor(obj):
    from .. import to_tensor
    return to_tensor(np.frombuffer(pickle.dumps(obj), dtype=np.uint8).copy(), place="cpu")


def all_gather_object(object_list, obj, group=None):
    """Gathers a picklable object from every rank into `object_list`, in rank order."""
    pg = _pg(group)
    if pg is None:
        return
    from .. import to_tensor, zeros
    data = _to_bytes_tensor(obj)
    sizes = []
    all_gather(sizes, to_tensor(np.array([data.shape[0]], np.int64), place="cpu"), group)
    longest = max(int(s.item()) for s in sizes)
    padded = zeros([longest], dtype="uint8")
    if data.shape[0]:
        padded[:data.shape[0]] = data
    parts = []
    all_gather(parts, padded, group)
    object_list.clear()
    object_list.extend(pickle.loads(p.numpy()[:int(n.item())].tobytes()) for p, n in zip(parts, sizes))


def broadcast_object_list(object_list, src, group=None):
    """Replaces `object_list` on every rank by global rank `src`'s (picklable objects)."""
    pg = _pg(group)
    if pg is None:
        return
    from .. import to_tensor, zeros
    mine = _group(group).rank == _rank_in(group, src, "broadcast_object_list", "src")
    data = _to_bytes_tensor(list(object_list)) if mine else None
    size = to_tensor(np.array([data.shape[0] if mine else 0], np.int64), place="cpu")
    broadcast(size, src, group)
    buf = data if mine else zeros([int(size.item())], dtype="uint8")
    broadcast(buf, src, group)
    object_list[:] = pickle.loads(buf.numpy().tobytes())


def reduce_scatter(tensor, tensor_list, op=ReduceOp.SUM, group=None, sync_op=True):
    """`tensor` gets the reduction over ranks of each rank's tensor_list[this rank]."""
    pg = _pg(group)
    return pg and pg.reduce_scatter(_tensor("reduce_scatter", "tensor", tensor), list(tensor_list),
                                    _reduce_op(op), sync_op)


def scatter(tensor, tensor_list=None, src=0, group=None, sync_op=True):
    """`tensor` gets global rank `src`'s tensor_list[this rank]."""
    pg = _pg(group)
    if pg is None:
        return None
    root = _rank_in(group, src, "scatter", "src")
    if pg.rank == root and not tensor_list:
        raise ValueError("scatter: the source rank must give tensor_list, one tensor per rank")
    return pg.scatter(_tensor("scatter", "tensor", tensor), list(tensor_list or []), root, sync_op)


def gather(tensor, gather_list=None, dst=0, group=None, sync_op=True):
    """Global rank `dst` gets every rank's `tensor` in `gather_list` (filled when empty)."""
    pg = _pg(group)
    if pg is None:
        return None
    root = _rank_in(group, dst, "gather", "dst")
    out = gather_list if gather_list is not None else []
    if pg.rank == root and not out:
        out.extend(_empty_like(tensor) for _ in range(pg.size))
    return pg.gather(out if pg.rank == root else [], _tensor("gather", "tensor", tensor), root, sync_op)


def alltoall(out_tensor_list, in_tensor_list, group=None, sync_op=True):
    """Rank i's in_tensor_list[j] goes to rank j's out_tensor_list[i] (filled when empty)."""
    pg = _pg(group)
    if pg is None:
        return None
    ins = list(in_tensor_list)
    if not out_tensor_list:
        out_tensor_list.extend(_empty_like(t) for t in ins)
    return pg.all_to_all(out_tensor_list, ins, sync_op)


def alltoall_single(out_tensor, in_tensor, in_split_sizes=None, out_split_sizes=None, group=None, sync_op=True):
    """alltoall on one tensor split along dim 0 (equal parts, or `in_split_sizes`); the parts
    received are written into `out_tensor` in rank order (`out_split_sizes`)."""
    pg = _pg(group)
    if pg is None:
        return None
    n = pg.size
    from .. import concat, zeros

    def sizes(total, given, what):
        if given is None:
            if total % n:
                raise ValueError(f"alltoall_single: dim 0 of {what} ({total}) must divide into {n} equal parts "
                                 f"when its split sizes are not given")
            return [total // n] * n
        given = [int(s) for s in given]
        if len(given) != n or sum(given) != total:
            raise ValueError(f"alltoall_single: {what} split sizes must be {n} sizes summing to {total}, got {given}")
        return given

    ins = sizes(in_tensor.shape[0], in_split_sizes, "in_tensor")
    outs = sizes(out_tensor.shape[0], out_split_sizes, "out_tensor")
    # Parts of different lengths travel padded to the longest, then are cut back.
    longest = max(ins + outs) if ins + outs else 0
    rest = list(in_tensor.shape[1:])
    chunks, start = [], 0
    for s in ins:
        part = zeros([longest] + rest, dtype=in_tensor.dtype)
        if s:
            part[:s] = in_tensor[start:start + s]
        chunks.append(part)
        start += s
    received = [zeros([longest] + rest, dtype=in_tensor.dtype) for _ in range(n)]
    pg.all_to_all(received, chunks, True)
    out_tensor.copy_(concat([r[:s] for r, s in zip(received, outs)], axis=0), False)
    return None


def send(tensor, dst=0, group=None, sync_op=True):
    """Sends `tensor` to global rank `dst` (which calls recv)."""
    pg = _pg(group)
    return pg and pg.send(_tensor("send", "tensor", tensor), _rank_in(group, dst, "send", "dst"), sync_op)


def recv(tensor, src=0, group=None, sync_op=True):
    """Receives into `tensor` what global rank `src` sends."""
    pg = _pg(group)
    return pg and pg.recv(_tensor("recv", "tensor", tensor), _rank_in(group, src, "recv", "src"), sync_op)


def isend(tensor, dst, group=None):
    """send without waiting: returns a task."""
    return send(tensor, dst, group, sync_op=False)


def irecv(tensor, src=None, group=None):
    """recv without waiting: returns a task."""
    if src is None:
        raise ValueError("irecv: src must name the sending rank (receiving from any rank is not supported)")
    return recv(tensor, src, group, sync_op=False)


def barrier(group=None):
    """Waits until every rank of the group has called barrier."""
    pg = _pg(group)
    if pg is not None:
        pg.barrier(True)


def wait(tensor, group=None, use_calc_stream=True):
    """Waits for the communication of `tensor` (host collectives finish before they return, or
    their task's wait() does)."""
    _tensor("wait", "tensor", tensor)


def scatter_object_list(out_object_list, in_object_list=None, src=0, group=None):
    """`out_object_list` becomes [in_object_list[this rank]] of global rank `src`'s list
    (picklable objects, one per rank of the group).

    Examples:
        >>> import oar.distributed as dist
        >>> out = []
        >>> dist.scatter_object_list(out, [{"a": 1}], src=0)  # doctest: +SKIP
    """
    pg = _pg(group)
    if pg is None:
        return
    if not isinstance(out_object_list, list):
        raise TypeError(f"scatter_object_list: out_object_list must be a list, got {type(out_object_list).__name__}")
    g = _group(group)
    root = _rank_in(group, src, "scatter_object_list", "src")
    everything = [None]
    if g.rank == root:
        if in_object_list is None or len(in_object_list) != g.nranks:
            raise ValueError(f"scatter_object_list: the source rank must give in_object_list with one object per "
                             f"rank ({g.nranks}), got {None if in_object_list is None else len(in_object_list)}")
        everything = [list(in_object_list)]
    broadcast_object_list(everything, src, group)
    out_object_list.clear()
    out_object_list.append(everything[0][g.rank])


def send_object_list(object_list, dst=None, group=None, dst_in_group=None):
    """Sends a list of picklable objects to global rank `dst` (or group rank `dst_in_group`),
    which calls recv_object_list with a list of the same length.

    Examples:
        >>> import oar.distributed as dist
        >>> dist.send_object_list([1, "two"], dst=1)  # doctest: +SKIP
    """
    if not isinstance(object_list, list):
        raise TypeError(f"send_object_list: object_list must be a list, got {type(object_list).__name__}")
    g = _group(group)
    if (dst is None) == (dst_in_group is None):
        raise ValueError("send_object_list: give exactly one of dst and dst_in_group")
    dst = g.ranks[dst_in_group] if dst_in_group is not None else dst
    if _pg(group) is None:
        return
    from .. import to_tensor
    blobs = [_to_bytes_tensor(o) for o in object_list]
    send(to_tensor(np.array([b.shape[0] for b in blobs], np.int64), place="cpu"), dst, group)
    if blobs:
        from .. import concat
        send(concat(blobs, 0) if len(blobs) > 1 else blobs[0], dst, group)


def recv_object_list(object_list, src=None, group=None, src_in_group=None):
    """Fills `object_list` (its length: how many objects come) with what global rank `src` (or
    group rank `src_in_group`) sends with send_object_list.

    Examples:
        >>> import oar.distributed as dist
        >>> got = [None, None]
        >>> dist.recv_object_list(got, src=0)  # doctest: +SKIP
    """
    if not isinstance(object_list, list):
        raise TypeError(f"recv_object_list: object_list must be a list, got {type(object_list).__name__}")
    g = _group(group)
    if (src is None) == (src_in_group is None):
        raise ValueError("recv_object_list: give exactly one of src and src_in_group")
    src = g.ranks[src_in_group] if src_in_group is not None else src
    if _pg(group) is None:
        return
    from .. import zeros
    sizes = zeros([len(object_list)], dtype="int64")
    recv(sizes, src, group)
    sizes = [int(s) for s in sizes.numpy()]
    if not sizes:
        return
    data = zeros([sum(sizes)], dtype="uint8")
    recv(data, src, group)
    raw, offset = data.numpy().tobytes(), 0
    for i, n in enumerate(sizes):
        object_list[i] = pickle.loads(raw[offset:offset + n])
        offset += n


def is_available():
    """Whether this oar can run distributed jobs (it was built with Gloo).

    Examples:
        >>> import oar.distributed as dist
        >>> dist.is_available()
        True
    """
    return bool(_dist.available)


def get_backend(group=None):
    """The communication backend of `group` (default: the default group): 'GLOO'.

    Examples:
        >>> import oar.distributed as dist
        >>> dist.get_backend()  # doctest: +SKIP
        'GLOO'
    """
    g = _group(group)
    if not g.is_member():
        raise RuntimeError("get_backend: this rank is not a member of the group")
    return "GLOO"


_shut = {}


def shutdown_process_group(group=None):
    """Releases the communication of `group` (None: of every group but the default one) until
    restart_process_group; collectives on it raise RuntimeError meanwhile.

    Examples:
        >>> import oar.distributed as dist
        >>> dist.shutdown_process_group()  # doctest: +SKIP
    """
    groups = [g for gid, g in _state["groups"].items() if gid != 0] if group is None else [_group(group)]
    for g in groups:
        if g.process_group is not None and g.name not in _shut:
            _shut[g.name] = g
            g._pg = None
            g._shut_down = True


def restart_process_group(group=None):
    """Reconnects groups released by shutdown_process_group (None: all of them); every member calls it.

    Examples:
        >>> import oar.distributed as dist
        >>> dist.restart_process_group()  # doctest: +SKIP
    """
    names = list(_shut) if group is None else ([_group(group).name] if _group(group).name in _shut else [])
    for name in names:
        g = _shut.pop(name)
        g._restarts = getattr(g, "_restarts", 0) + 1
        g._pg = _dist.ProcessGroupGloo(_state["store"], g.rank, g.nranks, f"group{g.id}/restart{g._restarts}/",
                                       _state["env"].hostname(), _state["env"].pg_timeout / 1000.0)
        g._shut_down = False


_gloo = {"store": None, "pg": None}


def gloo_init_parallel_env(rank_id, rank_num, server_endpoint):
    """Starts a CPU-only Gloo context of `rank_num` ranks (for gloo_barrier), meeting at
    `server_endpoint` ("ip:port", served by rank 0).

    Examples:
        >>> import oar.distributed as dist
        >>> dist.gloo_init_parallel_env(0, 2, "127.0.0.1:6170")  # doctest: +SKIP
    """
    _require_gloo()
    if isinstance(rank_num, bool) or not isinstance(rank_num, int) or rank_num < 2:
        raise ValueError(f"gloo_init_parallel_env: rank_num must be an int >= 2, got {rank_num!r}")
    if isinstance(rank_id, bool) or not isinstance(rank_id, int) or not 0 <= rank_id < rank_num:
        raise ValueError(f"gloo_init_parallel_env: rank_id must be in [0, {rank_num}), got {rank_id!r}")
    try:
        host, port = server_endpoint.rsplit(":", 1)
        port = int(port)
    except (AttributeError, ValueError):
        raise ValueError(f"gloo_init_parallel_env: server_endpoint must be 'ip:port', got {server_endpoint!r}") from None
    timeout = 3600.0
    store = _dist.TCPStore(host, port, rank_id == 0, timeout)
    _gloo["store"] = store
    _gloo["pg"] = _dist.ProcessGroupGloo(store, rank_id, rank_num, "gloo_ctx/", "127.0.0.1" if host in (
        "127.0.0.1", "localhost") else ParallelEnv().hostname(), timeout)


def gloo_barrier():
    """Waits for every rank of the context of gloo_init_parallel_env.

    Examples:
        >>> import oar.distributed as dist
        >>> dist.gloo_barrier()  # doctest: +SKIP
    """
    if _gloo["pg"] is None:
        raise RuntimeError("gloo_barrier: gloo context is not initialized (call gloo_init_parallel_env first)")
    _gloo["pg"].barrier(True)


def gloo_release():
    """Releases the context of gloo_init_parallel_env.

    Examples:
        >>> import oar.distributed as dist
        >>> dist.gloo_release()
    """
    _gloo["pg"] = None
    _gloo["store"] = None
