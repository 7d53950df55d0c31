"""paddle.distributed.rpc: calling a function in another process of the job and getting its result.

Every worker calls ``init_rpc(name, rank, world_size, master_endpoint)``: rank 0 serves a TCP
key-value store at the master endpoint (oar's TCPStore), each worker starts a server on its own
endpoint (PADDLE_WORKER_ENDPOINT, else a free port) and publishes its WorkerInfo there, and the
workers wait for each other. ``rpc_sync(to, fn, args, kwargs)`` sends the call to worker `to`,
which runs ``fn(*args, **kwargs)`` on a thread of its own and answers with the result or the
exception; ``rpc_async`` returns a future whose ``wait()`` gives it. ``shutdown()`` waits until
every worker has called it, then stops the server.

What travels: the function by name (a module-level function: its module and qualified name; the
receiver resolves it in its own, already imported, modules) and the arguments, result and errors
pickled, but read back with oar's safe unpickler (oar.framework.safe_pickle): containers, scalars,
strings, NumPy arrays and oar Tensors only (a Tensor travels as its array). Nothing received is
able to run code while being read. Each connection proves it belongs to the job with a token that
rank 0 puts in the store. Use RPC within a trusted network only: a worker runs the functions it
is asked to run."""
import builtins
import concurrent.futures
import hmac
import importlib
import io
import os
import pickle
import secrets
import socket
import socketserver
import struct
import sys
import threading
import time

import numpy as np

from ... import _C
from ...framework import safe_pickle

__all__ = ["init_rpc", "shutdown", "rpc_async", "rpc_sync", "get_worker_info", "get_all_worker_infos",
           "get_current_worker_info"]


class WorkerInfo:
    """A worker of the RPC job: name, rank, ip, port.

    Examples:
        >>> from oar.distributed.rpc import WorkerInfo
        >>> print(WorkerInfo("worker0", 0, "127.0.0.1", 8000))
        {name: worker0, rank: 0, ip: 127.0.0.1, port: 8000}
    """

    def __init__(self, name, rank, ip, port):
        self.name, self.rank, self.ip, self.port = str(name), int(rank), str(ip), int(port)

    def __repr__(self):
        return f"{{name: {self.name}, rank: {self.rank}, ip: {self.ip}, port: {self.port}}}"

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, WorkerInfo) and (self.name, self.rank, self.ip, self.port) == \
            (other.name, other.rank, other.ip, other.port)

    def __hash__(self):
        return hash((self.name, self.rank, self.ip, self.port))


_state = {"infos": None, "me": None, "server": None, "store": None, "token": None, "pool": None,
          "world": 0}
_lock = threading.Lock()


# ---------------------------------------------------------------- what travels

class _Pickler(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, _C.Tensor):
            return ("oar.Tensor", np.ascontiguousarray(obj.numpy()), bool(obj.stop_gradient))
        return None


def _dumps(obj):
    buf = io.BytesIO()
    try:
        _Pickler(buf, protocol=4).dump(obj)
    except (pickle.PicklingError, TypeError, AttributeError) as e:
        raise TypeError(f"rpc: the arguments or the result cannot be sent ({e})") from None
    return buf.getvalue()


class _Unpickler(safe_pickle.SafeUnpickler):
    def persistent_load(self, pid):
        if type(pid) is tuple and len(pid) == 3 and pid[0] == "oar.Tensor" and isinstance(pid[1], np.ndarray) \
                and type(pid[2]) is bool:
            from ... import to_tensor
            t = to_tensor(pid[1])
            t.stop_gradient = pid[2]
            return t
        raise safe_pickle.UnsafePickleError(f"a persistent id ({repr(pid)[:80]})")


def _loads(data):
    return _Unpickler(io.BytesIO(data)).load()


def _send_frame(sock, data):
    sock.sendall(struct.pack("<Q", len(data)) + data)


def _recv_exact(sock, n):
    chunks, left = [], n
    while left:
        c = sock.recv(min(left, 1 << 20))
        if not c:
            raise ConnectionError("rpc: the connection closed in the middle of a message")
        chunks.append(c)
        left -= len(c)
    return b"".join(chunks)


def _recv_frame(sock):
    (n,) = struct.unpack("<Q", _recv_exact(sock, 8))
    return _recv_exact(sock, n)


def _function_name(fn):
    if not callable(fn):
        raise TypeError(f"rpc: fn must be a function, got {type(fn).__name__}")
    module = getattr(fn, "__module__", None)
    qualname = getattr(fn, "__qualname__", None)
    if module is None or qualname is None or "<" in qualname:
        raise TypeError(f"rpc: fn must be a function defined at module level (it is sent by name), got {fn!r}")
    return module, qualname


def _resolve(module, qualname):
    mod = sys.modules.get(module)
    if mod is None:
        mod = importlib.import_module(module)
    obj = mod
    for part in qualname.split("."):
        obj = getattr(obj, part)
    if not callable(obj):
        raise TypeError(f"rpc: {module}.{qualname} is not callable")
    return obj


# ---------------------------------------------------------------- the server

class _Handler(socketserver.BaseRequestHandler):
    def handle(self):
        sock = self.request
        try:
            token = _recv_exact(sock, 32)
            if not hmac.compare_digest(token, _state["token"] or b""):
                if os.environ.get("OAR_RPC_DEBUG"):
                    print("rpc: token mismatch", token[:4], (_state["token"] or b"")[:4], file=sys.stderr)
                return  # not from this job: say nothing
            request = _recv_frame(sock)
        except (OSError, ConnectionError, struct.error) as e:
            if os.environ.get("OAR_RPC_DEBUG"):
                print("rpc: bad request", e, file=sys.stderr)
            return
        try:
            module, qualname, args, kwargs = _loads(request)
            result = (True, _resolve(module, qualname)(*args, **kwargs))
        except BaseException as e:  # the caller gets the error
            result = (False, (type(e).__name__, str(e)))
        try:
            payload = _dumps(result)
        except TypeError as e:
            payload = _dumps((False, ("TypeError", str(e))))
        try:
            _send_frame(sock, payload)
        except OSError:
            pass


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


# ---------------------------------------------------------------- the API

def _require():
    if _state["infos"] is None:
        raise RuntimeError("rpc: call oar.distributed.rpc.init_rpc() first")


def _store_wait_count(store, key, target, timeout):
    deadline = time.monotonic() + timeout
    while store.add(key, 0) < target:
        if time.monotonic() > deadline:
            raise RuntimeError(f"rpc: timed out after {timeout:.0f} s waiting for the other workers ({key})")
        time.sleep(0.01)


def init_rpc(name, rank=None, world_size=None, master_endpoint=None):
    """Starts this worker's RPC service and waits for every worker of the job.

    Args:
        name (str): This worker's name (unique in the job).
        rank (int, optional): Default: None (PADDLE_TRAINER_ID).
        world_size (int, optional): Default: None (PADDLE_TRAINERS_NUM).
        master_endpoint (str, optional): "ip:port" of rank 0's store. Default: None
            (PADDLE_MASTER_ENDPOINT).

    Examples:
        >>> import oar.distributed.rpc as rpc
        >>> rpc.init_rpc("worker0", rank=0, world_size=1,
        ...              master_endpoint="127.0.0.1:0")  # doctest: +SKIP
    """
    if _state["infos"] is not None:
        raise RuntimeError("rpc: init_rpc was already called in this process (call shutdown() first)")
    if not isinstance(name, str) or not name:
        raise TypeError(f"init_rpc: name must be a non-empty str, got {name!r}")
    rank = int(os.environ["PADDLE_TRAINER_ID"]) if rank is None else int(rank)
    world_size = int(os.environ["PADDLE_TRAINERS_NUM"]) if world_size is None else int(world_size)
    if world_size < 1 or not 0 <= rank < world_size:
        raise ValueError(f"init_rpc: rank must be in [0, world_size), got rank {rank} and world_size {world_size}")
    if master_endpoint is None:
        master_endpoint = os.environ.get("PADDLE_MASTER_ENDPOINT")
        if master_endpoint is None:
            raise ValueError("init_rpc: give master_endpoint (or set PADDLE_MASTER_ENDPOINT)")
    try:
        master_addr, master_port = master_endpoint.rsplit(":", 1)
        master_port = int(master_port)
    except ValueError:
        raise ValueError(f"init_rpc: master_endpoint must be 'ip:port', got {master_endpoint!r}") from None
    timeout = float(os.getenv("FLAGS_stop_check_timeout", "900"))
    dist = _C._dist
    store = dist.TCPStore(master_addr, master_port, rank == 0, timeout)
    if rank == 0:
        store.set("rpc/token", secrets.token_bytes(32))
    token = bytes(store.get("rpc/token"))
    endpoint = os.getenv("PADDLE_WORKER_ENDPOINT")
    if endpoint:
        ip, port = endpoint.rsplit(":", 1)
        port = int(port)
    else:
        ip = master_addr if master_addr in ("127.0.0.1", "localhost") else socket.gethostbyname(socket.gethostname())
        port = 0
    server = _Server((ip, port), _Handler)
    port = server.server_address[1]
    _state.update(token=token, store=store, server=server, world=world_size,
                  pool=concurrent.futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="oar-rpc"))
    threading.Thread(target=server.serve_forever, name="oar-rpc-server", daemon=True).start()
    store.set(f"rpc/info/{rank}", f"{name}\n{rank}\n{ip}\n{port}".encode())
    infos = []
    for r in range(world_size):
        n, rr, i, p = bytes(store.get(f"rpc/info/{r}")).decode().split("\n")
        infos.append(WorkerInfo(n, int(rr), i, int(p)))
    names = [i.name for i in infos]
    if len(set(names)) != len(names):
        server.shutdown()
        raise ValueError(f"init_rpc: worker names must be unique, got {names}")
    _state["infos"] = infos
    _state["me"] = infos[rank]
    store.add("rpc/started", 1)
    _store_wait_count(store, "rpc/started", world_size, timeout)


def _call(to, fn, args, kwargs, timeout):
    _require()
    info = get_worker_info(to)
    module, qualname = _function_name(fn)
    payload = _dumps((module, qualname, tuple(args or ()), dict(kwargs or {})))
    with socket.create_connection((info.ip, info.port), timeout=None if timeout is None or timeout <= 0 else timeout) \
            as sock:
        sock.sendall(_state["token"])
        _send_frame(sock, payload)
        try:
            answer = _recv_frame(sock)
        except socket.timeout:
            raise RuntimeError(f"rpc: {module}.{qualname} on worker {to!r} did not answer within {timeout} s") from None
    try:
        ok, value = _loads(answer)
    except safe_pickle.UnsafePickleError as e:
        raise TypeError(f"rpc: the answer of {module}.{qualname} on worker {to!r} cannot be received safely "
                        f"({e}); return containers, scalars, strings, arrays or Tensors") from None
    if ok:
        return value
    kind, message = value
    cls = getattr(builtins, kind, None)
    if isinstance(cls, type) and issubclass(cls, Exception):
        raise cls(f"{message} (raised by {module}.{qualname} on worker {to!r})")
    raise RuntimeError(f"{kind}: {message} (raised by {module}.{qualname} on worker {to!r})")


class _FutureWrapper:
    """The result of rpc_async: wait() gives the function's result (or raises its error)."""

    def __init__(self, future):
        self._future = future

    def wait(self):
        return self._future.result()

    def done(self):
        return self._future.done()


def rpc_sync(to, fn, args=None, kwargs=None, timeout=-1):
    """Runs fn(*args, **kwargs) on worker `to` and returns its result (raises its error).

    Args:
        to (str): The worker's name.
        fn (callable): A module-level function (sent by name).
        args (tuple, optional): Default: None.
        kwargs (dict, optional): Default: None.
        timeout (int, optional): Seconds to wait for the answer; -1 (or <= 0): no limit.
            Default: -1.

    Examples:
        >>> import oar.distributed.rpc as rpc
        >>> rpc.rpc_sync("worker1", max, args=(2, 3))  # doctest: +SKIP
        3
    """
    if not isinstance(to, str):
        raise TypeError(f"rpc_sync: to must be a worker name (str), got {type(to).__name__}")
    return _call(to, fn, args, kwargs, timeout)


def rpc_async(to, fn, args=None, kwargs=None, timeout=-1):
    """rpc_sync without waiting: returns a future whose wait() gives the result.

    Args:
        to (str): The worker's name.
        fn (callable): A module-level function.
        args (tuple, optional): Default: None.
        kwargs (dict, optional): Default: None.
        timeout (int, optional): Seconds; -1: no limit. Default: -1.

    Examples:
        >>> import oar.distributed.rpc as rpc
        >>> fut = rpc.rpc_async("worker1", max, args=(2, 3))  # doctest: +SKIP
        >>> fut.wait()  # doctest: +SKIP
        3
    """
    if not isinstance(to, str):
        raise TypeError(f"rpc_async: to must be a worker name (str), got {type(to).__name__}")
    _require()
    _function_name(fn)
    return _FutureWrapper(_state["pool"].submit(_call, to, fn, args, kwargs, timeout))


def shutdown():
    """Waits until every worker has called shutdown, then stops this worker's service.

    Examples:
        >>> import oar.distributed.rpc as rpc
        >>> rpc.shutdown()  # doctest: +SKIP
    """
    _require()
    store, world = _state["store"], _state["world"]
    timeout = float(os.getenv("FLAGS_stop_check_timeout", "900"))
    store.add("rpc/shutdown", 1)
    _store_wait_count(store, "rpc/shutdown", world, timeout)
    _state["server"].shutdown()
    _state["server"].server_close()
    _state["pool"].shutdown(wait=True)
    store.add("rpc/closed", 1)
    if _state["me"].rank == 0:  # the store's server lives until every worker is done with it
        _store_wait_count(store, "rpc/closed", world, timeout)
    _state.update(infos=None, me=None, server=None, store=None, token=None, pool=None, world=0)


def get_worker_info(name):
    """The WorkerInfo of the worker called `name`.

    Examples:
        >>> import oar.distributed.rpc as rpc
        >>> rpc.get_worker_info("worker0")  # doctest: +SKIP
        {name: worker0, rank: 0, ip: 127.0.0.1, port: 8001}
    """
    _require()
    for info in _state["infos"]:
        if info.name == name:
            return info
    raise ValueError(f"rpc: no worker named {name!r} (workers: {[i.name for i in _state['infos']]})")


def get_all_worker_infos():
    """Every worker's WorkerInfo, in rank order.

    Examples:
        >>> import oar.distributed.rpc as rpc
        >>> rpc.get_all_worker_infos()  # doctest: +SKIP
        [{name: worker0, rank: 0, ip: 127.0.0.1, port: 8001}]
    """
    _require()
    return list(_state["infos"])


def get_current_worker_info():
    """This worker's WorkerInfo.

    Examples:
        >>> import oar.distributed.rpc as rpc
        >>> rpc.get_current_worker_info()  # doctest: +SKIP
        {name: worker0, rank: 0, ip: 127.0.0.1, port: 8001}
    """
    _require()
    return _state["me"]
