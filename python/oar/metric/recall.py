"""Recall for binary classification: tp / (tp + fn) (paddle.metric.Recall)."""
import numpy as np

from .base import Metric
from .inputs import as_numpy, per_sample


class Recall(Metric):
    def __init__(self, name="recall", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tp = 0  # true positives
        self.fn = 0  # false negatives
        self._name = name

    def update(self, preds, labels):
        """preds: probabilities [N] or [N, 1]; labels: 0/1 of the same shape."""
        preds = as_numpy(preds, "Recall.update", "preds")
        labels = as_numpy(labels, "Recall.update", "labels")
        if labels.ndim == 0:
            raise ValueError("Recall.update: 'labels' must have a batch dimension, but received a "
                             "0-D array")
        n = labels.shape[0]
        labels = per_sample(labels, n, "Recall.update", "labels")
        # Paddle rounds half to even here (np.rint): 0.5 counts as negative, unlike Precision.
        predicted = np.rint(per_sample(preds, n, "Recall.update", "preds")).astype("int32")
        relevant = labels == 1
        self.tp += int(np.count_nonzero(relevant & (predicted == labels)))
        self.fn += int(np.count_nonzero(relevant & (predicted != labels)))

    def accumulate(self):
        relevant = self.tp + self.fn
        return float(self.tp) / relevant if relevant != 0 else 0.0

    def reset(self):
        self.tp = 0
        self.fn = 0

    def name(self):
        return self._name
