"""oar.distribution: probability distributions, transforms of random variables and KL divergences,
as paddle.distribution. One module per distribution family, named as Paddle's; every number is
computed by oar's ops, so log_prob, entropy, kl_divergence and rsample are differentiable."""
from . import transform
from .distribution import Distribution
from .exponential_family import ExponentialFamily
from .independent import Independent
from .transform import (AbsTransform, AffineTransform, ChainTransform, ExpTransform, IndependentTransform,
                        PowerTransform, ReshapeTransform, SigmoidTransform, SoftmaxTransform, StackTransform,
                        StickBreakingTransform, TanhTransform, Transform)
from .transformed_distribution import TransformedDistribution

__all__ = ['Distribution', 'ExponentialFamily', 'Independent', 'TransformedDistribution']
__all__.extend(transform.__all__)
