"""Cauchy (paddle.distribution.Cauchy): the Cauchy (Lorentz) distribution with location loc and
scale; it has no mean or variance. rsample inverts the CDF at uniform draws."""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import _C
from ..autograd import no_grad
from ..tensor.manipulation import broadcast_tensors
from .distribution import Distribution, Tensor


def _param(value, what):
    if not isinstance(value, (numbers.Real, Tensor)):
        raise TypeError(f"Expected type of {what} is Real|Variable|Value, but got {type(value)}")
    return _C.full([], value) if isinstance(value, numbers.Real) else value


def _check_value(value):
    if not isinstance(value, Tensor):
        raise TypeError(f"Expected type of value is Variable or Value, but got {type(value)}")


class Cauchy(Distribution):
    r"""The Cauchy distribution with density

    .. math::

        f(x; x_0, \gamma) = \frac{1}{\pi \gamma \left[1 + \left(\frac{x - x_0}{\gamma}\right)^2\right]}

    with :math:`x_0` = loc and :math:`\gamma` = scale. It has no mean, variance or standard
    deviation: those properties raise ValueError.

    Args:
        loc (float|Tensor): The location.
        scale (float|Tensor): The scale (> 0).
        name (str|None, optional): The name prefix of the operations. Default: None.

    Examples:
        >>> import oar
        >>> from oar.distribution import Cauchy
        >>> rv = Cauchy(loc=0.1, scale=1.2)
        >>> print(rv.entropy())
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               2.71334577)
        >>> print(rv.log_prob(oar.to_tensor(1.5)))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               -2.18618369)
        >>> print(rv.cdf(oar.to_tensor(1.5)))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.77443725)
        >>> print(rv.kl_divergence(Cauchy(loc=0., scale=1.)))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.01036286)
        >>> print(rv.sample([10]).shape)
        [10]
    """

    def __init__(self, loc, scale, name=None):
        self.name = name if name is not None else 'Cauchy'
        loc, scale = _param(loc, 'loc'), _param(scale, 'scale')
        if loc.shape != scale.shape:
            loc, scale = broadcast_tensors([loc, scale])
        self.loc, self.scale = loc, scale
        self.dtype = self.loc.dtype
        super().__init__(batch_shape=self.loc.shape, event_shape=())

    @property
    def mean(self):
        """Raises ValueError: the Cauchy distribution has no mean."""
        raise ValueError("Cauchy distribution has no mean.")

    @property
    def variance(self):
        """Raises ValueError: the Cauchy distribution has no variance."""
        raise ValueError("Cauchy distribution has no variance.")

    @property
    def stddev(self):
        """Raises ValueError: the Cauchy distribution has no standard deviation."""
        raise ValueError("Cauchy distribution has no stddev.")

    def sample(self, shape=(), name=None):
        """Draws samples (not differentiable).

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().
            name (str|None, optional): Unused; for Paddle compatibility. Default: None.

        Returns:
            Tensor: samples of shape ``shape + batch_shape``.
        """
        with no_grad():
            return self.rsample(shape, name)

    def rsample(self, shape=(), name=None):
        """Draws reparameterized samples loc + scale * tan(pi (u - 1/2)), u uniform:
        differentiable in loc and scale.

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().
            name (str|None, optional): Unused; for Paddle compatibility. Default: None.

        Returns:
            Tensor: samples of shape ``shape + batch_shape``.
        """
        if not isinstance(shape, (np.ndarray, Tensor, list, tuple)):
            raise TypeError(f"Expected type of shape is Sequence[int], but got {type(shape)}")
        shape = list(self._extend_shape(tuple(shape)))
        u = _C.rand(shape, self.dtype)
        return self.loc.expand(shape) + self.scale.expand(shape) * (math.pi * (u - 0.5)).tan()

    def prob(self, value):
        """The density at value.

        Args:
            value (Tensor): The value.

        Returns:
            Tensor: the density, of the broadcast shape.
        """
        _check_value(value)
        return self.log_prob(value).exp()

    def log_prob(self, value):
        """The log density at value.

        Args:
            value (Tensor): The value.

        Returns:
            Tensor: the log density, of the broadcast shape.
        """
        _check_value(value)
        value = self._check_values_dtype_in_probs(self.loc, value)
        loc, scale, value = broadcast_tensors([self.loc, self.scale, value])
        return -((value - loc) / scale).square().log1p() - (math.log(math.pi) + scale.log())

    def cdf(self, value):
        """The cumulative distribution function: atan((value - loc) / scale) / pi + 1/2.

        Args:
            value (Tensor): The value.

        Returns:
            Tensor: P(X <= value), of the broadcast shape.
        """
        _check_value(value)
        value = self._check_values_dtype_in_probs(self.loc, value)
        loc, scale, value = broadcast_tensors([self.loc, self.scale, value])
        return ((value - loc) / scale).atan() / math.pi + 0.5

    def entropy(self):
        """The entropy: log(4 pi scale).

        Returns:
            Tensor: the entropy, of the batch shape.
        """
        return _C.full(self.loc.shape, math.log(4 * math.pi), self.dtype) + self.scale.log()

    def kl_divergence(self, other):
        r"""The KL divergence from this Cauchy distribution to other:
        :math:`\log\frac{(\gamma_0 + \gamma_1)^2 + (x_0 - x_1)^2}{4 \gamma_0 \gamma_1}`.

        Args:
            other (Cauchy): The other Cauchy distribution.

        Returns:
            Tensor: the divergence.
        """
        if not isinstance(other, Cauchy):
            raise TypeError(f"Expected type of other is Cauchy, but got {type(other)}")
        t1 = ((self.scale + other.scale).pow(2) + (self.loc - other.loc).pow(2)).log()
        t2 = (4 * self.scale * other.scale).log()
        return t1 - t2
