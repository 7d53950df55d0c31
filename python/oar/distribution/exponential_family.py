"""ExponentialFamily: the base of distributions whose density is exp(<t(x), theta> - F(theta) + k(x))
(paddle.distribution.ExponentialFamily). Its entropy comes from the log normalizer F through the
Bregman divergence (https://www.lix.polytechnique.fr/~nielsen/EntropyEF-ICIP2010.pdf)."""
from __future__ import annotations

from ..autograd import grad
from .distribution import Distribution


def differentiable(params):
    """The natural parameters as tensors that gradients can be taken for: those that already
    require gradients stay (so that results remain differentiable in the distribution's
    parameters), constants become detached copies that record gradients."""
    out = []
    for p in params:
        if p.stop_gradient:
            p = p.detach()
            p.stop_gradient = False
        out.append(p)
    return out


class ExponentialFamily(Distribution):
    r"""The base class of the exponential-family distributions, whose density is

    .. math::

        f_{F}(x; \theta) = \exp(\langle t(x), \theta\rangle - F(\theta) + k(x))

    with natural parameters :math:`\theta`, sufficient statistic :math:`t(x)`, log normalizer
    :math:`F(\theta)` and carrier measure :math:`k(x)`. A subclass defines ``_natural_parameters``,
    ``_log_normalizer`` and ``_mean_carrier_measure``; ``entropy`` (and ``kl_divergence`` between
    two distributions of the same subclass) then follow from the gradient of the log normalizer.

    Args:
        batch_shape (Sequence[int], optional): The batch shape. Default: ().
        event_shape (Sequence[int], optional): The event shape. Default: ().

    Examples:
        >>> import oar
        >>> from oar.distribution import ExponentialFamily
        >>> class Exp(ExponentialFamily):
        ...     def __init__(self, rate):
        ...         self.rate = rate
        ...         super().__init__(rate.shape)
        ...     @property
        ...     def _natural_parameters(self):
        ...         return (-self.rate,)
        ...     def _log_normalizer(self, x):
        ...         return -oar.log(-x)
        ...     @property
        ...     def _mean_carrier_measure(self):
        ...         return 0.0
        >>> print(Exp(oar.to_tensor([0.5, 2.0])).entropy())
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=False,
               [1.69314718, 0.30685282])
    """

    @property
    def _natural_parameters(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_parameters):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """The entropy, from the Bregman divergence: F(theta) - <theta, grad F(theta)> - E[k(x)].

        Returns:
            Tensor: the entropy, of the batch shape.
        """
        params = differentiable(self._natural_parameters)
        log_norm = self._log_normalizer(*params)
        grads = grad(log_norm.sum(), params, create_graph=True)
        entropy = -self._mean_carrier_measure + log_norm
        for p, g in zip(params, grads):
            entropy = entropy - p * g
        return entropy
