"""AdamW (paddle.optimizer.AdamW): Adam with decoupled weight decay w -= lr * coeff * w
before the Adam step. apply_decay_param_fun(name) picks the parameters that decay; lr_ratio(p)
scales a parameter's learning rate (Paddle implements it on GPU only; oar on CPU too)."""
from .. import _C
from .adam import Adam


__all__ = ['AdamW']


class AdamW(Adam):
    """AdamW: Adam with decoupled weight decay. Before each Adam step,
    ``param -= lr * weight_decay * param`` for the parameters that decay.

    Args:
        learning_rate (float|LRScheduler, optional): The step size, or a scheduler giving it. Default: 0.001.
        beta1 (float|Tensor, optional): Decay rate of the first moment. Default: 0.9.
        beta2 (float|Tensor, optional): Decay rate of the second moment. Default: 0.999.
        epsilon (float|Tensor, optional): Added to the denominator for stability. Default: 1e-08.
        parameters (list, optional): The Tensors to optimize (e.g. ``layer.parameters()``), or a
            list of dicts, each with 'params' and its own settings (learning_rate multiplier,
            weight_decay, ...). Required in dynamic mode. Default: None.
        weight_decay (float|Tensor, optional): The decoupled decay coefficient. Default: 0.01.
        use_lowprecision_moment (bool, optional): Accepted for compatibility. Default: False.
        lr_ratio (callable, optional): ``lr_ratio(param)`` scales the learning rate of each
            parameter. Default: None.
        apply_decay_param_fun (callable, optional): ``apply_decay_param_fun(param.name)`` returns
            whether a parameter decays; None decays all. Default: None.
        grad_clip (GradientClipBase, optional): Gradient clipping: ClipGradByValue,
            ClipGradByNorm or ClipGradByGlobalNorm. Default: None.
        lazy_mode (bool, optional): No effect (dense gradients). Default: False.
        multi_precision (bool, optional): Keep float32 master weights for float16 / bfloat16
            parameters and update those. Default: False.
        amsgrad (bool, optional): Use the running maximum of the second moment. Default: False.
        name (str, optional): Name prefix of the optimizer's states; usually left unset. Default: None.

    Examples:
        >>> import oar
        >>> w = oar.nn.Parameter(oar.to_tensor([1.0, -2.0]))
        >>> opt = oar.optimizer.AdamW(learning_rate=0.1, parameters=[w], weight_decay=0.01)
        >>> (w * w).sum().backward()  # the gradient is 2 * w = [2, -4]
        >>> opt.step()
        >>> opt.clear_grad()
        >>> print(w.numpy())
        [ 0.899 -1.898]
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, parameters=None,
                 weight_decay=0.01, use_lowprecision_moment=False, lr_ratio=None,
                 apply_decay_param_fun=None, grad_clip=None, lazy_mode=False,
                 multi_precision=False, amsgrad=False, name=None):
        if isinstance(weight_decay, bool) or not isinstance(weight_decay, (int, float, _C.Tensor)):
            raise TypeError(f"AdamW: weight_decay should be int, float or Tensor, but received "
                            f"{type(weight_decay).__name__}")
        if lr_ratio is not None and not callable(lr_ratio):
            raise TypeError(f"AdamW: lr_ratio should be a function of the parameter, but received "
                            f"{type(lr_ratio).__name__}")
        self._coeff = self._scalar(weight_decay)
        self._groups_ready = False  # Adam's __init__ must not build groups before our defaults
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, None, grad_clip,
                         lazy_mode, multi_precision, False, amsgrad, name)
        self.type = 'adamw'
        self._weight_decay = self._coeff
        self._lr_ratio = lr_ratio
        self._apply_decay_param_fun = apply_decay_param_fun
        self._use_lowprecision_moment = use_lowprecision_moment
        self._default_dict['weight_decay'] = self._coeff
        self._groups_ready = True
        self._finish_groups()

    def _finish_groups(self):
        if self._groups_ready:
            super()._finish_groups()

    def _group_decay(self, value):
        return self._scalar(value)  # a decoupled coefficient, not a regularizer

    def _decay_of(self, p, group):
        # AdamW's own decay is decoupled; only a parameter's regularizer is coupled.
        return getattr(p, 'regularizer', None)

    def _lr_multiplier(self, p, group):
        mult = super()._lr_multiplier(p, group)
        return mult * float(self._lr_ratio(p)) if self._lr_ratio is not None else mult

    def _decoupled_decay(self, batch, opts):
        coeff = self._scalar(opts.get('weight_decay', self._coeff))
        fun = self._apply_decay_param_fun
        return [coeff if fun is None or fun(p.name) else 0.0 for p in batch['params']]



