"""kl_divergence and register_kl (paddle.distribution.kl): KL divergences by multiple dispatch on
the classes of the two distributions, with Paddle's registered pairs. A pair of exponential-family
distributions of one class without a registered formula falls back to the Bregman divergence of
their log normalizer."""
from __future__ import annotations

import functools
import warnings

from ..autograd import grad
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential
from .exponential_family import ExponentialFamily, differentiable
from .gamma import Gamma
from .geometric import Geometric
from .laplace import Laplace
from .lognormal import LogNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .poisson import Poisson
from .uniform import Uniform

__all__ = ["register_kl", "kl_divergence"]

_REGISTER_TABLE = {}


def kl_divergence(p, q):
    r"""The Kullback-Leibler divergence between the distributions p and q,

    .. math::

        KL(p||q) = \int p(x) \log\frac{p(x)}{q(x)} \mathrm{d}x

    computed by the function registered (``register_kl``) for the most specific pair of classes
    that p and q are instances of.

    Args:
        p (Distribution): The first distribution.
        q (Distribution): The second distribution.

    Returns:
        Tensor: the divergence, batchwise.

    Raises:
        NotImplementedError: no function is registered for the classes of p and q.

    Examples:
        >>> import oar
        >>> p = oar.distribution.Beta(alpha=0.5, beta=0.5)
        >>> q = oar.distribution.Beta(alpha=0.3, beta=0.7)
        >>> print(oar.distribution.kl_divergence(p, q))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.21193528)
    """
    return _dispatch(type(p), type(q))(p, q)


def register_kl(cls_p, cls_q):
    """A decorator that registers a KL divergence function for a pair of distribution classes.

    ``kl_divergence(p, q)`` calls the function registered for the most specific pair of classes
    (cls_p, cls_q) with p an instance of cls_p and q of cls_q.

    Args:
        cls_p (type): The class of the first distribution, a subclass of Distribution.
        cls_q (type): The class of the second distribution, a subclass of Distribution.

    Returns:
        Callable: the decorator, which returns the function it registers.

    Examples:
        >>> import oar
        >>> from oar.distribution import Distribution, kl_divergence, register_kl
        >>> class Point(Distribution):
        ...     def __init__(self, x):
        ...         self.x = x
        ...         super().__init__()
        >>> @register_kl(Point, Point)
        ... def _kl_point_point(p, q):
        ...     return oar.to_tensor(0.0 if p.x == q.x else float('inf'))
        >>> print(kl_divergence(Point(1.0), Point(2.0)).item())
        inf
    """
    if not (isinstance(cls_p, type) and issubclass(cls_p, Distribution)
            and isinstance(cls_q, type) and issubclass(cls_q, Distribution)):
        raise TypeError('cls_p and cls_q must be subclass of Distribution')

    def decorator(f):
        _REGISTER_TABLE[cls_p, cls_q] = f
        return f

    return decorator


def _dispatch(cls_p, cls_q):
    """The function registered for the most specific pair matching (cls_p, cls_q); when the
    best pair by p's class and the best by q's class disagree, a RuntimeWarning says so."""
    matches = [(super_p, super_q) for super_p, super_q in _REGISTER_TABLE
               if issubclass(cls_p, super_p) and issubclass(cls_q, super_q)]
    if not matches:
        raise NotImplementedError
    left_p, left_q = min(_Compare(*m) for m in matches).classes
    right_q, right_p = min(_Compare(*reversed(m)) for m in matches).classes
    if _REGISTER_TABLE[left_p, left_q] is not _REGISTER_TABLE[right_p, right_q]:
        warnings.warn(f'Ambiguous kl_divergence({cls_p.__name__}, {cls_q.__name__}). '
                      f'Please register_kl({left_p.__name__}, {right_q.__name__})', RuntimeWarning)
    return _REGISTER_TABLE[left_p, left_q]


@functools.total_ordering
class _Compare:
    """Orders class pairs lexicographically by subclassing: the smallest is the most specific."""

    def __init__(self, *classes):
        self.classes = classes

    def __eq__(self, other):
        return self.classes == other.classes

    def __le__(self, other):
        for cls_x, cls_y in zip(self.classes, other.classes):
            if not issubclass(cls_x, cls_y):
                return False
            if cls_x is not cls_y:
                break
        return True


def _sum_rightmost(value, n):
    return value.sum(list(range(-n, 0))) if n > 0 else value


def _own(p, q):
    return p.kl_divergence(q)


for _cls in (Bernoulli, Binomial, Categorical, Cauchy, ContinuousBernoulli, Normal, MultivariateNormal,
             Uniform, Laplace, Geometric, Exponential, Gamma, Poisson):
    register_kl(_cls, _cls)(_own)
del _cls


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    pa, pb, qa, qb = p.alpha, p.beta, q.alpha, q.beta
    return ((qa.lgamma() + qb.lgamma() + (pa + pb).lgamma())
            - (pa.lgamma() + pb.lgamma() + (qa + qb).lgamma())
            + (pa - qa) * pa.digamma() + (pb - qb) * pb.digamma()
            + ((qa + qb) - (pa + pb)) * (pa + pb).digamma())


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    pc, qc = p.concentration, q.concentration
    return ((pc.sum(-1).lgamma() - qc.sum(-1).lgamma())
            - (pc.lgamma() - qc.lgamma()).sum(-1)
            + ((pc - qc) * (pc.digamma() - pc.sum(-1).digamma().unsqueeze(-1))).sum(-1))


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p, q):
    return p._base.kl_divergence(q._base)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """The Bregman divergence of the log normalizer F between the natural parameters:
    F(theta_q) - F(theta_p) - <theta_q - theta_p, grad F(theta_p)>."""
    if type(p) is not type(q):
        raise NotImplementedError
    p_params = differentiable(p._natural_parameters)
    q_params = q._natural_parameters
    p_log_norm = p._log_normalizer(*p_params)
    try:
        p_grads = grad(p_log_norm, p_params, create_graph=True)
    except RuntimeError as e:
        raise TypeError(f"Can't compute kl_divergence({type(p).__name__}, {type(q).__name__}) use bregman "
                        f"divergence. Please register_kl({type(p).__name__}, {type(q).__name__}).") from e
    kl = q._log_normalizer(*q_params) - p_log_norm
    for p_param, q_param, p_grad in zip(p_params, q_params, p_grads):
        kl = kl - _sum_rightmost((q_param - p_param) * p_grad, len(q.event_shape))
    return kl
