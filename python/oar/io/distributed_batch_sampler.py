"""DistributedBatchSampler, as paddle.io.DistributedBatchSampler: each of num_replicas ranks batches
its own share of the dataset, padded (by repeating indices from the start) to equal shares."""
import math

import numpy as np

from .batch_sampler import BatchSampler, _check_batch_size
from .errors import IOTypeError, IOValueError


def _default_world():
    # (nranks, rank) from the launcher's environment, as Paddle's ParallelEnv reads it; one process is
    # rank 0 of 1.
    import os
    nranks = int(os.environ.get("PADDLE_TRAINERS_NUM", "1"))
    rank = int(os.environ.get("PADDLE_TRAINER_ID", "0"))
    return nranks, rank


class DistributedBatchSampler(BatchSampler):
    """A BatchSampler for data-parallel training: each of ``num_replicas`` ranks gets its own
    share of the dataset, padded (by repeating indices from the start) so that all shares are equal.

    Args:
        dataset (Dataset): A map-style dataset.
        batch_size (int): Indices per batch.
        num_replicas (int, optional): Number of ranks; None reads PADDLE_TRAINERS_NUM (1 by
            default). Default: None.
        rank (int, optional): This process's rank; None reads PADDLE_TRAINER_ID (0 by default).
            Default: None.
        shuffle (bool, optional): Shuffle the indices, seeded by the epoch so that every rank
            agrees (call ``set_epoch`` each epoch). Default: False.
        drop_last (bool, optional): Drop the last batch when it is short. Default: False.

    Examples:
        >>> import oar
        >>> dataset = oar.io.TensorDataset([oar.arange(5)])
        >>> for rank in range(2):
        ...     sampler = oar.io.DistributedBatchSampler(dataset, batch_size=2, num_replicas=2, rank=rank)
        ...     print(rank, list(sampler))
        0 [[0, 1], [4]]
        1 [[2, 3], [0]]
    """

    def __init__(self, dataset, batch_size, num_replicas=None, rank=None, shuffle=False, drop_last=False):
        self.dataset = dataset
        _check_batch_size(batch_size)
        if not isinstance(shuffle, bool):
            raise IOTypeError(f"shuffle should be a boolean value, got {shuffle!r}")
        if not isinstance(drop_last, bool):
            raise IOTypeError(f"drop_last should be a boolean number, got {drop_last!r}")
        env_nranks, env_rank = _default_world()
        if num_replicas is not None:
            if not isinstance(num_replicas, int) or isinstance(num_replicas, bool) or num_replicas <= 0:
                raise IOValueError(f"num_replicas should be a positive integer, got {num_replicas!r}")
            self.nranks = num_replicas
        else:
            self.nranks = env_nranks
        if rank is not None:
            if not isinstance(rank, int) or isinstance(rank, bool) or rank < 0:
                raise IOValueError(f"rank should be a non-negative integer, got {rank!r}")
            self.local_rank = rank
        else:
            self.local_rank = env_rank
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.epoch = 0
        self.num_samples = int(math.ceil(len(dataset) / self.nranks))
        self.total_size = self.num_samples * self.nranks

    def _padded_indices(self):
        indices = list(range(len(self.dataset)))
        pad = self.total_size - len(indices)
        if indices and pad > 0:
            indices += (indices * math.ceil(pad / len(indices)))[:pad]
        if self.shuffle:
            # Seeded by the epoch alone, so every rank draws the same order (as Paddle does, with the
            # same NumPy RandomState, hence the same order as Paddle's).
            np.random.RandomState(self.epoch).shuffle(indices)
            self.epoch += 1
        return indices

    def _rank_share(self, indices):
        # Whole batches go to ranks in turn (rank r takes the r-th batch_size run of every round); the
        # last partial round is split evenly.
        if self.nranks == 1:
            return indices
        round_size = self.batch_size * self.nranks
        tail = self.total_size % round_size
        share = []
        for start in range(self.local_rank * self.batch_size, len(indices) - tail, round_size):
            share.extend(indices[start:start + self.batch_size])
        per_rank_tail = tail // self.nranks
        last = indices[len(indices) - tail:]
        share.extend(last[self.local_rank * per_rank_tail:(self.local_rank + 1) * per_rank_tail])
        return share

    def __iter__(self):
        share = self._rank_share(self._padded_indices())
        batch = []
        for idx in share:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = self.num_samples
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size

    def set_epoch(self, epoch):
        """Sets the epoch that seeds the shuffle; call it at the start of each epoch so that the order
        changes from epoch to epoch.

        Args:
            epoch (int): The epoch number.
        """
        self.epoch = epoch
