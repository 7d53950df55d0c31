"""Exponential (paddle.distribution.Exponential): the exponential distribution with rate `rate`;
rsample inverts the CDF at uniform draws."""
from __future__ import annotations

import numpy as np

from .. import _C
from ..autograd import no_grad
from ..framework.dtype import get_default_dtype
from .distribution import as_value
from .exponential_family import ExponentialFamily

_TINY = float(np.finfo(np.float32).tiny)  # draws from (tiny, 1) keep -log(u) finite


class Exponential(ExponentialFamily):
    r"""The exponential distribution with density

    .. math::

        f(x; \theta) = \theta e^{-\theta x}, \ x \ge 0

    with :math:`\theta` = rate.

    Args:
        rate (float|Tensor): The rate (> 0): a float, or a float32/float64 tensor.

    Examples:
        >>> import oar
        >>> from oar.distribution import Exponential
        >>> expon = Exponential(oar.to_tensor([0.5, 2.0]))
        >>> print(expon.mean)
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [2.        , 0.50000000])
        >>> print(expon.log_prob(oar.to_tensor([1.0, 1.0])))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1.19314718, -1.30685282])
        >>> print(expon.cdf(oar.to_tensor([1.0, 1.0])))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.39346933, 0.86466473])
        >>> print(expon.sample([3]).shape)
        [3, 2]
    """

    def __init__(self, rate):
        if self._validate_args(rate):
            self.rate = rate
            self.dtype = rate.dtype.name
        else:
            [self.rate] = self._to_tensor(rate)
            self.dtype = get_default_dtype()
        super().__init__(self.rate.shape)

    @property
    def mean(self):
        """The mean: 1 / rate.

        Returns:
            Tensor: the mean.
        """
        return self.rate.reciprocal()

    @property
    def variance(self):
        """The variance: 1 / rate^2.

        Returns:
            Tensor: the variance.
        """
        return self.rate.pow(-2)

    def sample(self, shape=()):
        """Draws samples (not differentiable).

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: samples of shape ``shape + batch_shape``.
        """
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """Draws reparameterized samples -log(u) / rate, u uniform: differentiable in rate.

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: samples of shape ``shape + batch_shape``.
        """
        shape = list(self._extend_shape(shape))
        u = _C.uniform(shape, self.rate.dtype, _TINY, 1.0)
        return -u.log() / self.rate

    def prob(self, value):
        """The density at value: rate * exp(-rate * value).

        Args:
            value (float|Tensor): The value.

        Returns:
            Tensor: the density.
        """
        return self.rate * (-self.rate * value).exp()

    def log_prob(self, value):
        """The log density at value: log(rate) - rate * value.

        Args:
            value (float|Tensor): The value.

        Returns:
            Tensor: the log density.
        """
        return self.rate.log() - self.rate * value

    def entropy(self):
        """The entropy: 1 - log(rate).

        Returns:
            Tensor: the entropy, of the batch shape.
        """
        return 1.0 - self.rate.log()

    def cdf(self, value):
        """The cumulative distribution function: 1 - exp(-rate * value).

        Args:
            value (float|Tensor): The value.

        Returns:
            Tensor: P(X <= value).
        """
        return 1.0 - (-self.rate * value).exp()

    def icdf(self, value):
        """The inverse of the cumulative distribution function: -log(1 - value) / rate.

        Args:
            value (float|Tensor): A probability.

        Returns:
            Tensor: the quantile.
        """
        return -(-as_value(value, self.rate)).log1p() / self.rate

    def kl_divergence(self, other):
        """The KL divergence from this exponential distribution to other.

        Args:
            other (Exponential): The other exponential distribution.

        Returns:
            Tensor: the divergence.
        """
        if not isinstance(other, Exponential):
            raise TypeError(f"Expected type of other is Exponential, but got {type(other)}")
        rate_ratio = other.rate / self.rate
        return -rate_ratio.log() + rate_ratio - 1

    @property
    def _natural_parameters(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -(-x).log()

