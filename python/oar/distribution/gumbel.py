"""Gumbel (paddle.distribution.Gumbel): the extreme-value distribution with location loc and scale,
a TransformedDistribution of a uniform base: x = loc - scale * log(-log(u))."""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import _C
from ..autograd import no_grad
from ..tensor.manipulation import broadcast_tensors
from .distribution import Tensor
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform

_EULER_GAMMA = float(np.euler_gamma)


class Gumbel(TransformedDistribution):
    r"""The Gumbel distribution with density

    .. math::

        f(x; \mu, \beta) = \frac{1}{\beta} e^{-(z + e^{-z})}, \ z = \frac{x - \mu}{\beta}

    with :math:`\mu` = loc and :math:`\beta` = scale.

    Args:
        loc (float|Tensor): The location.
        scale (float|Tensor): The scale (> 0).

    Examples:
        >>> import oar
        >>> from oar.distribution import Gumbel
        >>> m = Gumbel(oar.to_tensor([0.0, 0.0]), oar.to_tensor([1.0, 2.0]))
        >>> print(m.mean)
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.57721567, 1.15443134])
        >>> print(m.log_prob(oar.to_tensor([1.0, 1.0])))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1.36787939, -1.79967785])
        >>> print(m.cdf(oar.to_tensor([1.0, 1.0])))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.69220060, 0.54523921])
        >>> print(m.entropy())
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.57721567, 2.27036285])
        >>> print(m.sample([3]).shape)
        [3, 2]
    """

    def __init__(self, loc, scale):
        if not isinstance(loc, (numbers.Real, Tensor)):
            raise TypeError(f"Expected type of loc is Real|Variable|Value, but got {type(loc)}")
        if not isinstance(scale, (numbers.Real, Tensor)):
            raise TypeError(f"Expected type of scale is Real|Variable|Value, but got {type(scale)}")
        if isinstance(loc, numbers.Real):
            loc = _C.full([], loc)
        if isinstance(scale, numbers.Real):
            scale = _C.full([], scale)
        if loc.shape != scale.shape:
            loc, scale = broadcast_tensors([loc, scale])
        self.loc, self.scale = loc, scale
        finfo = np.finfo(np.float32)
        self.base_dist = Uniform(_C.full_like(self.loc, float(finfo.tiny)),
                                 _C.full_like(self.loc, float(1 - finfo.eps)))
        self.transforms = ()
        super().__init__(self.base_dist, self.transforms)

    @property
    def mean(self):
        """The mean: loc + scale * gamma (Euler's constant).

        Returns:
            Tensor: the mean.
        """
        return self.loc + self.scale * _EULER_GAMMA

    @property
    def variance(self):
        """The variance: scale^2 pi^2 / 6.

        Returns:
            Tensor: the variance.
        """
        return self.scale.pow(2) * _C.full(self.loc.shape, math.pi * math.pi, self.scale.dtype) / 6

    @property
    def stddev(self):
        """The standard deviation: the square root of the variance.

        Returns:
            Tensor: the standard deviation.
        """
        return self.variance.sqrt()

    def prob(self, value):
        """The density at value.

        Args:
            value (Tensor): The value.

        Returns:
            Tensor: the density.
        """
        return self.log_prob(value).exp()

    def log_prob(self, value):
        """The log density at value: y - exp(y) - log(scale), y = (loc - value) / scale.

        Args:
            value (Tensor): The value.

        Returns:
            Tensor: the log density.
        """
        y = (self.loc - value.astype(self.loc.dtype)) / self.scale.astype(self.loc.dtype)
        return y - y.exp() - self.scale.astype(y.dtype).log()

    def cdf(self, value):
        """The cumulative distribution function: exp(-exp(-(value - loc) / scale)).

        Args:
            value (Tensor): The value.

        Returns:
            Tensor: P(X <= value).
        """
        return (-(-(value - self.loc.astype(value.dtype)) / self.scale.astype(value.dtype)).exp()).exp()

    def entropy(self):
        """The entropy: log(scale) + 1 + gamma (Euler's constant).

        Returns:
            Tensor: the entropy, of the batch shape.
        """
        return self.scale.log() + 1 + _EULER_GAMMA

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
        """Draws reparameterized samples loc - scale log(-log(u)), u uniform: differentiable in
        loc and scale.

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: samples of shape ``shape + batch_shape``.
        """
        u = self._base.sample(shape)
        return self.loc - self.scale * (-u.log()).log()
