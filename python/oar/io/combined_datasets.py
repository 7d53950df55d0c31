"""Datasets built from other datasets, as paddle.io.ComposeDataset, ChainDataset and ConcatDataset."""
import bisect

from .dataset import Dataset, IterableDataset
from .errors import IOTypeError, IOValueError


def _fields(sample):
    # ComposeDataset flattens one level: a tuple/list sample contributes its fields, anything else itself.
    return list(sample) if isinstance(sample, (list, tuple)) else [sample]


class ComposeDataset(Dataset):
    """Zips map-style datasets of equal length: sample i holds the fields of every dataset's
    sample i, in order (a tuple sample contributes its fields, anything else itself).

    Args:
        datasets (list of Dataset): Map-style datasets of the same length.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> class Range(oar.io.Dataset):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __getitem__(self, idx):
        ...         return np.array([idx]), np.array(idx * 10)
        ...     def __len__(self):
        ...         return self.n
        >>> dataset = oar.io.ComposeDataset([Range(3), Range(3)])
        >>> print(len(dataset), len(dataset[2]))
        3 4
    """

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
    """Chains iterable-style datasets: iterates each of them in turn.

    Args:
        datasets (list of IterableDataset): The datasets.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> class Counter(oar.io.IterableDataset):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __iter__(self):
        ...         yield from (np.array(i) for i in range(self.n))
        >>> print([int(x) for x in oar.io.ChainDataset([Counter(2), Counter(3)])])
        [0, 1, 0, 1, 2]
    """

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
    """Concatenates map-style datasets end to end: index i falls in the dataset whose cumulative
    size first exceeds it.

    Args:
        datasets (list of Dataset): Map-style datasets.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> class Range(oar.io.Dataset):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __getitem__(self, idx):
        ...         return np.array([idx]), np.array(idx * 10)
        ...     def __len__(self):
        ...         return self.n
        >>> dataset = oar.io.ConcatDataset([Range(2), Range(3)])
        >>> print(len(dataset), dataset[3])
        5 (array([1]), array(10))
    """

    @staticmethod
    def cumsum(sequence):
        """The running totals of the datasets' lengths."""
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
