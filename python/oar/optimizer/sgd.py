"""SGD: w -= lr * g (paddle.optimizer.SGD)."""
from .. import _C
from ._checks import batch_args
from .optimizer import Optimizer

__all__ = ['SGD']


class SGD(Optimizer):
    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 multi_precision=False, name=None):
        if learning_rate is None:
            raise ValueError("SGD: learning_rate is not set")
        self._multi_precision = multi_precision
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.type = 'sgd'
        self._finish_groups()

    def _update(self, batch, opts, group):
        _C._optim_sgd(*batch_args(batch))

    def _update_on_device(self, batch, opts, group):
        """w -= lr * (scale * g + l2 * w + l1 * sign(w)), written with ops so that every device
        with kernels for them runs it."""
        scales = batch['grad_scale'] or [1.0] * len(batch['params'])
        for p, g, lr, l1, l2, s in zip(batch['params'], batch['grads'], batch['lrs'], batch['l1'],
                                       batch['l2'], scales):
            if s != 1.0:
                g = _C.scale(g, s, 0.0, True)
            if l2:
                g = g + _C.scale(p, l2, 0.0, True)
            if l1:
                g = g + _C.scale(_C.sign(p), l1, 0.0, True)
            p.copy_(p - _C.scale(g, lr, 0.0, True), False)
