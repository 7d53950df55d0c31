"""Lamb (paddle.optimizer.Lamb): Adam's direction plus decoupled decay, r = m_hat /
(sqrt(v_hat) + eps) + wd w, scaled per parameter by the trust ratio ||w|| / ||r||."""
from .. import _C
from ._checks import adam_args, batch_args
from .optimizer import Optimizer, _dtype_name

__all__ = ['Lamb']


class Lamb(Optimizer):
    """LAMB: layer-wise adaptive moments for large-batch training.

    The Adam direction plus decoupled decay, ``r = m_hat / (sqrt(v_hat) + epsilon) +
    lamb_weight_decay * param``, is scaled per parameter by the trust ratio
    ``||param|| / ||r||``: ``param -= learning_rate * trust_ratio * r``.

    Args:
        learning_rate (float|LRScheduler, optional): The step size, or a scheduler giving it. Default: 0.001.
        lamb_weight_decay (float, optional): The decoupled decay coefficient. Default: 0.01.
        beta1 (float|Tensor, optional): Decay rate of the first moment. Default: 0.9.
        beta2 (float|Tensor, optional): Decay rate of the second moment. Default: 0.999.
        epsilon (float|Tensor, optional): Added for stability. Default: 1e-06.
        parameters (list, optional): The Tensors to optimize (e.g. ``layer.parameters()``), or a
            list of dicts, each with 'params' and its own settings (learning_rate multiplier,
            weight_decay, ...). Required in dynamic mode. Default: None.
        grad_clip (GradientClipBase, optional): Gradient clipping: ClipGradByValue,
            ClipGradByNorm or ClipGradByGlobalNorm. Default: None.
        exclude_from_weight_decay_fn (callable, optional): ``fn(param)`` returning True for
            parameters that do not decay. Default: None.
        multi_precision (bool, optional): Keep float32 master weights for float16 / bfloat16
            parameters and update those. Default: False.
        always_adapt (bool, optional): Apply the trust ratio also to parameters without weight
            decay. Default: False.
        name (str, optional): Name prefix of the optimizer's states; usually left unset. Default: None.

    Examples:
        >>> import oar
        >>> w = oar.nn.Parameter(oar.to_tensor([1.0, -2.0]))
        >>> opt = oar.optimizer.Lamb(learning_rate=0.1, parameters=[w])
        >>> (w * w).sum().backward()  # the gradient is 2 * w = [2, -4]
        >>> opt.step()
        >>> opt.clear_grad()
        >>> print(w.numpy())
        [ 0.8426... -1.8411...]
    """
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

    def _decays(self, batch, opts):
        wd = float(opts.get('lamb_weight_decay', self._lamb_weight_decay))
        exclude = opts.get('exclude_from_weight_decay_fn', self._exclude_from_weight_decay_fn)
        return [0.0 if exclude is not None and exclude(p) else wd for p in batch['params']]

    def _update_on_device(self, batch, opts, group):
        """The fused kernel's rule written with ops: m1 = b1 m1 + (1-b1) g,
        m2 = b2 m2 + (1-b2) g^2, r = (m1 / (1-b1^t)) / (sqrt(m2 / (1-b2^t)) + eps) + wd w,
        w -= lr * trust_ratio * r with trust_ratio = ||w|| / ||r|| (norms summed in float64;
        1 when either is 0, or when the parameter does not decay unless always_adapt); then
        the beta powers advance. The powers and norms stay on the device (no host reads)."""
        decay = self._decays(batch, opts)
        beta1_pow, beta2_pow = self._pows(batch, opts)
        h = self._hypers(opts, 'beta1', 'beta2', 'epsilon')
        for w, g, i in self._device_grads(batch):
            mt = self._compute_type(w)
            b1, b2 = float(mt(h['beta1'])), float(mt(h['beta2']))
            one_minus_b1 = float(mt(1) - mt(h['beta1']))
            one_minus_b2 = float(mt(1) - mt(h['beta2']))
            m1s, m2s = batch['states'][0][i], batch['states'][1][i]
            m1 = _C.scale(m1s, b1, 0.0, True) + _C.scale(g, one_minus_b1, 0.0, True)
            m2 = _C.scale(m2s, b2, 0.0, True) + _C.scale(g, one_minus_b2, 0.0, True) * g
            m1s.copy_(m1, False)
            m2s.copy_(m2, False)
            pow1 = self._one_element(beta1_pow[i], w)
            pow2 = self._one_element(beta2_pow[i], w)
            m_hat = m1 / _C.scale(pow1, -1.0, 1.0, True)
            v_hat = m2 / _C.scale(pow2, -1.0, 1.0, True)
            r = m_hat / _C.scale(_C.sqrt(v_hat), 1.0, h['epsilon'], True)
            if decay[i]:
                r = r + _C.scale(w, decay[i], 0.0, True)
            if self.always_adapt or decay[i] != 0:
                w64, r64 = _C.cast(w, 'float64'), _C.cast(r, 'float64')
                w_norm = _C.sqrt(_C.sum(w64 * w64))
                r_norm = _C.sqrt(_C.sum(r64 * r64))
                usable = _C.logical_and(w_norm > 0.0, r_norm > 0.0)
                ratio = _C.where(usable, w_norm / r_norm, _C.ones_like(w_norm))
                step = _C.scale(_C.cast(ratio, _dtype_name(w)), batch['lrs'][i], 0.0, True)
                w.copy_(w - step * r, False)
            else:
                w.copy_(w - _C.scale(r, batch['lrs'][i], 0.0, True), False)
            beta1_pow[i].copy_(_C.scale(beta1_pow[i], b1, 0.0, True), False)
            beta2_pow[i].copy_(_C.scale(beta2_pow[i], b2, 0.0, True), False)

    def _update(self, batch, opts, group):
        decay = self._decays(batch, opts)
        beta1_pow, beta2_pow = self._pows(batch, opts)
        _C._optim_lamb(*batch_args(batch), beta1_pow=beta1_pow, beta2_pow=beta2_pow,
                       **self._hypers(opts, 'beta1', 'beta2', 'epsilon'), decay=decay,
                       always_adapt=bool(self.always_adapt))
