"""Multinomial (paddle.distribution.Multinomial): the counts of each of K categories in total_count
independent categorical draws."""
from __future__ import annotations

from collections.abc import Iterable

from .. import _C
from ..tensor.attribute import is_integer
from ..tensor.creation import arange
from ..tensor.manipulation import broadcast_tensors
from .categorical import Categorical
from .distribution import Distribution, Tensor


def _clip_by_zero(x):
    # max(x, 0) with gradient 1/2 at 0 (Paddle's choice)
    return (x.clip(min=0) + x - x.clip(max=0)) / 2


class Multinomial(Distribution):
    r"""The multinomial distribution: the counts :math:`x_i` of each category in ``total_count``
    draws with category probabilities ``probs``,

    .. math::

        P(x_1, \dots, x_K) = \frac{n!}{\prod_i x_i!} \prod_i p_i^{x_i}, \ \sum_i x_i = n

    The last axis of ``probs`` is the event axis (its K categories), normalized to sum to 1.

    Args:
        total_count (int): The number of draws (>= 1).
        probs (Tensor): The category probabilities (>= 0, not necessarily normalized), at least
            1-D: float32 or float64.

    Examples:
        >>> import oar
        >>> from oar.distribution import Multinomial
        >>> multinomial = Multinomial(10, oar.to_tensor([0.2, 0.3, 0.5]))
        >>> print(multinomial.sample((2,)).shape)
        [2, 3]
        >>> print(multinomial.mean)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [2., 3., 5.])
        >>> print(multinomial.prob(oar.to_tensor([2., 3., 5.])))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.08505006)
        >>> print(multinomial.entropy())
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               3.34122276)
    """

    def __init__(self, total_count, probs):
        if not isinstance(total_count, int) or total_count < 1:
            raise ValueError('input parameter total_count must be int type and grater than zero.')
        if not isinstance(probs, Tensor):
            raise TypeError(f"Expected type of probs is Tensor, but got {type(probs)}")
        if probs.dim() < 1:
            raise ValueError('probs parameter should not be none and over one dimension')
        self.probs = probs / probs.sum(-1, keepdim=True)
        self.total_count = total_count
        self._categorical = Categorical(logits=self._probs_to_logits(probs))
        super().__init__(probs.shape[:-1], probs.shape[-1:])

    @property
    def mean(self):
        """The mean: total_count * probs.

        Returns:
            Tensor: the mean, of shape ``batch_shape + event_shape``.
        """
        return self.probs * self.total_count

    @property
    def variance(self):
        """The variance of each count: total_count * probs * (1 - probs).

        Returns:
            Tensor: the variance, of shape ``batch_shape + event_shape``.
        """
        return self.total_count * self.probs * (1 - self.probs)

    def prob(self, value):
        """The probability of the counts value.

        Args:
            value (Tensor): Counts, last axis of size K.

        Returns:
            Tensor: the probability.
        """
        return self.log_prob(value).exp()

    def log_prob(self, value):
        """The log probability of the counts value.

        Args:
            value (Tensor): Counts, last axis of size K.

        Returns:
            Tensor: the log probability.
        """
        if is_integer(value):
            value = value.astype(self.probs.dtype)
        logits, value = broadcast_tensors([self.probs.log(), value])
        # A category of probability 0 drawn 0 times contributes 0 (not 0 * -inf).
        logits = _C.where(_C.logical_and(value == 0, _C.isinf(logits)), _C.zeros_like(logits), logits)
        return (value.sum(-1) + 1).lgamma() - (value + 1).lgamma().sum(-1) + (value * logits).sum(-1)

    def sample(self, shape=()):
        """Draws count vectors.

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: counts of shape ``shape + batch_shape + event_shape``, of probs' dtype.
        """
        if not isinstance(shape, Iterable):
            raise TypeError('sample shape must be Iterable object.')
        samples = self._categorical.sample([self.total_count, *list(shape)])
        return _C.one_hot(samples, self.probs.shape[-1]).astype(self.probs.dtype).sum(0)

    def entropy(self):
        """The entropy.

        Returns:
            Tensor: the entropy, of the batch shape.
        """
        n = _C.full([], self.total_count, self.probs.dtype)
        support = arange(self.total_count + 1, dtype=self.probs.dtype).reshape(
            [-1] + [1] * len(self.probs.shape))[1:]
        binomial_pmf = self._binomial_logpmf(n, support).exp()
        return ((n * self._categorical.entropy() - (n + 1).lgamma())
                + (binomial_pmf * (support + 1).lgamma()).sum([0, -1]))

    def _binomial_logpmf(self, count, value):
        """log Binomial(count, probs_i).pmf(value), for each category i."""
        logits = self._probs_to_logits(self.probs, is_binary=True)
        norm = (count * _clip_by_zero(logits) + count * (-logits.abs()).exp().log1p()
                - (count + 1).lgamma())
        return value * logits - (value + 1).lgamma() - (count - value + 1).lgamma() - norm
