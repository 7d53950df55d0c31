"""oar.optimizer, as paddle.optimizer: optimizers over fused C++ update kernels, and lr."""
from . import lr  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .momentum import Momentum  # noqa: F401
from .adam import Adam  # noqa: F401
from .adamw import AdamW  # noqa: F401
from .adagrad import Adagrad  # noqa: F401
from .rmsprop import RMSProp  # noqa: F401
from .adadelta import Adadelta  # noqa: F401
from .adamax import Adamax  # noqa: F401
from .lamb import Lamb  # noqa: F401
from .nadam import NAdam  # noqa: F401
from .radam import RAdam  # noqa: F401
from .asgd import ASGD  # noqa: F401
from .rprop import Rprop  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401

__all__ = ['Optimizer', 'Adagrad', 'Adam', 'AdamW', 'Adamax', 'ASGD', 'RAdam', 'RMSProp', 'Adadelta', 'SGD',
           'Rprop', 'Momentum', 'NAdam', 'Lamb', 'LBFGS']
