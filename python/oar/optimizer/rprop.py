"""Rprop (paddle.optimizer.Rprop): per-element step sizes that grow by etas[1] while the gradient
keeps its sign and shrink by etas[0] when it flips, within learning_rate_range; the step is
-sign(g) * rate. learning_rate only seeds the rates (full-batch training)."""
from .. import _C
from ._checks import batch_args
from .optimizer import Optimizer

__all__ = ['Rprop']


class Rprop(Optimizer):
    """Resilient backpropagation: per-element step sizes that grow by ``etas[1]`` while the
    gradient keeps its sign and shrink by ``etas[0]`` when it flips (within
    ``learning_rate_range``); each element moves by ``-sign(grad) * step``. Meant for full-batch
    training.

    Args:
        learning_rate (float, optional): The initial step size of every element. Default: 0.001.
        learning_rate_range (tuple, optional): (min, max) of the step sizes; must contain
            learning_rate. Default: (1e-5, 50).
        parameters (list, optional): The Tensors to optimize (e.g. ``layer.parameters()``), or a
            list of dicts, each with 'params' and its own settings (learning_rate multiplier,
            weight_decay, ...). Required in dynamic mode. Default: None.
        etas (tuple, optional): (shrink, grow) factors, 0 < shrink < 1 < grow. Default: (0.5, 1.2).
        grad_clip (GradientClipBase, optional): Gradient clipping: ClipGradByValue,
            ClipGradByNorm or ClipGradByGlobalNorm. Default: None.
        multi_precision (bool, optional): Keep float32 master weights for float16 / bfloat16
            parameters and update those. Default: False.
        name (str, optional): Name prefix of the optimizer's states; usually left unset. Default: None.

    Examples:
        >>> import oar
        >>> w = oar.nn.Parameter(oar.to_tensor([1.0, -2.0]))
        >>> opt = oar.optimizer.Rprop(learning_rate=0.1, parameters=[w])
        >>> (w * w).sum().backward()  # the gradient is 2 * w = [2, -4]
        >>> opt.step()
        >>> opt.clear_grad()
        >>> print(w.numpy())
        [ 0.9 -1.9]
    """

    def __init__(self, learning_rate=0.001, learning_rate_range=(1e-5, 50), parameters=None,
                 etas=(0.5, 1.2), grad_clip=None, multi_precision=False, name=None):
        if learning_rate is None:
            raise ValueError("Rprop: learning_rate is not set")
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, (int, float)):
            raise TypeError("Rprop: learning_rate must be a float (it seeds the per-element rates), "
                            f"but received {type(learning_rate).__name__}")
        lo, hi = learning_rate_range
        if not 0.0 < lo <= learning_rate <= hi:
            raise ValueError("Rprop: '0.0 < learning_rate_range[0] <= learning_rate <= "
                             f"learning_rate_range[1]' must be true, got range {tuple(learning_rate_range)} "
                             f"and learning_rate {learning_rate}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Rprop: '0.0 < etas[0] < 1.0 < etas[1]' must be true, got {tuple(etas)}")
        self._multi_precision = multi_precision
        super().__init__(learning_rate, parameters, 0.0, grad_clip, name)
        self.type = 'rprop'
        self._initial_learning_rate = learning_rate
        self._learning_rate_range = (float(lo), float(hi))
        self._etas = (float(etas[0]), float(etas[1]))
        self._finish_groups()

    def _state_keys(self, opts):
        return (('prevs', 0.0), ('learning_rates', float(self._initial_learning_rate)))

    def _update_on_device(self, batch, opts, group):
        """The fused kernel's rule written with ops: where g * prev > 0 the rate grows by
        eta_positive (at most lr_max), where it is < 0 it shrinks by eta_negative (at least
        lr_min) and that gradient is zeroed (the step skipped); prev = g; w -= sign(g) rate."""
        lo, hi = self._learning_rate_range
        eta_neg, eta_pos = self._etas
        for w, g, i in self._device_grads(batch):
            prev, rates = batch['states'][0][i], batch['states'][1][i]
            trend = g * prev
            grow = _C.minimum(_C.scale(rates, eta_pos, 0.0, True), _C.full_like(rates, hi))
            shrink = _C.maximum(_C.scale(rates, eta_neg, 0.0, True), _C.full_like(rates, lo))
            flipped = trend < 0.0
            rate = _C.where(trend > 0.0, grow, _C.where(flipped, shrink, rates))
            g = _C.where(flipped, _C.zeros_like(g), g)
            prev.copy_(g, False)
            rates.copy_(rate, False)
            w.copy_(w - _C.sign(g) * rate, False)

    def _update(self, batch, opts, group):
        lo, hi = self._learning_rate_range
        _C._optim_rprop(*batch_args(batch), lr_min=lo, lr_max=hi, eta_negative=self._etas[0],
                        eta_positive=self._etas[1])
