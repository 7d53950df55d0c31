"""ASGD (paddle.optimizer.ASGD), the stochastic average gradient: each parameter keeps the
gradients of the last batch_num steps (state y, shaped [batch_num, *param.shape]) and their sum
d, and steps by lr * d / min(steps, batch_num)."""
from .. import _C
from ._checks import batch_args
from .optimizer import Optimizer

__all__ = ['ASGD']


class ASGD(Optimizer):
    """Stochastic average gradient (Paddle's ASGD): steps by the average of the gradients of the
    last ``batch_num`` steps, ``param -= learning_rate * sum(last grads) / min(t, batch_num)``.

    Each parameter keeps those gradients (a state [batch_num, *param.shape]) and their sum.

    Args:
        learning_rate (float|LRScheduler, optional): The step size, or a scheduler giving it. Default: 0.001.
        batch_num (int, optional): Number of recent gradients averaged; > 0. Default: 1.
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
        >>> opt = oar.optimizer.ASGD(learning_rate=0.1, batch_num=2, parameters=[w])
        >>> (w * w).sum().backward()  # the gradient is 2 * w = [2, -4]
        >>> opt.step()
        >>> opt.clear_grad()
        >>> print(w.numpy())
        [ 0.8 -1.6]
    """
    _state_specs = (('d', 0.0), ('y', 0.0))

    def __init__(self, learning_rate=0.001, batch_num=1, parameters=None, weight_decay=None,
                 grad_clip=None, multi_precision=False, name=None):
        if learning_rate is None:
            raise ValueError("ASGD: learning_rate should not be none")
        if batch_num is None:
            raise ValueError("ASGD: batch_num should not be none")
        if isinstance(batch_num, bool) or not isinstance(batch_num, int) or batch_num <= 0:
            raise ValueError(f"ASGD: batch_num should be an integer greater than 0, but received {batch_num!r}")
        self._multi_precision = multi_precision
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.type = 'asgd'
        self._n = batch_num
        self._finish_groups()

    def _param_states(self, p, opts):
        d = self._accumulator('d', p, 0.0)
        ys = self._accumulator('y', p, 0.0, shape=[self._n, *p.shape])
        steps = self._accumulator('m', p, 0, shape=[1], dtype='int64')
        done = int(steps.item())
        with_next = _C.full([1], done + 1, 'int64')
        steps.copy_(with_next)
        self._counts.append(float(min(done + 1, self._n)))
        return [d, ys[done % self._n]]  # the slot this step overwrites (a view into y)

    def _update(self, batch, opts, group):
        counts, self._counts = self._counts, []
        _C._optim_asgd(*batch_args(batch), count=counts)

    def _update_on_device(self, batch, opts, group):
        """The fused kernel's rule written with ops: d += g - y; y = g (this step's slot);
        w -= lr d / min(t, batch_num)."""
        counts, self._counts = self._counts, []
        for w, g, i in self._device_grads(batch):
            d_s, y_slot = batch['states'][0][i], batch['states'][1][i]
            d = d_s - y_slot + g
            d_s.copy_(d, False)
            y_slot.copy_(g, False)
            w.copy_(w - _C.scale(d, batch['lrs'][i], 0.0, True) / counts[i], False)

    def _apply_pairs(self, pairs, group):
        self._counts = []
        super()._apply_pairs(pairs, group)
