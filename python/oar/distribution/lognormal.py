"""LogNormal (paddle.distribution.LogNormal): exp of a normal variable, a TransformedDistribution of
Normal(loc, scale) through ExpTransform."""
from __future__ import annotations

from .normal import Normal
from .transform import ExpTransform
from .transformed_distribution import TransformedDistribution


class LogNormal(TransformedDistribution):
    r"""The log-normal distribution: :math:`X = e^Y` with :math:`Y \sim Normal(loc, scale)`,
    density

    .. math::

        f(x; \mu, \sigma) = \frac{1}{x \sigma \sqrt{2\pi}} e^{-\frac{(\ln x - \mu)^2}{2\sigma^2}}

    Args:
        loc (int|float|list|tuple|numpy.ndarray|Tensor): The mean of the underlying normal.
        scale (int|float|list|tuple|numpy.ndarray|Tensor): Its standard deviation.

    Examples:
        >>> import oar
        >>> from oar.distribution import LogNormal
        >>> lognormal_a = LogNormal([0.], [1.])
        >>> lognormal_b = LogNormal([0.5], [2.])
        >>> print(lognormal_a.sample([2]).shape)
        [2, 1]
        >>> print(lognormal_a.mean)
        Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.64872122])
        >>> print(lognormal_a.entropy())
        Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.41893852])
        >>> value = oar.to_tensor([0.8], dtype="float32")
        >>> print(lognormal_a.log_prob(value))
        Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0.72069150])
        >>> print(lognormal_a.kl_divergence(lognormal_b))
        Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.34939718])
    """

    def __init__(self, loc, scale):
        self._base = Normal(loc=loc, scale=scale)
        self.loc = self._base.loc
        self.scale = self._base.scale
        super().__init__(self._base, [ExpTransform()])

    @property
    def mean(self):
        """The mean: exp(loc + scale^2 / 2).

        Returns:
            Tensor: the mean.
        """
        return (self._base.mean + self._base.variance / 2).exp()

    @property
    def variance(self):
        """The variance: (exp(scale^2) - 1) exp(2 loc + scale^2).

        Returns:
            Tensor: the variance.
        """
        return self._base.variance.expm1() * (2 * self._base.mean + self._base.variance).exp()

    def entropy(self):
        """The entropy: the underlying normal's entropy plus loc.

        Returns:
            Tensor: the entropy, of the batch shape.
        """
        return self._base.entropy() + self._base.mean

    def probs(self, value):
        """The density at value.

        Args:
            value (Tensor): The value.

        Returns:
            Tensor: the density.
        """
        return self.log_prob(value).exp()

    def kl_divergence(self, other):
        """The KL divergence from this log-normal distribution to other (that of the underlying
        normals).

        Args:
            other (LogNormal): The other log-normal distribution.

        Returns:
            Tensor: the divergence.
        """
        return self._base.kl_divergence(other._base)
