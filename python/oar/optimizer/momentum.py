"""Momentum: v = mu v + g; w -= lr v, or w -= lr (g + mu v) with Nesterov
(paddle.optimizer.Momentum). L2 decay is applied inside the update, after rescale_grad, as
Paddle fuses it; L1 decay is added to the gradient before."""
from .. import _C
from ._checks import batch_args, require
from .optimizer import Optimizer

__all__ = ['Momentum']


class Momentum(Optimizer):
    """Gradient descent with momentum: ``velocity = momentum * velocity + grad``, then
    ``param -= learning_rate * velocity`` (or ``learning_rate * (grad + momentum * velocity)``
    with Nesterov momentum).

    An L2 weight decay is applied inside the update (after rescale_grad), an L1 decay is added to
    the gradient first, as in Paddle.

    Args:
        learning_rate (float|LRScheduler, optional): The step size, or a scheduler giving it. Default: 0.001.
        momentum (float, optional): The momentum factor. Default: 0.9.
        parameters (list, optional): The Tensors to optimize (e.g. ``layer.parameters()``), or a
            list of dicts, each with 'params' and its own settings (learning_rate multiplier,
            weight_decay, ...). Required in dynamic mode. Default: None.
        use_nesterov (bool, optional): Use Nesterov momentum. Default: False.
        weight_decay (float|WeightDecayRegularizer, optional): A float is an L2Decay coefficient;
            or oar.regularizer.L1Decay / L2Decay. A parameter's own regularizer takes precedence.
            Default: None.
        grad_clip (GradientClipBase, optional): Gradient clipping: ClipGradByValue,
            ClipGradByNorm or ClipGradByGlobalNorm. Default: None.
        multi_precision (bool, optional): Keep float32 master weights for float16 / bfloat16
            parameters and update those. Default: False.
        rescale_grad (float, optional): Gradients are multiplied by this first (e.g. 1 / batch
            size). Default: 1.0.
        use_multi_tensor (bool, optional): Accepted for compatibility; oar always updates all
            parameters in one fused call. Default: False.
        name (str, optional): Name prefix of the optimizer's states; usually left unset. Default: None.

    Examples:
        >>> import oar
        >>> w = oar.nn.Parameter(oar.to_tensor([1.0, -2.0]))
        >>> opt = oar.optimizer.Momentum(learning_rate=0.1, momentum=0.9, parameters=[w])
        >>> (w * w).sum().backward()  # the gradient is 2 * w = [2, -4]
        >>> opt.step()
        >>> opt.clear_grad()
        >>> print(w.numpy())
        [ 0.8 -1.6]
    """
    _state_specs = (('velocity', 0.0),)

    def __init__(self, learning_rate=0.001, momentum=0.9, parameters=None, use_nesterov=False,
                 weight_decay=None, grad_clip=None, multi_precision=False, rescale_grad=1.0,
                 use_multi_tensor=False, name=None):
        require('Momentum', learning_rate=learning_rate, momentum=momentum)
        self._multi_precision = multi_precision
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.type = 'momentum'
        self._momentum = momentum
        self._use_nesterov = bool(use_nesterov)
        self._rescale_grad = rescale_grad
        self._use_multi_tensor = use_multi_tensor
        self._default_dict.update(momentum=momentum, use_nesterov=use_nesterov,
                                  rescale_grad=rescale_grad)
        self._finish_groups()

    _device_kernel = 'optimizer_momentum'

    def _update_on_device(self, batch, opts, group):
        """v = mu v + g; w -= lr v (Nesterov: w -= lr (g + mu v)): one launch of the backend's
        fused kernel per parameter where it has one, else written with ops."""
        mu = float(opts.get('momentum', self._momentum))
        nesterov = bool(opts.get('use_nesterov', self._use_nesterov))
        rescale = float(opts.get('rescale_grad', self._rescale_grad))
        if self._fused_on_device(batch):
            for i, (p, g) in enumerate(zip(batch['params'], batch['grads'])):
                v, m = batch['states'][0][i], batch['masters'][i]
                attrs = self._device_attrs(batch, i, mu=mu, use_nesterov=nesterov,
                                           rescale_grad=rescale)
                _C._launch_kernel('optimizer_momentum', [p, g, v, m], attrs, [p, v, m])
            return
        for p, g, i in self._device_grads(batch, rescale):
            vel = batch['states'][0][i]
            v = _C.scale(vel, mu, 0.0, True) + g
            vel.copy_(v, False)
            step = g + _C.scale(v, mu, 0.0, True) if nesterov else v
            p.copy_(p - _C.scale(step, batch['lrs'][i], 0.0, True), False)

    def _update(self, batch, opts, group):
        _C._optim_momentum(*batch_args(batch), mu=float(opts.get('momentum', self._momentum)),
                           use_nesterov=bool(opts.get('use_nesterov', self._use_nesterov)),
                           rescale_grad=float(opts.get('rescale_grad', self._rescale_grad)))
