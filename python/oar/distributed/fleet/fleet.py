"""paddle.distributed.fleet's collective (dynamic-graph) face: Fleet, its init, distributed_model,
distributed_optimizer and the worker queries."""
import copy
import warnings

import numpy as np

from ...autograd import no_grad
from .. import collective
from .base.distributed_strategy import DistributedStrategy
from .base.topology import CommunicateTopology, HybridCommunicateGroup, ParallelMode

__all__ = ["Fleet", "PaddleCloudRoleMaker", "UserDefinedRoleMaker", "Role", "HybridParallelOptimizer"]

_UNIMPLEMENTED_DEGREES = ("mp_degree", "pp_degree", "sep_degree", "cp_degree", "ep_degree", "moe_sharding_degree")


class Role:
    """The roles of a job's processes (WORKER, SERVER, HETER_WORKER, ALL, COORDINATOR); oar's
    collective jobs have workers only.

    Examples:
        >>> from oar.distributed import fleet
        >>> print(fleet.Role.WORKER)
        1
    """
    WORKER = 1
    SERVER = 2
    HETER_WORKER = 3
    ALL = 4
    COORDINATOR = 5


class RoleMakerBase:
    """Where this process stands in the job; oar's collective jobs read the launcher's
    PADDLE_* environment."""

    def __init__(self, is_collective=False, **kwargs):
        self._is_collective = is_collective

    def _generate_role(self):
        pass

    def _worker_index(self):
        return collective.get_rank()

    def _worker_num(self):
        return collective.get_world_size()

    def _is_first_worker(self):
        return self._worker_index() == 0

    # Host-side collectives over the workers (Paddle's role makers run them on their Gloo context,
    # which a collective job has only with PADDLE_WITH_GLOO; without one they warn and return the
    # input). oar runs them on the job's process group; a single process warns as Paddle does.
    _COMM_WORLDS = ("worker", "server", "all")

    def _comm_ready(self, comm_world):
        if comm_world not in self._COMM_WORLDS:
            raise ValueError(f"argument error, comm_world must in {list(self._COMM_WORLDS)}")
        if not collective.is_initialized() or collective.get_world_size() <= 1:
            warnings.warn("gloo is not initialized, will not communicator with other nodes")
            return False
        if comm_world == "server":
            raise NotImplementedError("fleet util: comm_world='server': parameter-server mode is not implemented "
                                      "in oar (collective jobs have workers only)")
        return True

    def _barrier(self, comm_world="worker"):
        if self._comm_ready(comm_world):
            collective.barrier()

    def _all_gather(self, input, comm_world="worker"):
        if not self._comm_ready(comm_world):
            return input
        out = []
        collective.all_gather_object(out, input)
        return out

    def _all_reduce(self, input, mode="sum", comm_world="worker"):
        if mode not in ("sum", "min", "max"):
            raise ValueError(f"fleet util all_reduce: mode must be 'sum', 'min' or 'max', got {mode!r}")
        if not self._comm_ready(comm_world):
            return input
        arr = np.array(input)
        gathered = []
        collective.all_gather_object(gathered, arr.reshape(-1).tolist())
        stacked = np.array(gathered)
        out = {"sum": stacked.sum, "min": stacked.min, "max": stacked.max}[mode](axis=0)
        return np.array(out).reshape(arr.shape)


class PaddleCloudRoleMaker(RoleMakerBase):
    """The role from the environment the launcher sets (paddle's PaddleCloudRoleMaker)."""


class UserDefinedRoleMaker(RoleMakerBase):
    """Paddle's user-defined role maker: accepted for collective jobs, whose world still comes
    from the launcher's environment."""

    def __init__(self, is_collective=False, init_gloo=False, **kwargs):
        super().__init__(is_collective)
        if not is_collective:
            raise NotImplementedError("UserDefinedRoleMaker: parameter-server jobs are not implemented in oar")


def _check_strategy(strategy):
    if not isinstance(strategy, DistributedStrategy):
        raise TypeError(f"fleet: strategy must be a fleet.DistributedStrategy, got {type(strategy).__name__}")


class Fleet:
    """The fleet of this job (one instance, ``fleet.fleet``; the module functions are its methods)."""

    def __init__(self):
        self._role_maker = None
        self._user_defined_strategy = None
        self._hcg = None
        self._is_collective = True
        self.user_defined_optimizer = None

    # ---- init ----
    def init(self, role_maker=None, is_collective=False, strategy=None, log_level="INFO"):
        """Joins the job (``init_parallel_env``) and builds the hybrid communicate group from
        ``strategy.hybrid_configs``: dp_degree x sharding_degree must equal the number of ranks
        (dp_degree=-1 takes what remains); mp, pp, sep and cp degrees above 1 are
        NotImplementedError. As in Paddle's dynamic graph, the job is collective whatever
        `is_collective` says."""
        if strategy is None:
            strategy = DistributedStrategy()
        _check_strategy(strategy)
        if role_maker is None:
            if not isinstance(is_collective, bool):
                raise ValueError(f"`is_collective` should be instance of `bool`, but got {type(is_collective)}")
            role_maker = PaddleCloudRoleMaker(is_collective=is_collective)
        elif not isinstance(role_maker, RoleMakerBase):
            raise ValueError(f"`role_maker` should be subclass of `RoleMakerBase`, but got {type(role_maker)}")
        hybrid = strategy.hybrid_configs
        for key in _UNIMPLEMENTED_DEGREES:
            if hybrid.get(key, 1) > 1:
                raise NotImplementedError(f"fleet.init: hybrid_configs['{key}'] = {hybrid[key]}: oar implements "
                                          "data parallelism and sharding only (dp_degree, sharding_degree)")
        self._user_defined_strategy = copy.deepcopy(strategy)
        self._role_maker = role_maker
        self._is_collective = True
        role_maker._generate_role()
        from . import util as _util
        _util._set_role_maker(role_maker)
        _util._set_strategy(self._user_defined_strategy)
        collective.init_parallel_env()
        world = collective.get_world_size()
        sharding = hybrid["sharding_degree"]
        dp = hybrid["dp_degree"]
        if sharding > world or world % sharding:
            raise ValueError(f"fleet.init: hybrid_configs['sharding_degree'] ({sharding}) must divide the number "
                             f"of ranks ({world})")
        if dp == -1:
            dp = world // sharding
        if dp * sharding != world:
            raise ValueError(f"fleet.init: dp_degree ({dp}) x sharding_degree ({sharding}) must equal the number "
                             f"of ranks ({world}) (mp, pp, sep degrees are 1)")
        if strategy.sharding and sharding == 1:
            warnings.warn("fleet.init: strategy.sharding is a static-graph setting (ignored in dynamic mode, as "
                          "in Paddle); set hybrid_configs['sharding_degree'] to shard the optimizer")
        order = strategy.hybrid_parallel_order
        degrees = {"dp": ("data", dp), "pp": ("pipe", 1), "sharding": ("sharding", sharding), "sep": ("sep", 1),
                   "mp": ("model", 1)}
        topo = CommunicateTopology([degrees[k][0] for k in order], [degrees[k][1] for k in order])
        self._topology = topo
        self._hcg = HybridCommunicateGroup(topo)
        return None

    def _require_init(self, what):
        if self._hcg is None:
            raise RuntimeError(f"fleet.{what}: call fleet.init(is_collective=True, strategy=...) first")

    # ---- queries ----
    def is_first_worker(self):
        """Whether this process is worker 0."""
        return self.worker_index() == 0

    def worker_index(self):
        """This worker's index (its rank)."""
        return collective.get_rank()

    def worker_num(self):
        """The number of workers (the job's world size)."""
        return collective.get_world_size()

    def node_num(self):
        """The number of nodes of the job (PADDLE_NNODES, default 1)."""
        import os
        return int(os.environ.get("PADDLE_NNODES", "1") or 1)

    def is_worker(self):
        """True: every process of a collective job is a worker."""
        return True

    def is_server(self):
        """False: collective jobs have no parameter servers."""
        return False

    def worker_endpoints(self, to_string=False):
        """The workers' endpoints (a list, or one comma-separated string)."""
        eps = collective.ParallelEnv().trainer_endpoints
        return ",".join(eps) if to_string else eps

    def barrier_worker(self):
        """Waits for every worker (a barrier on the default group)."""
        if collective.is_initialized():
            collective.barrier()

    def get_hybrid_communicate_group(self):
        """The HybridCommunicateGroup fleet.init built (RuntimeError before fleet.init)."""
        self._require_init("get_hybrid_communicate_group")
        return self._hcg

    def get_hybrid_parallel_topology(self):
        """The CommunicateTopology fleet.init built (RuntimeError before fleet.init)."""
        self._require_init("get_hybrid_parallel_topology")
        return self._topology

    def _ps(self, name):
        raise NotImplementedError(f"fleet.{name}: parameter-server mode is not implemented in oar (collective "
                                  "jobs only)")

    def init_worker(self, *args, **kwargs):
        """Parameter-server mode: NotImplementedError in oar."""
        self._ps("init_worker")

    def init_server(self, *args, **kwargs):
        """Parameter-server mode: NotImplementedError in oar."""
        self._ps("init_server")

    def run_server(self, *args, **kwargs):
        """Parameter-server mode: NotImplementedError in oar."""
        self._ps("run_server")

    def stop_worker(self, *args, **kwargs):
        """Parameter-server mode: NotImplementedError in oar."""
        self._ps("stop_worker")

    # ---- model and optimizer ----
    def distributed_model(self, model):
        """The model wrapped for the job: DataParallel over the data-parallel group, or (with
        sharding_degree > 1) DataParallel over all ranks, the optimizer then updating each rank's
        shard (see distributed_optimizer); the model itself in a job of one."""
        self._require_init("distributed_model")
        from ..parallel import DataParallel
        s = self._user_defined_strategy
        if s.amp:
            raise NotImplementedError("fleet.distributed_model: DistributedStrategy.amp is not implemented in oar; "
                                      "use oar.amp.auto_cast and oar.amp.GradScaler around the step instead")
        mode = self._hcg.get_parallel_mode()
        kwargs = dict(comm_buffer_size=s.fuse_grad_size_in_MB, last_comm_buffer_size=s.last_comm_group_size_MB,
                      find_unused_parameters=s.find_unused_parameters)
        if mode == ParallelMode.SHARDING_PARALLEL:
            return DataParallel(model, **kwargs)  # gradients averaged over every rank (dp x sharding)
        if mode == ParallelMode.DATA_PARALLEL:
            return DataParallel(model, group=self._hcg.get_data_parallel_group(), **kwargs)
        return model

    def distributed_optimizer(self, optimizer, strategy=None):
        """The optimizer for the job: with sharding_degree > 1 each rank of the sharding group
        keeps and updates the states of its partition of the parameters (ZeRO-1), then
        broadcasts them; with gradient_merge, steps only every k_steps calls on the accumulated
        (averaged when avg) gradients. `strategy`, when given, replaces fleet.init's."""
        self._require_init("distributed_optimizer")
        if strategy is not None:
            _check_strategy(strategy)
            warnings.warn("It is recommended to use DistributedStrategy in fleet.init(); the strategy given to "
                          "fleet.distributed_optimizer() overwrites it")
            self._user_defined_strategy = copy.deepcopy(strategy)
        self.user_defined_optimizer = optimizer
        s = self._user_defined_strategy
        merge = s.gradient_merge_configs
        k_steps = merge["k_steps"] if s.gradient_merge else 1
        if self.worker_num() == 1 and k_steps == 1:
            return optimizer
        return HybridParallelOptimizer(optimizer, self._hcg, s)

    def distributed_scaler(self, scaler):
        """The GradScaler as given (gradients are averaged by the model's DataParallel)."""
        return scaler

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        """Minimizes loss with the optimizer of distributed_optimizer (RuntimeError before it)."""
        if self.user_defined_optimizer is None:
            raise RuntimeError("fleet.minimize: call fleet.distributed_optimizer first")
        return self.user_defined_optimizer.minimize(loss, startup_program, parameter_list, no_grad_set)


class HybridParallelOptimizer:
    """The optimizer fleet.distributed_optimizer returns (paddle's HybridParallelOptimizer):
    `_inner_opt` is the user's optimizer; sharding (ZeRO-1 over the sharding group) and gradient
    merge are applied around its step."""

    def __init__(self, optimizer, hcg, strategy):
        from ..sharding.group_sharded import GroupShardedOptimizerStage2
        self._inner_opt = optimizer
        self._hcg = hcg
        self._strategy = strategy
        self._step_opt = optimizer
        if hcg.get_sharding_parallel_world_size() > 1:
            self._step_opt = GroupShardedOptimizerStage2(optimizer._parameters_flat(), optimizer,
                                                         group=hcg.get_sharding_parallel_group())
        merge = strategy.gradient_merge_configs
        self._k_steps = merge["k_steps"] if strategy.gradient_merge else 1
        self._avg = merge["avg"]
        self._merged = {}
        self._micro = 0
        self._params = [p for p in optimizer._parameters_flat() if not p.stop_gradient] \
            if self._step_opt is optimizer else list(self._step_opt._all_params)

    def __getattr__(self, name):
        if name == "_inner_opt":
            raise AttributeError(name)
        return getattr(self._inner_opt, name)

    @no_grad()
    def step(self):
        if self._k_steps > 1:
            self._micro += 1
            for p in self._params:
                if p.grad is not None:
                    prev = self._merged.get(id(p))
                    self._merged[id(p)] = p.grad.clone() if prev is None else prev + p.grad
            if self._micro % self._k_steps:
                return  # gradients kept; the caller's clear_grad empties .grad
            for p in self._params:
                total = self._merged.get(id(p))
                p.grad = None if total is None else (total * (1.0 / self._k_steps) if self._avg else total)
            self._merged = {}
        self._step_opt.step()

    def clear_grad(self, set_to_zero=True):
        for p in self._params:
            p.clear_grad(set_to_zero)

    clear_gradients = clear_grad

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        self.step()
        return [], []

    def state_dict(self):
        return self._inner_opt.state_dict()

    def set_state_dict(self, state_dict):
        return self._inner_opt.set_state_dict(state_dict)

    set_dict = set_state_dict
    load_state_dict = set_state_dict
