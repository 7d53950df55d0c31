"""The job starter: ``python -m oar.distributed.launch [options] training_script [script args]``,
as ``python -m paddle.distributed.launch`` (collective mode).

It starts ``--nproc_per_node`` processes of the script on this machine (a "node"), gives each the
PADDLE_* environment that Paddle's launcher gives, writes each one's stdout and stderr to
``LOG_DIR/workerlog.N`` (N: its local rank) and echoes local rank 0's log on its own stdout. When a
rank exits with a non-zero status, the launcher stops the others (SIGTERM to each rank's process
group, SIGKILL after a grace period), prints which rank failed, its exit status and its log, and exits
with that status. SIGINT, SIGTERM or SIGHUP to the launcher stop every rank the same way (the launcher
then exits with 128 + the signal number); a second signal skips the grace period. Each rank runs in
its own session (process group), so that its own children are stopped with it. If the launcher itself
dies without stopping them (SIGKILL, crash), the kernel kills the ranks (Linux: PR_SET_PDEATHSIG) and a
small helper process of the launcher's (it reads a pipe from the launcher) kills their process groups.

Options (Paddle's names): ``--nproc_per_node N`` (default: the number of ``--devices``, else 1),
``--nnodes M`` (default 1), ``--master ADDR:PORT``, ``--rank R`` (this node's rank among nodes),
``--log_dir DIR`` (default ``log``; ``""``: ranks write to the launcher's stdout and stderr),
``--log_level``, ``--log_overwrite`` (default: append, as Paddle), ``--job_id`` (default ``default``;
nodes of one job must agree on it), ``--devices``/``--gpus``/``--xpus``/``--npus`` (a comma list,
one per rank: sets FLAGS_selected_gpus), ``--host IP`` (this node's address), ``--ips``/
``--start_port`` (static endpoints, below), ``--run_mode collective``. Any other option before the
script is an error; options after the script are the script's. Paddle's environment variables
PADDLE_NNODES, PADDLE_MASTER, PADDLE_RANK, PADDLE_NPROC_PER_NODE, PADDLE_LOG_DIR, PADDLE_JOB_ID,
PADDLE_DEVICES and POD_IP give defaults for the matching options (an option given on the command line
wins; Paddle lets the variable win); they are ignored inside a rank started by a launcher (where
PADDLE_TRAINER_ID is set), whose PADDLE_* describe the outer job.

The environment of each rank (all values strings), on top of the launcher's own:
  PADDLE_TRAINER_ID, PADDLE_GLOBAL_RANK   global rank: the sum of the ranks of the nodes before this
                                          one (node_rank * nproc_per_node when all nodes run as many)
                                          plus the local rank
  PADDLE_TRAINERS_NUM, PADDLE_GLOBAL_SIZE world size
  PADDLE_LOCAL_RANK, PADDLE_RANK_IN_NODE  local rank (0 .. PADDLE_LOCAL_SIZE - 1)
  PADDLE_LOCAL_SIZE                       ranks on this node
  PADDLE_NNODES                           number of nodes
  PADDLE_TRAINER_ENDPOINTS                "ip:port,ip:port,...", one per global rank, in rank order
  PADDLE_CURRENT_ENDPOINT                 this rank's entry of that list
  PADDLE_MASTER                           "ip:port" of the TCP store that global rank 0 serves
                                          (what init_parallel_env connects to)
  PADDLE_LOG_DIR                          the absolute log directory (when there is one)
  POD_NAME                                a random name of this node's launcher
  PADDLE_AUTO_CLUSTER=0                   as Paddle (its auto-parallel cluster option, off)
  PADDLE_DISTRI_BACKEND=gloo              when no --devices are given (Paddle's CPU jobs); with
  FLAGS_selected_gpus=<device>            --devices, the device of this rank instead (Paddle's
                                          device jobs: one device per rank, its index among
                                          CUDA_VISIBLE_DEVICES; all of them for a one-rank node)
LOG_DIR/envlog.N lists the variables the launcher set for local rank N.

Single node (``--nnodes 1``): endpoints are free ports of 127.0.0.1 (of ``--host`` if given), and
PADDLE_MASTER is ``--master`` when given (its address must be this machine's), else 127.0.0.1 with
a free port. The ports are held (bound) together while they are chosen, so that they are distinct.

Several nodes (``--nnodes M`` > 1) agree through a rendezvous: a small TCP service (JSON lines)
served at ``--master ADDR:PORT`` by the launcher that manages to bind and listen on that address (one
launcher of the master's machine; a launcher on another machine cannot bind it). A launcher tries the
master address before it chooses any other port, so no endpoint can take it. Every launcher (the
serving one included) sends its node rank (``--rank``, or -1: assigned in arrival order, the serving launcher first, as
Paddle does), its number of ranks, its address and, held bound while the rendezvous lasts, a free
port per rank (its endpoints) and one more (a store candidate). When M launchers have joined, each
receives the list of nodes in rank order; global ranks, PADDLE_TRAINER_ENDPOINTS (the nodes' endpoint
lists concatenated in node order) and PADDLE_MASTER (node 0's store candidate: a port of node 0,
not ``--master``, whose port the rendezvous keeps, as in Paddle) follow from it identically on every
node. Several launchers on one machine (``--master 127.0.0.1:PORT``, emulated nodes) get distinct
ports because all of them hold their ports while the rendezvous lasts. A node's address is
``--host``, else 127.0.0.1 when the master is a loopback address, else the local address through
which this machine reaches the master. The connections stay open while the job runs: a launcher
reports how its ranks ended; when a node fails (a rank exits non-zero, its launcher is stopped, or
its connection drops), the serving launcher tells the others to stop their ranks, and all exit
non-zero. The serving launcher exits when every node has finished. Launchers keep trying to reach the
rendezvous for OAR_LAUNCH_RDZV_TIMEOUT seconds (default 600).

Static endpoints (Paddle's ``--ips IP1,IP2 --start_port P`` without ``--master``): node i's ranks get
``IPi:P``, ``IPi:P+1``, ...; PADDLE_MASTER is the first endpoint; the node rank is ``--rank``, else the
position of this machine's address in the list. No connection between launchers: a failure on one
node is not seen by the others.

Slurm: started by ``srun`` (SLURM_PROCID, SLURM_NTASKS and one of SLURM_STEP_ID, SLURM_STEPID,
SLURM_STEP_NUM_TASKS set: a batch script has the first two but is not a step) with none of
``--nnodes``, ``--rank``, ``--master`` given (by option or PADDLE_* variable), each srun task is one
launcher ("node") of the rendezvous:
  number of launchers = SLURM_STEP_NUM_TASKS, else SLURM_NTASKS
  launcher rank       = SLURM_PROCID
  PADDLE_NNODES       = SLURM_STEP_NUM_NODES, else SLURM_NNODES (machines)
  master address      = the first host of SLURM_STEP_NODELIST (else SLURM_JOB_NODELIST, else
                        SLURM_NODELIST; Slurm's hostlist syntax, e.g. node[01-04,07]), else
                        SLURM_LAUNCH_NODE_IPADDR
  master port         = 20000 + (SLURM_JOB_ID * 64 + SLURM_STEP_ID) % 20000 (the same in every task)
With several tasks on one machine (SLURM_STEP_TASKS_PER_NODE, else SLURM_TASKS_PER_NODE, entry
SLURM_NODEID, e.g. "2(x3),1"), the ranks of task SLURM_LOCALID on that machine get local ranks from
SLURM_LOCALID * nproc_per_node, and PADDLE_LOCAL_SIZE counts the machine's tasks (logs
workerlog.<local rank> do not collide). One srun task gives a single-node job.

The grace period between SIGTERM and SIGKILL is OAR_LAUNCH_GRACE_PERIOD seconds (default 3, Paddle's
failure path).
"""
from __future__ import annotations

import argparse
import errno
import json
import logging
import os
import random
import signal
import socket
import string
import subprocess
import sys
import threading
import time

__all__ = ["launch"]

_PROG = "python -m oar.distributed.launch"
_MAGIC = "oar-launch-rendezvous/1"
_DEFAULT_GRACE = 3.0
_DEFAULT_RDZV_TIMEOUT = 600.0
_TAIL_BYTES = 3000

# Paddle's variables that give defaults for options (context/args_envs.py).
_ENV_DEFAULTS = {
    "PADDLE_NNODES": "nnodes", "PADDLE_MASTER": "master", "PADDLE_RANK": "rank",
    "PADDLE_NPROC_PER_NODE": "nproc_per_node", "PADDLE_LOG_DIR": "log_dir", "PADDLE_JOB_ID": "job_id",
    "PADDLE_DEVICES": "devices", "POD_IP": "host",
}

_log = logging.getLogger("LAUNCH")


class LaunchError(Exception):
    """A launch that cannot go on (bad configuration, a rendezvous that failed): printed, exit 1."""


class _Stopped(Exception):
    """The launcher got a signal while it waited (rendezvous)."""


# ----------------------------------------------------------------------------------------------
# Options


def _strtobool(text):
    value = str(text).strip().lower()
    if value in ("1", "true", "t", "yes", "y", "on"):
        return True
    if value in ("0", "false", "f", "no", "n", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected a boolean (true/false, 1/0), got {text!r}")


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n(`{self.prog} --help` lists the options; the "
                     "script's own options go after the script)\n")


def _parser():
    p = _Parser(prog=_PROG,
                description="Start a collective job: --nproc_per_node processes of the training script "
                            "on this node, with Paddle's PADDLE_* environment.")
    p.add_argument("--master", type=str, default=None,
                   help="ADDR:PORT. One node: the store of global rank 0 (default 127.0.0.1 and a free "
                        "port). Several nodes: the rendezvous, served by the launcher on ADDR")
    p.add_argument("--rank", type=int, default=None,
                   help="this node's rank among the nodes (default: 0 for one node; assigned at the "
                        "rendezvous in arrival order for several)")
    p.add_argument("--nnodes", type=str, default=None, help="number of nodes (default 1)")
    p.add_argument("--nproc_per_node", type=int, default=None,
                   help="processes on this node (default: the number of --devices, else 1)")
    p.add_argument("--log_dir", type=str, default=None,
                   help="directory of the ranks' logs workerlog.N (default ./log; '' for none)")
    p.add_argument("--log_level", type=str, default="INFO", help="the launcher's log level (default INFO)")
    p.add_argument("--log_overwrite", type=_strtobool, default=False,
                   help="overwrite existing logs instead of appending (default false)")
    p.add_argument("--job_id", type=str, default=None, help="the job's name (default 'default')")
    p.add_argument("--devices", "--gpus", "--xpus", "--npus", dest="devices", type=str, default=None,
                   help="comma list of devices, one per rank (sets FLAGS_selected_gpus)")
    p.add_argument("--host", type=str, default=None, help="this node's IP address")
    p.add_argument("--ips", type=str, default=None,
                   help="comma list of the nodes' IPs: static endpoints from --start_port (no --master)")
    p.add_argument("--start_port", type=int, default=6070, help="first port of static endpoints (default 6070)")
    p.add_argument("--run_mode", type=str, default=None, help="only 'collective' is supported")
    p.add_argument("training_script", type=str,
                   help="the script (a .py file runs with this Python), followed by its arguments")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def _parse(argv):
    parser = _parser()
    args = parser.parse_args(argv)
    explicit = {k for k in ("master", "rank", "nnodes", "nproc_per_node", "log_dir", "job_id", "devices", "host")
                if getattr(args, k) is not None}
    args.env_defaults = {}
    if "PADDLE_TRAINER_ID" not in os.environ:
        for var, key in _ENV_DEFAULTS.items():
            value = os.environ.get(var)
            if value is not None and key not in explicit:
                args.env_defaults[key] = var
                if key in ("rank", "nproc_per_node"):
                    try:
                        value = int(value)
                    except ValueError:
                        parser.error(f"{var}={value!r} is not an integer")
                setattr(args, key, value)
    args.explicit_world = {k for k in ("master", "rank", "nnodes") if getattr(args, k) is not None}

    def opt(key):  # how the user gave it
        return args.env_defaults[key] if key in args.env_defaults else f"--{key}"

    if args.log_dir is None:
        args.log_dir = "log"
    if args.job_id is None:
        args.job_id = "default"

    nnodes = args.nnodes if args.nnodes is not None else "1"
    if ":" in str(nnodes):
        parser.error(f"{opt('nnodes')} {nnodes}: elastic ranges (MIN:MAX) are not supported; give one number")
    try:
        args.nnodes = int(nnodes)
    except ValueError:
        parser.error(f"{opt('nnodes')} expects a number of nodes, got {nnodes!r}")
    if args.nnodes < 1:
        parser.error(f"{opt('nnodes')} must be at least 1, got {args.nnodes}")
    if args.rank is not None and not 0 <= args.rank < args.nnodes and not args.ips:
        parser.error(f"{opt('rank')} {args.rank} is not a node rank of a job of --nnodes {args.nnodes} "
                     f"(0..{args.nnodes - 1})")
    if args.devices is not None:
        args.devices = [d.strip() for d in str(args.devices).split(",") if d.strip()]
        if not args.devices:
            parser.error("--devices is empty")
    if args.nproc_per_node is None:
        args.nproc_per_node = len(args.devices) if args.devices else 1
    if args.nproc_per_node < 1:
        parser.error(f"{opt('nproc_per_node')} must be at least 1, got {args.nproc_per_node}")
    if args.devices and args.nproc_per_node > 1 and len(args.devices) not in (1, args.nproc_per_node):
        parser.error(f"--devices lists {len(args.devices)} devices for --nproc_per_node {args.nproc_per_node} "
                     "ranks: give one device per rank (or one for all)")
    if args.run_mode not in (None, "collective"):
        parser.error(f"--run_mode {args.run_mode}: only 'collective' is supported")
    if args.master is not None:
        if str(args.master).startswith("etcd://"):
            parser.error(f"{opt('master')} {args.master}: etcd masters (elastic jobs) are not supported; "
                         "give ADDR:PORT")
        try:
            args.master = _split_addr(args.master)
        except ValueError as e:
            parser.error(f"{opt('master')}: {e}")
    if args.training_script.endswith(".py") and not os.path.isfile(args.training_script):
        parser.error(f"training script {args.training_script!r} not found")
    if args.log_level.upper() not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
        parser.error(f"--log_level {args.log_level}: expected DEBUG, INFO, WARNING or ERROR")
    return parser, args


def _split_addr(text):
    """'host:port' -> (host, port)."""
    host, sep, port = str(text).strip().rpartition(":")
    if not sep or not host:
        raise ValueError(f"expected ADDR:PORT, got {text!r}")
    try:
        port = int(port)
    except ValueError:
        raise ValueError(f"expected ADDR:PORT with a numeric port, got {text!r}") from None
    if not 0 < port < 65536:
        raise ValueError(f"port {port} out of range in {text!r}")
    return host, port


def _resolve(host):
    try:
        return socket.gethostbyname(host)
    except OSError as e:
        raise LaunchError(f"cannot resolve the address {host!r}: {e}") from None


# ----------------------------------------------------------------------------------------------
# Slurm


def _expand_hostlist(text):
    """Slurm's hostlist syntax ('node[01-03,07],gpu5') -> ['node01', 'node02', 'node03', 'node07', 'gpu5']."""
    items, depth, cur = [], 0, ""
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    items.append(cur)
    hosts = []
    for item in items:
        item = item.strip()
        if item:
            hosts.extend(_expand_one(item))
    return hosts


def _expand_one(item):
    start = item.find("[")
    if start < 0:
        return [item]
    end = item.find("]", start)
    if end < 0:
        raise ValueError(f"unbalanced '[' in the hostlist {item!r}")
    prefix, body, rest = item[:start], item[start + 1:end], item[end + 1:]
    values = []
    for part in body.split(","):
        lo, sep, hi = part.partition("-")
        if sep:
            width = len(lo)
            values.extend(str(n).zfill(width) for n in range(int(lo), int(hi) + 1))
        else:
            values.append(part)
    return [prefix + v + tail for v in values for tail in _expand_one(rest)]


def _expand_counts(text):
    """Slurm's task counts ('2(x3),1') -> [2, 2, 2, 1]."""
    counts = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if "(x" in part:
            n, _, times = part.partition("(x")
            counts.extend([int(n)] * int(times.rstrip(")")))
        else:
            counts.append(int(part))
    return counts


def _env_int(env, *names, default=0):
    for name in names:
        value = env.get(name)
        if value:
            try:
                return int(value)
            except ValueError:
                raise LaunchError(f"Slurm variable {name}={value!r} is not an integer") from None
    return default


def _slurm_port(env):
    job = _env_int(env, "SLURM_JOB_ID", "SLURM_JOBID")
    step = env.get("SLURM_STEP_ID") or env.get("SLURM_STEPID") or "0"
    step = int(step) if step.isdigit() else sum(step.encode())  # a named step ('batch', 'extern')
    return 20000 + (job * 64 + step) % 20000


def _slurm_world(env):
    """The world of a launcher started by srun, from the environment: a dict (nnodes, rank, master,
    machines, local_index, tasks_here), or None outside an srun step."""
    if "SLURM_PROCID" not in env or "SLURM_NTASKS" not in env:
        return None
    if not any(k in env for k in ("SLURM_STEP_ID", "SLURM_STEPID", "SLURM_STEP_NUM_TASKS")):
        return None  # a batch script: SLURM_PROCID=0 but no step
    ntasks = _env_int(env, "SLURM_STEP_NUM_TASKS", "SLURM_NTASKS", default=1)
    procid = _env_int(env, "SLURM_PROCID")
    machines = _env_int(env, "SLURM_STEP_NUM_NODES", "SLURM_NNODES", default=1)
    nodeid = _env_int(env, "SLURM_NODEID")
    localid = _env_int(env, "SLURM_LOCALID")
    if not 0 <= procid < ntasks:
        raise LaunchError(f"SLURM_PROCID={procid} is not a task of the {ntasks} of this step")
    counts_text = env.get("SLURM_STEP_TASKS_PER_NODE") or env.get("SLURM_TASKS_PER_NODE") or ""
    try:
        counts = _expand_counts(counts_text)
    except ValueError:
        counts = []
    if nodeid < len(counts):
        tasks_here = counts[nodeid]
    else:
        tasks_here = max(1, -(-ntasks // max(machines, 1)))
    tasks_here = max(tasks_here, localid + 1)
    nodelist = env.get("SLURM_STEP_NODELIST") or env.get("SLURM_JOB_NODELIST") or env.get("SLURM_NODELIST")
    host = None
    if nodelist:
        try:
            hosts = _expand_hostlist(nodelist)
        except ValueError as e:
            raise LaunchError(f"cannot read the Slurm node list {nodelist!r}: {e}; give --master") from None
        host = hosts[0] if hosts else None
    host = host or env.get("SLURM_LAUNCH_NODE_IPADDR")
    if ntasks > 1 and not host:
        raise LaunchError("under srun with several tasks, but neither SLURM_STEP_NODELIST, SLURM_JOB_NODELIST, "
                          "SLURM_NODELIST nor SLURM_LAUNCH_NODE_IPADDR names the master node: give --master")
    return {
        "nnodes": ntasks, "rank": procid, "master": (host, _slurm_port(env)) if ntasks > 1 else None,
        "machines": machines, "local_index": localid if ntasks > machines else 0,
        "tasks_here": tasks_here if ntasks > machines else 1,
    }


# ----------------------------------------------------------------------------------------------
# Addresses and ports


def _is_loopback(ip):
    return ip.startswith("127.")


def _route_ip(master_ip):
    """The local address through which this machine reaches master_ip."""
    if _is_loopback(master_ip):
        return "127.0.0.1"
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((master_ip, 9))
            return s.getsockname()[0]
    except OSError:
        try:
            return socket.gethostbyname(socket.getfqdn())
        except OSError:
            return "127.0.0.1"


def _is_local_ip(ip):
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind((ip, 0))
        return True
    except OSError:
        return False


def _hold_master(ip, port, what):
    """A socket bound to the store address ip:port (which rank 0 will serve), held while the other ports
    are chosen; a clear error when the address is not this machine's or someone listens there."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind((ip, port))
    except OSError as e:
        s.close()
        if e.errno == errno.EADDRINUSE:
            raise LaunchError(f"{what} {ip}:{port}: the port is in use; rank 0 serves its store there") from None
        raise LaunchError(f"{what} {ip}:{port}: rank 0 serves its store there, so it must be an address of "
                          f"this machine ({e.strerror})") from None
    return s


def _reserve_ports(ip, n):
    """n distinct free TCP ports of ip, held bound (not listening) until the sockets are closed."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            socks.append(s)
            try:
                s.bind((ip, 0))
            except OSError:
                s.bind(("", 0))  # ip is not an address of this machine: any free port
        return [s.getsockname()[1] for s in socks], socks
    except BaseException:
        _close_all(socks)
        raise


def _close_all(socks):
    for s in socks:
        try:
            s.close()
        except OSError:
            pass


# ----------------------------------------------------------------------------------------------
# The rendezvous (several nodes)


class _Conn:
    """JSON lines over a socket."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""
        self.wlock = threading.Lock()

    def send(self, obj):
        data = (json.dumps(obj) + "\n").encode()
        with self.wlock:
            self.sock.sendall(data)

    def recv(self, timeout=None):
        """The next message; None at end of stream; socket.timeout when nothing came in time."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self.buf:
            if deadline is None:
                self.sock.settimeout(None)
            else:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise socket.timeout("timed out")
                self.sock.settimeout(left)
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buf += chunk
            if len(self.buf) > (1 << 24):
                raise ValueError("message too long")
        line, _, self.buf = self.buf.partition(b"\n")
        return json.loads(line.decode())

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            self.sock.close()
        except OSError:
            pass


def _assign_ranks(entries, nnodes):
    """Give every entry a node rank (explicit ones kept, -1 filled in arrival order, the local one
    first); returns an error text or None."""
    taken = {}
    for e in entries:
        r = e["info"]["rank"]
        if r >= 0:
            if r in taken:
                return (f"node rank {r} was given by two launchers ({taken[r]['info']['ip']} and "
                        f"{e['info']['ip']}): give each node its own --rank")
            taken[r] = e
            e["rank"] = r
    free = sorted(set(range(nnodes)) - set(taken))
    auto = sorted((e for e in entries if e["info"]["rank"] < 0), key=lambda e: (not e["local"], e["order"]))
    for e, r in zip(auto, free):
        e["rank"] = r
    pods = sorted((dict(e["info"], rank=e["rank"]) for e in entries), key=lambda p: p["rank"])
    seen = {}
    for p in pods:
        for ep in p["endpoints"] + [p["store"]]:
            if ep in seen and seen[ep] != p["rank"]:
                return f"nodes {seen[ep]} and {p['rank']} chose the same endpoint {ep}"
            seen[ep] = p["rank"]
    return None


class _RdzvServer:
    """The rendezvous at the master address, served by one launcher in threads."""

    def __init__(self, lsock, nnodes, job_id):
        self.nnodes = nnodes
        self.job_id = job_id
        self.lsock = lsock
        self.cv = threading.Condition()
        self.entries = []
        self.pods = None
        self.error = None
        self.status = {}  # node rank -> (ok: bool, detail)
        self.closed = False
        threading.Thread(target=self._accept, name="oar-rdzv-accept", daemon=True).start()

    def _accept(self):
        while True:
            try:
                sock, addr = self.lsock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(sock, addr), name="oar-rdzv-peer", daemon=True).start()

    def _check(self, hello):
        if hello.get("job_id") != self.job_id:
            return (f"job id mismatch: this rendezvous is for --job_id {self.job_id!r}, the launcher says "
                    f"{hello.get('job_id')!r}")
        if hello.get("nnodes") != self.nnodes:
            return (f"--nnodes mismatch: this rendezvous waits for {self.nnodes} nodes, the launcher says "
                    f"{hello.get('nnodes')}")
        rank = hello["node"].get("rank", -1)
        if rank >= self.nnodes:
            return f"node rank {rank} out of range for {self.nnodes} nodes"
        return None

    def _add(self, entry):
        """Under self.cv."""
        if self.pods is not None or self.error is not None:
            return "the rendezvous is already complete (more launchers than --nnodes?)"
        entry["order"] = len(self.entries)
        self.entries.append(entry)
        if len(self.entries) == self.nnodes:
            err = _assign_ranks(self.entries, self.nnodes)
            if err:
                self.error = err
            else:
                self.pods = sorted((dict(e["info"], rank=e["rank"]) for e in self.entries), key=lambda p: p["rank"])
        self.cv.notify_all()
        return None

    def _serve(self, sock, addr):
        conn = _Conn(sock)
        try:
            hello = conn.recv(timeout=30)
        except (OSError, ValueError):
            conn.close()
            return
        if not isinstance(hello, dict) or hello.get("magic") != _MAGIC or not isinstance(hello.get("node"), dict):
            conn.close()
            return
        try:
            err = self._check(hello)
            if err:
                conn.send({"error": err})
                conn.close()
                return
            conn.send({"ack": True})
            entry = {"info": hello["node"], "conn": conn, "local": False}
            with self.cv:
                err = self._add(entry)
                while err is None and self.pods is None and self.error is None and not self.closed:
                    self.cv.wait(0.5)
                err = err or self.error or ("the rendezvous was closed" if self.pods is None else None)
            if err:
                conn.send({"error": err})
                conn.close()
                return
            conn.send({"pods": self.pods, "rank": entry["rank"]})
        except OSError:
            conn.close()
            return
        rank = entry["rank"]
        while True:
            try:
                msg = conn.recv()
            except (OSError, ValueError):
                msg = None
            with self.cv:
                if msg is None:
                    if rank not in self.status and not self.closed:
                        self.status[rank] = (False, f"lost the connection to the launcher of node {rank} "
                                                    f"({entry['info']['ip']})")
                    self.cv.notify_all()
                    conn.close()
                    return
                if "done" in msg:
                    code = int(msg["done"])
                    self.status[rank] = (code == 0, msg.get("detail") or f"node {rank} exited with code {code}")
                    self.cv.notify_all()

    def join(self, info, deadline, stopping):
        """The serving launcher's own registration; returns (node rank, pods)."""
        entry = {"info": info, "conn": None, "local": True}
        with self.cv:
            err = self._add(entry)
            if err:
                raise LaunchError(err)
            while self.pods is None and self.error is None:
                if stopping():
                    self.error = "the launcher serving the rendezvous was stopped"
                    self.cv.notify_all()
                    raise _Stopped()
                if time.monotonic() > deadline:
                    joined = ", ".join(f"{e['info']['ip']} (rank {e['info']['rank']})" for e in self.entries)
                    self.error = (f"rendezvous timed out: {len(self.entries)} of {self.nnodes} nodes joined "
                                  f"({joined})")
                    self.cv.notify_all()
                    break
                self.cv.wait(0.2)
            if self.error:
                raise LaunchError(self.error)
            return entry["rank"], self.pods

    def peer_failure(self):
        with self.cv:
            for rank in sorted(self.status):
                ok, detail = self.status[rank]
                if not ok:
                    return detail
        return None

    def peers_done(self, own_rank):
        with self.cv:
            return all(r in self.status for r in range(self.nnodes) if r != own_rank)

    def abort(self, reason):
        with self.cv:
            conns = [e["conn"] for e in self.entries if e["conn"] is not None and e.get("rank") not in self.status]
        for conn in conns:
            try:
                conn.send({"abort": reason})
            except OSError:
                pass

    def close(self):
        with self.cv:
            self.closed = True
            conns = [e["conn"] for e in self.entries if e["conn"] is not None]
            self.cv.notify_all()
        try:
            self.lsock.close()
        except OSError:
            pass
        for conn in conns:
            conn.close()


class _TakeOverRendezvous(Exception):
    """Raised by a client that found nobody serving and could bind the master address itself."""

    def __init__(self, sock):
        super().__init__("serving the rendezvous")
        self.sock = sock


def _listen_on(ip, port):
    """A socket listening on (ip, port), or None when another launcher (or any socket) holds it."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((ip, port))
        sock.listen(128)  # with SO_REUSEADDR two launchers can bind; only one can listen
        return sock
    except OSError:
        sock.close()
        return None


class _RdzvClient:
    """A launcher that joins the rendezvous served elsewhere. While nobody answers, it tries to
    serve the rendezvous itself: the master port may have been held for a moment by another socket
    (an outgoing connection's ephemeral port) when every launcher tried it, leaving none serving."""

    def __init__(self, host, port, hello, deadline, stopping):
        self.addr = f"{host}:{port}"
        self.aborted = None
        self.finished = False
        warned = time.monotonic()
        while True:
            try:
                sock = socket.create_connection((host, port), timeout=2.0)
                break
            except OSError as e:
                if stopping():
                    raise _Stopped() from None
                if isinstance(e, ConnectionRefusedError):
                    lsock = _listen_on(host, port)
                    if lsock is not None:
                        raise _TakeOverRendezvous(lsock) from None
                if time.monotonic() > deadline:
                    raise LaunchError(f"cannot reach the rendezvous at {self.addr}: {e}; is the launcher "
                                      "of the master node running (same --master and --nnodes)?") from None
                if time.monotonic() - warned > 10:
                    _log.warning(f"waiting for the rendezvous at {self.addr} ...")
                    warned = time.monotonic()
                time.sleep(0.2)
        self.conn = _Conn(sock)
        try:
            self.conn.send(hello)
            msg = self.conn.recv(timeout=30)
        except (OSError, ValueError) as e:
            self.conn.close()
            raise LaunchError(f"{self.addr} does not answer as an oar launcher rendezvous: {e}") from None
        if isinstance(msg, dict) and "error" in msg:
            self.conn.close()
            raise LaunchError(f"rendezvous at {self.addr}: {msg['error']}")
        if not (isinstance(msg, dict) and msg.get("ack")):
            self.conn.close()
            raise LaunchError(f"{self.addr} does not answer as an oar launcher rendezvous (is the port used by "
                              "something else?)")
        while True:
            if stopping():
                self.conn.close()
                raise _Stopped()
            if time.monotonic() > deadline:
                self.conn.close()
                raise LaunchError(f"rendezvous at {self.addr} timed out waiting for the other nodes")
            try:
                msg = self.conn.recv(timeout=0.2)
            except socket.timeout:
                continue
            except (OSError, ValueError) as e:
                self.conn.close()
                raise LaunchError(f"rendezvous at {self.addr} failed: {e}") from None
            if msg is None:
                self.conn.close()
                raise LaunchError(f"the rendezvous at {self.addr} closed the connection before all nodes joined")
            if "error" in msg:
                self.conn.close()
                raise LaunchError(f"rendezvous at {self.addr}: {msg['error']}")
            if "pods" in msg:
                self.rank, self.pods = int(msg["rank"]), msg["pods"]
                break
        threading.Thread(target=self._watch, name="oar-rdzv-watch", daemon=True).start()

    def _watch(self):
        while True:
            try:
                msg = self.conn.recv()
            except (OSError, ValueError):
                msg = None
            if msg is None:
                if not self.finished and self.aborted is None:
                    self.aborted = f"lost the connection to the rendezvous at {self.addr} (the master node's launcher)"
                return
            if "abort" in msg:
                self.aborted = str(msg["abort"])

    def report(self, code, detail):
        self.finished = True
        try:
            self.conn.send({"done": int(code), "detail": detail})
        except OSError:
            pass
        self.conn.close()


# ----------------------------------------------------------------------------------------------
# Ranks


def _pdeathsig_setup():
    """preexec_fn of a rank: the kernel kills it when the launcher dies (Linux)."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def setup():
        prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the launcher died before prctl
            os.kill(os.getpid(), signal.SIGKILL)
    return setup


def _group_members(pgid):
    """Live (not zombie) processes of process group pgid."""
    members = []
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        try:
            os.killpg(pgid, 0)
            return [pgid]
        except OSError:
            return []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read().decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 2 and fields[0] != "Z" and fields[0] != "X" and int(fields[2]) == pgid:
            members.append(int(pid))
    return members


class _Rank:
    def __init__(self, local_rank, global_rank, cmd, env, log_path, overwrite):
        self.local_rank = local_rank
        self.global_rank = global_rank
        self.cmd = cmd
        self.env = env
        self.log_path = log_path
        self.overwrite = overwrite
        self.proc = None
        self.code = None

    def start(self, preexec):
        out = None
        if self.log_path:
            out = open(self.log_path, "wb" if self.overwrite else "ab")
        try:
            self.proc = subprocess.Popen(self.cmd, env=self.env, stdout=out, stderr=subprocess.STDOUT if out else None,
                                         stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=preexec)
        finally:
            if out is not None:
                out.close()

    def poll(self):
        if self.proc is not None and self.code is None:
            self.code = self.proc.poll()
        return self.code

    def signal_group(self, sig):
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def group_alive(self):
        if self.proc is None:
            return False
        self.poll()
        return bool(_group_members(self.proc.pid))

    def describe(self):
        code = self.code
        what = f"exited with code {code}"
        if code is not None and code < 0:
            try:
                what = f"was killed by signal {signal.Signals(-code).name}"
            except ValueError:
                what = f"was killed by signal {-code}"
        where = f"; log: {self.log_path}" if self.log_path else ""
        return f"rank {self.global_rank} (local rank {self.local_rank}, pid {self.proc.pid}) {what}{where}"


# Kills the ranks' process groups if the launcher dies without saying "done" (SIGKILL, crash): the
# kernel's PDEATHSIG kills the ranks themselves, this kills what they started. Its own session: a
# Ctrl-C at the terminal does not reach it; it only reads its stdin.
_REAPER_CODE = r"""
import os, signal, sys
groups = set()
for line in sys.stdin:
    word = line.split()
    if word == ["done"]:
        sys.exit(0)
    if len(word) == 2 and word[0] in ("+", "-") and word[1].isdigit():
        (groups.add if word[0] == "+" else groups.discard)(int(word[1]))
for g in groups:
    try:
        os.killpg(g, signal.SIGKILL)
    except OSError:
        pass
"""


class _Reaper:
    def __init__(self):
        try:
            self.proc = subprocess.Popen([sys.executable, "-I", "-c", _REAPER_CODE], stdin=subprocess.PIPE,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                         start_new_session=True, text=True)
        except OSError:
            self.proc = None

    def _say(self, text):
        if self.proc is not None:
            try:
                self.proc.stdin.write(text + "\n")
                self.proc.stdin.flush()
            except (OSError, ValueError):
                pass

    def add(self, pgid):
        self._say(f"+ {pgid}")

    def remove(self, pgid):
        self._say(f"- {pgid}")

    def done(self):
        if self.proc is not None:
            self._say("done")
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None


class _Echo:
    """Copies new bytes of a log file to the launcher's stdout."""

    def __init__(self, path, offset):
        self.f = open(path, "rb")
        self.f.seek(offset)

    def pump(self):
        data = self.f.read()
        if data:
            out = getattr(sys.stdout, "buffer", None)
            try:
                if out is not None:
                    sys.stdout.flush()
                    out.write(data)
                    out.flush()
                else:
                    sys.stdout.write(data.decode(errors="replace"))
                    sys.stdout.flush()
            except (OSError, ValueError):
                pass

    def close(self):
        self.pump()
        self.f.close()


def _tail(path, limit=_TAIL_BYTES):
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - limit))
            return f.read().decode(errors="replace")
    except OSError:
        return ""


class _Signals:
    """SIGINT, SIGTERM, SIGHUP: remembered; the main loop stops the ranks."""

    def __init__(self):
        self.signum = None
        self.count = 0
        self.saved = {}

    def install(self):
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            self.saved[sig] = signal.signal(sig, self._handle)

    def _handle(self, signum, frame):
        self.count += 1
        if self.signum is None:
            self.signum = signum

    def restore(self):
        for sig, handler in self.saved.items():
            signal.signal(sig, handler)
        self.saved = {}


def _stop_ranks(ranks, sig, grace, signals):
    """SIGTERM (sig) to every rank's process group, SIGKILL to what is left after the grace period."""
    for r in ranks:
        r.poll()
        if r.group_alive():
            r.signal_group(sig)
    deadline = time.monotonic() + grace
    first_count = signals.count
    while time.monotonic() < deadline and signals.count == first_count:
        if not any(r.group_alive() for r in ranks):
            break
        time.sleep(0.05)
    for r in ranks:
        if r.group_alive():
            _log.warning(f"rank {r.global_rank} still running after {grace:g}s: SIGKILL")
            r.signal_group(signal.SIGKILL)
    for r in ranks:
        if r.proc is not None:
            try:
                r.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            r.poll()


def _exit_status(code):
    if code is None:
        return 1
    if code < 0:
        return 128 + (-code)
    return code if 0 < code < 256 else 1


def _run_ranks(ranks, echo, peer_check, signals, grace):
    """Start the ranks and watch them: returns (exit status, detail of the failure or None)."""
    preexec = _pdeathsig_setup()
    reaper = _Reaper()
    try:
        try:
            for r in ranks:
                if signals.signum is not None:
                    break
                r.start(preexec)
                reaper.add(r.proc.pid)
        except OSError as e:
            _stop_ranks([r for r in ranks if r.proc is not None], signal.SIGTERM, grace, signals)
            raise LaunchError(f"cannot start the training script: {e}") from None
        return _watch_ranks(ranks, echo, peer_check, signals, grace, reaper)
    except BaseException:
        _stop_ranks([r for r in ranks if r.proc is not None], signal.SIGTERM, grace, signals)
        raise
    finally:
        reaper.done()
        if echo:
            echo.close()


def _watch_ranks(ranks, echo, peer_check, signals, grace, reaper):
    gone = set()
    while True:
        if echo:
            echo.pump()
        if signals.signum is not None:
            name = signal.Signals(signals.signum).name
            _log.info(f"received {name}: stopping {len(ranks)} rank(s)")
            _stop_ranks(ranks, signal.SIGTERM, grace, signals)
            return 128 + signals.signum, f"the launcher of this node received {name}"
        for r in ranks:
            if r.poll() is not None and r.global_rank not in gone and not r.group_alive():
                gone.add(r.global_rank)
                reaper.remove(r.proc.pid)
        failed = [r for r in ranks if r.code not in (None, 0)]
        if failed:
            first = min(failed, key=lambda r: r.global_rank)
            detail = first.describe()
            _log.error(f"{detail}")
            if first.log_path:
                _log.info(f"------------------------- ERROR LOG DETAIL ({first.log_path}, last "
                          f"{_TAIL_BYTES} bytes) -------------------------\n{_tail(first.log_path)}")
            others = [r for r in ranks if r.code is None]
            if others:
                _log.info(f"stopping the other {len(others)} rank(s)")
            _stop_ranks(ranks, signal.SIGTERM, grace, signals)
            return _exit_status(first.code), detail
        if all(r.code == 0 for r in ranks):
            leftovers = [r for r in ranks if r.group_alive()]
            if leftovers:
                _log.info(f"stopping processes left behind by {len(leftovers)} finished rank(s)")
                _stop_ranks(leftovers, signal.SIGTERM, grace, signals)
            return 0, None
        reason = peer_check() if peer_check else None
        if reason:
            _log.error(f"stopping this node's ranks: {reason}")
            _stop_ranks(ranks, signal.SIGTERM, grace, signals)
            return 1, reason
        time.sleep(0.1)


# ----------------------------------------------------------------------------------------------
# The launch


def _setup_logging(level):
    if not any(getattr(h, "_oar_launch", False) for h in _log.handlers):
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(asctime)s %(message)s"))
        handler._oar_launch = True
        _log.addHandler(handler)
    _log.propagate = False
    _log.setLevel(level.upper())


def _float_env(name, default):
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


def _entrypoint(args):
    script = args.training_script
    if script.endswith(".py"):
        return [sys.executable, "-u", script] + list(args.training_script_args)
    return [script] + list(args.training_script_args)


def _pod_name():
    return "".join(random.choice(string.ascii_lowercase) for _ in range(6))


def _selected_device(devices, i, nproc):
    """FLAGS_selected_gpus of local rank i, as Paddle: the device's index among the visible ones
    (CUDA_VISIBLE_DEVICES), all devices when the node runs one rank."""
    if not devices:
        return None
    visible = [d.strip() for d in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if d.strip()]
    index = [str(visible.index(d)) if d in visible else d for d in devices]
    if nproc == 1:
        return ",".join(index)
    return index[i] if len(index) == nproc else index[0]


def rank_env(global_rank, world_size, local_rank, local_size, nnodes, endpoints, master, device=None):
    """The PADDLE_* variables of one rank (shared with oar.distributed.spawn)."""
    env = {
        "PADDLE_MASTER": master,
        "PADDLE_GLOBAL_SIZE": str(world_size),
        "PADDLE_LOCAL_SIZE": str(local_size),
        "PADDLE_GLOBAL_RANK": str(global_rank),
        "PADDLE_LOCAL_RANK": str(local_rank),
        "PADDLE_NNODES": str(nnodes),
        "PADDLE_CURRENT_ENDPOINT": endpoints[global_rank],
        "PADDLE_TRAINER_ID": str(global_rank),
        "PADDLE_TRAINERS_NUM": str(world_size),
        "PADDLE_RANK_IN_NODE": str(local_rank),
        "PADDLE_TRAINER_ENDPOINTS": ",".join(endpoints),
    }
    if device is None:
        env["PADDLE_DISTRI_BACKEND"] = "gloo"
    else:
        env["FLAGS_selected_gpus"] = str(device)
    return env


def _plan_world(args):
    """nnodes, node rank (-1: assigned at the rendezvous), master (ip, port) or None, mode, and the
    Slurm layout of this node."""
    layout = {"machines": None, "local_index": 0, "tasks_here": 1}
    nnodes, rank, master = args.nnodes, args.rank, args.master
    slurm = None
    if not args.explicit_world and not args.ips and "PADDLE_TRAINER_ID" not in os.environ:
        slurm = _slurm_world(os.environ)
    if slurm:
        nnodes, rank, master = slurm["nnodes"], slurm["rank"], slurm["master"]
        layout = {k: slurm[k] for k in ("machines", "local_index", "tasks_here")}
        _log.info(f"Slurm step: launcher {rank} of {nnodes} on {layout['machines']} machine(s)"
                  + (f", master {master[0]}:{master[1]}" if master else ""))
    if args.ips and master is None:
        return nnodes, rank, None, "static", layout
    if nnodes == 1:
        return 1, 0, master, "single", layout
    if master is None:
        raise LaunchError(f"--nnodes {nnodes} needs --master ADDR:PORT (an address of the first node, where one "
                          "launcher serves the rendezvous)")
    return nnodes, (-1 if rank is None else rank), master, "rendezvous", layout


def launch(argv=None):
    """Paddle's ``paddle.distributed.launch`` entry: parse ``argv`` (default ``sys.argv[1:]``), run the job
    and exit with its status (0 when every rank of every node exited with 0)."""
    parser, args = _parse(sys.argv[1:] if argv is None else list(argv))
    _setup_logging(args.log_level)
    signals = _Signals()
    signals.install()
    try:
        code = _launch(args, signals)
    except LaunchError as e:
        _log.error(str(e))
        code = 1
    except _Stopped:
        _log.info(f"stopped by {signal.Signals(signals.signum).name}")
        code = 128 + (signals.signum or 0)
    except OSError as e:
        _log.exception(f"launch failed: {e}")
        code = 1
    finally:
        signals.restore()
    sys.exit(code)


def _launch(args, signals):
    grace = _float_env("OAR_LAUNCH_GRACE_PERIOD", _DEFAULT_GRACE)
    rdzv_timeout = _float_env("OAR_LAUNCH_RDZV_TIMEOUT", _DEFAULT_RDZV_TIMEOUT)
    for key, var in sorted(args.env_defaults.items()):
        _log.info(f"--{key} from the environment: {var}={os.environ[var]}")
    nnodes, node_rank, master, mode, layout = _plan_world(args)
    nproc = args.nproc_per_node

    master_ip = _resolve(master[0]) if master else None
    if args.host:
        ip = _resolve(args.host)
    elif mode == "static":
        ip = None
    elif master_ip and mode == "rendezvous":
        ip = _route_ip(master_ip)
    elif master_ip and not _is_loopback(master_ip):
        ip = master_ip
    else:
        ip = "127.0.0.1"

    local_offset = layout["local_index"] * nproc
    local_size = layout["tasks_here"] * nproc
    phys_nodes = layout["machines"] or nnodes
    server = client = None
    socks = []
    try:
        if mode == "single":
            if master:  # held while the endpoints are chosen, so that none of them is the master's port
                socks.append(_hold_master(master_ip, master[1], "--master"))
            ports, more = _reserve_ports(ip, nproc + (0 if master else 1))
            socks += more
            endpoints = [f"{ip}:{p}" for p in ports[:nproc]]
            store = f"{master_ip}:{master[1]}" if master else f"{ip}:{ports[nproc]}"
            pods = [{"rank": 0, "nproc": nproc, "ip": ip, "endpoints": endpoints, "store": store}]
            node_rank = 0
        elif mode == "static":
            ips = [x.strip() for x in args.ips.split(",") if x.strip()]
            if "127.0.0.1" in ips and len(ips) > 1:
                raise LaunchError("--ips: 127.0.0.1 cannot be one of several nodes' addresses")
            if args.nnodes not in (1, len(ips)) and "nnodes" in args.explicit_world:
                raise LaunchError(f"--nnodes {args.nnodes} but --ips lists {len(ips)} nodes")
            nnodes = len(ips)
            phys_nodes = nnodes
            if args.rank is not None:
                node_rank = args.rank
                if not 0 <= node_rank < nnodes:
                    raise LaunchError(f"--rank {node_rank} is not a position in --ips ({nnodes} nodes)")
            else:
                local = [i for i, x in enumerate(ips) if x == ip] if ip else [i for i, x in enumerate(ips)
                                                                               if _is_local_ip(x)]
                if not local:
                    raise LaunchError(f"none of --ips {args.ips} is an address of this machine: give --rank or --host")
                node_rank = local[0]
            pods = [{"rank": i, "nproc": nproc, "ip": x,
                     "endpoints": [f"{x}:{args.start_port + j}" for j in range(nproc)]} for i, x in enumerate(ips)]
            pods[0]["store"] = pods[0]["endpoints"][0]
        else:
            # Bind the master address first (the launcher that can serves the rendezvous), then choose
            # the ports: none of them can be the master's port.
            lsock = _listen_on(master_ip, master[1])
            ports, socks = _reserve_ports(ip, nproc + 1)
            info = {"rank": node_rank, "nproc": nproc, "ip": ip, "host": socket.gethostname(),
                    "endpoints": [f"{ip}:{p}" for p in ports[:nproc]], "store": f"{ip}:{ports[nproc]}"}
            hello = {"magic": _MAGIC, "job_id": args.job_id, "nnodes": nnodes, "node": info}
            deadline = time.monotonic() + rdzv_timeout
            stopping = lambda: signals.signum is not None  # noqa: E731
            if lsock is None:
                _log.info(f"joining the rendezvous at {master_ip}:{master[1]}")
                try:
                    client = _RdzvClient(master_ip, master[1], hello, deadline, stopping)
                    node_rank, pods = client.rank, client.pods
                except _TakeOverRendezvous as take:
                    lsock = take.sock
            if lsock is not None:
                _log.info(f"serving the rendezvous of {nnodes} nodes at {master_ip}:{master[1]}")
                server = _RdzvServer(lsock, nnodes, args.job_id)
                node_rank, pods = server.join(info, deadline, stopping)
    finally:
        _close_all(socks)

    endpoints = [ep for p in pods for ep in p["endpoints"]]
    world = len(endpoints)
    offset = sum(p["nproc"] for p in pods if p["rank"] < node_rank)
    store = pods[0]["store"]
    if os.environ.get("MASTER_ADDR") and os.environ.get("MASTER_PORT"):
        _log.warning("MASTER_ADDR and MASTER_PORT are set: Paddle's init_parallel_env prefers them to PADDLE_MASTER "
                     f"({store}); unset them unless they name the same store")

    log_dir = os.path.abspath(args.log_dir) if args.log_dir else None
    if log_dir:
        os.makedirs(log_dir, exist_ok=True)
    pod_name = _pod_name()
    cmd = _entrypoint(args)
    base = os.environ.copy()
    ranks = []
    for i in range(nproc):
        local_rank = local_offset + i
        device = _selected_device(args.devices, i, nproc)
        extra = rank_env(offset + i, world, local_rank, local_size, phys_nodes, endpoints, store, device)
        if log_dir:
            extra["PADDLE_LOG_DIR"] = log_dir
        extra["POD_NAME"] = pod_name
        extra["PADDLE_AUTO_CLUSTER"] = "0"  # Paddle's --auto_cluster_config, always off here
        env = dict(base, **extra)
        log_path = os.path.join(log_dir, f"workerlog.{local_rank}") if log_dir else None
        if log_dir:
            with open(os.path.join(log_dir, f"envlog.{local_rank}"), "w" if args.log_overwrite else "a") as f:
                f.writelines(f"{k}={v}\n" for k, v in sorted(extra.items()))
        ranks.append(_Rank(local_rank, offset + i, cmd, env, log_path, args.log_overwrite))

    echo = None
    if log_dir:
        first = ranks[0].log_path
        start = 0
        if not args.log_overwrite and os.path.exists(first):
            start = os.path.getsize(first)
        open(first, "ab").close()
        echo = _Echo(first, start)
    _log.info(f"node {node_rank} of {nnodes}: ranks {offset}..{offset + nproc - 1} of {world}, master {store}"
              + (f", logs in {log_dir}" if log_dir else ""))

    peer_check = None
    if server is not None:
        peer_check = server.peer_failure
    elif client is not None:
        peer_check = lambda: client.aborted  # noqa: E731
    try:
        code, detail = _run_ranks(ranks, echo, peer_check, signals, grace)
        if client is not None:
            client.report(code, f"node {node_rank} ({ip}): {detail}" if detail else "")
        elif server is not None:
            if code != 0:
                failed_peer = server.peer_failure()
                own = failed_peer is None or failed_peer != detail
                server.abort(f"node {node_rank} ({ip}): {detail}" if own else failed_peer)
            else:
                code = _wait_peers(server, node_rank, signals)
        _log.info(f"Exit code {code}")
        return code
    finally:
        if server is not None:
            server.close()


def _wait_peers(server, node_rank, signals):
    """The serving launcher, its ranks done: waits for the other nodes."""
    told = False
    while not server.peers_done(node_rank):
        reason = server.peer_failure()
        if reason:
            break
        if signals.signum is not None:
            name = signal.Signals(signals.signum).name
            server.abort(f"the launcher serving the rendezvous received {name}")
            return 128 + signals.signum
        if not told:
            _log.info("this node's ranks are done; waiting for the other nodes")
            told = True
        time.sleep(0.1)
    reason = server.peer_failure()
    if reason:
        _log.error(f"the job failed on another node: {reason}")
        server.abort(reason)
        return 1
    return 0
