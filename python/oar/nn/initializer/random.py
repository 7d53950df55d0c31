"""Random initializers over oar's Philox generator (oar.seed makes them reproducible):
Normal, TruncatedNormal and Uniform."""
import math

from ... import _C
from .initializer import Initializer, draw_dtype


class Normal(Initializer):
    """Initializer that draws a parameter from a normal distribution N(mean, std); oar.seed makes it
    reproducible. NormalInitializer is the same class.

    Args:
        mean (float, optional): The mean. Default: 0.0.
        std (float, optional): The standard deviation. Default: 1.0.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Examples:
        >>> import oar
        >>> attr = oar.ParamAttr(initializer=oar.nn.initializer.Normal(mean=1.0, std=0.0))
        >>> w = oar.nn.Linear(4, 3, weight_attr=attr).weight
        >>> print(w.numpy())
        [[1. 1. 1.]
         [1. 1. 1.]
         [1. 1. 1.]
         [1. 1. 1.]]
    """

    def __init__(self, mean=0.0, std=1.0, name=None):
        self.mean, self.std = float(mean), float(std)

    def _values(self, shape, dtype):
        return _C.gaussian(shape, self.mean, self.std, 0, draw_dtype(dtype))


class TruncatedNormal(Initializer):
    """Normal(mean, std) restricted to [a, b] (absolute bounds, as Paddle 3), drawn by inverting the CDF."""

    def __init__(self, mean=0.0, std=1.0, a=-2.0, b=2.0, name=None):
        if not a < b:
            raise ValueError(f"TruncatedNormal: 'a' must be less than 'b', but got a={a}, b={b}")
        self.mean, self.std, self.a, self.b = float(mean), float(std), float(a), float(b)

    def _values(self, shape, dtype):
        def cdf(x):
            return 0.5 * (1.0 + math.erf((x - self.mean) / (self.std * math.sqrt(2.0))))
        lo, hi = cdf(self.a), cdf(self.b)
        u = _C.uniform(shape, draw_dtype(dtype), 2 * lo - 1, 2 * hi - 1, 0)
        x = _C.erfinv(u) * (self.std * math.sqrt(2.0)) + self.mean
        return _C.clip(x, self.a, self.b)


class Uniform(Initializer):
    """Initializer that draws a parameter uniformly from [low, high); oar.seed makes it
    reproducible.
    UniformInitializer is the same class.

    Args:
        low (float, optional): Lower bound. Default: -1.0.
        high (float, optional): Upper bound, not below low. Default: 1.0.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Examples:
        >>> import oar
        >>> attr = oar.ParamAttr(initializer=oar.nn.initializer.Uniform(-0.5, 0.5))
        >>> w = oar.nn.Linear(4, 3, weight_attr=attr).weight
        >>> print(w.shape, bool((w.abs() <= 0.5).all()))
        [4, 3] True
    """

    def __init__(self, low=-1.0, high=1.0, name=None):
        if not low <= high:
            raise ValueError(f"Uniform: 'low' must not exceed 'high', but got low={low}, high={high}")
        self.low, self.high = float(low), float(high)

    def _values(self, shape, dtype):
        return _C.uniform(shape, draw_dtype(dtype), self.low, self.high, 0)
