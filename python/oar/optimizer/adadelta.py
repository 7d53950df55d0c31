"""Adadelta (paddle.optimizer.Adadelta): running averages of g^2 and of the squared update;
update = -sqrt((E[dx^2] + eps) / (E[g^2] + eps)) g; w += lr update."""
from .. import _C
from ._checks import batch_args, require
from .optimizer import Optimizer

__all__ = ['Adadelta']


class Adadelta(Optimizer):
    """Adadelta: step sizes from running averages of squared gradients and squared updates.

    ``E[g^2] = rho * E[g^2] + (1 - rho) * g^2``,
    ``update = -sqrt((E[dx^2] + epsilon) / (E[g^2] + epsilon)) * g``,
    ``E[dx^2] = rho * E[dx^2] + (1 - rho) * update^2``, ``param += learning_rate * update``.

    Args:
        learning_rate (float|LRScheduler, optional): The step size, or a scheduler giving it. Default: 0.001.
        epsilon (float, optional): Added for stability. Default: 1e-06.
        rho (float, optional): Decay rate of the running averages. Default: 0.95.
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
        >>> opt = oar.optimizer.Adadelta(learning_rate=1.0, parameters=[w])
        >>> (w * w).sum().backward()  # the gradient is 2 * w = [2, -4]
        >>> opt.step()
        >>> opt.clear_grad()
        >>> print(w.numpy())
        [ 0.9955... -1.9955...]
    """
    _state_specs = (('_avg_squared_grad', 0.0), ('_avg_squared_update', 0.0))

    def __init__(self, learning_rate=0.001, epsilon=1e-06, rho=0.95, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        require('Adadelta', learning_rate=learning_rate, epsilon=epsilon, rho=rho)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.type = 'adadelta'
        self._keep_hypers(epsilon=epsilon, rho=rho)
        self._finish_groups()

    def _update_on_device(self, batch, opts, group):
        """The fused kernel's rule written with ops: E[g^2] = rho E[g^2] + (1-rho) g^2,
        update = -sqrt((E[dx^2] + eps) / (E[g^2] + eps)) g, E[dx^2] = rho E[dx^2] +
        (1-rho) update^2, w += lr update."""
        h = self._hypers(opts, 'rho', 'epsilon')
        eps = h['epsilon']
        for w, g, i in self._device_grads(batch):
            mt = self._compute_type(w)
            rho = mt(h['rho'])
            one_minus_rho = float(mt(1) - rho)
            sq_grad, sq_update = batch['states'][0][i], batch['states'][1][i]
            asg = _C.scale(sq_grad, float(rho), 0.0, True) + _C.scale(g, one_minus_rho, 0.0, True) * g
            sq_grad.copy_(asg, False)
            ratio = _C.scale(sq_update, 1.0, eps, True) / _C.scale(asg, 1.0, eps, True)
            update = _C.scale(_C.sqrt(ratio), -1.0, 0.0, True) * g
            sq_update.copy_(_C.scale(sq_update, float(rho), 0.0, True)
                            + _C.scale(update, one_minus_rho, 0.0, True) * update, False)
            w.copy_(w + _C.scale(update, batch['lrs'][i], 0.0, True), False)

    def _update(self, batch, opts, group):
        _C._optim_adadelta(*batch_args(batch), rho=float(opts.get('rho', self._rho)),
                           epsilon=float(opts.get('epsilon', self._epsilon)))
