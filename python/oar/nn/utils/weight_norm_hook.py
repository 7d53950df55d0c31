"""Weight normalization (paddle.nn.utils.weight_norm / remove_weight_norm).

A layer's parameter w is replaced by two, a direction v and a magnitude g, and a forward pre-hook
recomputes w = g * v / ||v|| before every call, so the optimizer trains g and v. The norm is taken
over every dimension but `dim` (one magnitude per slice along dim), or over the whole tensor when
dim is None or -1 (Paddle reads -1 as None, not as the last dimension).
"""
from ... import _C
from ...autograd import no_grad
from ...framework.errors import AssertValueError

__all__ = ["weight_norm", "remove_weight_norm"]


def _swap_to_front(x, dim):
    """x with dimensions 0 and dim exchanged (its own inverse)."""
    if dim == 0:
        return x
    perm = list(range(x.ndim))
    perm[0], perm[dim] = dim, 0
    return _C.transpose(x, perm)


def _rows(x, dim):
    """x as a matrix with one row per index along dim."""
    return _C.reshape(_swap_to_front(x, dim), [x.shape[dim], -1])


def _norm_except_dim(w, dim):
    """The initial magnitude g: sqrt(sum of squares + 1e-12) per slice along dim (all of w for -1)."""
    if dim == -1:
        return _C.sqrt(_C.sum(_C.square(w)) + 1e-12)
    return _C.sqrt(_C.sum(_C.square(_rows(w, dim)), [1]) + 1e-12)


def _compose(v, g, dim):
    """w = g * v / ||v||, the norm over every dimension but dim."""
    if dim == -1:
        return v / (_C.sqrt(_C.sum(_C.square(v))) + 1e-12) * g
    swapped = _swap_to_front(v, dim)
    unit = _C.normalize(_C.reshape(swapped, [swapped.shape[0], -1]), 2.0, 1, 1e-12)
    unit = _swap_to_front(_C.reshape(unit, swapped.shape), dim)
    shape = [1] * v.ndim
    shape[dim] = -1
    return unit * _C.reshape(g, shape)


def _new_parameter(layer, value):
    """A new parameter of `layer` (its own name) holding a copy of `value`."""
    p = layer.create_parameter(list(value.shape), dtype=value.dtype)
    with no_grad():
        p.copy_(value.detach())
    return p


class WeightNorm:
    """The forward pre-hook that recomputes ``layer.<name>`` from ``<name>_g`` and ``<name>_v``."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, layer):
        return _compose(getattr(layer, self.name + "_v"), getattr(layer, self.name + "_g"), self.dim)

    @staticmethod
    def apply(layer, name, dim):
        for hook in layer._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        w = layer._parameters[name]
        rank = len(w.shape)
        dim = -1 if dim is None else dim
        if not -rank <= dim < rank:
            raise AssertValueError(f"dim must set between [-R, R), R means the dimension of weight; "
                                   f"got dim={dim} for a weight of rank {rank}")
        if dim != -1:
            dim %= rank
        fn = WeightNorm(name, dim)
        del layer._parameters[name]
        with no_grad():
            g = _norm_except_dim(w, dim)
        layer.add_parameter(name + "_v", _new_parameter(layer, w))
        layer.add_parameter(name + "_g", _new_parameter(layer, g))
        # A plain tensor attribute: the layer keeps it as a non-persistable buffer (as Paddle's).
        setattr(layer, name, fn.compute_weight(layer))
        layer.register_forward_pre_hook(fn)
        return fn

    def remove(self, layer):
        w = self.compute_weight(layer)
        delattr(layer, self.name)
        del layer._parameters[self.name + "_g"]
        del layer._parameters[self.name + "_v"]
        layer.add_parameter(self.name, _new_parameter(layer, w))

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.compute_weight(layer))


def weight_norm(layer, name="weight", dim=0):
    r"""Applies weight normalization to a parameter: :math:`w = g \, v / \|v\|`.

    The parameter ``name`` is replaced by ``<name>_g`` (the magnitude, one value per slice along
    ``dim``) and ``<name>_v`` (the direction, w's shape); ``layer.<name>`` is recomputed from them
    before every forward call.

    Args:
        layer (Layer): The layer holding the parameter.
        name (str, optional): The parameter's name. Default: 'weight'.
        dim (int|None, optional): The dimension kept by the norm (one magnitude per index along
            it); in [-R, R) for a weight of rank R. None, or -1, takes the norm over the whole
            weight (one magnitude). Default: 0.

    Returns:
        Layer: the same layer, with the hook.

    Examples:
        >>> import oar
        >>> from oar.nn.utils import weight_norm
        >>> conv = weight_norm(oar.nn.Conv2D(3, 5, 3))
        >>> print(conv.weight_g.shape, conv.weight_v.shape)
        [5] [5, 3, 3, 3]
        >>> print(sorted(conv.state_dict()))
        ['bias', 'weight_g', 'weight_v']
    """
    WeightNorm.apply(layer, name, dim)
    return layer


def remove_weight_norm(layer, name="weight"):
    """Undoes :func:`weight_norm`: ``<name>`` becomes one parameter again, holding g * v / ||v||.

    Args:
        layer (Layer): The layer weight_norm was applied to.
        name (str, optional): The parameter's name. Default: 'weight'.

    Returns:
        Layer: the same layer, without the hook.

    Raises:
        ValueError: the layer has no weight_norm on ``name``.

    Examples:
        >>> import oar
        >>> from oar.nn.utils import weight_norm, remove_weight_norm
        >>> linear = remove_weight_norm(weight_norm(oar.nn.Linear(2, 3)))
        >>> print(sorted(linear.state_dict()))
        ['bias', 'weight']
    """
    for key, hook in layer._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(layer)
            del layer._forward_pre_hooks[key]
            return layer
    raise ValueError(f"weight_norm of '{name}' not found in {layer}")
