"""Adamax (paddle.optimizer.Adamax): Adam with the infinity norm, u = max(beta2 u + eps, |g|);
w -= lr / (1 - beta1^t) * m / u."""
from .. import _C
from ._checks import adam_args, batch_args
from .optimizer import Optimizer

__all__ = ['Adamax']


class Adamax(Optimizer):
    _state_specs = (('moment', 0.0), ('inf_norm', 0.0))
    _pow_specs = (('beta1_pow_acc', 'beta1'),)

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        adam_args('Adamax', learning_rate, beta1, beta2, epsilon)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.type = 'adamax'
        self._keep_hypers(beta1=beta1, beta2=beta2, epsilon=epsilon)
        self._finish_groups()

    def _update(self, batch, opts, group):
        (beta1_pow,) = self._pows(batch, opts)
        _C._optim_adamax(*batch_args(batch), beta1_pow=beta1_pow,
                         **self._hypers(opts, 'beta1', 'beta2', 'epsilon'))
