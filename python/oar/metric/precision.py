"""Precision for binary classification: tp / (tp + fp) (paddle.metric.Precision)."""
import numpy as np

from .base import Metric
from .inputs import as_numpy, per_sample


class Precision(Metric):
    def __init__(self, name="precision", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tp = 0  # true positives
        self.fp = 0  # false positives
        self._name = name

    def update(self, preds, labels):
        """preds: probabilities [N] or [N, 1]; labels: 0/1 of the same shape."""
        preds = as_numpy(preds, "Precision.update", "preds")
        labels = as_numpy(labels, "Precision.update", "labels")
        if labels.ndim == 0:
            raise ValueError("Precision.update: 'labels' must have a batch dimension, but received "
                             "a 0-D array")
        n = labels.shape[0]
        labels = per_sample(labels, n, "Precision.update", "labels")
        # Paddle rounds half up (floor(p + 0.5)): 0.5 counts as positive.
        predicted = np.floor(per_sample(preds, n, "Precision.update", "preds") + 0.5).astype("int32")
        positive = predicted == 1
        self.tp += int(np.count_nonzero(positive & (predicted == labels)))
        self.fp += int(np.count_nonzero(positive & (predicted != labels)))

    def reset(self):
        self.tp = 0
        self.fp = 0

    def accumulate(self):
        predicted_positive = self.tp + self.fp
        return float(self.tp) / predicted_positive if predicted_positive != 0 else 0.0

    def name(self):
        return self._name
