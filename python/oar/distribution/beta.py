"""Beta (paddle.distribution.Beta): the beta distribution on [0, 1], written as the two-component
Dirichlet of (alpha, beta)."""
from __future__ import annotations

import numbers

from .. import _C
from ..tensor.manipulation import broadcast_tensors
from .dirichlet import Dirichlet
from .exponential_family import ExponentialFamily


class Beta(ExponentialFamily):
    r"""The beta distribution with density

    .. math::

        f(x; \alpha, \beta) = \frac{1}{B(\alpha, \beta)} x^{\alpha-1} (1-x)^{\beta-1}, \ 0 \le x \le 1

    ``alpha`` and ``beta`` broadcast together; numbers become tensors of the default dtype.

    Args:
        alpha (float|Tensor): The first shape parameter (> 0).
        beta (float|Tensor): The second shape parameter (> 0).

    Examples:
        >>> import oar
        >>> from oar.distribution import Beta
        >>> beta = Beta(alpha=0.5, beta=0.5)
        >>> print(beta.mean, beta.variance)
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.50000000) Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.12500000)
        >>> print(beta.prob(oar.to_tensor([0.1, 0.5])))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.06103301, 0.63661981])
        >>> print(beta.entropy())
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               -0.24156451)
        >>> batch = Beta(alpha=oar.to_tensor([0.2, 0.4]), beta=oar.to_tensor(0.6))
        >>> print(batch.batch_shape)
        (2,)
    """

    def __init__(self, alpha, beta):
        if isinstance(alpha, numbers.Real):
            alpha = _C.full([], alpha)
        if isinstance(beta, numbers.Real):
            beta = _C.full([], beta)
        self.alpha, self.beta = broadcast_tensors([alpha, beta])
        self._dirichlet = Dirichlet(_C.stack([self.alpha, self.beta], -1))
        super().__init__(self._dirichlet._batch_shape)

    @property
    def mean(self):
        """The mean: alpha / (alpha + beta).

        Returns:
            Tensor: the mean.
        """
        return self.alpha / (self.alpha + self.beta)

    @property
    def variance(self):
        """The variance: alpha beta / ((alpha + beta)^2 (alpha + beta + 1)).

        Returns:
            Tensor: the variance.
        """
        total = self.alpha + self.beta
        return self.alpha * self.beta / (total.pow(2) * (total + 1))

    def prob(self, value):
        """The density at value.

        Args:
            value (Tensor): The value.

        Returns:
            Tensor: the density.
        """
        return self.log_prob(value).exp()

    def log_prob(self, value):
        """The log density at value.

        Args:
            value (Tensor): The value.

        Returns:
            Tensor: the log density.
        """
        return self._dirichlet.log_prob(_C.stack([value, 1.0 - value], -1))

    def sample(self, shape=()):
        """Draws samples (not differentiable).

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: samples of shape ``shape + batch_shape``.
        """
        return self._dirichlet.sample(tuple(shape))[..., 0]

    def entropy(self):
        """The entropy.

        Returns:
            Tensor: the entropy, of the batch shape.
        """
        return self._dirichlet.entropy()

    @property
    def _natural_parameters(self):
        return (self.alpha, self.beta)

    def _log_normalizer(self, x, y):
        return x.lgamma() + y.lgamma() - (x + y).lgamma()
