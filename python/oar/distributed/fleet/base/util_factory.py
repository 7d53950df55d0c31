"""UtilBase (paddle.distributed.fleet.UtilBase, the type of ``fleet.util``): host-side helpers
for a job's workers: small collectives on Python values, a file list's share of this worker,
printing on one rank."""
__all__ = []


def _shard(files, index, num):
    blocks = [len(files) // num] * num
    for i in range(len(files) % num):
        blocks[i] += 1
    begin = sum(blocks[:index])
    return files[begin:begin + blocks[index]]


class UtilBase:
    """Helpers for the workers of a job (``fleet.util``, given the role maker at fleet.init).
    all_reduce / all_gather / barrier run over the job's workers; in one process (no one to
    communicate with) they warn, as Paddle's role maker without its Gloo context, and return the
    input.

    Examples:
        >>> from oar.distributed import fleet
        >>> util = fleet.UtilBase()
        >>> util._set_role_maker(fleet.PaddleCloudRoleMaker(is_collective=True))
        >>> print(util.get_file_shard(["a", "b", "c"]))
        ['a', 'b', 'c']
    """

    def __init__(self):
        self.role_maker = None
        self.dist_strategy = None

    def _set_strategy(self, dist_strategy):
        self.dist_strategy = dist_strategy

    def _set_role_maker(self, role_maker):
        self.role_maker = role_maker

    def _set_file_system(self, fs_client):
        from ..utils.fs import FS
        assert isinstance(fs_client, FS), "fs_client must be the instance of paddle.distributed.fleet.utils.FS"
        self.fs_client = fs_client

    def _role(self, what):
        if self.role_maker is None:
            raise AttributeError(f"'NoneType' object has no attribute '{what}' (UtilBase has no role maker: call "
                                 "fleet.init() and use fleet.util)")
        return self.role_maker

    def all_reduce(self, input, mode="sum", comm_world="worker"):
        """Reduces a list or array elementwise over the workers ('sum', 'min' or 'max'); returns
        an array of the input's shape.

        Args:
            input (list|tuple|numpy.ndarray): The values.
            mode (str, optional): Default: 'sum'.
            comm_world (str, optional): 'worker', 'server' or 'all'. Default: 'worker'.

        Examples:
            >>> import warnings
            >>> from oar.distributed import fleet
            >>> util = fleet.UtilBase()
            >>> util._set_role_maker(fleet.PaddleCloudRoleMaker(is_collective=True))
            >>> with warnings.catch_warnings():
            ...     warnings.simplefilter("ignore")
            ...     print(util.all_reduce([1, 2], "sum"))
            [1, 2]
        """
        if isinstance(input, tuple):
            input = list(input)
        return self._role("_all_reduce")._all_reduce(input, mode, comm_world)

    def barrier(self, comm_world="worker"):
        """Waits for every worker.

        Examples:
            >>> import warnings
            >>> from oar.distributed import fleet
            >>> util = fleet.UtilBase()
            >>> util._set_role_maker(fleet.PaddleCloudRoleMaker(is_collective=True))
            >>> with warnings.catch_warnings():
            ...     warnings.simplefilter("ignore")
            ...     util.barrier()
        """
        self._role("_barrier")._barrier(comm_world)

    def all_gather(self, input, comm_world="worker"):
        """Every worker's value, in rank order.

        Examples:
            >>> import warnings
            >>> from oar.distributed import fleet
            >>> util = fleet.UtilBase()
            >>> util._set_role_maker(fleet.PaddleCloudRoleMaker(is_collective=True))
            >>> with warnings.catch_warnings():
            ...     warnings.simplefilter("ignore")
            ...     print(util.all_gather(3))
            3
        """
        return self._role("_all_gather")._all_gather(input, comm_world)

    def _broadcast(self):
        pass

    def _scatter(self):
        pass

    def get_heter_file_shard(self, files):
        """The share of `files` of this heterogeneous worker (index counted after the workers).

        Examples:
            >>> from oar.distributed import fleet
            >>> util = fleet.UtilBase()
            >>> util._set_role_maker(fleet.PaddleCloudRoleMaker(is_collective=True))
            >>> print(util.get_heter_file_shard(["a", "b"]))
            ['a', 'b']
        """
        if not isinstance(files, list):
            raise TypeError("files should be a list of file need to be read.")
        rm = self._role("_worker_num")
        trainers = rm._worker_num()
        return _shard(files, rm._worker_index() - trainers, trainers)

    def get_file_shard(self, files):
        """This worker's share of `files`: contiguous blocks, the first ``len % workers`` one
        longer.

        Args:
            files (list): File names.

        Returns:
            list: This worker's files.

        Examples:
            >>> from oar.distributed import fleet
            >>> util = fleet.UtilBase()
            >>> util._set_role_maker(fleet.PaddleCloudRoleMaker(is_collective=True))
            >>> print(util.get_file_shard(["1.log", "2.log", "3.log"]))
            ['1.log', '2.log', '3.log']
        """
        if not isinstance(files, list):
            raise TypeError("files should be a list of file need to be read.")
        rm = self._role("_worker_index")
        return _shard(files, rm._worker_index(), rm._worker_num())

    def print_on_rank(self, message, rank_id):
        """Prints message on worker rank_id only.

        Examples:
            >>> from oar.distributed import fleet
            >>> util = fleet.UtilBase()
            >>> util._set_role_maker(fleet.PaddleCloudRoleMaker(is_collective=True))
            >>> util.print_on_rank("hello", 0)
            hello
        """
        if self._role("_worker_index")._worker_index() != rank_id:
            return
        print(message)

