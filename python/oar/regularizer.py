"""oar.regularizer, as paddle.regularizer: weight-decay terms added to a parameter's gradient.

An optimizer takes one as `weight_decay` (or a parameter carries one as `regularizer`). The fused
update kernels apply them (g + coeff * sign(w) or g + coeff * w) without materialising the term;
calling a regularizer computes the term as a tensor, for use outside an optimizer.
"""
__all__ = ['L1Decay', 'L2Decay']


class WeightDecayRegularizer:
    """Base class: `_coeff` is the coefficient, `_kind` 'l1' or 'l2'."""
    _kind = None

    def __init__(self, coeff=0.0):
        if isinstance(coeff, bool) or not isinstance(coeff, (int, float)):
            raise TypeError(f"{type(self).__name__}: expected 'coeff' to be a float, but received "
                            f"{type(coeff).__name__}")
        self._coeff = float(coeff)

    def __call__(self, param, grad, block=None):
        """The term this regularizer adds to `grad` for `param`."""
        raise NotImplementedError(f"{type(self).__name__} must implement __call__")

    def __str__(self):
        return f"{type(self).__name__}, coeff={self._coeff:f}"


class L1Decay(WeightDecayRegularizer):
    """L1 weight decay: the gradient gains coeff * sign(param)."""
    _kind = 'l1'

    def __call__(self, param, grad, block=None):
        from . import _C
        return _C.sign(param) * self._coeff


class L2Decay(WeightDecayRegularizer):
    """L2 weight decay: the gradient gains coeff * param."""
    _kind = 'l2'

    def __call__(self, param, grad, block=None):
        return param * self._coeff
