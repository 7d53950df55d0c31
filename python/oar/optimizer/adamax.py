"""Adamax (paddle.optimizer.Adamax): Adam with the infinity norm, u = max(beta2 u + eps, |g|);
w -= lr / (1 - beta1^t) * m / u."""
from .. import _C
from ._checks import adam_args, batch_args
from .optimizer import Optimizer

__all__ = ['Adamax']


class Adamax(Optimizer):
    """Adamax: Adam with the infinity norm in place of the second moment.

    ``m = beta1 * m + (1 - beta1) * g``, ``u = max(beta2 * u + epsilon, |g|)``,
    ``param -= learning_rate / (1 - beta1^t) * m / u``.

    Args:
        learning_rate (float|LRScheduler, optional): The step size, or a scheduler giving it. Default: 0.001.
        beta1 (float|Tensor, optional): Decay rate of the first moment. Default: 0.9.
        beta2 (float|Tensor, optional): Decay rate of the infinity norm. Default: 0.999.
        epsilon (float|Tensor, optional): Added for stability. Default: 1e-08.
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
        >>> opt = oar.optimizer.Adamax(learning_rate=0.1, parameters=[w])
        >>> (w * w).sum().backward()  # the gradient is 2 * w = [2, -4]
        >>> opt.step()
        >>> opt.clear_grad()
        >>> print(w.numpy())
        [ 0.9 -1.9]
    """
    _state_specs = (('moment', 0.0), ('inf_norm', 0.0))
    _pow_specs = (('beta1_pow_acc', 'beta1'),)

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        adam_args('Adamax', learning_rate, beta1, beta2, epsilon)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.type = 'adamax'
        self._keep_hypers(beta1=beta1, beta2=beta2, epsilon=epsilon)
        self._finish_groups()

    def _update_on_device(self, batch, opts, group):
        """The fused kernel's rule written with ops: m = b1 m + (1-b1) g,
        u = max(b2 u + eps, |g|), w -= lr / (1 - b1^t) * m / u; then b1^t *= b1. The power
        stays on the device: lr / (1 - b1^t) is a one-element tensor op, not a host read."""
        (beta1_pow,) = self._pows(batch, opts)
        h = self._hypers(opts, 'beta1', 'beta2', 'epsilon')
        for w, g, i in self._device_grads(batch):
            mt = self._compute_type(w)
            b1, b2, eps = float(mt(h['beta1'])), float(mt(h['beta2'])), float(mt(h['epsilon']))
            one_minus_b1 = float(mt(1) - mt(h['beta1']))
            pow1 = self._one_element(beta1_pow[i], w)
            lr_t = _C.full_like(pow1, batch['lrs'][i]) / _C.scale(pow1, -1.0, 1.0, True)
            moment, inf_norm = batch['states'][0][i], batch['states'][1][i]
            m = _C.scale(moment, b1, 0.0, True) + _C.scale(g, one_minus_b1, 0.0, True)
            u = _C.maximum(_C.scale(inf_norm, b2, eps, True), _C.abs(g))
            moment.copy_(m, False)
            inf_norm.copy_(u, False)
            w.copy_(w - lr_t * m / u, False)
            beta1_pow[i].copy_(_C.scale(beta1_pow[i], b1, 0.0, True), False)

    def _update(self, batch, opts, group):
        (beta1_pow,) = self._pows(batch, opts)
        _C._optim_adamax(*batch_args(batch), beta1_pow=beta1_pow,
                         **self._hypers(opts, 'beta1', 'beta2', 'epsilon'))
