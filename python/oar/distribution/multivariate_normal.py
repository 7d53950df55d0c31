"""MultivariateNormal (paddle.distribution.MultivariateNormal): the Gaussian on R^k with mean loc and
a covariance given as the covariance matrix, the precision matrix or a lower Cholesky factor. Every
formula goes through the Cholesky factor L (covariance = L L^T)."""
from __future__ import annotations

import math
from collections.abc import Sequence

from .. import _C
from ..autograd import no_grad
from ..framework.dtype import get_default_dtype
from ..linalg import solve
from ..tensor.creation import to_tensor
from ..tensor.manipulation import broadcast_shape
from .distribution import Distribution


def _transpose_last(x):
    perm = list(range(x.dim()))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return x.transpose(perm)


def _half_log_det(scale_tril):
    """log sqrt(det(L L^T)): the sum of the logs of L's diagonal."""
    return scale_tril.diagonal(axis1=-2, axis2=-1).log().sum(-1)


def precision_to_scale_tril(P):
    """The lower Cholesky factor of P^{-1}, without inverting P: factor P with its rows and
    columns reversed, then invert the resulting triangular matrix."""
    Lf = _C.cholesky(_C.flip(P, [-2, -1]))
    L_inv = _transpose_last(_C.flip(Lf, [-2, -1]))
    eye = _C.eye(P.shape[-1], P.shape[-1], P.dtype)
    return _C.triangular_solve(L_inv, eye, upper=False)


def batch_mahalanobis(bL, bx):
    """|L^{-1} x|^2 over the last axis, L broadcast against x's batch axes."""
    batch = broadcast_shape(bL.shape[:-2], bx.shape[:-1])
    L = bL.expand(batch + bL.shape[-2:])
    x = bx.expand(batch + bx.shape[-1:]).unsqueeze(-1)
    return _C.triangular_solve(L, x, upper=False).squeeze(-1).pow(2).sum(-1)


class MultivariateNormal(Distribution):
    r"""The multivariate normal distribution on :math:`R^k`, with density

    .. math::

        f(x; \mu, \Sigma) = \frac{\exp(-\frac{1}{2}(x - \mu)^T \Sigma^{-1} (x - \mu))}{\sqrt{(2\pi)^k |\Sigma|}}

    with :math:`\mu` = loc. Exactly one of ``covariance_matrix`` (:math:`\Sigma`),
    ``precision_matrix`` (:math:`\Sigma^{-1}`) and ``scale_tril`` (the lower Cholesky factor
    :math:`L`, :math:`\Sigma = L L^T`) is given. Their leading axes and loc's broadcast into the
    batch shape.

    Args:
        loc (int|float|Tensor): The mean; a number makes a one-dimensional distribution.
        covariance_matrix (Tensor|None, optional): The covariance matrix, positive definite.
            Default: None.
        precision_matrix (Tensor|None, optional): The precision matrix, positive definite.
            Default: None.
        scale_tril (Tensor|None, optional): The lower-triangular Cholesky factor of the
            covariance, with a positive diagonal. Default: None.

    Examples:
        >>> import oar
        >>> from oar.distribution import MultivariateNormal
        >>> rv = MultivariateNormal(oar.to_tensor([2., 5.]), oar.to_tensor([[2., 1.], [1., 2.]]))
        >>> print(rv.sample([3, 2]).shape)
        [3, 2, 2]
        >>> print(rv.variance)
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.99999988, 2.        ])
        >>> print(rv.entropy())
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               3.38718319)
        >>> print(rv.log_prob(oar.to_tensor([2., 2.])))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               -5.38718224)
        >>> rv1 = MultivariateNormal(oar.to_tensor([2., 5.]), scale_tril=oar.to_tensor([[1., 0.], [0., 1.]]))
        >>> print(rv.kl_divergence(rv1))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.45069385)
    """

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None):
        self.dtype = get_default_dtype()
        if isinstance(loc, (float, int)):
            loc = to_tensor([loc], dtype=self.dtype)
        else:
            self.dtype = loc.dtype.name
        if loc.dim() < 1:
            loc = loc.reshape((1,))
        self.covariance_matrix = None
        self.precision_matrix = None
        self.scale_tril = None
        given = {"scale_tril": scale_tril, "covariance_matrix": covariance_matrix,
                 "precision_matrix": precision_matrix}
        given = {k: v for k, v in given.items() if v is not None}
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                             "specified.")
        (kind, matrix), = given.items()
        if matrix.dim() < 2:
            what = "scale_tril matrix" if kind == "scale_tril" else kind
            raise ValueError(f"{what} must be at least two-dimensional, with optional leading batch dimensions")
        matrix = matrix.astype(self.dtype)
        batch_shape = broadcast_shape(matrix.shape[:-2], loc.shape[:-1])
        setattr(self, kind, matrix.expand(batch_shape + matrix.shape[-2:]))  # the given one, broadcast
        self.loc = loc.expand(batch_shape + [-1])
        if kind == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif kind == "covariance_matrix":
            self._unbroadcasted_scale_tril = _C.cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = precision_to_scale_tril(matrix)
        super().__init__(batch_shape, self.loc.shape[-1:])

    @property
    def mean(self):
        """The mean: loc.

        Returns:
            Tensor: the mean, of shape ``batch_shape + event_shape``.
        """
        return self.loc

    @property
    def variance(self):
        """The variances of the components: the diagonal of the covariance.

        Returns:
            Tensor: the variance, of shape ``batch_shape + event_shape``.
        """
        return self._unbroadcasted_scale_tril.square().sum(-1).expand(list(self._batch_shape + self._event_shape))

    def sample(self, shape=()):
        """Draws samples (not differentiable).

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: samples of shape ``shape + batch_shape + event_shape``.
        """
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """Draws reparameterized samples loc + L eps, eps ~ N(0, I): differentiable in loc and the
        covariance.

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: samples of shape ``shape + batch_shape + event_shape``.
        """
        if not isinstance(shape, Sequence):
            raise TypeError('sample shape must be Sequence object.')
        eps = _C.gaussian(list(self._extend_shape(shape)), 0.0, 1.0, 0, self.dtype)
        return self.loc + _C.matmul(self._unbroadcasted_scale_tril, eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value):
        """The log density at value.

        Args:
            value (Tensor): The value, last axis of size k.

        Returns:
            Tensor: the log density.
        """
        value = value.astype(self.dtype)
        M = batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return (-0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M)
                - _half_log_det(self._unbroadcasted_scale_tril))

    def prob(self, value):
        """The density at value.

        Args:
            value (Tensor): The value, last axis of size k.

        Returns:
            Tensor: the density.
        """
        return self.log_prob(value).exp()

    def entropy(self):
        r"""The entropy: :math:`\frac{k}{2}(1 + \log 2\pi) + \frac{1}{2}\log|\Sigma|`.

        Returns:
            Tensor: the entropy, of the batch shape.
        """
        H = (0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi))
             + _half_log_det(self._unbroadcasted_scale_tril))
        return H if len(self._batch_shape) == 0 else H.expand(list(self._batch_shape))

    def kl_divergence(self, other):
        r"""The KL divergence from this distribution to other:
        :math:`\frac{1}{2}(tr(\Sigma_1^{-1}\Sigma_0) + (\mu_1 - \mu_0)^T \Sigma_1^{-1} (\mu_1 - \mu_0)
        - k + \log\frac{|\Sigma_1|}{|\Sigma_0|})`.

        Args:
            other (MultivariateNormal): The other distribution.

        Returns:
            Tensor: the divergence.
        """
        if self._batch_shape != other._batch_shape and self._event_shape != other._event_shape:
            raise ValueError("KL divergence of two Multivariate Normal distributions should share the same "
                             "`batch_shape` and `event_shape`.")
        L1, L2 = self._unbroadcasted_scale_tril, other._unbroadcasted_scale_tril
        cov1 = _C.matmul(L1, _transpose_last(L1))
        cov2 = _C.matmul(L2, _transpose_last(L2))
        expectation = solve(cov2, cov1).diagonal(axis1=-2, axis2=-1).sum(-1)
        expectation = expectation + batch_mahalanobis(L2, self.loc - other.loc)
        return _half_log_det(L2) - _half_log_det(L1) + 0.5 * (expectation - self._event_shape[0])
