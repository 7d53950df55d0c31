"""Distribution: the base class of oar.distribution (paddle.distribution.Distribution), with the
argument helpers the distributions share: turning numbers into tensors, broadcasting parameters,
casting a value to the parameters' dtype, and the probs/logits conversions."""
from __future__ import annotations

import warnings

import numpy as np

from .. import _C
from ..framework.dtype import complex64, complex128, float32, float64, get_default_dtype
from ..tensor.creation import to_tensor
from ..tensor.manipulation import broadcast_tensors

Tensor = _C.Tensor
_FLOATS = (float32, float64)
_ARG_TYPES = (float, list, tuple, np.ndarray, Tensor)


def is_complex(t):
    return t.dtype in (complex64, complex128)


def as_value(value, like):
    """value as a tensor: a number becomes a tensor of like's dtype (the methods whose Paddle
    signature takes float|Tensor)."""
    return value if isinstance(value, Tensor) else to_tensor(value, dtype=like.dtype)


class Distribution:
    """The abstract base class of probability distributions: the concrete distributions implement
    its methods.

    Args:
        batch_shape (Sequence[int], optional): The shape of a batch of independent, not identically
            distributed draws. Default: ().
        event_shape (Sequence[int], optional): The shape of one draw: [] for a scalar
            distribution, [n] for an n-dimensional one. Default: ().

    Examples:
        >>> import oar
        >>> from oar.distribution import Distribution
        >>> d = Distribution(batch_shape=[2], event_shape=[3])
        >>> print(d.batch_shape, d.event_shape)
        (2,) (3,)
    """

    def __init__(self, batch_shape=(), event_shape=()):
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)
        super().__init__()

    @property
    def batch_shape(self):
        """The batch shape of the distribution.

        Returns:
            tuple[int]: the batch shape.
        """
        return self._batch_shape

    @property
    def event_shape(self):
        """The event shape of the distribution.

        Returns:
            tuple[int]: the event shape.
        """
        return self._event_shape

    @property
    def mean(self):
        """The mean of the distribution."""
        raise NotImplementedError

    @property
    def variance(self):
        """The variance of the distribution."""
        raise NotImplementedError

    def sample(self, shape=()):
        """Draws samples of shape ``shape + batch_shape + event_shape``."""
        raise NotImplementedError

    def rsample(self, shape=()):
        """Draws reparameterized samples (differentiable in the parameters)."""
        raise NotImplementedError

    def entropy(self):
        """The entropy of the distribution."""
        raise NotImplementedError

    def kl_divergence(self, other):
        """The KL divergence between this distribution and other."""
        raise NotImplementedError

    def prob(self, value):
        """The probability density (or mass) at value: exp(log_prob(value)).

        Args:
            value (Tensor): The value to evaluate.

        Returns:
            Tensor: the probability.
        """
        return self.log_prob(value).exp()

    def log_prob(self, value):
        """The log probability density (or mass) at value."""
        raise NotImplementedError

    def probs(self, value):
        """The probability density (or mass) at value; Paddle's older name of prob."""
        raise NotImplementedError

    # ---- helpers shared by the distributions (Paddle's private names) ----

    def _extend_shape(self, sample_shape):
        return tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape)

    def _validate_args(self, *args):
        """True when every argument is a Tensor, False when none is; a mix raises ValueError."""
        tensors = [isinstance(a, Tensor) for a in args]
        if any(tensors) and not all(tensors):
            raise ValueError('if one argument is Tensor, all arguments should be Tensor')
        return all(tensors)

    def _to_tensor(self, *args):
        """Numbers, lists and arrays as float32 tensors broadcast to one shape (Paddle converts
        every non-float32 argument to float32, warning unless it was float64)."""
        arrays = []
        for arg in args:
            if not isinstance(arg, _ARG_TYPES):
                raise TypeError("Type of input args must be float, list, tuple, numpy.ndarray or Tensor, "
                                f"but received type {type(arg)}")
            a = np.array(arg.numpy() if isinstance(arg, Tensor) else arg)
            if a.dtype != np.float32:
                if a.dtype != np.float64:
                    warnings.warn("data type of argument only support float32 and float64, your argument will "
                                  "be convert to float32.")
                a = a.astype(np.float32)
            arrays.append(a)
        return tuple(to_tensor(np.array(a)) for a in np.broadcast_arrays(*arrays))

    def _check_values_dtype_in_probs(self, param, value):
        """value cast to param's dtype (with Paddle's warning when a float dtype differs)."""
        if is_complex(param):
            return value.astype(param.dtype)
        if value.dtype != param.dtype and value.dtype in _FLOATS:
            warnings.warn("dtype of input 'value' needs to be the same as parameters of distribution class. "
                          "dtype of 'value' will be converted.")
            return value.astype(param.dtype)
        return value

    def _probs_to_logits(self, probs, is_binary=False):
        return (probs.log() - (-probs).log1p()) if is_binary else probs.log()

    def _logits_to_probs(self, logits, is_binary=False):
        return _C.sigmoid(logits) if is_binary else _C.softmax(logits, -1)

    def _broadcast_all(self, *args):
        """The arguments broadcast together; numbers become tensors of the first tensor's dtype
        (the default dtype when there is none)."""
        for arg in args:
            if not isinstance(arg, _ARG_TYPES):
                raise TypeError("Type of input args must be float, list, tuple, numpy.ndarray or Tensor, "
                                f"but received type {type(arg)}")
        dtype = next((a.dtype for a in args if isinstance(a, Tensor)), get_default_dtype())
        tensors = [a if isinstance(a, Tensor) else to_tensor(a, dtype=dtype) for a in args]
        return tuple(broadcast_tensors(tensors))

    def _real_params(self, a, b):
        """(a, b, dtype name) as Normal and Uniform take their two parameters: tensors as they are
        (a mix of tensors and numbers raises ValueError); numbers, lists and arrays as tensors
        broadcast to one shape, float32 unless the first float NumPy array is float64."""
        if self._validate_args(a, b):
            return a, b, a.dtype.name
        dtype = "float32"
        for arg in (a, b):
            if isinstance(arg, np.ndarray) and str(arg.dtype) in ("float32", "float64"):
                dtype = str(arg.dtype)
                break
        a, b = self._to_tensor(a, b)
        return a.astype(dtype), b.astype(dtype), dtype
