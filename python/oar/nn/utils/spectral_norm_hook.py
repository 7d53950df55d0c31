"""Spectral normalization as a hook (paddle.nn.utils.spectral_norm).

The layer's parameter w moves to ``<name>_orig``; before every forward call a pre-hook sets
``layer.<name> = w / sigma``, sigma the largest singular value of w viewed as a matrix (dim first,
the rest flattened), estimated from the vectors u and v kept as buffers ``<name>_u`` / ``<name>_v``.
In training mode each call first refines u and v by power iterations (in place, without gradient);
in eval mode they are used as they are. The gradient reaches w through both w and sigma.
"""
from ... import _C
from ...autograd import no_grad
from ..layer.common import Linear
from ..layer.conv import Conv1DTranspose, Conv2DTranspose, Conv3DTranspose

__all__ = ["spectral_norm"]


def _unit(x, eps):
    return _C.normalize(x, 2.0, 0, eps)


class SpectralNorm:
    """The forward pre-hook that recomputes ``layer.<name>`` from ``<name>_orig``, u and v."""

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name, self.dim = name, dim
        self.n_power_iterations, self.eps = n_power_iterations, eps

    def reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = _C.transpose(weight, [self.dim] + [d for d in range(weight.ndim) if d != self.dim])
        return _C.reshape(weight, [weight.shape[0], -1])

    def compute_weight(self, layer, do_power_iteration):
        weight = getattr(layer, self.name + "_orig")
        u, v = getattr(layer, self.name + "_u"), getattr(layer, self.name + "_v")
        matrix = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(_unit(_C.matmul(matrix, u, True, False), self.eps))
                    u.copy_(_unit(_C.matmul(matrix, v, False, False), self.eps))
            # Copies: the buffers change in place at the next call, sigma's graph keeps these.
            u, v = u.clone(), v.clone()
        sigma = _C.dot(u, _C.matmul(matrix, v, False, False))
        return weight / sigma

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.compute_weight(layer, do_power_iteration=layer.training))

    @staticmethod
    def apply(layer, name, n_power_iterations, dim, eps):
        for hook in layer._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = layer._parameters[name]
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            u = _unit(_C.gaussian([h], 0.0, 1.0, 0, weight.dtype), eps)
            v = _unit(_C.gaussian([w], 0.0, 1.0, 0, weight.dtype), eps)
        del layer._parameters[name]
        layer.add_parameter(name + "_orig", weight)
        # Until the first forward call layer.<name> is the unnormalized weight (as in Paddle); a
        # plain tensor attribute, which the layer keeps as a non-persistable buffer.
        setattr(layer, name, weight * 1.0)
        layer.register_buffer(name + "_u", u)
        layer.register_buffer(name + "_v", v)
        layer.register_forward_pre_hook(fn)
        return fn


def spectral_norm(layer, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    r"""Applies spectral normalization to a parameter: :math:`w / \sigma(w)`, with
    :math:`\sigma(w) = u^T W v` estimated by power iteration (:math:`v \leftarrow W^T u / \|W^T u\|`,
    :math:`u \leftarrow W v / \|W v\|`), W the weight as a matrix of ``shape[dim]`` rows.

    The parameter moves to ``<name>_orig``; u and v are buffers ``<name>_u`` and ``<name>_v``
    (random at first). Every forward call in training mode runs ``n_power_iterations`` iterations
    first; ``layer.<name>`` is set from them before the layer's forward.

    Args:
        layer (Layer): The layer holding the parameter.
        name (str, optional): The parameter's name. Default: 'weight'.
        n_power_iterations (int, optional): Power iterations per training call; positive.
            Default: 1.
        eps (float, optional): Lower bound of the norms divided by. Default: 1e-12.
        dim (int|None, optional): The dimension taken as the matrix rows. None means 1 for
            Linear and the transposed convolutions (whose weights are [in, out, ...]) and 0 for
            the rest. Default: None.

    Returns:
        Layer: the same layer, with the hook.

    Examples:
        >>> import oar
        >>> from oar.nn.utils import spectral_norm
        >>> linear = spectral_norm(oar.nn.Linear(3, 4))
        >>> print(linear.weight_u.shape, linear.weight_v.shape, sorted(linear.state_dict()))
        [4] [3] ['bias', 'weight_orig', 'weight_u', 'weight_v']
        >>> out = linear(oar.ones([2, 3]))
    """
    if dim is None:
        dim = 1 if isinstance(layer, (Conv1DTranspose, Conv2DTranspose, Conv3DTranspose, Linear)) else 0
    SpectralNorm.apply(layer, name, n_power_iterations, dim, eps)
    return layer
