"""Uniform (paddle.distribution.Uniform): the continuous uniform distribution on [low, high)."""
from __future__ import annotations

from .. import _C
from .distribution import Distribution


class Uniform(Distribution):
    r"""The uniform distribution on :math:`[low, high)`, with density

    .. math::

        pdf(x; a, b) = \frac{1}{b - a}, \ a \le x < b

    ``low`` and ``high`` broadcast together (``high - low`` must be valid).

    Args:
        low (int|float|list|tuple|numpy.ndarray|Tensor): The lower bound: float32 or float64.
        high (int|float|list|tuple|numpy.ndarray|Tensor): The upper bound: float32 or float64.
        name (str|None, optional): The name prefix of the operations. Default: None.

    Examples:
        >>> import oar
        >>> from oar.distribution import Uniform
        >>> u = Uniform(low=3.0, high=[5.0, 6.0, 7.0])
        >>> print(u.batch_shape)
        (3,)
        >>> uniform = Uniform([0.], [2.])
        >>> print(uniform.sample([2]).shape)
        [2, 1]
        >>> print(uniform.entropy())
        Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.69314718])
        >>> value = oar.to_tensor([0.8], dtype="float32")
        >>> print(uniform.log_prob(value))
        Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0.69314718])
        >>> print(uniform.probs(value))
        Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.50000000])
    """

    def __init__(self, low, high, name=None):
        self.all_arg_is_float = False
        self.batch_size_unknown = False
        self.name = name if name is not None else 'Uniform'
        if isinstance(low, int):
            low = float(low)
        if isinstance(high, int):
            high = float(high)
        self.all_arg_is_float = isinstance(low, float) and isinstance(high, float)
        self.low, self.high, self.dtype = self._real_params(low, high)
        super().__init__(self.low.shape)

    def sample(self, shape=(), seed=0):
        """Draws samples.

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().
            seed (int, optional): A seed for this draw; 0 draws from the global generator.
                Default: 0.

        Returns:
            Tensor: samples of shape ``shape + batch_shape``.
        """
        output_shape = list(shape) + list((self.low + self.high).shape)
        u = _C.uniform(output_shape, self.dtype, 0.0, 1.0, seed)
        return u * (_C.zeros(output_shape, dtype=self.dtype) + (self.high - self.low)) + self.low

    def _indicator(self, value):
        """1 where low < value < high, else 0 (Paddle's open interval), in value's dtype."""
        return (self.low < value).astype(value.dtype) * (value < self.high).astype(value.dtype)

    def log_prob(self, value):
        """The log density at value: -log(high - low) inside the interval, -inf outside.

        Args:
            value (Tensor): The value.

        Returns:
            Tensor: the log density.
        """
        value = self._check_values_dtype_in_probs(self.low, value)
        return self._indicator(value).log() - (self.high - self.low).log()

    def probs(self, value):
        """The density at value: 1 / (high - low) inside the interval, 0 outside.

        Args:
            value (Tensor): The value.

        Returns:
            Tensor: the density.
        """
        value = self._check_values_dtype_in_probs(self.low, value)
        return self._indicator(value) / (self.high - self.low)

    def entropy(self):
        r"""The entropy in nats: :math:`\log(high - low)`.

        Returns:
            Tensor: the entropy, of the batch shape.
        """
        return (self.high - self.low).log()
