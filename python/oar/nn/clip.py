"""Gradient clipping (paddle.nn.ClipGradByValue / ClipGradByNorm / ClipGradByGlobalNorm).

A clip object maps a list of (parameter, gradient) pairs to a new list with clipped gradients;
the optimizer calls it before weight decay and the update, as Paddle does. Gradients of
parameters whose `need_clip` is False pass through (and do not count in the global norm).
The parameters' own .grad tensors are not modified.
"""
import numpy as np

from .. import _C
from ..autograd import no_grad

__all__ = ['ClipGradBase', 'ClipGradByValue', 'ClipGradByNorm', 'ClipGradByGlobalNorm']


def _check_number(cls, name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{cls}: expected '{name}' to be a float, but received {type(value).__name__}")
    return float(value)


def _check_pairs(cls, params_grads):
    if not isinstance(params_grads, (list, tuple)):
        raise TypeError(f"{cls}: expected a list of (parameter, gradient) pairs, but received "
                        f"{type(params_grads).__name__}")
    for item in params_grads:
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise TypeError(f"{cls}: expected a list of (parameter, gradient) pairs, but an item is {item!r}")


def _clipped(p):
    return getattr(p, 'need_clip', True) is not False


class ClipGradBase:
    """Base class of the gradient clips (paddle.nn.clip.ClipGradBase)."""

    def __call__(self, params_grads):
        _check_pairs(type(self).__name__, params_grads)
        with no_grad():
            return self._dygraph_clip(list(params_grads))

    def _dygraph_clip(self, params_grads):
        raise NotImplementedError(f"{type(self).__name__} must implement _dygraph_clip")

    # Clips that only rescale gradients also define _grad_scales(pairs) -> [float or None]
    # (pairs without None gradients): the optimizer then folds the scales into its fused update
    # instead of materialising clipped gradients.


GradientClipBase = ClipGradBase


class ClipGradByValue(ClipGradBase):
    """Gradient clipping by value: every gradient element is clamped to ``[min, max]``.

    Pass it as an optimizer's ``grad_clip``; it is applied before weight decay and the update.
    Parameters whose ``need_clip`` is False are left alone. Called directly on a list of
    (parameter, gradient) pairs it returns the clipped pairs.

    Args:
        max (float): Upper bound of the gradient elements.
        min (float, optional): Lower bound; None means ``-max`` (max must then be > 0).
            Default: None.

    Examples:
        >>> import oar
        >>> linear = oar.nn.Linear(2, 2)
        >>> clip = oar.nn.ClipGradByValue(max=1.0)
        >>> sgd = oar.optimizer.SGD(learning_rate=0.1, parameters=linear.parameters(), grad_clip=clip)
        >>> param = oar.create_parameter([3], "float32")
        >>> print(clip([(param, oar.to_tensor([0.5, -3.0, 4.0]))])[0][1])
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.50000000, -1.       ,  1.       ])
    """

    def __init__(self, max, min=None):
        max = _check_number('ClipGradByValue', 'max', max)
        if min is None:
            if not max > 0.0:
                raise ValueError(f"ClipGradByValue: 'max' must be greater than 0 when 'min' is not "
                                 f"given, but received max={max}")
            min = -max
        min = _check_number('ClipGradByValue', 'min', min)
        self.max, self.min = max, min

    def __str__(self):
        return f"Clip Gradient By Value, min = {self.min:f}, max={self.max:f}"

    def _dygraph_clip(self, params_grads):
        out = []
        for p, g in params_grads:
            if g is None:
                continue
            out.append((p, _C.clip(g, self.min, self.max) if _clipped(p) else g))
        return out


def _squared_norms(grads):
    """sum(g * g) of each gradient, as Python floats (one fused C++ pass over all of them; on a
    device, a reduction there per gradient, accumulated in float64 as the fused pass does)."""
    if any(_C._place_of(g) != "cpu" for g in grads):
        from ..framework.dtype import convert_dtype
        f64 = convert_dtype("float64")
        return [float(_C.sum(_C.square(_C.cast(g, f64)), [], None, False)) for g in grads]
    return _C._optim_squared_norms([g.contiguous() for g in grads])


def _scaled(params_grads, scales):
    """The pairs with each gradient multiplied by its scale (None: unchanged)."""
    return [(p, g if s is None else g * s) for (p, g), s in zip(params_grads, scales)]


class ClipGradByNorm(ClipGradBase):
    """Gradient clipping by norm: each gradient is rescaled on its own so that its L2 norm is at
    most ``clip_norm`` (``g * clip_norm / max(norm(g), clip_norm)``).

    Pass it as an optimizer's ``grad_clip``. Parameters whose ``need_clip`` is False are left
    alone.

    Args:
        clip_norm (float): The largest norm a gradient keeps.

    Examples:
        >>> import oar
        >>> clip = oar.nn.ClipGradByNorm(clip_norm=1.0)
        >>> param = oar.create_parameter([3], "float32")
        >>> print(clip([(param, oar.to_tensor([0.5, -3.0, 4.0]))])[0][1])
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [ 0.09950..., -0.59702...,  0.79602...])
    """

    def __init__(self, clip_norm):
        self.clip_norm = _check_number('ClipGradByNorm', 'clip_norm', clip_norm)

    def __str__(self):
        return f"Gradient Clip By Norm, clip_norm={self.clip_norm:f}"

    def _grad_scales(self, params_grads):
        clipped = [i for i, (p, g) in enumerate(params_grads) if _clipped(p)]
        norms = _squared_norms([params_grads[i][1] for i in clipped])
        scales = [None] * len(params_grads)
        for i, sq in zip(clipped, norms):
            # Paddle's norm has the gradient's precision (float32 for all but float64).
            wide = params_grads[i][1].dtype.name == 'float64'
            norm = float(np.sqrt(np.float64(sq) if wide else np.float32(sq)))
            if norm > self.clip_norm:
                scales[i] = self.clip_norm / norm
        return scales

    def _dygraph_clip(self, params_grads):
        pairs = [(p, g) for p, g in params_grads if g is not None]
        return _scaled(pairs, self._grad_scales(pairs))


class ClipGradByGlobalNorm(ClipGradBase):
    """Gradient clipping by global norm: all gradients are rescaled by the same factor
    ``clip_norm / max(global_norm, clip_norm)``, global_norm being the L2 norm of all of them
    together.

    Pass it as an optimizer's ``grad_clip``. Parameters whose ``need_clip`` is False are left
    alone and do not count in the global norm.

    Args:
        clip_norm (float): The largest global norm the gradients keep.
        group_name (str, optional): Name of the group of parameters clipped together.
            Default: 'default_group'.
        auto_skip_clip (bool, optional): Leave the gradients untouched when the global norm
            does not exceed clip_norm. Default: False.

    Examples:
        >>> import oar
        >>> linear = oar.nn.Linear(2, 2)
        >>> clip = oar.nn.ClipGradByGlobalNorm(clip_norm=1.0)
        >>> sgd = oar.optimizer.SGD(learning_rate=0.1, parameters=linear.parameters(), grad_clip=clip)
        >>> linear(oar.ones([4, 2])).sum().backward()
        >>> sgd.step()
        >>> param = oar.create_parameter([3], "float32")
        >>> print(clip([(param, oar.to_tensor([0.5, -3.0, 4.0]))])[0][1])
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [ 0.09950..., -0.59702...,  0.79602...])
    """

    def __init__(self, clip_norm, group_name="default_group", auto_skip_clip=False):
        self.clip_norm = _check_number('ClipGradByGlobalNorm', 'clip_norm', clip_norm)
        if not isinstance(group_name, str):
            raise TypeError("ClipGradByGlobalNorm: expected 'group_name' to be a str, but received "
                            f"{type(group_name).__name__}")
        if not isinstance(auto_skip_clip, bool):
            raise TypeError("ClipGradByGlobalNorm: expected 'auto_skip_clip' to be a bool, but received "
                            f"{type(auto_skip_clip).__name__}")
        self.group_name = group_name
        self.auto_skip_clip = auto_skip_clip

    def __str__(self):
        return f"Gradient Clip By GlobalNorm, global_norm={self.clip_norm:f}"

    def _global_norm(self, params_grads):
        """sqrt of the sum of squared norms of the clipped gradients, summed in float64 when
        any of them is float64 (float32 otherwise, as Paddle does); None when none is clipped."""
        grads = [g for p, g in params_grads if g is not None and _clipped(p)]
        if not grads:
            return None
        wide = any(g.dtype.name == 'float64' for g in grads)
        t = np.float64 if wide else np.float32
        acc = t(0)
        for sq in _squared_norms(grads):
            acc = acc + t(sq)
        return float(np.sqrt(acc))

    def _grad_scales(self, params_grads):
        norm = self._global_norm(params_grads)
        if norm is None or (self.auto_skip_clip and not norm > self.clip_norm):
            return [None] * len(params_grads)
        scale = self.clip_norm / max(norm, self.clip_norm)
        return [scale if _clipped(p) else None for p, g in params_grads]

    def _dygraph_clip(self, params_grads):
        pairs = [(p, g) for p, g in params_grads if g is not None]
        return _scaled(pairs, self._grad_scales(pairs))
