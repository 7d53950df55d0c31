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

    def _update_on_device(self, batch, opts, group):
        """The fused kernel's rule written with ops, on the per-element counters:
        0.96^t, mu_t = b1 (1 - 0.5 (0.96^t)^psi), mu_{t+1}, prod mu, b2^t, then
        m_hat = mu_{t+1} m1 / (1 - prod mu * mu_{t+1}) + (1 - mu_t) g / (1 - prod mu),
        v_hat = m2 / (1 - b2^t), w -= lr m_hat / (sqrt(v_hat) + eps)."""
        h = self._hypers(opts, 'beta1', 'beta2', 'epsilon', 'momentum_decay')
        for w, g, i in self._device_grads(batch):
            mt = self._compute_type(w)
            b1, b2 = float(mt(h['beta1'])), float(mt(h['beta2']))
            one_minus_b1 = float(mt(1) - mt(h['beta1']))
            one_minus_b2 = float(mt(1) - mt(h['beta2']))
            psi, base = float(mt(h['momentum_decay'])), float(mt(0.96))
            decay_pow_s, b2_pow_s, mu_prod_s, m1s, m2s = (batch['states'][k][i] for k in range(5))
            decay_pow = _C.scale(decay_pow_s, base, 0.0, True)
            mu = _C.scale(_C.scale(_C.pow(decay_pow, psi), -0.5, 1.0, True), b1, 0.0, True)
            mu_next = _C.scale(_C.scale(_C.pow(_C.scale(decay_pow, base, 0.0, True), psi),
                                        -0.5, 1.0, True), b1, 0.0, True)
            mu_product = mu_prod_s * mu
            b2_pow = _C.scale(b2_pow_s, b2, 0.0, True)
            m1 = _C.scale(m1s, b1, 0.0, True) + _C.scale(g, one_minus_b1, 0.0, True)
            m2 = _C.scale(m2s, b2, 0.0, True) + _C.scale(g, one_minus_b2, 0.0, True) * g
            decay_pow_s.copy_(decay_pow, False)
            b2_pow_s.copy_(b2_pow, False)
            mu_prod_s.copy_(mu_product, False)
            m1s.copy_(m1, False)
            m2s.copy_(m2, False)
            m_hat = (mu_next * m1 / _C.scale(mu_product * mu_next, -1.0, 1.0, True)
                     + _C.scale(mu, -1.0, 1.0, True) * g / _C.scale(mu_product, -1.0, 1.0, True))
            v_hat = m2 / _C.scale(b2_pow, -1.0, 1.0, True)
            w.copy_(w - _C.scale(m_hat, batch['lrs'][i], 0.0, True)
                    / _C.scale(_C.sqrt(v_hat), 1.0, h['epsilon'], True), False)

    def _update(self, batch, opts, group):
        _C._optim_nadam(*batch_args(batch),
                        **self._hypers(opts, 'beta1', 'beta2', 'epsilon', 'momentum_decay'))
