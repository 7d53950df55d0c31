"""Subset and random_split, as paddle.io.Subset and paddle.io.random_split."""
import math
import warnings

from .dataset import Dataset
from .errors import IOTypeError, IOValueError


class Subset(Dataset):
    """The samples of a dataset at the given indices, in that order.

    Args:
        dataset (Dataset): The whole dataset.
        indices (sequence of int): The indices of the samples kept.

    Examples:
        >>> import oar
        >>> dataset = oar.io.TensorDataset([oar.arange(5)])
        >>> subset = oar.io.Subset(dataset, indices=[4, 0])
        >>> print(len(subset), [int(subset[i][0]) for i in range(len(subset))])
        2 [4, 0]
    """

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


def _split_lengths(n, lengths):
    # Fractions summing to 1 become counts: floor(n * f) each, the remainder handed out one by one
    # from the first split on (as Paddle does).
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            counts.append(int(math.floor(n * frac)))
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        for i, c in enumerate(counts):
            if c == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.")
        return counts
    for i, length in enumerate(lengths):
        if isinstance(length, bool) or not isinstance(length, int):
            raise IOTypeError(f"random_split: expected 'lengths' to hold ints or fractions summing to 1, "
                              f"lengths[{i}] is {length!r}")
        if length < 0:
            raise IOValueError(f"random_split: expected non-negative lengths, lengths[{i}] is {length}")
    return list(lengths)


def random_split(dataset, lengths, generator=None):
    """Splits a dataset into non-overlapping random subsets of the given lengths.

    The order comes from a permutation drawn from oar's global generator, so ``oar.seed(n)`` makes
    it reproducible.

    Args:
        dataset (Dataset): The dataset to split.
        lengths (list): Lengths of the splits (summing to len(dataset)), or fractions summing to 1
            (rounded down, the remainder handed out one by one from the first split).
        generator (optional): Accepted for Paddle's signature and ignored (as in Paddle).
            Default: None.

    Returns:
        list[Subset]: the splits.

    Examples:
        >>> import oar
        >>> dataset = oar.io.TensorDataset([oar.arange(5)])
        >>> oar.seed(2024)
        >>> train, test = oar.io.random_split(dataset, [3, 2])
        >>> print(len(train), len(test), sorted(train.indices + test.indices))
        3 2 [0, 1, 2, 3, 4]
    """
    from .. import randperm
    lengths = list(lengths)
    counts = _split_lengths(len(dataset), lengths)
    if sum(counts) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset! "
                         f"(lengths sum to {sum(counts)}, the dataset has {len(dataset)} samples)")
    perm = randperm(sum(counts)).tolist() if sum(counts) > 0 else []
    subsets, offset = [], 0
    for c in counts:
        subsets.append(Subset(dataset, perm[offset:offset + c]))
        offset += c
    return subsets
