"""oar.metric, as paddle.metric: streaming metrics (update per batch, accumulate at the end)."""
from .base import Metric  # noqa: F401
from .accuracy import Accuracy, accuracy  # noqa: F401
from .precision import Precision  # noqa: F401
from .recall import Recall  # noqa: F401
from .auc import Auc  # noqa: F401

__all__ = ["Metric", "Accuracy", "Precision", "Recall", "Auc", "accuracy"]
