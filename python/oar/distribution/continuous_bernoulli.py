"""ContinuousBernoulli (paddle.distribution.ContinuousBernoulli): the continuous relaxation of the
Bernoulli on [0, 1] (Loaiza-Ganem and Cunningham, 2019). Near probs = 1/2 its normalizing constant
and moments lose precision, so inside `lims` they are Taylor expansions around 1/2."""
from __future__ import annotations

from collections.abc import Sequence

from .. import _C
from ..autograd import no_grad
from ..framework.dtype import finfo, get_default_dtype
from ..tensor.creation import to_tensor
from .distribution import Distribution, Tensor


class ContinuousBernoulli(Distribution):
    r"""The continuous Bernoulli distribution on [0, 1], with density

    .. math::

        p(x; \lambda) = C(\lambda) \lambda^x (1 - \lambda)^{1 - x}, \quad
        C(\lambda) = \frac{2 \tanh^{-1}(1 - 2\lambda)}{1 - 2\lambda} \ (\lambda \ne 1/2), \ 2 \ (\lambda = 1/2)

    with :math:`\lambda` = probs. Inside ``lims`` the normalizing constant, mean and variance are
    Taylor expansions around 1/2.

    Args:
        probs (int|float|Tensor): :math:`\lambda`, in (0, 1); clipped to [eps, 1 - eps]. A number
            makes a distribution of batch shape [1] and the default dtype.
        lims (tuple, optional): The interval around 1/2 where the Taylor expansions are used.
            Default: (0.499, 0.501).

    Examples:
        >>> import oar
        >>> from oar.distribution import ContinuousBernoulli
        >>> rv = ContinuousBernoulli(oar.to_tensor([0.2, 0.5]))
        >>> print(rv.mean)
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.38801414, 0.50000000])
        >>> print(rv.log_prob(oar.to_tensor([0.1, 0.1])))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.47568703, 0.        ])
        >>> print(rv.entropy())
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0.07641460,  0.        ])
        >>> print(rv.sample([3]).shape)
        [3, 2]
    """

    def __init__(self, probs, lims=(0.499, 0.501)):
        self.dtype = get_default_dtype()
        self.probs = self._to_tensor(probs)
        self.lims = to_tensor(lims, dtype=self.dtype)
        eps = float(finfo(self.probs.dtype).eps)
        self.probs = _C.clip(self.probs, eps, 1 - eps)
        super().__init__(self.probs.shape)

    def _to_tensor(self, probs):
        """A number as a [1] tensor of the default dtype; a tensor as it is (it gives the dtype)."""
        if isinstance(probs, (float, int)):
            return to_tensor([probs], dtype=self.dtype)
        if not isinstance(probs, Tensor):
            raise TypeError(f"Expected type of probs is float or Tensor, but got {type(probs)}")
        self.dtype = probs.dtype.name
        return probs

    def _cut_support_region(self):
        """True where probs is outside lims (where the exact formulas are used)."""
        return _C.logical_or(self.probs <= self.lims[0], self.probs > self.lims[1])

    def _cut_probs(self):
        """probs outside lims, lims[0] inside (a safe point for the exact formulas)."""
        return _C.where(self._cut_support_region(), self.probs, self.lims[0] * _C.ones_like(self.probs))

    @staticmethod
    def _tanh_inverse(value):
        return 0.5 * (value.log1p() - (-value).log1p())

    def _log_constant(self):
        """log C(probs)."""
        cut = self._cut_probs()
        below = cut <= 0.5
        cut_below = _C.where(below, cut, _C.zeros_like(cut))
        cut_above = _C.where(cut >= 0.5, cut, _C.ones_like(cut))
        exact = ((2.0 * self._tanh_inverse(1.0 - 2.0 * cut).abs()).log()
                 - _C.where(below, (-2.0 * cut_below).log1p(), (2.0 * cut_above - 1.0).log()))
        x = (self.probs - 0.5).square()
        taylor = to_tensor(2.0, dtype=self.dtype).log() + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return _C.where(self._cut_support_region(), exact, taylor)

    @property
    def mean(self):
        """The mean.

        Returns:
            Tensor: the mean.
        """
        cut = self._cut_probs()
        exact = cut / (2.0 * cut - 1.0) + 1.0 / (2.0 * self._tanh_inverse(1.0 - 2.0 * cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.square()) * x
        return _C.where(self._cut_support_region(), exact, taylor)

    @property
    def variance(self):
        """The variance.

        Returns:
            Tensor: the variance.
        """
        cut = self._cut_probs()
        exact = (cut * (cut - 1.0) / (1.0 - 2.0 * cut).square()
                 + 1.0 / ((-cut).log1p() - cut.log()).square())
        x = (self.probs - 0.5).square()
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return _C.where(self._cut_support_region(), exact, taylor)

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
        """Draws reparameterized samples icdf(u), u uniform: differentiable in probs.

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: samples of shape ``shape + batch_shape``.
        """
        if not isinstance(shape, Sequence):
            raise TypeError('sample shape must be Sequence object.')
        output_shape = list(shape) + list(self.batch_shape)
        return self.icdf(_C.uniform(output_shape, self.dtype, 0.0, 1.0))

    def log_prob(self, value):
        """The log density at value.

        Args:
            value (Tensor): The value, in [0, 1].

        Returns:
            Tensor: the log density.
        """
        value = value.astype(self.dtype)
        eps = float(finfo(self.probs.dtype).eps)
        cross_entropy = _C.nan_to_num(value * self.probs.log() + (1.0 - value) * (1 - self.probs).log(),
                                      neginf=-eps)
        return self._log_constant() + cross_entropy

    def prob(self, value):
        """The density at value.

        Args:
            value (Tensor): The value, in [0, 1].

        Returns:
            Tensor: the density.
        """
        return self.log_prob(value).exp()

    def entropy(self):
        """The entropy (0 at probs = 1/2).

        Returns:
            Tensor: the entropy, of the batch shape.
        """
        log_p = self.probs.log()
        log_1mp = (-self.probs).log1p()
        return _C.where(self.probs == 0.5, _C.full_like(self.probs, 0.0),
                        -self._log_constant() + self.mean * (log_1mp - log_p) - log_1mp)

    def cdf(self, value):
        """The cumulative distribution function.

        Args:
            value (Tensor): The value.

        Returns:
            Tensor: P(X <= value): 0 below 0, 1 above 1.
        """
        value = value.astype(self.dtype)
        cut = self._cut_probs()
        cdfs = (cut.pow(value) * (1.0 - cut).pow(1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = _C.where(self._cut_support_region(), cdfs, value)
        return _C.where(value <= 0.0, _C.zeros_like(value),
                        _C.where(value >= 1.0, _C.ones_like(value), unbounded))

    def icdf(self, value):
        """The inverse of the cumulative distribution function.

        Args:
            value (Tensor): A probability.

        Returns:
            Tensor: the quantile.
        """
        value = value.astype(self.dtype)
        cut = self._cut_probs()
        exact = (((-cut) + value * (2.0 * cut - 1.0)).log1p() - (-cut).log1p()) / (cut.log() - (-cut).log1p())
        return _C.where(self._cut_support_region(), exact, value)

    def kl_divergence(self, other):
        """The KL divergence from this distribution to other.

        Args:
            other (ContinuousBernoulli): The other distribution, of the same batch shape.

        Returns:
            Tensor: the divergence.
        """
        if self.batch_shape != other.batch_shape:
            raise ValueError("KL divergence of two Continuous Bernoulli distributions should share the same "
                             "`batch_shape`.")
        log_q = other.probs.log()
        log_1mq = (-other.probs).log1p()
        return -self.entropy() - (other._log_constant() + self.mean * (log_q - log_1mq) + log_1mq)
