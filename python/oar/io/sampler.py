"""Index samplers, as paddle.io.Sampler, SequenceSampler, RandomSampler, WeightedRandomSampler and
SubsetRandomSampler. Random draws come from oar's global RNG, so `oar.seed(n)` reproduces them."""
import numpy as np

from .errors import IOTypeError, IOValueError


class Sampler:
    """Base class of the index samplers: ``__iter__`` yields dataset indices; ``__len__`` is optional.

    Args:
        data_source (Dataset, optional): The dataset sampled. Default: None.

    Examples:
        >>> import oar
        >>> class EvenIndices(oar.io.Sampler):
        ...     def __iter__(self):
        ...         return iter(range(0, len(self.data_source), 2))
        ...     def __len__(self):
        ...         return (len(self.data_source) + 1) // 2
        >>> dataset = oar.io.TensorDataset([oar.arange(5)])
        >>> print(list(EvenIndices(dataset)))
        [0, 2, 4]
    """

    def __init__(self, data_source=None):
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError(f"'__iter__' not implement in class {type(self).__name__}")


class SequenceSampler(Sampler):
    """Yields the indices 0, 1, ..., len(data_source) - 1 in order.

    Args:
        data_source (Dataset): The dataset sampled.

    Examples:
        >>> import oar
        >>> dataset = oar.io.TensorDataset([oar.arange(5)])
        >>> print(list(oar.io.SequenceSampler(dataset)))
        [0, 1, 2, 3, 4]
    """

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """Yields the indices in a random order, or random indices with replacement.

    Draws come from oar's global generator (``oar.seed`` reproduces them).

    Args:
        data_source (Dataset): The dataset sampled.
        replacement (bool, optional): Draw with replacement. Default: False.
        num_samples (int, optional): Number of indices; None means len(data_source) (without
            replacement it may not exceed that). Default: None.
        generator (iterator, optional): An iterator of indices to take the first num_samples
            from instead of drawing. Default: None.

    Examples:
        >>> import oar
        >>> dataset = oar.io.TensorDataset([oar.arange(5)])
        >>> oar.seed(2024)
        >>> print(sorted(oar.io.RandomSampler(dataset)))
        [0, 1, 2, 3, 4]
        >>> print(len(list(oar.io.RandomSampler(dataset, replacement=True, num_samples=3))))
        3
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise IOTypeError(f"expect boolean value for replacement, but got replacement={replacement}")
        if not isinstance(self.num_samples, int) or isinstance(self.num_samples, bool) or self.num_samples <= 0:
            raise IOValueError(f"num_samples should be a positive integer, but got num_samples={self.num_samples}")
        if not replacement and self.num_samples > len(data_source):
            raise IOValueError("num_samples should be smaller than or equal to length of data_source when "
                               f"replacement is False, but got num_samples: {self.num_samples} > data_source: "
                               f"{len(data_source)}")

    @property
    def num_samples(self):
        """The number of indices drawn per epoch."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        if self.generator:
            for _ in range(self.num_samples):
                try:
                    yield next(self.generator)
                except StopIteration:
                    return
            return
        from .. import randint, randperm
        n = len(self.data_source)
        if self.replacement:
            yield from randint(0, n, [self.num_samples]).tolist()
        else:
            yield from randperm(n).tolist()[:self.num_samples]

    def __len__(self):
        return self.num_samples


def _weights_matrix(weights):
    # Weights as a float64 NumPy matrix, one row per distribution, checked as Paddle checks them.
    from .. import Tensor
    if isinstance(weights, Tensor):
        weights = weights.numpy()
    elif isinstance(weights, (list, tuple)):
        weights = np.array(weights)
    if not isinstance(weights, np.ndarray):
        raise IOTypeError("weights should be paddle.Tensor, numpy.ndarray, list or tuple, "
                          f"got {type(weights).__name__}")
    if weights.ndim == 0 or weights.ndim > 2:
        raise IOValueError(f"weights should be a 1-D or 2-D array, got {weights.ndim}-D")
    weights = weights.astype(np.float64).reshape(-1, weights.shape[-1])
    if np.any(np.isnan(weights)):
        raise IOValueError("weights should not be NaN")
    if np.any(np.isinf(weights)):
        raise IOValueError("weights should not be INF")
    if not np.all(weights >= 0.0):
        raise IOValueError("weights should be positive value")
    if not np.all(np.sum(weights > 0.0, axis=1) > 0):
        raise IOValueError("weights should have positive values")
    return weights


class WeightedRandomSampler(Sampler):
    """Yields ``num_samples`` indices in [0, len(weights)), each drawn with probability
    proportional to its weight. 2-D weights draw num_samples per row, rows one after another.

    Args:
        weights (list|tuple|numpy.ndarray|Tensor): Non-negative weights, not all zero.
        num_samples (int): Number of indices to draw.
        replacement (bool, optional): Draw with replacement; without it num_samples may not
            exceed the number of positive weights. Default: True.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> sampler = oar.io.WeightedRandomSampler([0.0, 0.0, 1.0], num_samples=3)
        >>> print(list(sampler))
        [2, 2, 2]
    """

    def __init__(self, weights, num_samples, replacement=True):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise IOValueError(f"num_samples should be a positive integer, got {num_samples!r}")
        if not isinstance(replacement, bool):
            raise IOValueError(f"replacement should be a boolean value, got {replacement!r}")
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement

    def __iter__(self):
        from .. import multinomial, to_tensor
        w = _weights_matrix(self.weights)
        if not self.replacement and not np.all(np.sum(w > 0.0, axis=1) >= self.num_samples):
            raise IOValueError("weights positive value number should not less than num_samples when "
                               f"replacement=False (num_samples={self.num_samples})")
        drawn = multinomial(to_tensor(w / w.sum(axis=1, keepdims=True)), self.num_samples, self.replacement)
        return iter(drawn.numpy().reshape(-1).tolist())

    def __len__(self):
        shape = np.shape(self.weights.numpy() if hasattr(self.weights, "numpy") else self.weights)
        return self.num_samples * (int(np.prod(shape)) // shape[-1])


class SubsetRandomSampler(Sampler):
    """Yields the given indices in a random order (without replacement).

    Args:
        indices (sequence of int): The indices; not empty.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> print(sorted(oar.io.SubsetRandomSampler([1, 3, 4])))
        [1, 3, 4]
    """

    def __init__(self, indices):
        if len(indices) == 0:
            raise ValueError("The length of `indices` in SubsetRandomSampler should be greater than 0.")
        self.indices = indices

    def __iter__(self):
        from .. import randperm
        for i in randperm(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)
