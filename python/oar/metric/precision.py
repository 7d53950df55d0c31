"""Precision for binary classification: tp / (tp + fp) (paddle.metric.Precision)."""
import numpy as np

from .base import Metric
from .inputs import as_numpy, per_sample


class Precision(Metric):
    """Precision of a binary classifier, accumulated over batches: ``tp / (tp + fp)``.

    A prediction counts as positive when its probability rounds to 1 (``>= 0.5``).

    Args:
        name (str, optional): The metric's name. Default: 'precision'.

    Call:
        ``update(preds, labels)``: preds, probabilities of the positive class, [N] or [N, 1];
        labels, 0 or 1, of the same shape (Tensors or numpy arrays). ``accumulate()`` returns the
        precision so far (0.0 before any predicted positive).

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> m = oar.metric.Precision()
        >>> m.update(np.array([0.9, 0.2, 0.6, 0.4]), np.array([1, 0, 0, 1]))
        >>> print(m.name(), m.accumulate())
        precision 0.5
    """

    def __init__(self, name="precision", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tp = 0  # true positives
        self.fp = 0  # false positives
        self._name = name

    def update(self, preds, labels):
        """Folds one batch into the counts.

        Args:
            preds (Tensor|numpy.ndarray): Probabilities of the positive class, [N] or [N, 1].
            labels (Tensor|numpy.ndarray): 0 or 1, [N] or [N, 1].
        """
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
        """Clears the counts."""
        self.tp = 0
        self.fp = 0

    def accumulate(self):
        """The precision over all batches since the last reset (a float)."""
        predicted_positive = self.tp + self.fp
        return float(self.tp) / predicted_positive if predicted_positive != 0 else 0.0

    def name(self):
        """The metric's name."""
        return self._name
