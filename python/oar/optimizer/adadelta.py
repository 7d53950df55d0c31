"""Adadelta (paddle.optimizer.Adadelta): running averages of g^2 and of the squared update;
update = -sqrt((E[dx^2] + eps) / (E[g^2] + eps)) g; w += lr update."""
from .. import _C
from ._checks import batch_args, require
from .optimizer import Optimizer

__all__ = ['Adadelta']


class Adadelta(Optimizer):
    _state_specs = (('_avg_squared_grad', 0.0), ('_avg_squared_update', 0.0))

    def __init__(self, learning_rate=0.001, epsilon=1e-06, rho=0.95, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        require('Adadelta', learning_rate=learning_rate, epsilon=epsilon, rho=rho)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.type = 'adadelta'
        self._keep_hypers(epsilon=epsilon, rho=rho)
        self._finish_groups()

    def _update(self, batch, opts, group):
        _C._optim_adadelta(*batch_args(batch), rho=float(opts.get('rho', self._rho)),
                           epsilon=float(opts.get('epsilon', self._epsilon)))
