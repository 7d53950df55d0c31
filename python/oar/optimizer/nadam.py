"""NAdam (paddle.optimizer.NAdam): Adam with Nesterov momentum and the momentum schedule
mu_t = beta1 (1 - 0.5 * 0.96^(t * momentum_decay)). Like Paddle, the step counters
(momentum_decay_pow, beta2_pow, mu_product) are kept per element, shaped like the parameter."""
from .. import _C
from ._checks import batch_args, beta_in_range, non_negative, require
from .optimizer import Optimizer

__all__ = ['NAdam']


class NAdam(Optimizer):
    _state_specs = (('momentum_decay_pow', 1.0), ('beta2_pow', 1.0), ('mu_product', 1.0),
                    ('moment1', 0.0), ('moment2', 0.0))

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 momentum_decay=0.004, parameters=None, weight_decay=None, grad_clip=None, name=None):
        require('NAdam', learning_rate=learning_rate)
        if isinstance(learning_rate, (int, float)) and not learning_rate >= 0:
            raise ValueError(f"NAdam: invalid learning rate: {learning_rate}, expect learning_rate >= 0.")
        non_negative('NAdam', 'epsilon', epsilon)
        beta_in_range('NAdam', 'beta1', beta1)
        beta_in_range('NAdam', 'beta2', beta2)
        non_negative('NAdam', 'momentum_decay', momentum_decay)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.type = 'nadam'
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._momentum_decay = momentum_decay
        self._default_dict.update(beta1=beta1, beta2=beta2, epsilon=epsilon, momentum_decay=momentum_decay)
        self._finish_groups()

    def _update(self, batch, opts, group):
        _C._optim_nadam(*batch_args(batch), beta1=self._scalar(opts.get('beta1', self._beta1)),
                        beta2=self._scalar(opts.get('beta2', self._beta2)),
                        epsilon=self._scalar(opts.get('epsilon', self._epsilon)),
                        momentum_decay=self._scalar(opts.get('momentum_decay', self._momentum_decay)))
