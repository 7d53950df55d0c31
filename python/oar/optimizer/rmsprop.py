"""RMSProp (paddle.optimizer.RMSProp): ms = rho ms + (1-rho) g^2 (centered: minus the squared
running mean of g); mom = momentum mom + lr g / sqrt(ms + eps); w -= mom."""
from .. import _C
from ._checks import batch_args, non_negative, require
from .optimizer import Optimizer

__all__ = ['RMSProp']


class RMSProp(Optimizer):
    """RMSProp: divides the gradient by a running root mean square of recent gradients.

    ``ms = rho * ms + (1 - rho) * g^2`` (centered: minus the square of the running mean of g),
    ``mom = momentum * mom + learning_rate * g / sqrt(ms + epsilon)``, ``param -= mom``.

    Args:
        learning_rate (float|LRScheduler, optional): The step size, or a scheduler giving it.
        rho (float, optional): Decay rate of the running averages. Default: 0.95.
        epsilon (float, optional): Added inside the square root for stability. Default: 1e-06.
        momentum (float, optional): Momentum factor. Default: 0.0.
        centered (bool, optional): Normalise by the estimated variance instead of the raw second
            moment. Default: False.
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
        >>> opt = oar.optimizer.RMSProp(learning_rate=0.1, parameters=[w])
        >>> (w * w).sum().backward()  # the gradient is 2 * w = [2, -4]
        >>> opt.step()
        >>> opt.clear_grad()
        >>> print(w.numpy())
        [ 0.5527... -1.5527...]
    """
    _state_specs = (('momentum', 0.0), ('mean_square', 0.0), ('mean_grad', 0.0))

    def __init__(self, learning_rate, rho=0.95, epsilon=1e-06, momentum=0.0, centered=False,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        require('RMSProp', learning_rate=learning_rate, rho=rho, epsilon=epsilon, momentum=momentum)
        non_negative('RMSProp', 'rho', rho)
        non_negative('RMSProp', 'epsilon', epsilon)
        non_negative('RMSProp', 'momentum', momentum)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.type = 'rmsprop'
        self._keep_hypers(rho=rho, epsilon=epsilon, momentum=momentum, centered=centered)
        self._finish_groups()

    def _update_on_device(self, batch, opts, group):
        """The fused kernel's rule written with ops: ms = rho ms + (1-rho) g^2, centered
        mg = rho mg + (1-rho) g and denominator ms - mg^2 + eps (else ms + eps),
        mom = momentum mom + lr g / sqrt(denominator), w -= mom."""
        h = self._hypers(opts, 'rho', 'epsilon', 'momentum')
        centered = bool(opts.get('centered', self._centered))
        for w, g, i in self._device_grads(batch):
            mt = self._compute_type(w)
            rho, eps, mu = mt(h['rho']), h['epsilon'], h['momentum']
            one_minus_rho = float(mt(1) - rho)
            mom_s, ms_s, mg_s = (batch['states'][k][i] for k in range(3))
            ms = _C.scale(ms_s, float(rho), 0.0, True) + _C.scale(g, one_minus_rho, 0.0, True) * g
            ms_s.copy_(ms, False)
            if centered:
                mg = _C.scale(mg_s, float(rho), 0.0, True) + _C.scale(g, one_minus_rho, 0.0, True)
                mg_s.copy_(mg, False)
                denom = _C.scale(ms - mg * mg, 1.0, eps, True)
            else:
                denom = _C.scale(ms, 1.0, eps, True)
            mom = (_C.scale(mom_s, mu, 0.0, True)
                   + _C.scale(g, batch['lrs'][i], 0.0, True) / _C.sqrt(denom))
            mom_s.copy_(mom, False)
            w.copy_(w - mom, False)

    def _update(self, batch, opts, group):
        _C._optim_rmsprop(*batch_args(batch), rho=float(opts.get('rho', self._rho)),
                          epsilon=float(opts.get('epsilon', self._epsilon)),
                          momentum=float(opts.get('momentum', self._momentum)),
                          centered=bool(opts.get('centered', self._centered)))
