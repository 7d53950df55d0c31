"""oar.nn.initializer, as paddle.nn.initializer."""
from .initializer import Initializer, calculate_gain, set_global_initializer, make_parameter  # noqa: F401
from .constant import Constant, Assign  # noqa: F401
from .random import Normal, TruncatedNormal, Uniform  # noqa: F401
from .xavier import XavierNormal, XavierUniform, KaimingNormal, KaimingUniform  # noqa: F401
from .structured import Orthogonal, Dirac, Bilinear  # noqa: F401

# Paddle's older spellings.
ConstantInitializer, NormalInitializer, UniformInitializer = Constant, Normal, Uniform
TruncatedNormalInitializer, NumpyArrayInitializer = TruncatedNormal, Assign
