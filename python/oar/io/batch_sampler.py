"""BatchSampler, as paddle.io.BatchSampler: groups a sampler's indices into lists of batch_size."""
from collections.abc import Iterable

from .dataset import IterableDataset
from .errors import IOTypeError, IOValueError
from .sampler import RandomSampler, Sampler, SequenceSampler


def _check_batch_size(batch_size):
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
        raise IOValueError(f"batch_size should be a positive integer, but got {batch_size}")


class BatchSampler(Sampler):
    """Groups indices into batches (lists of indices), for DataLoader's ``batch_sampler``.

    The indices come from ``sampler``, or from a SequenceSampler (or RandomSampler with shuffle)
    over ``dataset``; give one of the two.

    Args:
        dataset (Dataset, optional): A map-style dataset to sample. Default: None.
        sampler (Sampler|iterable, optional): The indices to batch. Default: None.
        shuffle (bool, optional): Shuffle the dataset's indices (dataset only). Default: False.
        batch_size (int, optional): Indices per batch. Default: 1.
        drop_last (bool, optional): Drop the last batch when it is short. Default: False.

    Examples:
        >>> import oar
        >>> dataset = oar.io.TensorDataset([oar.arange(5)])
        >>> print(list(oar.io.BatchSampler(dataset, batch_size=2)))
        [[0, 1], [2, 3], [4]]
        >>> sampler = oar.io.SequenceSampler(dataset)
        >>> print(list(oar.io.BatchSampler(sampler=sampler, batch_size=2, drop_last=True)))
        [[0, 1], [2, 3]]
    """

    def __init__(self, dataset=None, sampler=None, shuffle=False, batch_size=1, drop_last=False):
        if dataset is None:
            if sampler is None:
                raise IOValueError("BatchSampler: either dataset or sampler should be set")
            if not isinstance(sampler, (Sampler, Iterable)):
                raise IOTypeError(f"sampler should be either paddle.io.Sampler or Iterable, but got {type(sampler)}")
            if shuffle:
                raise IOValueError("BatchSampler: shuffle should be False when sampler is set")
            self.sampler = sampler
        else:
            if isinstance(dataset, IterableDataset):
                raise IOTypeError("BatchSampler: dataset should not be a paddle.io.IterableDataset")
            if sampler is not None:
                raise IOValueError("BatchSampler: should not set both dataset and sampler")
            if not isinstance(shuffle, bool):
                raise IOTypeError(f"shuffle should be a boolean value, but got {type(shuffle)}")
            self.sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        _check_batch_size(batch_size)
        if not isinstance(drop_last, bool):
            raise IOTypeError(f"drop_last should be a boolean value, but got {type(drop_last)}")
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size


class InfiniteIterableSampler(Sampler):
    """For an IterableDataset: endless batches of batch_size placeholders; the dataset ends the epoch."""

    def __init__(self, dataset, batch_size=1):
        self.dataset = dataset
        self.batch_size = batch_size

    def __iter__(self):
        while True:
            yield [None] * self.batch_size
