"""oar.distribution: probability distributions, transforms of random variables and KL divergences,
as paddle.distribution. One module per distribution family, named as Paddle's; every number is
computed by oar's ops, so log_prob, entropy, kl_divergence and rsample are differentiable. The
samplers that need their own C++ kernels (oar.standard_gamma, oar.poisson, oar.binomial) are
called through distribution/_sampling.py."""
from . import transform
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential
from .exponential_family import ExponentialFamily
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .lognormal import LogNormal
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .poisson import Poisson
from .student_t import StudentT
from .transform import (AbsTransform, AffineTransform, ChainTransform, ExpTransform, IndependentTransform,
                        PowerTransform, ReshapeTransform, SigmoidTransform, SoftmaxTransform, StackTransform,
                        StickBreakingTransform, TanhTransform, Transform)
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform

__all__ = [
    'Bernoulli', 'Beta', 'Categorical', 'Cauchy', 'Chi2', 'ContinuousBernoulli', 'Dirichlet',
    'Distribution', 'Exponential', 'ExponentialFamily', 'Multinomial', 'MultivariateNormal', 'Normal',
    'Uniform', 'kl_divergence', 'register_kl', 'Independent', 'TransformedDistribution', 'Laplace',
    'LogNormal', 'LKJCholesky', 'Gamma', 'Gumbel', 'Geometric', 'Binomial', 'Poisson', 'StudentT',
]
__all__.extend(transform.__all__)
