"""oar.distributed: Paddle's collective API (paddle.distributed) over oar's process groups
(Gloo for host tensors; rendezvous through a TCP store served by rank 0). Start a job with
``python -m oar.distributed.launch --nproc_per_node N script.py`` or ``oar.distributed.spawn``."""
from .collective import (ReduceOp, Group, init_parallel_env, is_initialized, get_rank, get_world_size, new_group,
                         get_group, destroy_process_group, all_reduce, broadcast, reduce, all_gather,
                         all_gather_object, broadcast_object_list, reduce_scatter, scatter, gather, alltoall,
                         alltoall_single, send, recv, isend, irecv, barrier, wait, scatter_object_list,
                         send_object_list, recv_object_list, is_available, get_backend, shutdown_process_group,
                         restart_process_group, gloo_init_parallel_env, gloo_barrier, gloo_release)
from .parallel import DataParallel
from .parallel_env import ParallelEnv
from .spawn import spawn  # the function, as paddle.distributed.spawn
from . import fleet, sharding  # noqa: E402  (paddle.distributed.fleet, paddle.distributed.sharding)
from . import rpc  # noqa: E402  (paddle.distributed.rpc)
from . import communication  # noqa: E402
from .communication import stream  # noqa: E402  (paddle.distributed.stream)
from .fleet.base.topology import ParallelMode
from .auto_parallel import (ProcessMesh, DistAttr, Placement, Shard, Replicate, Partial, ReduceType, shard_tensor,
                            dtensor_from_fn, reshard, unshard_dtensor, shard_layer, shard_dataloader, shard_optimizer,
                            shard_scaler, ShardingStage1, ShardingStage2, ShardingStage3, to_static, Strategy,
                            DistModel, LocalLayer, local_map, parallelize, ColWiseParallel, RowWiseParallel,
                            SequenceParallelBegin, SequenceParallelEnd, SequenceParallelEnable,
                            SequenceParallelDisable, PrepareLayerInput, PrepareLayerOutput, SplitPoint, set_mesh,
                            get_mesh, ConvParallel, ContextParallel, PrepareContextParallel)
from .auto_parallel.checkpoint import (save_state_dict, load_state_dict, load_merged_state_dict, ShardedWeight,
                                       ShardedStateDict, shard_weight, build_sharded_state_dict)
from .entry_attr import CountFilterEntry, ShowClickEntry, ProbabilityEntry
from . import launch  # noqa: E402  (paddle.distributed.launch: python -m oar.distributed.launch)
from . import entry_attr  # noqa: E402
from .fleet.dataset import InMemoryDataset, QueueDataset  # noqa: E402
from .mp_ops import split  # noqa: E402
from . import io  # noqa: E402  (paddle.distributed.io)

__all__ = ["ReduceOp", "Group", "ParallelEnv", "DataParallel", "init_parallel_env", "is_initialized", "get_rank", "get_world_size",
           "new_group", "get_group", "destroy_process_group", "all_reduce", "broadcast", "reduce", "all_gather",
           "all_gather_object", "broadcast_object_list", "reduce_scatter", "scatter", "gather", "alltoall",
           "alltoall_single", "send", "recv", "isend", "irecv", "barrier", "wait", "spawn", "fleet", "sharding",
           "ParallelMode", "ProcessMesh", "DistAttr", "Placement", "Shard", "Replicate", "Partial", "ReduceType",
           "shard_tensor", "dtensor_from_fn", "reshard", "unshard_dtensor", "shard_layer", "shard_dataloader",
           "shard_optimizer", "shard_scaler", "ShardingStage1", "ShardingStage2", "ShardingStage3", "to_static",
           "Strategy", "DistModel", "LocalLayer", "local_map", "parallelize", "ColWiseParallel", "RowWiseParallel",
           "SequenceParallelBegin", "SequenceParallelEnd", "SequenceParallelEnable", "SequenceParallelDisable",
           "PrepareLayerInput", "PrepareLayerOutput", "SplitPoint", "set_mesh", "get_mesh", "save_state_dict",
           "load_state_dict", "load_merged_state_dict", "ShardedWeight", "ShardedStateDict", "shard_weight",
           "build_sharded_state_dict", "scatter_object_list", "send_object_list", "recv_object_list",
           "is_available", "get_backend", "shutdown_process_group", "restart_process_group",
           "gloo_init_parallel_env", "gloo_barrier", "gloo_release", "CountFilterEntry", "ShowClickEntry",
           "ProbabilityEntry", "create_nccl_config", "rpc", "launch", "InMemoryDataset", "QueueDataset",
           "ConvParallel", "ContextParallel", "PrepareContextParallel", "split", "io"]


def create_nccl_config(nccl_config=None):
    """The NCCL settings of a communication group. oar has no NCCL (its groups run on Gloo), and
    like Paddle's build without NCCL it returns None.

    Args:
        nccl_config (dict, optional): Default: None.

    Examples:
        >>> import oar.distributed as dist
        >>> print(dist.create_nccl_config({"commName": "tp"}))
        None
    """
    if nccl_config is not None and not isinstance(nccl_config, dict):
        raise TypeError(f"create_nccl_config: nccl_config must be a dict or None, got {type(nccl_config).__name__}")
    return None
