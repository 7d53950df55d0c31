"""Geometric (paddle.distribution.Geometric): the number of failures before the first success in
trials of probability probs (support 0, 1, 2, ...). Its mass function is pmf/log_pmf."""
from __future__ import annotations

import numbers

import numpy as np

from .. import _C
from ..autograd import no_grad
from ..framework.dtype import float32
from .distribution import Distribution, Tensor

_TINY = float(np.finfo(np.float32).tiny)  # draws from (tiny, 1) keep log(u) finite


def _check_k(k):
    if not isinstance(k, (numbers.Integral, Tensor)):
        raise TypeError(f"Expected type of k is number.Real|framework.Variable|Value, but got {type(k)}")


class Geometric(Distribution):
    r"""The geometric distribution: the number of failures before the first success,

    .. math::

        P(X = k) = (1 - p)^k p, \ k = 0, 1, 2, \dots

    with :math:`p` = probs.

    Args:
        probs (float|Tensor): The probability of success, in (0, 1]. A number becomes a float32
            tensor.

    Examples:
        >>> import oar
        >>> from oar.distribution import Geometric
        >>> geom = Geometric(0.5)
        >>> print(geom.mean, geom.variance)
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               1.) Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               2.)
        >>> print(geom.pmf(2))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.12500000)
        >>> print(geom.cdf(2))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.87500000)
        >>> print(geom.entropy())
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               1.38629436)
        >>> print(geom.sample([3]).shape)
        [3]
    """

    def __init__(self, probs):
        if isinstance(probs, numbers.Real):
            probs = _C.full([], probs, float32)
        elif not isinstance(probs, Tensor):
            raise TypeError(f"Expected type of probs is Number.Real|Tensor|framework.Variable|Value, but got "
                            f"{type(probs)}")
        self.probs = probs
        super().__init__(tuple(probs.shape))

    @property
    def mean(self):
        """The mean: 1 / probs - 1.

        Returns:
            Tensor: the mean.
        """
        return 1.0 / self.probs - 1.0

    @property
    def variance(self):
        """The variance: (1 / probs - 1) / probs.

        Returns:
            Tensor: the variance.
        """
        return (1.0 / self.probs - 1.0) / self.probs

    @property
    def stddev(self):
        """The standard deviation: the square root of the variance.

        Returns:
            Tensor: the standard deviation.
        """
        return self.variance.sqrt()

    def pmf(self, k):
        """The probability of k failures: (1 - probs)^k probs.

        Args:
            k (int|Tensor): The number of failures.

        Returns:
            Tensor: the probability.
        """
        _check_k(k)
        return (1.0 - self.probs).pow(k) * self.probs

    def log_pmf(self, k):
        """The log probability of k failures.

        Args:
            k (int|Tensor): The number of failures.

        Returns:
            Tensor: the log probability.
        """
        _check_k(k)
        return self.pmf(k).log()

    def sample(self, shape=()):
        """Draws samples (not differentiable).

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: samples of shape ``shape + batch_shape``, of probs' dtype.
        """
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """Draws samples floor(log(u) / log(1 - probs)), u uniform (integer-valued, so their
        gradient is zero almost everywhere).

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: samples of shape ``shape + batch_shape``.
        """
        shape = list(self._extend_shape(shape))
        u = _C.uniform(shape, self.probs.dtype, _TINY, 1.0)
        return (u.log() / (-self.probs).log1p()).floor()

    def entropy(self):
        r"""The entropy: :math:`-((1-p)\log(1-p) + p \log p) / p`.

        Returns:
            Tensor: the entropy, of the batch shape.
        """
        x = (1.0 - self.probs) * (1.0 - self.probs).log()
        y = self.probs * self.probs.log()
        return -(x + y) / self.probs

    def cdf(self, k):
        """The cumulative distribution function: 1 - (1 - probs)^(k + 1).

        Args:
            k (int|Tensor): The number of failures.

        Returns:
            Tensor: P(X <= k).
        """
        _check_k(k)
        return 1.0 - (1.0 - self.probs).pow(k + 1)

    def kl_divergence(self, other):
        r"""The KL divergence from this geometric distribution to other:
        :math:`p \log\frac{p}{q} + (1-p) \log\frac{1-p}{1-q}`.

        Args:
            other (Geometric): The other geometric distribution.

        Returns:
            Tensor: the divergence.
        """
        if not isinstance(other, Geometric):
            raise TypeError(f"Exacted type of other is geometric.Geometric, but got {type(other)}")
        p, q = self.probs, other.probs
        return p * (p / q).log() + (1.0 - p) * ((1.0 - p) / (1.0 - q)).log()
