"""Adagrad (paddle.optimizer.Adagrad): m += g^2; w -= lr g / (sqrt(m) + eps)."""
from .. import _C
from ._checks import batch_args, require
from .optimizer import Optimizer

__all__ = ['Adagrad']


class Adagrad(Optimizer):
    def __init__(self, learning_rate, epsilon=1e-06, parameters=None, weight_decay=None,
                 grad_clip=None, name=None, initial_accumulator_value=0.0):
        require('Adagrad', learning_rate=learning_rate, epsilon=epsilon)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.type = 'adagrad'
        self._epsilon = epsilon
        self.initial_accumulator_value = initial_accumulator_value
        self._default_dict.update(epsilon=epsilon, initial_accumulator_value=initial_accumulator_value)
        self._finish_groups()

    def _state_keys(self, opts):
        return (('moment', float(opts.get('initial_accumulator_value', self.initial_accumulator_value))),)

    def _update(self, batch, opts, group):
        _C._optim_adagrad(*batch_args(batch), epsilon=float(opts.get('epsilon', self._epsilon)))
