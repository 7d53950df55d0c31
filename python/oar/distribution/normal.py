"""Normal (paddle.distribution.Normal): the Gaussian with location loc and scale; loc may be complex
(the circularly-symmetric complex Gaussian, whose real and imaginary parts each have variance
scale^2 / 2)."""
from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from .. import _C
from ..tensor.creation import to_tensor
from .distribution import Distribution, Tensor, is_complex

_REAL_OF = {"complex64": "float32", "complex128": "float64"}


def _standard_normal(shape, dtype, seed=0):
    """N(0, 1) draws of dtype; complex draws have independent parts of variance 1/2 each."""
    if dtype in _REAL_OF:
        parts = _C.gaussian([2] + list(shape), 0.0, math.sqrt(0.5), seed, _REAL_OF[dtype])
        return _C.complex(parts[0], parts[1])
    return _C.gaussian(shape, 0.0, 1.0, seed, dtype)


class Normal(Distribution):
    r"""The normal distribution with location ``loc`` and scale ``scale``.

    For real ``loc`` the density is

    .. math::

        pdf(x; \mu, \sigma) = \frac{1}{\sqrt{2 \pi \sigma^2}} e^{-\frac{(x - \mu)^2}{2 \sigma^2}}

    and for complex ``loc`` (the circularly-symmetric complex normal)

    .. math::

        pdf(x; \mu, \sigma) = \frac{1}{\pi \sigma^2} e^{-\frac{|x - \mu|^2}{\sigma^2}}

    with :math:`\mu` = loc (the mean) and :math:`\sigma` = scale (the standard deviation).

    Args:
        loc (int|float|complex|list|tuple|numpy.ndarray|Tensor): The mean: float32, float64,
            complex64 or complex128.
        scale (int|float|list|tuple|numpy.ndarray|Tensor): The standard deviation: float32 or
            float64.
        name (str|None, optional): The name prefix of the operations. Default: None.

    Examples:
        >>> import oar
        >>> from oar.distribution import Normal
        >>> normal_a = Normal([0.], [1.])
        >>> normal_b = Normal([0.5], [2.])
        >>> print(normal_a.sample([2]).shape)
        [2, 1]
        >>> print(normal_a.entropy())
        Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.41893852])
        >>> value = oar.to_tensor([0.8], dtype="float32")
        >>> print(normal_a.log_prob(value))
        Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1.23893857])
        >>> print(normal_a.probs(value))
        Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.28969154])
        >>> print(normal_a.kl_divergence(normal_b))
        Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.34939718])
    """

    def __init__(self, loc, scale, name=None):
        self.all_arg_is_float = False
        self.name = name if name is not None else 'Normal'
        self.dtype = 'float32'
        self._complex_gaussian = False
        if isinstance(loc, int):
            loc = float(loc)
        if isinstance(scale, int):
            scale = float(scale)
        if isinstance(loc, (tuple, list)):
            loc = np.array(loc)
            if loc.dtype == np.float64:
                loc = loc.astype(np.float32)
            elif loc.dtype == np.complex128:
                loc = loc.astype(np.complex64)
        if isinstance(scale, (tuple, list)):
            scale = np.array(scale, dtype=np.float32)

        if (isinstance(loc, complex) or (isinstance(loc, np.ndarray) and np.iscomplexobj(loc))
                or (isinstance(loc, Tensor) and is_complex(loc))):
            self._complex_gaussian = True
            self.all_arg_is_float = isinstance(loc, complex) and isinstance(scale, float)
            if isinstance(loc, complex):
                loc = np.array(loc, dtype=np.complex64)
            self.loc = to_tensor(loc) if isinstance(loc, np.ndarray) else loc
            if isinstance(scale, np.ndarray):
                self.scale = to_tensor(scale)
            elif isinstance(scale, float):
                self.scale = to_tensor(scale, dtype='float32')
            else:
                self.scale = scale
            self.dtype = self.loc.dtype.name
        else:
            self.all_arg_is_float = isinstance(loc, float) and isinstance(scale, float)
            self.loc, self.scale, self.dtype = self._real_params(loc, scale)
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        """The mean: loc.

        Returns:
            Tensor: the mean.
        """
        return self.loc

    @property
    def variance(self):
        """The variance: scale squared.

        Returns:
            Tensor: the variance.
        """
        return self.scale.pow(2)

    def sample(self, shape=(), seed=0):
        """Draws samples.

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().
            seed (int, optional): A seed for this draw; 0 draws from the global generator.
                Default: 0.

        Returns:
            Tensor: samples of shape ``shape + batch_shape``, of the distribution's dtype.
        """
        if not isinstance(shape, Iterable):
            raise TypeError('sample shape must be Iterable object.')
        output_shape = list(shape) + list((self.loc + self.scale).shape)
        eps = _standard_normal(output_shape, self.dtype, seed)
        return eps * (_C.zeros(output_shape, dtype=self.scale.dtype) + self.scale) + self.loc

    def rsample(self, shape=()):
        """Draws reparameterized samples: loc + eps * scale with eps ~ N(0, 1), differentiable in
        loc and scale.

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: samples of shape ``shape + batch_shape``.
        """
        if not isinstance(shape, Iterable):
            raise TypeError('sample shape must be Iterable object.')
        eps = _standard_normal(list(self._extend_shape(tuple(shape))), self.dtype)
        return self.loc + eps * self.scale

    def entropy(self):
        r"""The entropy in nats: :math:`0.5 \log(2 \pi e \sigma^2)`, or
        :math:`\log(\pi e \sigma^2)` for the complex normal.

        Returns:
            Tensor: the entropy, of the batch shape.
        """
        batch_shape = (self.loc + self.scale).shape
        zero = _C.zeros(batch_shape, dtype=self.scale.dtype)
        if self._complex_gaussian:
            return 1.0 + zero + (math.log(math.pi) + 2.0 * (self.scale + zero).log())
        return 0.5 + zero + (0.5 * math.log(2 * math.pi) + (self.scale + zero).log())

    def log_prob(self, value):
        """The log density at value.

        Args:
            value (Tensor): The value.

        Returns:
            Tensor: the log density.
        """
        value = self._check_values_dtype_in_probs(self.loc, value)
        var = self.scale * self.scale
        diff = value - self.loc
        if self._complex_gaussian:
            return -(diff.conj() * diff) / var - (2.0 * self.scale.log() + math.log(math.pi))
        return -(diff * diff) / (2.0 * var) - (self.scale.log() + math.log(math.sqrt(2.0 * math.pi)))

    def probs(self, value):
        """The density at value.

        Args:
            value (Tensor): The value.

        Returns:
            Tensor: the density.
        """
        value = self._check_values_dtype_in_probs(self.loc, value)
        var = self.scale * self.scale
        diff = value - self.loc
        if self._complex_gaussian:
            return (-(diff.conj() * diff) / var).exp() / (math.pi * var)
        return (-(diff * diff) / (2.0 * var)).exp() / (math.sqrt(2 * math.pi) * self.scale)

    def kl_divergence(self, other):
        r"""The KL divergence from this normal to other:
        :math:`0.5 (r^2 + (\frac{\mu_0 - \mu_1}{\sigma_1})^2 - 1 - 2 \ln r)` with
        :math:`r = \sigma_0 / \sigma_1` (twice that for complex normals).

        Args:
            other (Normal): The other normal, of the same (real or complex) kind.

        Returns:
            Tensor: the divergence.
        """
        if self._complex_gaussian != other._complex_gaussian:
            raise ValueError("The kl divergence must be computed between two distributions in the same number "
                             "field.")
        var_ratio = self.scale / other.scale
        var_ratio = var_ratio * var_ratio
        t1 = (self.loc - other.loc) / other.scale
        if self._complex_gaussian:
            return var_ratio + t1.conj() * t1 - 1.0 - var_ratio.log()
        return 0.5 * var_ratio + 0.5 * (t1 * t1 - 1.0 - var_ratio.log())
