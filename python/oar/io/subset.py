"""Subset and random_split, as paddle.io.Subset and paddle.io.random_split."""
import math
import warnings

from .dataset import Dataset
from .errors import IOTypeError, IOValueError


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order."""

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
    """Splits `dataset` into non-overlapping Subsets of the given lengths (ints, or fractions summing to
    1), by a permutation drawn from oar's global RNG, so `oar.seed(n)` makes it reproducible.

    `generator` is accepted for Paddle's signature; Paddle 3.3 ignores it too and draws from its global
    generator.
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
