"""RAdam (paddle.optimizer.RAdam): Adam with its adaptive step rectified by the variance of the
second moment, r_t = sqrt((rho_t-4)(rho_t-2) rho_inf / ((rho_inf-4)(rho_inf-2) rho_t)), and
bias-corrected momentum SGD while rho_t <= 5. Like Paddle, the counters beta1_pow, beta2_pow and
rho are kept per element, shaped like the parameter."""
from .. import _C
from ._checks import adam_args_epsilon_first, batch_args
from .optimizer import Optimizer

__all__ = ['RAdam']


class RAdam(Optimizer):
    _state_specs = (('beta1_pow', 1.0), ('beta2_pow', 1.0), ('rho', 1.0), ('moment1', 0.0),
                    ('moment2', 0.0))

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        adam_args_epsilon_first('RAdam', learning_rate, beta1, beta2, epsilon)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.type = 'radam'
        self._keep_hypers(beta1=beta1, beta2=beta2, epsilon=epsilon)
        self._finish_groups()

    def _update(self, batch, opts, group):
        _C._optim_radam(*batch_args(batch), **self._hypers(opts, 'beta1', 'beta2', 'epsilon'))
