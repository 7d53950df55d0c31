"""Poisson (paddle.distribution.Poisson): counts with rate `rate`. Samples are oar.poisson draws;
entropy and KL divergence sum over a bounded support (rate + 30 standard deviations)."""
from __future__ import annotations

import math
from collections.abc import Sequence

from .. import _C
from ..autograd import no_grad
from ..framework.dtype import get_default_dtype
from ..tensor.creation import arange, to_tensor
from ._sampling import poisson
from .distribution import Distribution, Tensor


def _plogq(log_p, log_q):
    """exp(log_p) * log_q, with 0 where log_p is -inf (p = 0 adds nothing)."""
    zero = _C.zeros_like(log_p)
    finite = log_p != -math.inf
    return _C.where(finite, log_p.exp() * _C.where(finite, log_q, zero), zero)


class Poisson(Distribution):
    r"""The Poisson distribution with probability mass

    .. math::

        P(X = k) = \frac{\lambda^k e^{-\lambda}}{k!}, \ k = 0, 1, \dots

    with :math:`\lambda` = rate.

    Args:
        rate (int|float|Tensor): The rate (>= 0). A number makes a distribution of batch shape
            [1] and the default dtype; a float32/float64 tensor gives its dtype.

    Examples:
        >>> import oar
        >>> from oar.distribution import Poisson
        >>> rv = Poisson(oar.to_tensor([2.0, 5.0]))
        >>> print(rv.log_prob(oar.to_tensor([1.0, 5.0])))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1.30685282, -1.74030209])
        >>> print(rv.entropy())
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.70488286, 2.20439529])
        >>> print(rv.kl_divergence(Poisson(oar.to_tensor([3.0, 5.0]))))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.18906975, 0.        ])
    """

    def __init__(self, rate):
        self.dtype = get_default_dtype()
        self.rate = self._to_tensor(rate)
        super().__init__(self.rate.shape)

    def _to_tensor(self, rate):
        """A number as a [1] tensor of the default dtype; a tensor as it is (it gives the dtype)."""
        if isinstance(rate, (float, int)):
            return to_tensor([rate], dtype=self.dtype)
        if not isinstance(rate, Tensor):
            raise TypeError(f"Expected type of rate is float or Tensor, but got {type(rate)}")
        self.dtype = rate.dtype.name
        return rate

    @property
    def mean(self):
        """The mean: rate.

        Returns:
            Tensor: the mean.
        """
        return self.rate

    @property
    def variance(self):
        """The variance: rate.

        Returns:
            Tensor: the variance.
        """
        return self.rate

    def sample(self, shape=()):
        """Draws samples (not differentiable).

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: samples of shape ``shape + batch_shape``, of the distribution's dtype.
        """
        if not isinstance(shape, Sequence):
            raise TypeError('sample shape must be Sequence object.')
        output_shape = list(shape) + list(self.batch_shape)
        with no_grad():
            return poisson(_C.broadcast_to(self.rate, output_shape))

    def _enumerate_bounded_support(self, rate):
        """0, 1, ... up to the largest rate + 30 standard deviations (at least 30)."""
        rate_max = float(_C.max(rate))
        s_max = math.sqrt(rate_max) if rate_max >= 1.0 else 1.0
        upper = int(_C.max((rate + 30 * s_max).astype('int32')))
        return arange(0, upper, dtype=self.dtype)

    def entropy(self):
        r"""The entropy: :math:`-\sum_k P(k) \log P(k)` over the bounded support.

        Returns:
            Tensor: the entropy, of the batch shape.
        """
        values = self._enumerate_bounded_support(self.rate).reshape([-1] + [1] * len(self.batch_shape))
        log_prob = self.log_prob(values)
        return -_plogq(log_prob, log_prob).sum(0) * (self.rate != 0).astype(self.dtype)

    def log_prob(self, value):
        """The log probability of value (-inf for negative integers; 0 at value 0 of rate 0).

        Args:
            value (Tensor): The count.

        Returns:
            Tensor: the log probability.
        """
        value = value.astype(self.dtype)
        log_prob = -self.rate + value * self.rate.log() - (value + 1).lgamma()
        return _C.nan_to_num(log_prob, 0.0, math.inf, -math.inf)  # 0 * log(0) at value 0, rate 0

    def prob(self, value):
        """The probability of value.

        Args:
            value (Tensor): The count.

        Returns:
            Tensor: the probability.
        """
        return self.log_prob(value).exp()

    def kl_divergence(self, other):
        r"""The KL divergence :math:`\sum_k P(k) (\log P(k) - \log Q(k))` over the bounded support
        of the larger rate.

        Args:
            other (Poisson): The other Poisson distribution, of the same batch shape.

        Returns:
            Tensor: the divergence.
        """
        if self.batch_shape != other.batch_shape:
            raise ValueError("KL divergence of two poisson distributions should share the same `batch_shape`.")
        rate_max = _C.max(_C.maximum(self.rate, other.rate))
        support_max = self._enumerate_bounded_support(rate_max)
        common = arange(0, _C.max(support_max), dtype=self.dtype).reshape([-1] + [1] * len(self.batch_shape))
        log_p, log_q = self.log_prob(common), other.log_prob(common)
        return (_plogq(log_p, log_p) - _plogq(log_p, log_q)).sum(0)
