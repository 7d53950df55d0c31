"""NAdam (paddle.optimizer.NAdam): Adam with Nesterov momentum and the momentum schedule
mu_t = beta1 (1 - 0.5 * 0.96^(t * momentum_decay)). Like Paddle, the step counters
(momentum_decay_pow, beta2_pow, mu_product) are kept per element, shaped like the parameter."""
from .. import _C
from ._checks import adam_args_epsilon_first, batch_args, non_negative
from .optimizer import Optimizer

__all__ = ['NAdam']


class NAdam(Optimizer):
    _state_specs = (('momentum_decay_pow', 1.0), ('beta2_pow', 1.0), ('mu_product', 1.0),
                    ('moment1', 0.0), ('moment2', 0.0))

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 momentum_decay=0.004, parameters=None, weight_decay=None, grad_clip=None, name=None):
        adam_args_epsilon_first('NAdam', learning_rate, beta1, beta2, epsilon)
        non_negative('NAdam', 'momentum_decay', momentum_decay)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.type = 'nadam'
        self._keep_hypers(beta1=beta1, beta2=beta2, epsilon=epsilon, momentum_decay=momentum_decay)
        self._finish_groups()

    def _update(self, batch, opts, group):
        _C._optim_nadam(*batch_args(batch),
                        **self._hypers(opts, 'beta1', 'beta2', 'epsilon', 'momentum_decay'))
