"""oar.nn.functional, as paddle.nn.functional: one module per family of ops."""
from .activation import *  # noqa: F401,F403
from .common import *  # noqa: F401,F403
from .input import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .vision import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .adaptive import *  # noqa: F401,F403
from .fractional_pool import *  # noqa: F401,F403
from .extension import *  # noqa: F401,F403
from .flash_attention import *  # noqa: F401,F403
from .rnnt import *  # noqa: F401,F403
from .sampling import *  # noqa: F401,F403
