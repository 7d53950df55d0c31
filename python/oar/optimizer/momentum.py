"""Momentum: v = mu v + g; w -= lr v, or w -= lr (g + mu v) with Nesterov
(paddle.optimizer.Momentum). L2 decay is applied inside the update, after rescale_grad, as
Paddle fuses it; L1 decay is added to the gradient before."""
from .. import _C
from ._checks import batch_args, require
from .optimizer import Optimizer

__all__ = ['Momentum']


class Momentum(Optimizer):
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

    def _update_on_device(self, batch, opts, group):
        """v = mu v + g; w -= lr v (Nesterov: w -= lr (g + mu v)), written with ops."""
        mu = float(opts.get('momentum', self._momentum))
        nesterov = bool(opts.get('use_nesterov', self._use_nesterov))
        rescale = float(opts.get('rescale_grad', self._rescale_grad))
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
