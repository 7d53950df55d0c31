"""Independent (paddle.distribution.Independent): a distribution whose rightmost batch axes are
taken as event axes, so that log_prob and entropy sum over them."""
from __future__ import annotations

from .distribution import Distribution


def _sum_rightmost(value, n):
    return value.sum(list(range(-n, 0))) if n > 0 else value


class Independent(Distribution):
    r"""Reinterprets the rightmost ``reinterpreted_batch_rank`` batch axes of a distribution as
    event axes: the events are then independent draws along those axes, and ``log_prob`` and
    ``entropy`` are sums over them.

    Args:
        base (Distribution): The base distribution.
        reinterpreted_batch_rank (int): How many rightmost batch axes become event axes
            (0 < reinterpreted_batch_rank <= len(base.batch_shape)).

    Examples:
        >>> import oar
        >>> from oar.distribution import Beta, Independent
        >>> beta = Beta(oar.to_tensor([0.5, 0.5]), oar.to_tensor([0.5, 0.5]))
        >>> print(beta.batch_shape, beta.event_shape)
        (2,) ()
        >>> reinterpreted_beta = Independent(beta, 1)
        >>> print(reinterpreted_beta.batch_shape, reinterpreted_beta.event_shape)
        () (2,)
        >>> value = oar.to_tensor([0.2, 0.3])
        >>> print(reinterpreted_beta.log_prob(value))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               -0.59284508)
    """

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Distribution):
            raise TypeError(f"Expected type of 'base' is Distribution, but got {type(base)}")
        if not (0 < reinterpreted_batch_rank <= len(base.batch_shape)):
            raise ValueError(f"Expected 0 < reinterpreted_batch_rank <= {len(base.batch_shape)}, but got "
                             f"{reinterpreted_batch_rank}")
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        shape = tuple(base.batch_shape) + tuple(base.event_shape)
        cut = len(base.batch_shape) - reinterpreted_batch_rank
        super().__init__(batch_shape=shape[:cut], event_shape=shape[cut:])

    @property
    def mean(self):
        """The base distribution's mean."""
        return self._base.mean

    @property
    def variance(self):
        """The base distribution's variance."""
        return self._base.variance

    def sample(self, shape=()):
        """Samples of the base distribution.

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: samples of shape ``shape + batch_shape + event_shape``.
        """
        return self._base.sample(shape)

    def log_prob(self, value):
        """The base's log probability summed over the reinterpreted axes.

        Args:
            value (Tensor): The value.

        Returns:
            Tensor: the log probability, of the batch shape.
        """
        return _sum_rightmost(self._base.log_prob(value), self._reinterpreted_batch_rank)

    def prob(self, value):
        """The probability: exp(log_prob(value)).

        Args:
            value (Tensor): The value.

        Returns:
            Tensor: the probability.
        """
        return self.log_prob(value).exp()

    def entropy(self):
        """The base's entropy summed over the reinterpreted axes.

        Returns:
            Tensor: the entropy, of the batch shape.
        """
        return _sum_rightmost(self._base.entropy(), self._reinterpreted_batch_rank)
