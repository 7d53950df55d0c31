"""Laplace (paddle.distribution.Laplace): the double-exponential distribution with location loc and
scale; rsample inverts the CDF at uniform draws."""
from __future__ import annotations

import numbers

import numpy as np

from .. import _C
from ..autograd import no_grad
from ..framework.dtype import complex128, float64
from ..tensor.manipulation import broadcast_tensors
from .distribution import Distribution, Tensor


class Laplace(Distribution):
    r"""The Laplace distribution with density

    .. math::

        f(x; \mu, b) = \frac{1}{2b} e^{-\frac{|x - \mu|}{b}}

    with :math:`\mu` = loc and :math:`b` = scale.

    Args:
        loc (float|Tensor): The location.
        scale (float|Tensor): The scale (> 0).

    Examples:
        >>> import oar
        >>> from oar.distribution import Laplace
        >>> m = Laplace(oar.to_tensor(0.0), oar.to_tensor(1.0))
        >>> print(m.log_prob(oar.to_tensor(0.5)))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               -1.19314718)
        >>> print(m.cdf(oar.to_tensor(0.5)), m.icdf(oar.to_tensor(0.5)))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.69673467) Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.)
        >>> print(m.entropy())
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               1.69314718)
        >>> print(m.kl_divergence(Laplace(oar.to_tensor(1.0), oar.to_tensor(2.0))))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.37708688)
        >>> print(m.sample([3]).shape)
        [3]
    """

    def __init__(self, loc, scale):
        if not isinstance(loc, (numbers.Real, Tensor)):
            raise TypeError(f"Expected type of loc is Real|Variable, but got {type(loc)}")
        if not isinstance(scale, (numbers.Real, Tensor)):
            raise TypeError(f"Expected type of scale is Real|Variable, but got {type(scale)}")
        if isinstance(loc, numbers.Real):
            loc = _C.full([], loc)
        if isinstance(scale, numbers.Real):
            scale = _C.full([], scale)
        if (len(scale.shape) > 0 or len(loc.shape) > 0) and loc.dtype == scale.dtype:
            self.loc, self.scale = broadcast_tensors([loc, scale])
        else:
            self.loc, self.scale = loc, scale
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        """The mean: loc.

        Returns:
            Tensor: the mean.
        """
        return self.loc

    @property
    def stddev(self):
        """The standard deviation: sqrt(2) * scale.

        Returns:
            Tensor: the standard deviation.
        """
        return (2 ** 0.5) * self.scale

    @property
    def variance(self):
        """The variance: 2 scale^2.

        Returns:
            Tensor: the variance.
        """
        return self.stddev.pow(2)

    def _validate_value(self, value):
        """(loc, scale, value) broadcast together, value a tensor of scale's dtype."""
        if isinstance(value, numbers.Real):
            value = _C.full([], value)
        if value.dtype != self.scale.dtype:
            value = value.astype(self.scale.dtype)
        if len(self.scale.shape) > 0 or len(self.loc.shape) > 0 or len(value.shape) > 0:
            return tuple(broadcast_tensors([self.loc, self.scale, value]))
        return self.loc, self.scale, value

    def log_prob(self, value):
        """The log density at value.

        Args:
            value (float|Tensor): The value.

        Returns:
            Tensor: the log density.
        """
        loc, scale, value = self._validate_value(value)
        return -(2 * scale).log() - (value - loc).abs() / scale

    def entropy(self):
        """The entropy: 1 + log(2 scale).

        Returns:
            Tensor: the entropy, of the batch shape.
        """
        return 1 + (2 * self.scale).log()

    def cdf(self, value):
        """The cumulative distribution function.

        Args:
            value (float|Tensor): The value.

        Returns:
            Tensor: P(X <= value).
        """
        loc, scale, value = self._validate_value(value)
        return 0.5 - 0.5 * (value - loc).sign() * (-(value - loc).abs() / scale).expm1()

    def icdf(self, value):
        """The inverse of the cumulative distribution function.

        Args:
            value (float|Tensor): A probability.

        Returns:
            Tensor: the quantile.
        """
        loc, scale, value = self._validate_value(value)
        term = value - 0.5
        return loc - scale * term.sign() * (-2 * term.abs()).log1p()

    def sample(self, shape=()):
        """Draws samples (not differentiable).

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: samples of shape ``shape + batch_shape``.
        """
        with no_grad():
            return self.rsample(tuple(shape))

    def rsample(self, shape=()):
        """Draws reparameterized samples loc - scale sign(u) log(1 - |u|), u uniform on (-1, 1):
        differentiable in loc and scale.

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: samples of shape ``shape + batch_shape``.
        """
        eps = self._get_eps()
        shape = list(self._extend_shape(shape))
        u = _C.uniform(shape, self.loc.dtype, float(np.nextafter(-1, 1)) + eps / 2, 1.0 - eps / 2)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def _get_eps(self):
        """The machine epsilon of loc's dtype (float32 unless float64): keeps u off -1 and 1."""
        return 2.22045e-16 if self.loc.dtype in (float64, complex128) else 1.19209e-07

    def kl_divergence(self, other):
        """The KL divergence from this Laplace distribution to other.

        Args:
            other (Laplace): The other Laplace distribution.

        Returns:
            Tensor: the divergence.
        """
        if not isinstance(other, Laplace):
            raise TypeError(f"Expected type of other is Laplace, but got {type(other)}")
        var_ratio = other.scale / self.scale
        t = (self.loc - other.loc).abs()
        term1 = (self.scale * (-t / self.scale).exp() + t) / other.scale
        return term1 + var_ratio.log() - 1
