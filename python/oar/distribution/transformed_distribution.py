"""TransformedDistribution (paddle.distribution.TransformedDistribution): a base distribution pushed
through a sequence of transforms; log_prob inverts the transforms and adds the log-determinants of
their Jacobians (change of variables)."""
from __future__ import annotations

import typing

from . import transform
from .distribution import Distribution
from .independent import Independent, _sum_rightmost


class TransformedDistribution(Distribution):
    r"""The distribution of :math:`y = f_n(\dots f_1(x))` for :math:`x` drawn from ``base``:
    samples go through the transforms; ``log_prob`` is the change of variables

    .. math::

        \log p_Y(y) = \log p_X(f^{-1}(y)) - \log|\det J_f(f^{-1}(y))|

    Args:
        base (Distribution): The base distribution.
        transforms (Sequence[Transform]): The transforms, first applied first.

    Examples:
        >>> import oar
        >>> from oar.distribution import AffineTransform, Normal, TransformedDistribution
        >>> d = TransformedDistribution(Normal(0., 1.), [AffineTransform(oar.to_tensor(1.), oar.to_tensor(2.))])
        >>> print(d.sample([10]).shape)
        [10]
        >>> print(d.log_prob(oar.to_tensor(2.0)))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               -1.73708570)
    """

    def __init__(self, base, transforms):
        if not isinstance(base, Distribution):
            raise TypeError(f"Expected type of 'base' is Distribution, but got {type(base)}.")
        if not isinstance(transforms, typing.Sequence):
            raise TypeError(f"Expected type of 'transforms' is Sequence[Transform] or Chain, but got "
                            f"{type(transforms)}.")
        if not all(isinstance(t, transform.Transform) for t in transforms):
            raise TypeError("All element of transforms must be Transform type.")
        chain = transform.ChainTransform(transforms)
        base_shape = tuple(base.batch_shape) + tuple(base.event_shape)
        self._base = base
        self._transforms = transforms
        if not transforms:
            super().__init__(base.batch_shape, base.event_shape)
            return
        if len(base_shape) < chain._domain.event_rank:
            raise ValueError(f"'base' needs to have shape with size at least {chain._domain.event_rank}, "
                             f"bug got {len(base_shape)}.")
        if chain._domain.event_rank > len(base.event_shape):
            base = Independent(base, chain._domain.event_rank - len(base.event_shape))
        shape = tuple(chain.forward_shape(tuple(base.batch_shape) + tuple(base.event_shape)))
        event_rank = chain._codomain.event_rank + max(len(base.event_shape) - chain._domain.event_rank, 0)
        super().__init__(shape[:len(shape) - event_rank], shape[len(shape) - event_rank:])

    def sample(self, shape=()):
        """Base samples sent through the transforms.

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: the samples.
        """
        x = self._base.sample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def rsample(self, shape=()):
        """Reparameterized base samples sent through the transforms (differentiable).

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: the samples.
        """
        x = self._base.rsample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def log_prob(self, value):
        """The log density at value, by the change of variables.

        Args:
            value (Tensor): The value.

        Returns:
            Tensor: the log density.
        """
        log_prob = 0.0
        y = value
        event_rank = len(self.event_shape)
        for t in reversed(self._transforms):
            x = t.inverse(y)
            event_rank += t._domain.event_rank - t._codomain.event_rank
            log_prob = log_prob - _sum_rightmost(t.forward_log_det_jacobian(x), event_rank - t._domain.event_rank)
            y = x
        return log_prob + _sum_rightmost(self._base.log_prob(y), event_rank - len(self._base.event_shape))
