"""``oar.distributed.spawn``: Paddle's ``paddle.distributed.spawn``, a job of ``nprocs`` processes on this
machine started from Python (multiprocessing's 'spawn' start method by default), each running
``func(*args)`` with the PADDLE_* environment that ``python -m oar.distributed.launch`` gives a rank of a
one-node job: PADDLE_TRAINER_ID / PADDLE_GLOBAL_RANK, PADDLE_TRAINERS_NUM / PADDLE_GLOBAL_SIZE,
PADDLE_LOCAL_RANK / PADDLE_RANK_IN_NODE, PADDLE_LOCAL_SIZE, PADDLE_NNODES=1, PADDLE_TRAINER_ENDPOINTS,
PADDLE_CURRENT_ENDPOINT, PADDLE_MASTER (free ports of the node's address, chosen in the parent, held
together while chosen so that they differ) and PADDLE_DISTRI_BACKEND=gloo (oar's backend). The variables
are set in the child before ``func`` runs, as Paddle does (http_proxy and https_proxy are removed there,
as in Paddle).

Options (Paddle's): ``start_method`` ('spawn', 'forkserver', 'fork'), ``ips`` (this node's address; one
only, as Paddle's CPU spawn), ``backend`` ('auto' or 'gloo'), ``gpus``/``xpus`` (accepted and, as in
Paddle's CPU spawn, not used), ``print_config``; and ``master`` ('ADDR:PORT', the store of rank 0;
default: the node's address and a free port). Paddle's deprecated options (selected_devices,
started_port, cluster_node_ips, node_ip, use_paddlecloud) warn and are ignored; any other option is a
ValueError.

Each child sends its return value, or its exception's traceback, back through a pipe of its own, read
by the parent while it waits (so that a large value does not block the child, as it can with Paddle's
queues). When a child fails, the parent stops the others (SIGTERM, then SIGKILL after a grace period)
and raises ProcessRaisedException (the child raised: its rank and traceback text in the message) or
ProcessExitedException (it exited non-zero or was killed by a signal).
"""
from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import traceback
import warnings

__all__ = ["spawn", "MultiprocessContext", "ProcessRaisedException", "ProcessExitedException"]

_SUPPORTED = ("start_method", "ips", "gpus", "xpus", "print_config", "backend", "master")
_DEPRECATED = ("selected_devices", "started_port", "cluster_node_ips", "node_ip", "use_paddlecloud")
_GRACE = 3.0


class ProcessRaisedException(Exception):
    """A spawned process raised: ``rank``, ``pid``, ``error_type`` (the exception's class name) and
    ``traceback_text`` (its formatted traceback)."""

    def __init__(self, msg, rank, pid, error_type, traceback_text):
        super().__init__(msg)
        self.rank = rank
        self.error_index = rank
        self.pid = pid
        self.error_type = error_type
        self.traceback_text = traceback_text


class ProcessExitedException(Exception):
    """A spawned process exited with a non-zero status (``exit_code``) or was killed by a signal
    (``signal_name``) without raising."""

    def __init__(self, msg, rank, pid, exit_code, signal_name=None):
        super().__init__(msg)
        self.rank = rank
        self.error_index = rank
        self.pid = pid
        self.exit_code = exit_code
        self.signal_name = signal_name


def _usable_cpus():
    """CPUs this process may use: its affinity mask, bounded by a cgroup v2 CPU quota."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    try:
        with open("/sys/fs/cgroup/cpu.max") as f:
            quota, period = f.read().split()[:2]
        if quota != "max":
            n = min(n, max(1, -(-int(quota) // int(period))))
    except (OSError, ValueError):
        pass
    return max(1, n)


def _default_nprocs(options):
    devices = options.get("gpus") or options.get("xpus")
    if devices:
        return len([d for d in str(devices).split(",") if d.strip()])
    return _usable_cpus()


def _check_options(options):
    for key in options:
        if key in _SUPPORTED:
            continue
        if key in _DEPRECATED:
            warnings.warn(f"The config option ({key}) of `paddle.distributed.spawn` is deprecated. Please use the "
                          "latest config options stated in the `spawn` API documentation.", DeprecationWarning,
                          stacklevel=3)
            continue
        raise ValueError(f"The config option ({key}) of `paddle.distributed.spawn` is not supported "
                         f"(supported: {', '.join(_SUPPORTED)}).")
    backend = options.get("backend", "auto")
    if backend not in ("auto", "gloo", None):
        raise ValueError(f"spawn: backend {backend!r} is not available in oar; use 'gloo' (or 'auto')")
    method = options.get("start_method")
    if method is not None and method not in multiprocessing.get_all_start_methods():
        raise ValueError(f"spawn: start_method {method!r} is not one of {multiprocessing.get_all_start_methods()}")


def _env_list(nprocs, options):
    """The PADDLE_* variables of each process."""
    from .launch.main import LaunchError, _hold_master, _reserve_ports, _resolve, _split_addr, rank_env

    ips = options.get("ips") or options.get("cluster_node_ips") or "127.0.0.1"
    ip_list = [x.strip() for x in str(ips).split(",") if x.strip()]
    if len(ip_list) != 1:
        raise ValueError(f"spawn starts processes on this machine only: give one address in ips, got {ips!r} "
                         "(several nodes: python -m oar.distributed.launch --nnodes N --master ADDR:PORT)")
    try:
        ip = _resolve(ip_list[0])
        master = options.get("master")
        socks = []
        if master:
            try:
                host, port = _split_addr(master)
            except ValueError as e:
                raise ValueError(f"spawn: master: {e}") from None
            host = _resolve(host)
            socks.append(_hold_master(host, port, "spawn: master"))  # not one of the endpoints
        try:
            ports, more = _reserve_ports(ip, nprocs + (0 if master else 1))
            socks += more
        finally:
            for s in socks:
                s.close()
    except LaunchError as e:
        raise ValueError(str(e)) from None
    endpoints = [f"{ip}:{p}" for p in ports[:nprocs]]
    store = f"{host}:{port}" if master else f"{ip}:{ports[nprocs]}"
    return [rank_env(i, nprocs, i, nprocs, 1, endpoints, store) for i in range(nprocs)]


def _send(conn, message):
    try:
        conn.send(message)
    except Exception as e:  # the value does not pickle
        conn.send(("error", f"the return value of the spawned function cannot be sent to the parent: "
                            f"{type(e).__name__}: {e}\n", type(e).__name__))


def _worker(func, args, conn, env):
    """A spawned process: set the environment, run func(*args), send the outcome."""
    os.environ.pop("http_proxy", None)
    os.environ.pop("https_proxy", None)
    os.environ.update(env)
    try:
        result = func(*args)
    except KeyboardInterrupt:
        conn.close()
        return
    except Exception as e:
        _send(conn, ("error", traceback.format_exc(), type(e).__name__))
        conn.close()
        sys.exit(1)
    _send(conn, ("return", result))
    conn.close()


class _Box:
    """A queue-like view of one child's messages (get / empty), as Paddle's return and error queues."""

    def __init__(self, context, index):
        self._context = context
        self._index = index
        self._items = []

    def put(self, item):
        self._items.append(item)

    def empty(self):
        self._context._drain(self._index)
        return not self._items

    def get(self):
        while not self._items:
            if not self._context._pump(self._index):
                raise EOFError(f"process {self._index} sent nothing more")
        return self._items.pop(0)


class MultiprocessContext:
    """The processes of one spawn: ``processes``, ``return_queues`` and ``error_queues`` (one per rank,
    queue-like: ``get()``, ``empty()``), and ``join(timeout=None)``."""

    def __init__(self, processes, conns):
        self.processes = processes
        self._conns = list(conns)
        self.return_queues = [_Box(self, i) for i in range(len(processes))]
        self.error_queues = [_Box(self, i) for i in range(len(processes))]
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}
        self._error_types = {}

    def pids(self):
        return [p.pid for p in self.processes]

    def _pump(self, index):
        """Read one message of child index (blocking); False when its pipe is closed."""
        conn = self._conns[index]
        if conn is None:
            return False
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            conn.close()
            self._conns[index] = None
            return False
        if msg[0] == "return":
            self.return_queues[index].put(msg[1])
        else:
            self.error_queues[index].put(msg[1])
            self._error_types.setdefault(index, msg[2])
        return True

    def _drain(self, index):
        conn = self._conns[index]
        while conn is not None and conn.poll():
            if not self._pump(index):
                break
            conn = self._conns[index]

    def join(self, timeout=None):
        """Wait until a process ends (or timeout): True when all have ended; raises when one failed
        (after stopping the others)."""
        if not self.sentinels:
            return True
        waiting = list(self.sentinels) + [c for c in self._conns if c is not None]
        try:
            ready = multiprocessing.connection.wait(waiting, timeout=timeout)
        except KeyboardInterrupt:
            self._terminate_all()
            raise
        for i, conn in enumerate(self._conns):
            if conn is not None and conn in ready:
                self._drain(i)
        failed = None
        for sentinel in [s for s in ready if s in self.sentinels]:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            self._drain(index)
            if process.exitcode != 0 and failed is None:
                failed = index
        if failed is None:
            return not self.sentinels
        self._terminate_all()
        self._raise(failed)

    def _terminate_all(self):
        alive = [p for p in self.processes if p.is_alive()]
        for p in alive:
            p.terminate()
        for p in alive:
            p.join(_GRACE)
        for p in alive:
            if p.is_alive():
                p.kill()
                p.join()
        self.sentinels = {}

    def _raise(self, index):
        process = self.processes[index]
        self._drain(index)
        errors = self.error_queues[index]._items
        if errors:
            text, error_type = errors[0], self._error_types.get(index)
            msg = ("\n\n----------------------------------------------\n"
                   f"Process {index} (rank {index}, pid {process.pid}) terminated with the following error:\n"
                   "----------------------------------------------\n\n" + text)
            raise ProcessRaisedException(msg, index, process.pid, error_type, text)
        code = process.exitcode
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = str(-code)
            raise ProcessExitedException(f"Process {index} (rank {index}, pid {process.pid}) terminated with "
                                         f"signal {name}.", index, process.pid, code, name)
        raise ProcessExitedException(f"Process {index} (rank {index}, pid {process.pid}) terminated with exit "
                                     f"code {code}.", index, process.pid, code)


def spawn(func, args=(), nprocs=-1, join=True, daemon=False, **options):
    """Start ``nprocs`` processes that each run ``func(*args)`` in a parallel environment (Paddle's
    ``paddle.distributed.spawn``).

    Args:
        func (callable): the function each process runs; it must pickle (defined at the top level of a
            module).
        args (tuple|list, optional): its arguments. Default: ().
        nprocs (int, optional): the number of processes; -1: one per CPU this process may use (its
            affinity mask and cgroup quota), or one per device of ``gpus``. Default: -1.
        join (bool, optional): wait for the processes (and raise if one fails). Default: True.
        daemon (bool, optional): the processes' daemon flag. Default: False.
        **options: ``start_method`` ('spawn'), ``ips`` ('127.0.0.1', one address), ``master``
            ('ADDR:PORT' of rank 0's store; default a free port), ``backend`` ('auto' or 'gloo'),
            ``gpus``/``xpus`` (accepted, not used on CPU).

    Returns:
        MultiprocessContext: the processes; ``return_queues[i].get()`` is the value ``func`` returned in
        process i. With ``join=False``, call ``while not context.join(): pass``.

    Raises:
        ProcessRaisedException: a process raised (its rank and traceback are in the message).
        ProcessExitedException: a process exited non-zero or was killed.

    Examples:
        .. code-block:: python

            >>> import oar.distributed as dist
            >>> def train(scale):
            ...     import os
            ...     return int(os.environ["PADDLE_TRAINER_ID"]) * scale
            >>> if __name__ == "__main__":  # doctest: +SKIP
            ...     ctx = dist.spawn(train, args=(10,), nprocs=2)
            ...     print([q.get() for q in ctx.return_queues])
            [0, 10]
    """
    _check_options(options)
    if nprocs == -1:
        nprocs = _default_nprocs(options)
    if isinstance(nprocs, bool) or not isinstance(nprocs, int) or nprocs < 1:
        raise ValueError(f"spawn: nprocs must be a positive int (or -1), got {nprocs!r}")
    if not callable(func):
        raise TypeError(f"spawn: func must be callable, got {type(func).__name__}")
    envs = _env_list(nprocs, options)
    if options.get("print_config"):
        print(f"spawn: {nprocs} processes, master {envs[0]['PADDLE_MASTER']}, endpoints "
              f"{envs[0]['PADDLE_TRAINER_ENDPOINTS']}")
    mp = multiprocessing.get_context(options.get("start_method") or "spawn")
    processes, conns = [], []
    try:
        for i in range(nprocs):
            reader, writer = mp.Pipe(duplex=False)
            process = mp.Process(target=_worker, args=(func, tuple(args), writer, envs[i]), daemon=daemon,
                                 name=f"spawn-rank-{i}")
            process.start()
            writer.close()
            processes.append(process)
            conns.append(reader)
    except BaseException:
        for p in processes:
            p.terminate()
            p.join()
        raise
    context = MultiprocessContext(processes, conns)
    if not join:
        return context
    while not context.join():
        pass
    return context
