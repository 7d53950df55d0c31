"""paddle.distributed's auto-parallel API in the dynamic graph: ProcessMesh, placements,
distributed tensors (shard_tensor, reshard, ...), shard_layer / parallelize and their plans,
shard_optimizer, shard_dataloader, DistModel (docs/distributed.md, "Auto parallel")."""
from .api import (DistModel, LocalLayer, ShardDataloader, ShardingStage1, ShardingStage2, ShardingStage3, Strategy,
                  local_map, shard_dataloader, shard_layer, shard_optimizer, shard_scaler, to_static)
from .dtensor import (DistParameter, DistTensor, dtensor_from_fn, dtensor_from_local, is_dist_tensor, reshard,
                      shard_tensor, unshard_dtensor)
from .intermediate import (ColWiseParallel, PrepareLayerInput, PrepareLayerOutput, RowWiseParallel,
                           SequenceParallelBegin, SequenceParallelDisable, SequenceParallelEnable, SequenceParallelEnd,
                           SplitPoint, parallelize, ConvParallel, ContextParallel, PrepareContextParallel)
from .placement import DistAttr, Partial, Placement, ReduceType, Replicate, Shard
from .process_mesh import ProcessMesh, get_mesh, set_mesh
