"""Adam (paddle.optimizer.Adam): bias-corrected first and second moments, optionally AMSGrad
(the running maximum of the second moment). lazy_mode only matters for sparse gradients, which
oar does not produce, so it is accepted and has no effect."""
from .. import _C
from ._checks import adam_args, batch_args
from .optimizer import Optimizer

__all__ = ['Adam']


class Adam(Optimizer):
    _pow_specs = (('beta1_pow_acc', 'beta1'), ('beta2_pow_acc', 'beta2'))

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, parameters=None,
                 weight_decay=None, grad_clip=None, lazy_mode=False, multi_precision=False,
                 use_multi_tensor=False, amsgrad=False, name=None):
        adam_args(type(self).__name__, learning_rate, beta1, beta2, epsilon)
        self._multi_precision = multi_precision
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.type = 'adam'
        self._keep_hypers(beta1=beta1, beta2=beta2, epsilon=epsilon, lazy_mode=lazy_mode)
        self._use_multi_tensor = use_multi_tensor
        self._amsgrad = amsgrad
        self._finish_groups()

    def _state_keys(self, opts):
        keys = (('moment1', 0.0), ('moment2', 0.0))
        return keys + (('moment2_max', 0.0),) if self._amsgrad else keys

    def _decoupled_decay(self, batch, opts):
        return []

    def _update(self, batch, opts, group):
        beta1_pow, beta2_pow = self._pows(batch, opts)
        _C._optim_adam(*batch_args(batch), beta1_pow=beta1_pow, beta2_pow=beta2_pow,
                       **self._hypers(opts, 'beta1', 'beta2', 'epsilon'), amsgrad=self._amsgrad,
                       decay=self._decoupled_decay(batch, opts))
