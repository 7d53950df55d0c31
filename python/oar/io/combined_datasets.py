"""Datasets built from other datasets, as paddle.io.ComposeDataset, ChainDataset and ConcatDataset."""
import bisect

from .dataset import Dataset, IterableDataset
from .errors import IOTypeError, IOValueError


def _fields(sample):
    # ComposeDataset flattens one level: a tuple/list sample contributes its fields, anything else itself.
    return list(sample) if isinstance(sample, (list, tuple)) else [sample]


class ComposeDataset(Dataset):
    """Zips map-style datasets of equal length: sample i is the fields of every dataset's sample i."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise IOValueError("ComposeDataset: input datasets should not be empty")
        for i, d in enumerate(self.datasets):
            if not isinstance(d, Dataset):
                raise IOTypeError(f"ComposeDataset: each input dataset should be paddle.io.Dataset, "
                                  f"datasets[{i}] is {type(d).__name__}")
            if isinstance(d, IterableDataset):
                raise IOTypeError(f"ComposeDataset: paddle.io.IterableDataset not supported (datasets[{i}])")
            if i > 0 and len(d) != len(self.datasets[i - 1]):
                raise IOValueError(f"ComposeDataset: lengths of datasets should be same, datasets[{i - 1}] has "
                                   f"{len(self.datasets[i - 1])} samples and datasets[{i}] has {len(d)}")

    def __len__(self):
        return len(self.datasets[0])

    def __getitem__(self, idx):
        sample = []
        for d in self.datasets:
            sample.extend(_fields(d[idx]))
        return tuple(sample)


class ChainDataset(IterableDataset):
    """Iterates iterable-style datasets one after another."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise IOValueError("ChainDataset: input datasets should not be empty")
        for i, d in enumerate(self.datasets):
            if not isinstance(d, IterableDataset):
                raise IOTypeError(f"ChainDataset only support paddle.io.IterableDataset, datasets[{i}] is "
                                  f"{type(d).__name__}")

    def __iter__(self):
        for d in self.datasets:
            yield from d


class ConcatDataset(Dataset):
    """Map-style datasets end to end: index i falls in the dataset whose cumulative size passes i."""

    @staticmethod
    def cumsum(sequence):
        sizes, total = [], 0
        for d in sequence:
            total += len(d)
            sizes.append(total)
        return sizes

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise IOValueError("ConcatDataset: datasets should not be an empty iterable")
        for i, d in enumerate(self.datasets):
            if isinstance(d, IterableDataset):
                raise IOTypeError(f"ConcatDataset does not support IterableDataset (datasets[{i}])")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        n = len(self)
        if idx < 0:
            if -idx > n:
                raise ValueError(f"ConcatDataset: absolute value of index should not exceed dataset length "
                                 f"({n}), got index {idx}")
            idx += n
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        if which >= len(self.datasets):
            raise IndexError(f"ConcatDataset: index {idx} is out of range for a dataset of length {n}")
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][idx - start]
