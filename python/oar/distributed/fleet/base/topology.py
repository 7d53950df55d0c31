"""The communication groups of a hybrid-parallel fleet job (Paddle's CommunicateTopology and
HybridCommunicateGroup), for the data-parallel and sharding dimensions: oar implements no model,
pipeline, sequence or context parallelism (their degrees must be 1)."""
import itertools

__all__ = ["ParallelMode", "CommunicateTopology", "HybridCommunicateGroup"]


class ParallelMode:
    """The parallel modes (paddle.distributed.ParallelMode)."""
    DATA_PARALLEL = 0
    TENSOR_PARALLEL = 1
    PIPELINE_PARALLEL = 2
    SHARDING_PARALLEL = 3
    SEGMENT_PARALLEL = 4


class CommunicateTopology:
    """Ranks laid out on a grid of named dimensions, the first outermost (rank = row-major index)."""

    def __init__(self, hybrid_group_names=("data", "pipe", "sharding", "sep", "model"), dims=(1, 1, 1, 1, 1)):
        self._parallel_names = list(hybrid_group_names)
        self._dims = list(dims)
        self._coords = list(itertools.product(*[range(d) for d in self._dims]))
        self._world_size = len(self._coords)
        self._coord2rank = {c: r for r, c in enumerate(self._coords)}

    def get_hybrid_group_names(self):
        return list(self._parallel_names)

    def get_dim(self, axis_name):
        return self._dims[self._parallel_names.index(axis_name)]

    get_dim_size = get_dim

    def world_size(self):
        return self._world_size

    def get_rank(self, **args):
        return self._coord2rank[tuple(args[n] for n in self._parallel_names)]

    def get_coord(self, rank):
        return dict(zip(self._parallel_names, self._coords[rank]))

    def get_comm_list(self, axis_name):
        """The rank lists along `axis_name`: one per position of the other dimensions."""
        axis = self._parallel_names.index(axis_name)
        lists = {}
        for r, c in enumerate(self._coords):
            lists.setdefault(c[:axis] + c[axis + 1:], []).append(r)
        return list(lists.values())

    def get_axis_list(self, axis_name, index):
        axis = self._parallel_names.index(axis_name)
        return [r for r, c in enumerate(self._coords) if c[axis] == index]


class HybridCommunicateGroup:
    """This rank's groups in a fleet job: get_data_parallel_* and get_sharding_parallel_* (rank,
    world size, group, source rank); the model and pipeline dimensions are of size 1."""

    def __init__(self, topology):
        from ... import collective
        self._topo = topology
        self.nranks = topology.world_size()
        self.global_rank = collective.get_rank()
        self._dp_degree = topology.get_dim("data")
        self._sharding_degree = topology.get_dim("sharding")
        self._mp_degree = topology.get_dim("model")
        self._pp_degree = topology.get_dim("pipe")
        self._sep_degree = topology.get_dim("sep")
        coord = topology.get_coord(self.global_rank)
        self._data_parallel_id = coord["data"]
        self._sharding_parallel_id = coord["sharding"]
        self._dp_group, self._dp_comm_group = self._make("data")
        self._sharding_group, self._sharding_comm_group = self._make("sharding")

    def _make(self, axis):
        from ... import collective
        mine, group = None, None
        for ranks in self._topo.get_comm_list(axis):
            if len(ranks) == self.nranks:
                g = collective.get_group(0)  # the whole job: the default group
            else:
                g = collective.new_group(ranks)  # every rank creates every group, in the same order
            if self.global_rank in ranks:
                mine, group = ranks, g
        return mine, group

    def get_parallel_mode(self):
        if self._sharding_degree > 1:
            return ParallelMode.SHARDING_PARALLEL
        if self._dp_degree > 1:
            return ParallelMode.DATA_PARALLEL
        return None

    def topology(self):
        return self._topo

    def get_global_rank(self):
        return self.global_rank

    # data parallel
    def get_data_parallel_rank(self):
        return self._data_parallel_id

    def get_data_parallel_world_size(self):
        return self._dp_degree

    def get_data_parallel_group(self):
        return self._dp_comm_group

    def get_data_parallel_group_src_rank(self):
        return self._dp_comm_group.ranks[0]

    # sharding parallel
    def get_sharding_parallel_rank(self):
        return self._sharding_parallel_id

    def get_sharding_parallel_world_size(self):
        return self._sharding_degree

    def get_sharding_parallel_group(self):
        return self._sharding_comm_group

    def get_sharding_parallel_group_src_rank(self):
        return self._sharding_comm_group.ranks[0]

    # the dimensions oar does not parallelise: size 1
    def get_model_parallel_rank(self):
        return 0

    def get_model_parallel_world_size(self):
        return 1

    def get_stage_id(self):
        return 0

    def get_pipe_parallel_world_size(self):
        return 1

    def get_sep_parallel_world_size(self):
        return 1

    def _not_implemented(self, what):
        raise NotImplementedError(f"HybridCommunicateGroup.{what}: oar implements no model or pipeline "
                                  "parallelism (mp_degree and pp_degree are 1), so it has no such group")

    def get_model_parallel_group(self):
        self._not_implemented("get_model_parallel_group")

    def get_pipe_parallel_group(self):
        self._not_implemented("get_pipe_parallel_group")
