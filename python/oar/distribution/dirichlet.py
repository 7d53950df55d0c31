"""Dirichlet (paddle.distribution.Dirichlet): the distribution on the probability simplex with
concentration vector alpha. Samples are normalized oar.standard_gamma draws."""
from __future__ import annotations

import math

from ..autograd import no_grad
from .distribution import Tensor
from ._sampling import standard_gamma
from .exponential_family import ExponentialFamily


class Dirichlet(ExponentialFamily):
    r"""The Dirichlet distribution on the simplex :math:`\{x : x_i > 0, \sum_i x_i = 1\}`, with
    density

    .. math::

        f(x; \alpha) = \frac{\Gamma(\sum_i \alpha_i)}{\prod_i \Gamma(\alpha_i)} \prod_i x_i^{\alpha_i - 1}

    The last axis of ``concentration`` is the event axis (of size k), the others the batch axes.

    Args:
        concentration (Tensor): The concentration :math:`\alpha` (> 0), at least 1-D:
            float32 or float64.

    Examples:
        >>> import oar
        >>> from oar.distribution import Dirichlet
        >>> dirichlet = Dirichlet(oar.to_tensor([1., 2., 3.]))
        >>> print(dirichlet.batch_shape, dirichlet.event_shape)
        () (3,)
        >>> print(dirichlet.entropy())
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               -1.24434471)
        >>> print(dirichlet.prob(oar.to_tensor([.3, .5, .6])))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               10.80000019)
    """

    def __init__(self, concentration):
        if not isinstance(concentration, Tensor):
            raise TypeError(f"Expected type of concentration is Tensor, but got {type(concentration)}")
        if concentration.dim() < 1 or math.prod(concentration.shape) == 0:
            raise ValueError("`concentration` parameter must be at least one dimensional")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:])

    @property
    def mean(self):
        """The mean: concentration / concentration.sum(-1).

        Returns:
            Tensor: the mean, of shape ``batch_shape + event_shape``.
        """
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def variance(self):
        """The variance of each component.

        Returns:
            Tensor: the variance, of shape ``batch_shape + event_shape``.
        """
        total = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def sample(self, shape=()):
        """Draws samples: gamma draws normalized over the last axis (not differentiable).

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: samples of shape ``shape + batch_shape + event_shape``.
        """
        with no_grad():
            gammas = standard_gamma(self.concentration.expand(list(self._extend_shape(tuple(shape)))))
            return gammas / gammas.sum(-1, keepdim=True)

    def prob(self, value):
        """The density at value.

        Args:
            value (Tensor): A point of the simplex (last axis of size k).

        Returns:
            Tensor: the density.
        """
        return self.log_prob(value).exp()

    def log_prob(self, value):
        """The log density at value.

        Args:
            value (Tensor): A point of the simplex (last axis of size k).

        Returns:
            Tensor: the log density.
        """
        c = self.concentration
        return (value.log() * (c - 1.0)).sum(-1) + c.sum(-1).lgamma() - c.lgamma().sum(-1)

    def entropy(self):
        """The entropy.

        Returns:
            Tensor: the entropy, of the batch shape.
        """
        c = self.concentration
        total = c.sum(-1)
        k = c.shape[-1]
        return (c.lgamma().sum(-1) - total.lgamma() - (k - total) * total.digamma()
                - ((c - 1.0) * c.digamma()).sum(-1))

    @property
    def _natural_parameters(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - x.sum(-1).lgamma()
