"""Chi2 (paddle.distribution.Chi2): the chi-squared distribution with df degrees of freedom, the
gamma distribution Gamma(df / 2, 1 / 2)."""
from __future__ import annotations

from .. import _C
from ..framework.dtype import get_default_dtype
from ..framework.mode import in_dynamic_mode
from .gamma import Gamma


class Chi2(Gamma):
    r"""The chi-squared distribution with ``df`` degrees of freedom: Gamma(df / 2, rate=1 / 2),
    with density

    .. math::

        f(x; k) = \frac{1}{2^{k/2}\Gamma(k/2)} x^{k/2 - 1} e^{-x/2}, \ x > 0

    Args:
        df (float|Tensor): The degrees of freedom (> 0): a float, or a float32/float64 tensor.

    Examples:
        >>> import oar
        >>> from oar.distribution import Chi2
        >>> chi2 = Chi2(oar.to_tensor([2.0, 4.0]))
        >>> print(chi2.mean, chi2.variance)
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [2., 4.]) Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [4., 8.])
        >>> print(chi2.log_prob(oar.to_tensor([1.0, 1.0])))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1.19314718, -1.88629436])
    """

    def __init__(self, df):
        if self._validate_args(df):
            self.df = df
            self.dtype = df.dtype.name
        else:
            [self.df] = self._to_tensor(df)
            self.dtype = get_default_dtype()
        self.rate = _C.full_like(self.df, 0.5)
        if in_dynamic_mode() and not bool(_C.all(self.df > 0)):  # a program's values come later
            raise ValueError("The arg of `df` must be positive.")
        super().__init__(self.df * 0.5, self.rate)
