"""RAdam (paddle.optimizer.RAdam): Adam with its adaptive step rectified by the variance of the
second moment, r_t = sqrt((rho_t-4)(rho_t-2) rho_inf / ((rho_inf-4)(rho_inf-2) rho_t)), and
bias-corrected momentum SGD while rho_t <= 5. Like Paddle, the counters beta1_pow, beta2_pow and
rho are kept per element, shaped like the parameter."""
from .. import _C
from ._checks import adam_args_epsilon_first, batch_args
from .optimizer import Optimizer

__all__ = ['RAdam']


class RAdam(Optimizer):
    """RAdam: Adam whose adaptive step is rectified by the variance of the second moment
    estimate; while that variance is intractable (rho_t <= 5, the first steps) it takes a
    bias-corrected momentum SGD step instead.

    Args:
        learning_rate (float|LRScheduler, optional): The step size, or a scheduler giving it. Default: 0.001.
        beta1 (float|Tensor, optional): Decay rate of the first moment. Default: 0.9.
        beta2 (float|Tensor, optional): Decay rate of the second moment. Default: 0.999.
        epsilon (float, optional): Added to the denominator for stability. Default: 1e-08.
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
        >>> opt = oar.optimizer.RAdam(learning_rate=0.1, parameters=[w])
        >>> (w * w).sum().backward()  # the gradient is 2 * w = [2, -4]
        >>> opt.step()
        >>> opt.clear_grad()
        >>> print(w.numpy())  # an SGD step at first
        [ 0.8 -1.6]
    """
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
