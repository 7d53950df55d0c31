"""NAdam (paddle.optimizer.NAdam): Adam with Nesterov momentum and the momentum schedule
mu_t = beta1 (1 - 0.5 * 0.96^(t * momentum_decay)). Like Paddle, the step counters
(momentum_decay_pow, beta2_pow, mu_product) are kept per element, shaped like the parameter."""
from .. import _C
from ._checks import adam_args_epsilon_first, batch_args, non_negative
from .optimizer import Optimizer

__all__ = ['NAdam']


class NAdam(Optimizer):
    """NAdam: Adam with Nesterov momentum and the momentum schedule
    ``mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay))``.

    Args:
        learning_rate (float|LRScheduler, optional): The step size, or a scheduler giving it. Default: 0.002.
        beta1 (float|Tensor, optional): Decay rate of the first moment. Default: 0.9.
        beta2 (float|Tensor, optional): Decay rate of the second moment. Default: 0.999.
        epsilon (float, optional): Added to the denominator for stability. Default: 1e-08.
        momentum_decay (float, optional): The schedule's decay; >= 0. Default: 0.004.
        parameters (list, optional): The Tensors to optimize (e.g. ``layer.parameters()``), or a
            list of dicts, each with 'params' and its own settings (learning_rate multiplier,
            weight_decay, ...). Required in dynamic mode. Default: None.
        weight_decay (float|WeightDecayRegularizer, optional): A float is an L2Decay coefficient;
            or oar.regularizer.L1Decay / L2Decay. A parameter's own regularizer takes precedence.
            Default: None.
        grad_clip (GradientClipBase, optional): Gradient clipping: ClipGradByValue,
            ClipGradByNorm or ClipGradByGlobalNorm. Default: None.
        name (str, optional): Name prefix of the optimizer's states; usually left unset. Default: None.

    Examples:
        >>> import oar
        >>> w = oar.nn.Parameter(oar.to_tensor([1.0, -2.0]))
        >>> opt = oar.optimizer.NAdam(learning_rate=0.1, parameters=[w])
        >>> (w * w).sum().backward()  # the gradient is 2 * w = [2, -4]
        >>> opt.step()
        >>> opt.clear_grad()
        >>> print(w.numpy())
        [ 0.8943... -1.8943...]
    """
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
