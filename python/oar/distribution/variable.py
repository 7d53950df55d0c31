"""Random variables as transforms see them (paddle.distribution.variable): discrete or not, the
rank of their events, and the constraint their values meet."""
from __future__ import annotations

from .. import _C
from . import constraint
from ..tensor.manipulation import unstack


class Variable:
    """A random variable.

    Args:
        is_discrete (bool): Whether the variable is discrete.
        event_rank (int): The rank of its events.
        constraint (Constraint|None, optional): The constraint its values meet.
    """

    def __init__(self, is_discrete=False, event_rank=0, constraint=None):
        self._is_discrete = is_discrete
        self._event_rank = event_rank
        self._constraint = constraint

    @property
    def is_discrete(self):
        return self._is_discrete

    @property
    def event_rank(self):
        return self._event_rank

    def constraint(self, value):
        """Whether value meets the variable's constraint (elementwise)."""
        return self._constraint.check(value)


class Real(Variable):
    def __init__(self, event_rank=0):
        super().__init__(False, event_rank, constraint.real)


class Positive(Variable):
    def __init__(self, event_rank=0):
        super().__init__(False, event_rank, constraint.positive)


class Independent(Variable):
    """The base variable with its rightmost reinterpreted_batch_rank batch axes taken as event axes."""

    def __init__(self, base, reinterpreted_batch_rank):
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        super().__init__(base.is_discrete, base.event_rank + reinterpreted_batch_rank)

    def constraint(self, value):
        ret = self._base.constraint(value)
        if ret.dim() < self._reinterpreted_batch_rank:
            raise ValueError(f"Input dimensions must be equal or grater than  {self._reinterpreted_batch_rank}")
        return ret.reshape(ret.shape[:ret.dim() - self._reinterpreted_batch_rank] + [-1]).all(-1)


class Stack(Variable):
    """Variables stacked along axis."""

    def __init__(self, vars, axis=0):
        self._vars = vars
        self._axis = axis

    @property
    def is_discrete(self):
        return any(var.is_discrete for var in self._vars)

    @property
    def event_rank(self):
        rank = max(var.event_rank for var in self._vars)
        if self._axis + rank < 0:
            rank += 1
        return rank

    def constraint(self, value):
        if not (-value.dim() <= self._axis < value.dim()):
            raise ValueError(f'Input dimensions {value.dim()} should be grater than stack '
                             f'constraint axis {self._axis}.')
        return _C.stack([var.constraint(v) for var, v in zip(self._vars, unstack(value, self._axis))],
                        self._axis)


real = Real()
positive = Positive()
