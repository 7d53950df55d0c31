"""Lamb (paddle.optimizer.Lamb): Adam's direction plus decoupled decay, r = m_hat /
(sqrt(v_hat) + eps) + wd w, scaled per parameter by the trust ratio ||w|| / ||r||."""
from .. import _C
from ._checks import adam_args, batch_args
from .optimizer import Optimizer

__all__ = ['Lamb']


class Lamb(Optimizer):
    """LAMB: layer-wise adaptive moments for large-batch training.

    The Adam direction plus decoupled decay, ``r = m_hat / (sqrt(v_hat) + epsilon) +
    lamb_weight_decay * param``, is scaled per parameter by the trust ratio
    ``||param|| / ||r||``: ``param -= learning_rate * trust_ratio * r``.

    Args:
        learning_rate (float|LRScheduler, optional): The step size, or a scheduler giving it. Default: 0.001.
        lamb_weight_decay (float, optional): The decoupled decay coefficient. Default: 0.01.
        beta1 (float|Tensor, optional): Decay rate of the first moment. Default: 0.9.
        beta2 (float|Tensor, optional): Decay rate of the second moment. Default: 0.999.
        epsilon (float|Tensor, optional): Added for stability. Default: 1e-06.
        parameters (list, optional): The Tensors to optimize (e.g. ``layer.parameters()``), or a
            list of dicts, each with 'params' and its own settings (learning_rate multiplier,
            weight_decay, ...). Required in dynamic mode. Default: None.
        grad_clip (GradientClipBase, optional): Gradient clipping: ClipGradByValue,
            ClipGradByNorm or ClipGradByGlobalNorm. Default: None.
        exclude_from_weight_decay_fn (callable, optional): ``fn(param)`` returning True for
            parameters that do not decay. Default: None.
        multi_precision (bool, optional): Keep float32 master weights for float16 / bfloat16
            parameters and update those. Default: False.
        always_adapt (bool, optional): Apply the trust ratio also to parameters without weight
            decay. Default: False.
        name (str, optional): Name prefix of the optimizer's states; usually left unset. Default: None.

    Examples:
        >>> import oar
        >>> w = oar.nn.Parameter(oar.to_tensor([1.0, -2.0]))
        >>> opt = oar.optimizer.Lamb(learning_rate=0.1, parameters=[w])
        >>> (w * w).sum().backward()  # the gradient is 2 * w = [2, -4]
        >>> opt.step()
        >>> opt.clear_grad()
        >>> print(w.numpy())
        [ 0.8426... -1.8411...]
    """
    _state_specs = (('moment1', 0.0), ('moment2', 0.0))
    _pow_specs = (('beta1_pow_acc', 'beta1'), ('beta2_pow_acc', 'beta2'))

    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999,
                 epsilon=1e-06, parameters=None, grad_clip=None, exclude_from_weight_decay_fn=None,
                 multi_precision=False, always_adapt=False, name=None):
        adam_args('Lamb', learning_rate, beta1, beta2, epsilon)
        if exclude_from_weight_decay_fn is not None and not callable(exclude_from_weight_decay_fn):
            raise TypeError("Lamb: exclude_from_weight_decay_fn should be a function of the parameter, "
                            f"but received {type(exclude_from_weight_decay_fn).__name__}")
        self._multi_precision = multi_precision
        super().__init__(learning_rate, parameters, None, grad_clip, name)
        self.type = 'lamb'
        self._keep_hypers(beta1=beta1, beta2=beta2, epsilon=epsilon,
                          lamb_weight_decay=lamb_weight_decay,
                          exclude_from_weight_decay_fn=exclude_from_weight_decay_fn)
        self.always_adapt = always_adapt
        self._finish_groups()

    def _update(self, batch, opts, group):
        wd = float(opts.get('lamb_weight_decay', self._lamb_weight_decay))
        exclude = opts.get('exclude_from_weight_decay_fn', self._exclude_from_weight_decay_fn)
        decay = [0.0 if exclude is not None and exclude(p) else wd for p in batch['params']]
        beta1_pow, beta2_pow = self._pows(batch, opts)
        _C._optim_lamb(*batch_args(batch), beta1_pow=beta1_pow, beta2_pow=beta2_pow,
                       **self._hypers(opts, 'beta1', 'beta2', 'epsilon'), decay=decay,
                       always_adapt=bool(self.always_adapt))
