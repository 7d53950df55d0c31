"""paddle.distributed.fleet for collective (dynamic-graph) jobs: ``fleet.init``,
``DistributedStrategy``, ``distributed_model``, ``distributed_optimizer`` (data parallelism,
ZeRO-1 sharding through hybrid_configs' sharding_degree, gradient merge), the worker queries and
``get_hybrid_communicate_group``. Parameter-server mode and model/pipeline parallelism are not
implemented (see docs/distributed.md)."""
from .base.distributed_strategy import DistributedStrategy
from .base.topology import CommunicateTopology, HybridCommunicateGroup, ParallelMode
from .fleet import Fleet, HybridParallelOptimizer, PaddleCloudRoleMaker, Role, UserDefinedRoleMaker
from . import recompute as _recompute_pkg  # noqa: E402,F401  (fleet.recompute: the package, as Paddle)
from . import utils  # noqa: E402

from .base.util_factory import UtilBase
from .data_generator import MultiSlotDataGenerator, MultiSlotStringDataGenerator
from .dataset import DatasetBase, InMemoryDataset, QueueDataset  # noqa: F401

fleet = Fleet()
util = UtilBase()

init = fleet.init
is_first_worker = fleet.is_first_worker
worker_index = fleet.worker_index
worker_num = fleet.worker_num
node_num = fleet.node_num
is_worker = fleet.is_worker
is_server = fleet.is_server
worker_endpoints = fleet.worker_endpoints
barrier_worker = fleet.barrier_worker
init_worker = fleet.init_worker
init_server = fleet.init_server
run_server = fleet.run_server
stop_worker = fleet.stop_worker
distributed_model = fleet.distributed_model
distributed_optimizer = fleet.distributed_optimizer
distributed_scaler = fleet.distributed_scaler
minimize = fleet.minimize
get_hybrid_communicate_group = fleet.get_hybrid_communicate_group
get_hybrid_parallel_topology = fleet.get_hybrid_parallel_topology

__all__ = ["DistributedStrategy", "Fleet", "CommunicateTopology", "HybridCommunicateGroup", "ParallelMode",
           "PaddleCloudRoleMaker", "UserDefinedRoleMaker", "Role", "init", "is_first_worker", "worker_index",
           "worker_num", "node_num", "is_worker", "is_server", "worker_endpoints", "barrier_worker",
           "init_worker", "init_server", "run_server", "stop_worker", "distributed_model",
           "distributed_optimizer", "distributed_scaler", "minimize", "get_hybrid_communicate_group",
           "get_hybrid_parallel_topology", "UtilBase", "MultiSlotDataGenerator", "MultiSlotStringDataGenerator"]
