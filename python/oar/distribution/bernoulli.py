"""Bernoulli (paddle.distribution.Bernoulli): one trial that gives 1 with probability probs, else 0;
rsample is the Gumbel-softmax (binary concrete) relaxation."""
from __future__ import annotations

from .. import _C
from ..autograd import no_grad
from ..framework.dtype import finfo, get_default_dtype
from ..tensor.manipulation import broadcast_tensors
from .exponential_family import ExponentialFamily


def _bce_with_logits(logits, labels):
    """Binary cross-entropy of labels under logits, elementwise and stable for large |logits|."""
    return _C.maximum(logits, _C.zeros_like(logits)) - logits * labels + (-logits.abs()).exp().log1p()


class Bernoulli(ExponentialFamily):
    r"""The Bernoulli distribution: 1 with probability ``probs``, 0 otherwise.

    .. math::

        P(X = x) = p^x (1 - p)^{1 - x}, \ x \in \{0, 1\}

    ``probs`` is clipped into [eps, 1 - eps] of its dtype, so that ``logits`` stay finite.

    Args:
        probs (float|Tensor): The probability of 1: a float, or a float32/float64 tensor.
        name (str|None, optional): The name prefix of the operations. Default: None.

    Examples:
        >>> import oar
        >>> from oar.distribution import Bernoulli
        >>> rv = Bernoulli(probs=0.3)
        >>> print(rv.mean, rv.variance)
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.30000001) Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.21000001)
        >>> print(rv.sample([100]).shape)
        [100]
        >>> print(rv.entropy())
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.61086428)
        >>> print(rv.log_prob(oar.to_tensor([1.0, 0.0])))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1.20397282, -0.35667494])
        >>> print(rv.kl_divergence(Bernoulli(0.7)))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.33891910)
    """

    def __init__(self, probs, name=None):
        self.name = name or 'Bernoulli'
        if self._validate_args(probs):
            self.probs = probs
            self.dtype = probs.dtype.name
        else:
            [self.probs] = self._to_tensor(probs)
            self.dtype = get_default_dtype()
        eps = float(finfo(self.dtype).eps)
        self.probs = _C.clip(self.probs, eps, 1 - eps).astype(self.dtype)
        self.logits = self._probs_to_logits(self.probs, is_binary=True)
        super().__init__(batch_shape=self.probs.shape, event_shape=())

    @property
    def mean(self):
        """The mean: probs.

        Returns:
            Tensor: the mean.
        """
        return self.probs

    @property
    def variance(self):
        """The variance: probs * (1 - probs).

        Returns:
            Tensor: the variance.
        """
        return self.probs * (1 - self.probs)

    def sample(self, shape=()):
        """Draws 0/1 samples (not differentiable).

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: samples of shape ``shape + batch_shape``, of the distribution's dtype.

        Examples:
            >>> import oar
            >>> from oar.distribution import Bernoulli
            >>> print(Bernoulli(oar.to_tensor([0.3, 0.5])).sample([100]).shape)
            [100, 2]
        """
        shape = self._extend_shape(tuple(shape))
        with no_grad():
            return _C.bernoulli(self.probs.expand(list(shape)))

    def rsample(self, shape=(), temperature=1.0):
        r"""Draws relaxed samples, differentiable in probs: the binary concrete (Gumbel-softmax)
        relaxation :math:`(\log u - \log(1-u) + \log p - \log(1-p)) / temperature`, u uniform. The
        values are logits: apply a sigmoid to get numbers in (0, 1).

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().
            temperature (float, optional): The relaxation temperature (> 0). Default: 1.0.

        Returns:
            Tensor: samples of shape ``shape + batch_shape``.

        Examples:
            >>> import oar
            >>> from oar.distribution import Bernoulli
            >>> rv = Bernoulli(oar.to_tensor([0.3, 0.5]))
            >>> print(oar.nn.functional.sigmoid(rv.rsample([100], temperature=0.1)).shape)
            [100, 2]
        """
        shape = list(self._extend_shape(tuple(shape)))
        temperature = _C.full([], temperature, self.dtype)
        probs = self.probs.expand(shape)
        u = _C.rand(shape, self.dtype)
        return ((u.log() - (-u).log1p()) + (probs.log() - (-probs).log1p())) / temperature

    def cdf(self, value):
        """The cumulative distribution function: 0 below 0, 1 - probs on [0, 1), 1 from 1 on.

        Args:
            value (Tensor): The value.

        Returns:
            Tensor: the probability P(X <= value), of the broadcast shape.

        Examples:
            >>> import oar
            >>> from oar.distribution import Bernoulli
            >>> print(Bernoulli(0.3).cdf(oar.to_tensor([-1.0, 0.5, 1.0])))
            Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
                   [0.        , 0.69999999, 1.        ])
        """
        value = self._check_values_dtype_in_probs(self.probs, value)
        probs, value = broadcast_tensors([self.probs, value])
        return _C.where(value < 0, _C.zeros_like(probs), _C.where(value < 1, 1 - probs, _C.ones_like(probs)))

    def log_prob(self, value):
        """The log probability of value (0 or 1).

        Args:
            value (Tensor): The value.

        Returns:
            Tensor: the log probability, of the broadcast shape.
        """
        value = self._check_values_dtype_in_probs(self.probs, value)
        logits, value = broadcast_tensors([self.logits, value])
        return -_bce_with_logits(logits, value)

    def prob(self, value):
        """The probability of value (0 or 1).

        Args:
            value (Tensor): The value.

        Returns:
            Tensor: the probability.
        """
        return self.log_prob(value).exp()

    def entropy(self):
        r"""The entropy: :math:`-p \log p - (1-p) \log(1-p)`.

        Returns:
            Tensor: the entropy, of the batch shape.
        """
        return _bce_with_logits(self.logits, self.probs)

    def kl_divergence(self, other):
        r"""The KL divergence from this Bernoulli to other:
        :math:`p_a \log\frac{p_a}{p_b} + (1-p_a) \log\frac{1-p_a}{1-p_b}`.

        Args:
            other (Bernoulli): The other Bernoulli.

        Returns:
            Tensor: the divergence.
        """
        if not isinstance(other, Bernoulli):
            raise TypeError(f"Expected type of other is Bernoulli, but got {type(other)}")
        a, b = self.logits, other.logits
        log_pa, log_pb = -_C.softplus(-a), -_C.softplus(-b)
        log_qa, log_qb = -_C.softplus(a), -_C.softplus(b)
        pa, qa = _C.sigmoid(a), _C.sigmoid(-a)
        return (log_pa * pa - log_pb * pa) + (log_qa * qa - log_qb * qa)
