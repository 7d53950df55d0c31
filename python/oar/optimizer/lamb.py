"""Lamb (paddle.optimizer.Lamb): Adam's direction plus decoupled decay, r = m_hat /
(sqrt(v_hat) + eps) + wd w, scaled per parameter by the trust ratio ||w|| / ||r||."""
from .. import _C
from ._checks import adam_args, batch_args
from .optimizer import Optimizer

__all__ = ['Lamb']


class Lamb(Optimizer):
    _state_specs = (('moment1', 0.0), ('moment2', 0.0))
    _pow_specs = (('beta1_pow_acc', 'beta1'), ('beta2_pow_acc', 'beta2'))

    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999,
                 epsilon=1e-06, parameters=None, grad_clip=None, exclude_from_weight_decay_fn=None,
                 multi_precision=False, always_adapt=False, name=None):
        adam_args('Lamb', learning_rate, beta1, beta2, epsilon)
        if exclude_from_weight_decay_fn is not None and not callable(exclude_from_weight_decay_fn):
            raise TypeError("Lamb: exclude_from_weight_decay_fn should be a function of the parameter, "
                            f"but received {type(exclude_from_weight_decay_fn).__name__}")
        self._multi_precision = multi_precision
        super().__init__(learning_rate, parameters, None, grad_clip, name)
        self.type = 'lamb'
        self._keep_hypers(beta1=beta1, beta2=beta2, epsilon=epsilon,
                          lamb_weight_decay=lamb_weight_decay,
                          exclude_from_weight_decay_fn=exclude_from_weight_decay_fn)
        self.always_adapt = always_adapt
        self._finish_groups()

    def _update(self, batch, opts, group):
        wd = float(opts.get('lamb_weight_decay', self._lamb_weight_decay))
        exclude = opts.get('exclude_from_weight_decay_fn', self._exclude_from_weight_decay_fn)
        decay = [0.0 if exclude is not None and exclude(p) else wd for p in batch['params']]
        beta1_pow, beta2_pow = self._pows(batch, opts)
        _C._optim_lamb(*batch_args(batch), beta1_pow=beta1_pow, beta2_pow=beta2_pow,
                       **self._hypers(opts, 'beta1', 'beta2', 'epsilon'), decay=decay,
                       always_adapt=bool(self.always_adapt))
