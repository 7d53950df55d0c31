"""Gamma (paddle.distribution.Gamma): the gamma distribution with shape `concentration` and inverse
scale `rate`. Samples are oar.standard_gamma draws divided by the rate."""
from __future__ import annotations

from ..autograd import no_grad
from ..framework.dtype import get_default_dtype
from ._sampling import standard_gamma
from .distribution import as_value
from .exponential_family import ExponentialFamily


class Gamma(ExponentialFamily):
    r"""The gamma distribution with density

    .. math::

        f(x; \alpha, \beta) = \frac{\beta^\alpha}{\Gamma(\alpha)} x^{\alpha - 1} e^{-\beta x}, \ x > 0

    with :math:`\alpha` = concentration (shape) and :math:`\beta` = rate (inverse scale).

    Args:
        concentration (float|Tensor): The shape parameter (> 0). A float, or a float32/float64
            tensor; both arguments are floats or both tensors.
        rate (float|Tensor): The rate (> 0), likewise.

    Examples:
        >>> import oar
        >>> from oar.distribution import Gamma
        >>> g = Gamma(oar.to_tensor([2.0, 3.0]), oar.to_tensor([1.0, 2.0]))
        >>> print(g.mean)
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [2.        , 1.50000000])
        >>> print(g.log_prob(oar.to_tensor([1.0, 1.0])))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1.        , -0.61370564])
        >>> print(g.entropy())
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.57721567, 1.15443134])
    """

    def __init__(self, concentration, rate):
        if self._validate_args(concentration, rate):
            self.concentration = concentration
            self.rate = rate
            self.dtype = concentration.dtype.name
        else:
            self.concentration, self.rate = self._to_tensor(concentration, rate)
            self.dtype = get_default_dtype()
        super().__init__(self.concentration.shape)

    @property
    def mean(self):
        """The mean: concentration / rate.

        Returns:
            Tensor: the mean.
        """
        return self.concentration / self.rate

    @property
    def variance(self):
        """The variance: concentration / rate^2.

        Returns:
            Tensor: the variance.
        """
        return self.concentration / self.rate.pow(2)

    def prob(self, value):
        """The density at value.

        Args:
            value (float|Tensor): The value.

        Returns:
            Tensor: the density.
        """
        return self.log_prob(value).exp()

    def log_prob(self, value):
        """The log density at value.

        Args:
            value (float|Tensor): The value.

        Returns:
            Tensor: the log density.
        """
        value = as_value(value, self.rate)
        return (self.concentration * self.rate.log() + (self.concentration - 1) * value.log()
                - self.rate * value - self.concentration.lgamma())

    def entropy(self):
        r"""The entropy: :math:`\alpha - \log\beta + \log\Gamma(\alpha) + (1 - \alpha)\psi(\alpha)`.

        Returns:
            Tensor: the entropy, of the batch shape.
        """
        c = self.concentration
        return c - self.rate.log() + c.lgamma() + (1.0 - c) * c.digamma()

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
        """Draws samples Gamma(concentration, 1) / rate: differentiable in rate (and in
        concentration as far as oar.standard_gamma is).

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: samples of shape ``shape + batch_shape``.
        """
        shape = list(self._extend_shape(shape))
        return standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)

    def kl_divergence(self, other):
        """The KL divergence from this gamma distribution to other.

        Args:
            other (Gamma): The other gamma distribution.

        Returns:
            Tensor: the divergence.
        """
        if not isinstance(other, Gamma):
            raise TypeError(f"Expected type of other is Exponential, but got {type(other)}")
        t1 = other.concentration * (self.rate / other.rate).log()
        t2 = other.concentration.lgamma() - self.concentration.lgamma()
        t3 = (self.concentration - other.concentration) * self.concentration.digamma()
        t4 = (other.rate - self.rate) * (self.concentration / self.rate)
        return t1 + t2 + t3 + t4

    @property
    def _natural_parameters(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return (x + 1).lgamma() + (x + 1) * (-y.reciprocal()).log()

