"""StudentT (paddle.distribution.StudentT): Student's t distribution with df degrees of freedom,
location loc and scale. Samples are normal draws divided by the square root of chi-squared draws
(from oar.standard_gamma) over df."""
from __future__ import annotations

import math
from collections.abc import Sequence

from .. import _C
from ..framework.mode import in_dynamic_mode
from .distribution import Distribution
from .gamma import Gamma


class StudentT(Distribution):
    r"""Student's t distribution, with density

    .. math::

        f(x; \nu, \mu, \sigma) = \frac{\Gamma(\frac{\nu + 1}{2})}{\sigma \sqrt{\nu\pi}\,\Gamma(\frac{\nu}{2})}
        \left(1 + \frac{1}{\nu}\left(\frac{x - \mu}{\sigma}\right)^2\right)^{-\frac{\nu + 1}{2}}

    with :math:`\nu` = df, :math:`\mu` = loc and :math:`\sigma` = scale. The parameters broadcast
    together; numbers take the dtype of the first tensor among them (else the default dtype).

    Args:
        df (float|Tensor): The degrees of freedom (>= 0).
        loc (float|Tensor): The location.
        scale (float|Tensor): The scale (>= 0).
        name (str|None, optional): The name prefix of the operations. Default: None.

    Examples:
        >>> import oar
        >>> from oar.distribution import StudentT
        >>> dist = StudentT(df=oar.to_tensor([10.0, 5.0]), loc=0.0, scale=1.0)
        >>> print(dist.mean, dist.variance)
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0., 0.]) Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.25000000, 1.66666663])
        >>> print(dist.log_prob(oar.to_tensor([1.0, 1.0])))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1.46810341, -1.51558423])
        >>> print(dist.entropy())
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.52126229, 1.62750268])
    """

    def __init__(self, df, loc, scale, name=None):
        self.name = name if name is not None else 'StudentT'
        self.df, self.loc, self.scale = self._broadcast_all(df, loc, scale)
        if not self._check_nonnegative(self.df):
            raise ValueError('Every element of input parameter `df` should be nonnegative.')
        if not self._check_nonnegative(self.scale):
            raise ValueError('Every element of input parameter `scale` should be nonnegative.')
        super().__init__(self.df.shape)
        self._chi2 = Gamma(0.5 * self.df, _C.full_like(self.df, 0.5))

    def _check_nonnegative(self, value):
        return not in_dynamic_mode() or bool((value >= 0.0).all())  # a program's values come later

    @property
    def mean(self):
        """The mean: loc where df > 1, nan elsewhere.

        Returns:
            Tensor: the mean.
        """
        return _C.where(self.df > 1.0, self.loc, _C.full_like(self.loc, float('nan')))

    @property
    def variance(self):
        """The variance: scale^2 df / (df - 2) where df > 2, inf where 1 < df <= 2, nan elsewhere.

        Returns:
            Tensor: the variance.
        """
        df = self.df.detach()
        var = _C.where(df > 2.0, self.scale.pow(2) * df / (df - 2), _C.full_like(df, float('nan')))
        return _C.where(_C.logical_and(df <= 2.0, df > 1.0), _C.full_like(var, float('inf')), var)

    def sample(self, shape=()):
        """Draws samples loc + scale z / sqrt(chi2 / df), z normal and chi2 chi-squared.

        Args:
            shape (Sequence[int], optional): The sample shape. Default: ().

        Returns:
            Tensor: samples of shape ``shape + batch_shape``.
        """
        if not isinstance(shape, Sequence):
            raise TypeError('sample shape must be Sequence object.')
        output_shape = list(self._extend_shape(shape))
        z = _C.gaussian(output_shape, 0.0, 1.0, 0, self.df.dtype)
        chi2 = self._chi2.sample(shape)
        return self.loc + self.scale * (z * (chi2 / self.df).rsqrt())

    def entropy(self):
        """The entropy.

        Returns:
            Tensor: the entropy, of the batch shape.
        """
        half_df = 0.5 * self.df
        half_df1 = 0.5 * (self.df + 1)
        lbeta = half_df.lgamma() + math.lgamma(0.5) - half_df1.lgamma()
        return (self.scale.log() + half_df1 * (half_df1.digamma() - half_df.digamma())
                + 0.5 * self.df.log() + lbeta)

    def log_prob(self, value):
        """The log density at value.

        Args:
            value (Tensor): The value.

        Returns:
            Tensor: the log density.
        """
        value = self._check_values_dtype_in_probs(self.df, value)
        y = (value - self.loc) / self.scale
        z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
             + (0.5 * self.df).lgamma() - (0.5 * (self.df + 1.0)).lgamma())
        return -0.5 * (self.df + 1.0) * (y.pow(2.0) / self.df).log1p() - z

    def prob(self, value):
        """The density at value.

        Args:
            value (Tensor): The value.

        Returns:
            Tensor: the density.
        """
        return self.log_prob(value).exp()
