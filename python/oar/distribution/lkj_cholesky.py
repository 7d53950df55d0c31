"""LKJCholesky (paddle.distribution.LKJCholesky): the LKJ distribution over correlation matrices,
as the distribution of their lower Cholesky factors. Samples come from the onion or the C-vine
method (Lewandowski, Kurowicka and Joe, 2009), both driven by Beta draws."""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .. import _C
from ..framework.dtype import finfo, get_default_dtype
from ..framework.mode import in_dynamic_mode
from ..tensor.creation import arange, to_tensor
from .beta import Beta
from .distribution import Distribution

__all__ = ["LKJCholesky"]


def mvlgamma(a, p):
    """The multivariate log-gamma function of dimension p, elementwise over a."""
    j = arange(1, p + 1, dtype=a.dtype)
    return (p * (p - 1) / 4) * math.log(math.pi) + (a.unsqueeze(-1) + (1 - j) / 2).lgamma().sum(-1)


def _strict_tril_gather_index(dim):
    """Index into [0, v_0, v_1, ...] that lays a vector v out as the strictly lower triangle of a
    dim x dim matrix, row by row (0 everywhere else)."""
    index = np.zeros((dim, dim), dtype=np.int64)
    rows, cols = np.tril_indices(dim, -1)
    index[rows, cols] = np.arange(1, len(rows) + 1)
    return index.reshape(-1)


def _vec_to_strict_tril(vec, dim):
    """[..., dim (dim - 1) / 2] -> [..., dim, dim]: vec in the strictly lower triangle, row by row."""
    padded = _C.concat([_C.zeros_like(vec[..., :1]), vec], -1)
    index = to_tensor(_strict_tril_gather_index(dim))
    return _C.gather(padded, index, padded.dim() - 1).reshape(vec.shape[:-1] + [dim, dim])


class LKJCholesky(Distribution):
    r"""The LKJ distribution of the lower Cholesky factor :math:`L` of a ``dim`` x ``dim``
    correlation matrix :math:`C = L L^T`, with density proportional to

    .. math::

        \det(C)^{\eta - 1} \ \text{(in C)}, \quad
        \prod_{i=2}^{dim} L_{ii}^{dim - i + 2(\eta - 1)} \ \text{(in L)}

    with :math:`\eta` = concentration: 1 is uniform over correlation matrices, larger values favour
    the identity.

    Args:
        dim (int): The size of the matrices (>= 2).
        concentration (float|Tensor, optional): :math:`\eta` (> 0); a tensor gives the batch
            shape. Default: 1.0.
        sample_method (str, optional): 'onion' or 'cvine'. Default: 'onion'.

    Examples:
        >>> import oar
        >>> from oar.distribution import LKJCholesky
        >>> lkj = LKJCholesky(dim=3, concentration=1.5)
        >>> print(lkj.batch_shape, lkj.event_shape)
        () (3, 3)
        >>> L = oar.to_tensor([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.6, 0.8]])
        >>> print(lkj.log_prob(L))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               -1.69637740)
    """

    def __init__(self, dim=2, concentration=1.0, sample_method="onion"):
        if self._validate_args(concentration):
            self.concentration = concentration
            self.dtype = concentration.dtype.name
        else:
            [self.concentration] = self._to_tensor(concentration)
            self.dtype = get_default_dtype()
        self.dim = dim
        if not self.dim >= 2:
            raise ValueError(f"Expected dim greater than or equal to 2. Found dim={dim}.")
        elif not isinstance(self.dim, int):
            raise TypeError(f"Expected dim to be an integer. Found dim={dim}.")
        if in_dynamic_mode() and not bool(_C.all(self.concentration > 0)):  # a program's values come later
            raise ValueError("The arg of `concentration` must be positive.")
        self.sample_method = sample_method
        # The Beta draws of Sec. 3.2 of the paper, vectorized over the rows.
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = arange(self.dim - 1, dtype=self.concentration.dtype)
        if sample_method == "onion":
            # Row i >= 1 draws its squared norm left of the diagonal from
            # Beta(i / 2, marginal - (i - 1) / 2); row 0 has none (its draw is unused).
            offset = _C.concat([_C.zeros([1], dtype=offset.dtype), offset])
            self._beta = Beta(0.5 * (offset + 1), marginal_conc.unsqueeze(-1) - 0.5 * offset)
        elif sample_method == "cvine":
            # One draw per strictly-lower entry (i, j), of concentration marginal - j / 2.
            cols = to_tensor(np.tril_indices(self.dim, -1)[1], dtype=self.concentration.dtype)
            beta_conc = marginal_conc.unsqueeze(-1) - 0.5 * cols
            self._beta = Beta(beta_conc, beta_conc)
        else:
            raise ValueError("`method` should be one of 'cvine' or 'onion'.")
        super().__init__(self.concentration.shape, (dim, dim))

    def _onion(self, sample_shape):
        """The onion method: row i is sqrt(y_i) times a random unit vector of its first i
        entries, y_i a Beta draw; the diagonal completes each row to unit norm."""
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u = _C.randn(list(self._extend_shape(sample_shape)), y.dtype).tril(-1)
        u_hypersphere = u / u.norm(axis=-1, keepdim=True)
        # Row 0 has no entries left of the diagonal: 0 / 0 there, replaced by zeros.
        u_hypersphere = _C.concat([_C.zeros_like(u_hypersphere[..., :1, :]), u_hypersphere[..., 1:, :]], -2)
        w = y.sqrt() * u_hypersphere
        eps = float(finfo(w.dtype).tiny)
        diag = _C.clip(1 - (w ** 2).sum(-1), eps).sqrt()
        return w + _C.diag_embed(diag)

    def _cvine(self, sample_shape):
        """The C-vine method: partial correlations 2 y - 1 (y Beta draws) turned into the
        Cholesky factor by cumulative products of sqrt(1 - r^2) along each row."""
        partial_correlation = 2 * self._beta.sample(sample_shape) - 1
        r = _vec_to_strict_tril(partial_correlation, self.dim)
        eps = float(finfo(r.dtype).tiny)
        r = _C.clip(r, -1 + eps, 1 - eps)
        z1m_cumprod_sqrt = (1 - r ** 2).sqrt().cumprod(-1)
        shifted = _C.concat([_C.ones_like(z1m_cumprod_sqrt[..., :1]), z1m_cumprod_sqrt[..., :-1]], -1)
        return (r + _C.eye(self.dim, self.dim, r.dtype)) * shifted

    def sample(self, sample_shape=()):
        """Draws lower Cholesky factors of correlation matrices.

        Args:
            sample_shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: samples of shape ``sample_shape + batch_shape + [dim, dim]``.
        """
        if not isinstance(sample_shape, Sequence):
            raise TypeError('sample shape must be Sequence object.')
        sample_shape = tuple(sample_shape)
        res = self._onion(sample_shape) if self.sample_method == "onion" else self._cvine(sample_shape)
        return res.reshape(list(sample_shape) + list(self.concentration.shape) + [self.dim, self.dim])

    def log_prob(self, value):
        """The log density of the Cholesky factor value.

        Args:
            value (Tensor): Lower Cholesky factors of correlation matrices, [..., dim, dim].

        Returns:
            Tensor: the log density.
        """
        diag = value.diagonal(offset=0, axis1=-1, axis2=-2)[..., 1:]
        order = arange(2, self.dim + 1, dtype=self.concentration.dtype)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (order * diag.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = alpha.lgamma() * dm1
        numerator = mvlgamma(alpha - 0.5, dm1)
        # mvlgamma's constant is (D - 1)(D - 2)/4 log(pi); the normalizer needs D(D - 1)/4 log(pi).
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        return unnormalized - (pi_constant + numerator - denominator)
