"""Adagrad (paddle.optimizer.Adagrad): m += g^2; w -= lr g / (sqrt(m) + eps)."""
from .. import _C
from ._checks import batch_args, require
from .optimizer import Optimizer

__all__ = ['Adagrad']


class Adagrad(Optimizer):
    """Adagrad: per-element step sizes shrinking with the accumulated squared gradients.

    ``moment += g^2``, ``param -= learning_rate * g / (sqrt(moment) + epsilon)``.

    Args:
        learning_rate (float|LRScheduler, optional): The step size, or a scheduler giving it.
        epsilon (float, optional): Added to the denominator for stability. Default: 1e-06.
        parameters (list, optional): The Tensors to optimize (e.g. ``layer.parameters()``), or a
            list of dicts, each with 'params' and its own settings (learning_rate multiplier,
            weight_decay, ...). Required in dynamic mode. Default: None.
        weight_decay (float|WeightDecayRegularizer, optional): A float is an L2Decay coefficient;
            or oar.regularizer.L1Decay / L2Decay. A parameter's own regularizer takes precedence.
            Default: None.
        grad_clip (GradientClipBase, optional): Gradient clipping: ClipGradByValue,
            ClipGradByNorm or ClipGradByGlobalNorm. Default: None.
        name (str, optional): Name prefix of the optimizer's states; usually left unset. Default: None.
        initial_accumulator_value (float, optional): Initial value of the moment. Default: 0.0.

    Examples:
        >>> import oar
        >>> w = oar.nn.Parameter(oar.to_tensor([1.0, -2.0]))
        >>> opt = oar.optimizer.Adagrad(learning_rate=0.1, parameters=[w])
        >>> (w * w).sum().backward()  # the gradient is 2 * w = [2, -4]
        >>> opt.step()
        >>> opt.clear_grad()
        >>> print(w.numpy())
        [ 0.9... -1.9...]
    """

    def __init__(self, learning_rate, epsilon=1e-06, parameters=None, weight_decay=None,
                 grad_clip=None, name=None, initial_accumulator_value=0.0):
        require('Adagrad', learning_rate=learning_rate, epsilon=epsilon)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.type = 'adagrad'
        self._epsilon = epsilon
        self.initial_accumulator_value = initial_accumulator_value
        self._default_dict.update(epsilon=epsilon, initial_accumulator_value=initial_accumulator_value)
        self._finish_groups()

    def _state_keys(self, opts):
        return (('moment', float(opts.get('initial_accumulator_value', self.initial_accumulator_value))),)

    def _update_on_device(self, batch, opts, group):
        """The fused kernel's rule written with ops: m += g^2; w -= lr g / (sqrt(m) + eps)."""
        eps = float(opts.get('epsilon', self._epsilon))
        for w, g, i in self._device_grads(batch):
            moment = batch['states'][0][i]
            m = moment + g * g
            moment.copy_(m, False)
            w.copy_(w - _C.scale(g, batch['lrs'][i], 0.0, True) / _C.scale(_C.sqrt(m), 1.0, eps, True),
                    False)

    def _update(self, batch, opts, group):
        _C._optim_adagrad(*batch_args(batch), epsilon=float(opts.get('epsilon', self._epsilon)))
