"""Adam (paddle.optimizer.Adam): bias-corrected first and second moments, optionally AMSGrad
(the running maximum of the second moment). lazy_mode only matters for sparse gradients, which
oar does not produce, so it is accepted and has no effect."""
from .. import _C
from ._checks import adam_args, batch_args
from .optimizer import Optimizer

__all__ = ['Adam']


class Adam(Optimizer):
    """Adam: adaptive moment estimation with bias-corrected first and second moments.

    ``m = beta1 * m + (1 - beta1) * g``, ``v = beta2 * v + (1 - beta2) * g^2``,
    ``param -= lr * m_hat / (sqrt(v_hat) + epsilon)`` with ``m_hat = m / (1 - beta1^t)`` and
    ``v_hat = v / (1 - beta2^t)``. weight_decay adds an L2 term to the gradient; use AdamW for
    decoupled decay.

    Args:
        learning_rate (float|LRScheduler, optional): The step size, or a scheduler giving it. Default: 0.001.
        beta1 (float|Tensor, optional): Decay rate of the first moment. Default: 0.9.
        beta2 (float|Tensor, optional): Decay rate of the second moment. Default: 0.999.
        epsilon (float|Tensor, optional): Added to the denominator for stability. Default: 1e-08.
        parameters (list, optional): The Tensors to optimize (e.g. ``layer.parameters()``), or a
            list of dicts, each with 'params' and its own settings (learning_rate multiplier,
            weight_decay, ...). Required in dynamic mode. Default: None.
        weight_decay (float|WeightDecayRegularizer, optional): A float is an L2Decay coefficient;
            or oar.regularizer.L1Decay / L2Decay. A parameter's own regularizer takes precedence.
            Default: None.
        grad_clip (GradientClipBase, optional): Gradient clipping: ClipGradByValue,
            ClipGradByNorm or ClipGradByGlobalNorm. Default: None.
        lazy_mode (bool, optional): Paddle's sparse-gradient mode; oar's gradients are dense, so
            it has no effect. Default: False.
        multi_precision (bool, optional): Keep float32 master weights for float16 / bfloat16
            parameters and update those. Default: False.
        use_multi_tensor (bool, optional): Accepted for compatibility; oar always updates all
            parameters in one fused call. Default: False.
        amsgrad (bool, optional): Use the running maximum of the second moment (AMSGrad).
            Default: False.
        name (str, optional): Name prefix of the optimizer's states; usually left unset. Default: None.

    Examples:
        >>> import oar
        >>> w = oar.nn.Parameter(oar.to_tensor([1.0, -2.0]))
        >>> opt = oar.optimizer.Adam(learning_rate=0.1, parameters=[w])
        >>> (w * w).sum().backward()  # the gradient is 2 * w = [2, -4]
        >>> opt.step()
        >>> opt.clear_grad()
        >>> print(w.numpy())  # the first step is lr * sign(grad)
        [ 0.9 -1.9]
    """
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

    _device_kernel = 'optimizer_adam'

    def _decoupled_decay(self, batch, opts):
        return []

    def _update_on_device(self, batch, opts, group):
        """One launch of the backend's fused kernel (optimizer_adam) per parameter where it has
        one; otherwise the fused kernel's update written with ops (bias corrections folded into
        the step and epsilon, as Paddle does): m1 = b1 m1 + (1-b1) g, m2 = b2 m2 + (1-b2) g^2,
        w -= lr sqrt(1-b2^t)/(1-b1^t) m1 / (sqrt(m2) + eps sqrt(1-b2^t)); the folded scalars
        are one-element tensor ops on the beta powers, which stay on the device."""
        beta1_pow, beta2_pow = self._pows(batch, opts)
        h = self._hypers(opts, 'beta1', 'beta2', 'epsilon')
        decay = self._decoupled_decay(batch, opts)
        if self._fused_on_device(batch):
            # One launch of the backend's fused kernel per parameter (AdamW: its decoupled
            # decay as an attribute; AMSGrad: moment2_max present).
            for i, (p, g) in enumerate(zip(batch['params'], batch['grads'])):
                m1, m2 = batch['states'][0][i], batch['states'][1][i]
                m2max = batch['states'][2][i] if self._amsgrad else None
                m = batch['masters'][i]
                attrs = self._device_attrs(batch, i, decoupled_decay=float(decay[i]) if decay else 0.0,
                                           **h)
                _C._launch_kernel('optimizer_adam',
                                  [p, g, m1, m2, m2max, m, beta1_pow[i], beta2_pow[i]], attrs,
                                  [p, m1, m2, m2max, m, beta1_pow[i], beta2_pow[i]])
            return
        for w, g, i in self._device_grads(batch):
            mt = self._compute_type(w)
            b1, b2 = mt(h['beta1']), mt(h['beta2'])
            lr = mt(batch['lrs'][i])
            if decay and decay[i]:
                w.copy_(w - _C.scale(w, float(lr * mt(decay[i])), 0.0, True), False)
            m1s, m2s = batch['states'][0][i], batch['states'][1][i]
            m1 = _C.scale(m1s, float(b1), 0.0, True) + _C.scale(g, float(mt(1) - b1), 0.0, True)
            m2 = _C.scale(m2s, float(b2), 0.0, True) + _C.scale(g, float(mt(1) - b2), 0.0, True) * g
            m1s.copy_(m1, False)
            m2s.copy_(m2, False)
            denom = m2
            if self._amsgrad:
                denom = _C.maximum(batch['states'][2][i], m2)
                batch['states'][2][i].copy_(denom, False)
            pow1 = self._one_element(beta1_pow[i], w)
            root = _C.sqrt(_C.scale(self._one_element(beta2_pow[i], w), -1.0, 1.0, True))
            lr_t = _C.full_like(pow1, float(lr)) * root / _C.scale(pow1, -1.0, 1.0, True)
            eps_t = _C.scale(root, float(mt(h['epsilon'])), 0.0, True)
            w.copy_(w - lr_t * (m1 / (_C.sqrt(denom) + eps_t)), False)
            beta1_pow[i].copy_(_C.scale(beta1_pow[i], float(b1), 0.0, True), False)
            beta2_pow[i].copy_(_C.scale(beta2_pow[i], float(b2), 0.0, True), False)

    def _update(self, batch, opts, group):
        beta1_pow, beta2_pow = self._pows(batch, opts)
        _C._optim_adam(*batch_args(batch), beta1_pow=beta1_pow, beta2_pow=beta2_pow,
                       **self._hypers(opts, 'beta1', 'beta2', 'epsilon'), amsgrad=self._amsgrad,
                       decay=self._decoupled_decay(batch, opts))
