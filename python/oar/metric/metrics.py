"""oar.metric.metrics: the module path of Paddle's metric classes
(`from paddle.metric.metrics import Accuracy`); oar defines one per module."""
from .accuracy import Accuracy, accuracy  # noqa: F401
from .auc import Auc  # noqa: F401
from .base import Metric  # noqa: F401
from .precision import Precision  # noqa: F401
from .recall import Recall  # noqa: F401

__all__ = []  # as Paddle's: the public names are oar.metric's
