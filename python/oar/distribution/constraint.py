"""Constraints on the values of a random variable (paddle.distribution.constraint): what a
transform's domain and codomain admit."""
from __future__ import annotations

from .. import _C


class Constraint:
    """A condition on the values of a random variable."""

    def __call__(self, value):
        raise NotImplementedError

    def check(self, value):
        return self(value)


class Real(Constraint):
    def __call__(self, value):
        return value == value  # False where value is nan


class Range(Constraint):
    def __init__(self, lower, upper):
        self._lower = lower
        self._upper = upper
        super().__init__()

    def __call__(self, value):
        return _C.logical_and(self._lower <= value, value <= self._upper)


class Positive(Constraint):
    def __call__(self, value):
        return value >= 0.0


class Simplex(Constraint):
    def __call__(self, value):
        return _C.logical_and(_C.all(value >= 0, -1), (value.sum(-1) - 1).abs() < 1e-6)


real = Real()
positive = Positive()
simplex = Simplex()
