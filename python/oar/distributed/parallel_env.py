"""The job a process belongs to, as the launcher describes it in the environment (Paddle's
PADDLE_* variables): ParallelEnv and the rendezvous settings init_parallel_env reads."""
import os

__all__ = ["ParallelEnv"]


def _int_env(name, default):
    value = os.environ.get(name, "")
    try:
        return int(value) if value != "" else default
    except ValueError:
        raise ValueError(f"the environment variable {name} must be an integer, got {value!r}") from None


class ParallelEnv:
    """This process's place in a data-parallel job (paddle.distributed.ParallelEnv), read from the
    environment that ``python -m oar.distributed.launch`` or ``oar.distributed.spawn`` sets.

    Examples:
        >>> import oar
        >>> env = oar.distributed.ParallelEnv()
        >>> env.rank >= 0 and env.world_size >= 1
        True
    """

    def __init__(self):
        self._rank = _int_env("PADDLE_TRAINER_ID", 0)
        self._world_size = _int_env("PADDLE_TRAINERS_NUM", 1)
        self._local_rank = _int_env("PADDLE_LOCAL_RANK", _int_env("PADDLE_RANK_IN_NODE", self._rank))
        gpus = os.environ.get("FLAGS_selected_gpus", "")
        self._device_id = int(gpus) if gpus.isdigit() else 0  # one device per rank, as the launcher gives
        self._trainer_endpoints = [e for e in os.environ.get("PADDLE_TRAINER_ENDPOINTS", "").split(",") if e]
        self._current_endpoint = os.environ.get("PADDLE_CURRENT_ENDPOINT", "")
        self._pg_timeout = _int_env("PADDLE_PG_TIMEOUT", 1800000)  # milliseconds, as Paddle's
        if not 0 <= self._rank < self._world_size:
            raise ValueError(f"ParallelEnv: PADDLE_TRAINER_ID ({self._rank}) must be in [0, PADDLE_TRAINERS_NUM "
                             f"({self._world_size}))")

    @property
    def rank(self):
        """This process's rank in the job (PADDLE_TRAINER_ID)."""
        return self._rank

    @property
    def world_size(self):
        """The number of processes in the job (PADDLE_TRAINERS_NUM)."""
        return self._world_size

    nranks = world_size

    @property
    def local_rank(self):
        """This process's rank on its machine."""
        return self._local_rank

    @property
    def device_id(self):
        """The accelerator this process uses (0 on the CPU)."""
        return self._device_id

    dev_id = device_id

    @property
    def device_type(self):
        """The device type the job runs on ("cpu" for Gloo jobs)."""
        return os.environ.get("PADDLE_DISTRI_BACKEND_DEVICE", "cpu")

    @property
    def current_endpoint(self):
        """This process's ip:port (PADDLE_CURRENT_ENDPOINT)."""
        return self._current_endpoint

    @property
    def trainer_endpoints(self):
        """Every rank's ip:port, in rank order (PADDLE_TRAINER_ENDPOINTS)."""
        return list(self._trainer_endpoints)

    @property
    def nrings(self):
        """Communication rings (1; kept for Paddle's API)."""
        return 1

    @property
    def pg_timeout(self):
        """The collective timeout in milliseconds (PADDLE_PG_TIMEOUT, default 30 minutes)."""
        return self._pg_timeout

    def master(self):
        """(host, port) of the rendezvous store that rank 0 serves: PADDLE_MASTER, else the first
        trainer endpoint; None when the environment names neither."""
        text = os.environ.get("PADDLE_MASTER", "") or (self._trainer_endpoints[0] if self._trainer_endpoints else "")
        if not text:
            return None
        host, sep, port = text.rpartition(":")
        if not sep or not port.isdigit():
            raise ValueError(f"init_parallel_env: the master address must be ip:port, got {text!r}")
        return host, int(port)

    def hostname(self):
        """The address other ranks reach this one at (the host of PADDLE_CURRENT_ENDPOINT)."""
        if self._current_endpoint:
            return self._current_endpoint.rpartition(":")[0] or "127.0.0.1"
        return "127.0.0.1"
