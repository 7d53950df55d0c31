"""SGD: w -= lr * g (paddle.optimizer.SGD)."""
from .. import _C
from ._checks import batch_args
from .optimizer import Optimizer

__all__ = ['SGD']


class SGD(Optimizer):
    """Stochastic gradient descent: ``param = param - learning_rate * grad``.

    Args:
        learning_rate (float|LRScheduler, optional): The step size, or a scheduler giving it. Default: 0.001.
        parameters (list, optional): The Tensors to optimize (e.g. ``layer.parameters()``), or a
            list of dicts, each with 'params' and its own settings (learning_rate multiplier,
            weight_decay, ...). Required in dynamic mode. Default: None.
        weight_decay (float|WeightDecayRegularizer, optional): A float is an L2Decay coefficient;
            or oar.regularizer.L1Decay / L2Decay. A parameter's own regularizer takes precedence.
            Default: None.
        grad_clip (GradientClipBase, optional): Gradient clipping: ClipGradByValue,
            ClipGradByNorm or ClipGradByGlobalNorm. Default: None.
        multi_precision (bool, optional): Keep float32 master weights for float16 / bfloat16
            parameters and update those. Default: False.
        name (str, optional): Name prefix of the optimizer's states; usually left unset. Default: None.

    Examples:
        >>> import oar
        >>> w = oar.nn.Parameter(oar.to_tensor([1.0, -2.0]))
        >>> opt = oar.optimizer.SGD(learning_rate=0.1, parameters=[w])
        >>> (w * w).sum().backward()  # the gradient is 2 * w = [2, -4]
        >>> opt.step()
        >>> opt.clear_grad()
        >>> print(w.numpy())
        [ 0.8 -1.6]
    """

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

    _device_kernel = 'optimizer_sgd'

    def _update_on_device(self, batch, opts, group):
        """w -= lr * g: one launch of the backend's fused kernel per parameter where it has
        one, else written with ops so that every device with kernels for them runs it."""
        if self._fused_on_device(batch):
            for i, (p, g) in enumerate(zip(batch['params'], batch['grads'])):
                m = batch['masters'][i]
                _C._launch_kernel('optimizer_sgd', [p, g, m], self._device_attrs(batch, i), [p, m])
            return
        for p, g, i in self._device_grads(batch):
            p.copy_(p - _C.scale(g, batch['lrs'][i], 0.0, True), False)
