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

    def _update_on_device(self, batch, opts, group):
        """The fused kernel's rule written with ops, on the per-element counters b1^t, b2^t and
        rho = t b2^t / (1 - b2^t): m_hat = m1 / (1 - b1^t), rho_t = rho_inf - 2 rho, and
        w -= lr m_hat, times r_t sqrt(1 - b2^t) / (sqrt(m2) + eps) where rho_t > 5."""
        h = self._hypers(opts, 'beta1', 'beta2', 'epsilon')
        for w, g, i in self._device_grads(batch):
            mt = self._compute_type(w)
            b1, b2 = mt(h['beta1']), mt(h['beta2'])
            one_minus_b1, one_minus_b2 = float(mt(1) - b1), float(mt(1) - b2)
            rho_inf = mt(2) / (mt(1) - b2) - mt(1)
            r_denom = float((rho_inf - mt(4)) * (rho_inf - mt(2)))
            b1, b2, rho_inf = float(b1), float(b2), float(rho_inf)
            b1_pow_s, b2_pow_s, rho_s, m1s, m2s = (batch['states'][k][i] for k in range(5))
            b1_pow = _C.scale(b1_pow_s, b1, 0.0, True)
            b2_pow = _C.scale(b2_pow_s, b2, 0.0, True)
            rho = (_C.scale(rho_s * _C.scale(b2_pow_s, -1.0, 1.0, True), b2, 0.0, True) + b2_pow) \
                / _C.scale(b2_pow, -1.0, 1.0, True)
            m1 = _C.scale(m1s, b1, 0.0, True) + _C.scale(g, one_minus_b1, 0.0, True)
            m2 = _C.scale(m2s, b2, 0.0, True) + _C.scale(g, one_minus_b2, 0.0, True) * g
            b1_pow_s.copy_(b1_pow, False)
            b2_pow_s.copy_(b2_pow, False)
            rho_s.copy_(rho, False)
            m1s.copy_(m1, False)
            m2s.copy_(m2, False)
            m_hat = m1 / _C.scale(b1_pow, -1.0, 1.0, True)
            rho_t = _C.scale(rho, -2.0, rho_inf, True)
            step = _C.scale(m_hat, batch['lrs'][i], 0.0, True)
            adapt = (_C.sqrt(_C.scale(b2_pow, -1.0, 1.0, True))
                     / _C.scale(_C.sqrt(m2), 1.0, h['epsilon'], True))
            # NaN where rho_t <= 5 (sqrt of a negative), where it is not selected.
            rect = _C.sqrt(_C.scale(_C.scale(rho_t, 1.0, -4.0, True) * _C.scale(rho_t, 1.0, -2.0, True),
                                    rho_inf, 0.0, True) / _C.scale(rho_t, r_denom, 0.0, True))
            step = _C.where(rho_t > 5.0, step * rect * adapt, step)
            w.copy_(w - step, False)

    def _update(self, batch, opts, group):
        _C._optim_radam(*batch_args(batch), **self._hypers(opts, 'beta1', 'beta2', 'epsilon'))
