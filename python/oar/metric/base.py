"""Metric: the interface every metric follows (paddle.metric.Metric).

A metric keeps running state: update() folds in one batch, accumulate() gives the value so far,
reset() starts again. compute() is an optional first stage run on tensors (for Accuracy it builds
the top-k correct-matrix) whose outputs are update()'s inputs; by default it passes them through.
"""
import abc


class Metric(metaclass=abc.ABCMeta):
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
