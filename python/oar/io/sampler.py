"""Index samplers, as paddle.io.Sampler, SequenceSampler, RandomSampler, WeightedRandomSampler and
SubsetRandomSampler. Random draws come from oar's global RNG, so `oar.seed(n)` reproduces them."""
import numpy as np

from .errors import IOTypeError, IOValueError


class Sampler:
    """Base class: subclasses yield dataset indices from __iter__ and may define __len__."""

    def __init__(self, data_source=None):
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError(f"'__iter__' not implement in class {type(self).__name__}")


class SequenceSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the indices (the first num_samples of it), or num_samples indices drawn
    with replacement; with `generator` (an iterator of indices) its first num_samples values instead."""

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
    """num_samples indices in [0, len(weights)) drawn with probability proportional to the weights (a
    2-D weights draws num_samples per row, rows one after another)."""

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
    """The given indices in a random order (without replacement)."""

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
