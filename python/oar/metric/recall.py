"""Recall for binary classification: tp / (tp + fn) (paddle.metric.Recall)."""
import numpy as np

from .base import Metric
from .inputs import as_numpy, per_sample


class Recall(Metric):
    """Recall of a binary classifier, accumulated over batches: ``tp / (tp + fn)``.

    A prediction counts as positive when its probability rounds to 1 (``>= 0.5``).

    Args:
        name (str, optional): The metric's name. Default: 'recall'.

    Call:
        ``update(preds, labels)``: preds, probabilities of the positive class, [N] or [N, 1];
        labels, 0 or 1, of the same shape (Tensors or numpy arrays). ``accumulate()`` returns the
        recall so far (0.0 before any actual positive).

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> m = oar.metric.Recall()
        >>> m.update(np.array([0.9, 0.2, 0.6, 0.4]), np.array([1, 0, 0, 1]))
        >>> print(m.name(), m.accumulate())
        recall 0.5
    """

    def __init__(self, name="recall", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tp = 0  # true positives
        self.fn = 0  # false negatives
        self._name = name

    def update(self, preds, labels):
        """Folds one batch into the counts.

        Args:
            preds (Tensor|numpy.ndarray): Probabilities of the positive class, [N] or [N, 1].
            labels (Tensor|numpy.ndarray): 0 or 1, [N] or [N, 1].
        """
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
        """The recall over all batches since the last reset (a float)."""
        relevant = self.tp + self.fn
        return float(self.tp) / relevant if relevant != 0 else 0.0

    def reset(self):
        """Clears the counts."""
        self.tp = 0
        self.fn = 0

    def name(self):
        """The metric's name."""
        return self._name
