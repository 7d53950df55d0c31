"""Binomial (paddle.distribution.Binomial): the number of successes in total_count independent
trials of probability probs. Samples are oar.binomial draws; entropy and KL divergence sum over
the support 0..max(total_count)."""
from __future__ import annotations

from collections.abc import Sequence

from .. import _C
from ..autograd import no_grad
from ..framework.dtype import finfo, get_default_dtype
from ..tensor.creation import arange, to_tensor
from ..tensor.manipulation import broadcast_tensors
from ._sampling import binomial
from .distribution import Distribution, Tensor


class Binomial(Distribution):
    r"""The binomial distribution with probability mass

    .. math::

        P(X = k) = \binom{n}{k} p^k (1 - p)^{n - k}, \ k = 0, 1, \dots, n

    with :math:`n` = total_count and :math:`p` = probs.

    Args:
        total_count (int|Tensor): The number of trials (>= 0); a tensor is cast to probs' dtype.
        probs (float|Tensor): The probability of success in one trial, in [0, 1]: a float (of
            the default dtype) or a float32/float64 tensor, which gives the distribution's dtype.

    Examples:
        >>> import oar
        >>> from oar.distribution import Binomial
        >>> rv = Binomial(oar.to_tensor([10, 20]), oar.to_tensor([0.3, 0.5]))
        >>> print(rv.mean)
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [3. , 10.])
        >>> print(rv.log_prob(oar.to_tensor([3., 10.])))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1.32115149, -1.73615170])
        >>> print(rv.entropy())
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.77907896, 2.22342396])
    """

    def __init__(self, total_count, probs):
        self.dtype = get_default_dtype()
        self.total_count, self.probs = self._to_tensor(total_count, probs)
        super().__init__(self.total_count.shape)

    def _to_tensor(self, total_count, probs):
        """total_count and probs as tensors of one dtype (probs' when it is a tensor), broadcast."""
        if isinstance(probs, float):
            probs = to_tensor(probs, dtype=self.dtype)
        elif isinstance(probs, Tensor):
            self.dtype = probs.dtype.name
        else:
            raise TypeError(f"Expected type of probs is float or Tensor, but got {type(probs)}")
        if isinstance(total_count, int):
            total_count = to_tensor(total_count, dtype=self.dtype)
        else:
            total_count = total_count.astype(self.dtype)
        return broadcast_tensors([total_count, probs])

    @property
    def mean(self):
        """The mean: total_count * probs.

        Returns:
            Tensor: the mean.
        """
        return self.total_count * self.probs

    @property
    def variance(self):
        """The variance: total_count * probs * (1 - probs).

        Returns:
            Tensor: the variance.
        """
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, shape=()):
        """Draws samples (not differentiable).

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: samples of shape ``shape + batch_shape``, of the distribution's dtype.
        """
        if not isinstance(shape, Sequence):
            raise TypeError('sample shape must be Sequence object.')
        with no_grad():
            output_shape = list(shape) + list(self.batch_shape)
            count = _C.broadcast_to(self.total_count, output_shape).astype('int32')
            probs = _C.broadcast_to(self.probs, output_shape)
            return binomial(count, probs).astype(self.dtype)

    def _support_terms(self):
        """(k, inside): k = 0..max(total_count) along a new first axis, clipped to each element's
        own total_count so that log_prob stays finite, and where k was inside that support."""
        values = arange(1 + _C.max(self.total_count), dtype=self.dtype)
        values = values.reshape([-1] + [1] * len(self.batch_shape))
        inside = values <= self.total_count
        return _C.minimum(values, self.total_count), inside

    def entropy(self):
        r"""The entropy: :math:`-\sum_k P(k) \log P(k)` over the support.

        Returns:
            Tensor: the entropy, of the batch shape.
        """
        k, inside = self._support_terms()
        log_prob = self.log_prob(k)
        return -_C.where(inside, log_prob.exp() * log_prob, _C.zeros_like(log_prob)).sum(0)

    def log_prob(self, value):
        """The log probability of value; -inf outside 0..total_count.

        Args:
            value (Tensor): The number of successes.

        Returns:
            Tensor: the log probability.
        """
        value = value.astype(self.dtype)
        n = self.total_count
        log_comb = (n + 1.0).lgamma() - (n - value + 1.0).lgamma() - (value + 1.0).lgamma()
        eps = float(finfo(self.probs.dtype).eps)
        probs = _C.clip(self.probs, eps, 1 - eps)
        return log_comb + value * probs.log() + (n - value) * (1 - probs).log()

    def prob(self, value):
        """The probability of value.

        Args:
            value (Tensor): The number of successes.

        Returns:
            Tensor: the probability.
        """
        return self.log_prob(value).exp()

    def kl_divergence(self, other):
        r"""The KL divergence :math:`\sum_k P(k) (\log P(k) - \log Q(k))` over this distribution's
        support (inf where other gives probability 0 to a value this one can take).

        Args:
            other (Binomial): The other binomial distribution.

        Returns:
            Tensor: the divergence.
        """
        k, inside = self._support_terms()
        log_p, log_q = self.log_prob(k), other.log_prob(k)
        return _C.where(inside, log_p.exp() * (log_p - log_q), _C.zeros_like(log_p)).sum(0)
