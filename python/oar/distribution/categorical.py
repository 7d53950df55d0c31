"""Categorical (paddle.distribution.Categorical): one draw among K categories.

As in Paddle, `logits` plays two parts: sample, entropy and kl_divergence read it as logits (they
take its softmax), while probs and log_prob read it as unnormalized probabilities (they divide it
by its sum)."""
from __future__ import annotations

import math

import numpy as np

from .. import _C
from ..tensor.random import multinomial
from .distribution import Distribution


class Categorical(Distribution):
    r"""The categorical distribution over K categories (the last axis of ``logits``; the others
    are batch axes).

    ``sample``, ``entropy`` and ``kl_divergence`` treat ``logits`` as logits (probabilities
    :math:`softmax(logits)`); ``probs`` and ``log_prob`` treat it as unnormalized probabilities
    (probabilities :math:`logits / \sum logits`), as Paddle does.

    Args:
        logits (list|tuple|numpy.ndarray|Tensor): The logits, at least 1-D: float32 or float64.
        name (str|None, optional): The name prefix of the operations. Default: None.

    Examples:
        >>> import oar
        >>> from oar.distribution import Categorical
        >>> cat = Categorical(oar.to_tensor([0.1, 0.2, 0.7]))
        >>> print(cat.sample([2, 3]).shape)
        [2, 3]
        >>> print(cat.entropy())
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               1.06143069)
        >>> print(cat.probs(oar.to_tensor([2, 1, 0])))
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.69999999, 0.20000000, 0.10000000])
        >>> print(cat.log_prob(oar.to_tensor([2])))
        Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0.35667497])
        >>> print(cat.kl_divergence(Categorical(oar.to_tensor([0.3, 0.3, 0.4]))))
        Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.02524174])
    """

    def __init__(self, logits, name=None):
        self.name = name if name is not None else 'Categorical'
        self.dtype = 'float32'
        if self._validate_args(logits):
            self.logits = logits
            self.dtype = logits.dtype.name
        else:
            if isinstance(logits, np.ndarray) and str(logits.dtype) in ('float32', 'float64'):
                self.dtype = str(logits.dtype)
            self.logits = self._to_tensor(logits)[0].astype(self.dtype)
        self._prob = self.logits / self.logits.sum(-1, keepdim=True)
        super().__init__(self.logits.shape[:-1])

    def sample(self, shape=()):
        """Draws category indices (int64).

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: indices of shape ``shape + batch_shape``.
        """
        shape = list(shape)
        num_samples = math.prod(shape)
        logits_shape = list(self.logits.shape)
        logits = self.logits
        if len(logits_shape) > 1:
            logits = logits.reshape([math.prod(logits_shape[:-1]), logits_shape[-1]])
        index = multinomial(self._logits_to_probs(logits), num_samples, True)
        # multinomial puts the draws last: move them to the front.
        perm = list(range(index.dim()))
        perm.insert(0, perm.pop(-1))
        return index.transpose(perm).reshape(shape + logits_shape[:-1])

    def _normalized(self, logits):
        """(logits shifted to a maximum of 0, their log-sum-exp) along the last axis."""
        logits = logits - logits.max(-1, keepdim=True)
        return logits, logits.exp().sum(-1, keepdim=True).log()

    def kl_divergence(self, other):
        """The KL divergence from this categorical distribution to other (over softmax
        probabilities).

        Args:
            other (Categorical): The other categorical distribution.

        Returns:
            Tensor: the divergence, with the category axis kept (of size 1).
        """
        logits, log_z = self._normalized(self.logits)
        other_logits, other_log_z = self._normalized(other.logits)
        prob = (logits - log_z).exp()
        return (prob * (logits - log_z - other_logits + other_log_z)).sum(-1, keepdim=True)

    def entropy(self):
        """The entropy of the softmax probabilities.

        Returns:
            Tensor: the entropy, of the batch shape.
        """
        logits, log_z = self._normalized(self.logits)
        log_p = logits - log_z
        return -(log_p.exp() * log_p).sum(-1)

    def probs(self, value):
        """The probabilities of the categories in value (logits / sum(logits)).

        A 1-D ``value`` of a batched distribution is looked up in every batch element.

        Args:
            value (Tensor): Category indices (int).

        Returns:
            Tensor: the probabilities.
        """
        if len(self._prob.shape) == 1:  # no batch axes
            return _C.gather(self._prob, value.reshape([-1])).reshape(value.shape)
        if len(value.shape) == 1:
            value = value.reshape([1] * (len(self._prob.shape) - 1) + [-1])
        return _C.take_along_axis(self._prob, value, -1)

    def log_prob(self, value):
        """The log probabilities of the categories in value.

        Args:
            value (Tensor): Category indices (int).

        Returns:
            Tensor: the log probabilities.
        """
        return self.probs(value).log()
