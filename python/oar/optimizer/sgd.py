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
        """w -= lr * g, written with ops so that every device with kernels for them runs it."""
        for p, g, i in self._device_grads(batch):
            p.copy_(p - _C.scale(g, batch['lrs'][i], 0.0, True), False)
