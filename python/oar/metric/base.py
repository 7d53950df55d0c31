"""Metric: the interface every metric follows (paddle.metric.Metric).

A metric keeps running state: update() folds in one batch, accumulate() gives the value so far,
reset() starts again. compute() is an optional first stage run on tensors (for Accuracy it builds
the top-k correct-matrix) whose outputs are update()'s inputs; by default it passes them through.
"""
import abc


class Metric(metaclass=abc.ABCMeta):
    """Base class of the streaming metrics.

    A metric keeps a running state over batches: ``update(...)`` folds in one batch,
    ``accumulate()`` returns the value over everything seen since the last ``reset()``, and
    ``name()`` names it. ``compute(...)`` is an optional first stage that turns the model's outputs
    and labels (tensors) into update()'s inputs; by default it passes them through. oar.Model
    (hapi) calls compute, then update, for each batch. Subclasses implement reset, update,
    accumulate and name.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> class MeanAbsoluteError(oar.metric.Metric):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.reset()
        ...     def reset(self):
        ...         self.total, self.count = 0.0, 0
        ...     def update(self, preds, labels):
        ...         self.total += float(np.abs(np.asarray(preds) - np.asarray(labels)).sum())
        ...         self.count += len(labels)
        ...     def accumulate(self):
        ...         return self.total / self.count
        ...     def name(self):
        ...         return "mae"
        >>> mae = MeanAbsoluteError()
        >>> mae.update([1.0, 2.0], [1.5, 2.0])
        >>> mae.update([0.0], [1.0])
        >>> print(mae.name(), mae.accumulate())
        mae 0.5
    """

    def __init__(self):
        pass

    @abc.abstractmethod
    def reset(self):
        """Reset the running state."""
        raise NotImplementedError(f"function 'reset' not implemented in {self.__class__.__name__}.")

    @abc.abstractmethod
    def update(self, *args):
        """Fold one batch (compute()'s outputs) into the running state."""
        raise NotImplementedError(f"function 'update' not implemented in {self.__class__.__name__}.")

    @abc.abstractmethod
    def accumulate(self):
        """The metric over everything seen since the last reset."""
        raise NotImplementedError(
            f"function 'accumulate' not implemented in {self.__class__.__name__}.")

    @abc.abstractmethod
    def name(self):
        """The metric's name (Accuracy: a list of names, one per top-k)."""
        raise NotImplementedError(f"function 'name' not implemented in {self.__class__.__name__}.")

    def compute(self, *args):
        """Model outputs and labels -> update()'s inputs; the default passes them through."""
        return args
