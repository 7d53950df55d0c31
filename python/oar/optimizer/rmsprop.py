"""RMSProp (paddle.optimizer.RMSProp): ms = rho ms + (1-rho) g^2 (centered: minus the squared
running mean of g); mom = momentum mom + lr g / sqrt(ms + eps); w -= mom."""
from .. import _C
from ._checks import batch_args, non_negative, require
from .optimizer import Optimizer

__all__ = ['RMSProp']


class RMSProp(Optimizer):
    _state_specs = (('momentum', 0.0), ('mean_square', 0.0), ('mean_grad', 0.0))

    def __init__(self, learning_rate, rho=0.95, epsilon=1e-06, momentum=0.0, centered=False,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        require('RMSProp', learning_rate=learning_rate, rho=rho, epsilon=epsilon, momentum=momentum)
        non_negative('RMSProp', 'rho', rho)
        non_negative('RMSProp', 'epsilon', epsilon)
        non_negative('RMSProp', 'momentum', momentum)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.type = 'rmsprop'
        self._keep_hypers(rho=rho, epsilon=epsilon, momentum=momentum, centered=centered)
        self._finish_groups()

    def _update(self, batch, opts, group):
        _C._optim_rmsprop(*batch_args(batch), rho=float(opts.get('rho', self._rho)),
                          epsilon=float(opts.get('epsilon', self._epsilon)),
                          momentum=float(opts.get('momentum', self._momentum)),
                          centered=bool(opts.get('centered', self._centered)))
