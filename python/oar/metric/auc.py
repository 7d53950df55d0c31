"""Area under the ROC curve, from scores bucketed into num_thresholds + 1 bins (paddle.metric.Auc).

A score s falls in bucket int(s * num_thresholds); accumulate() walks the buckets from the highest
score down, adding the trapezoid between consecutive (false positives, true positives) points, and
normalises by (positives * negatives).
"""
import numbers

import numpy as np

from .base import Metric
from .inputs import as_numpy, per_sample


class Auc(Metric):
    """Area under the ROC curve of a binary classifier, accumulated over batches.

    The scores of the positive class are bucketed into ``num_thresholds + 1`` bins; the area is
    summed by trapezoids over the bins, from the highest score down.

    Args:
        curve (str, optional): 'ROC'. ('PR' is refused: Paddle accepts it but computes the ROC
            area anyway.) Default: 'ROC'.
        num_thresholds (int, optional): Number of thresholds (bins - 1); more is finer.
            Default: 4095.
        name (str, optional): The metric's name. Default: 'auc'.

    Call:
        ``update(preds, labels)``: preds [N, 2], the probabilities of the two classes (column 1 is
        the positive class); labels [N] or [N, 1], nonzero for positive. ``accumulate()`` returns
        the area (0.0 until both classes have been seen).

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> m = oar.metric.Auc()
        >>> preds = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.3, 0.7]])
        >>> m.update(preds, np.array([0, 1, 1, 0]))
        >>> print(m.name(), m.accumulate())
        auc 0.75
    """

    def __init__(self, curve="ROC", num_thresholds=4095, name="auc", *args, **kwargs):
        super().__init__(*args, **kwargs)
        if curve not in ("ROC", "PR"):
            raise ValueError(f"Auc: 'curve' must be 'ROC' or 'PR', but received {curve!r}")
        if curve == "PR":
            # Paddle 3.3.1 accepts 'PR' but still computes the ROC area; refuse rather than
            # return a number that is not what was asked for.
            raise NotImplementedError("Auc: curve='PR' is not implemented (Paddle computes the ROC "
                                      "area for it too); use curve='ROC'")
        if isinstance(num_thresholds, bool) or not isinstance(num_thresholds, numbers.Integral) \
                or num_thresholds < 1:
            raise ValueError("Auc: 'num_thresholds' must be a positive int, but received "
                             f"{num_thresholds!r}")
        self._curve = curve
        self._num_thresholds = int(num_thresholds)
        self._name = name
        self.reset()

    def update(self, preds, labels):
        """Folds one batch into the bins.

        Args:
            preds (Tensor|numpy.ndarray): [N, 2] class probabilities in [0, 1].
            labels (Tensor|numpy.ndarray): [N] or [N, 1], nonzero for the positive class.
        """
        labels = as_numpy(labels, "Auc.update", "labels")
        preds = as_numpy(preds, "Auc.update", "preds")
        if labels.ndim == 0:
            raise ValueError("Auc.update: 'labels' must have a batch dimension, but received a "
                             "0-D array")
        n = labels.shape[0]
        labels = per_sample(labels, n, "Auc.update", "labels")
        if preds.ndim != 2 or preds.shape[0] != n or preds.shape[1] < 2:
            raise ValueError(f"Auc.update: 'preds' must have shape [{n}, 2] (one row of class "
                             f"probabilities per label), but received shape {list(preds.shape)}")
        scaled = preds[:, 1] * self._num_thresholds  # in preds' dtype, as Paddle's scalar math
        if np.isnan(scaled).any():
            raise ValueError("Auc.update: 'preds' holds NaN")
        bucket = np.trunc(scaled).astype(np.int64)
        bad = (bucket < 0) | (bucket > self._num_thresholds)
        if bad.any():
            # Paddle asserts on scores that land past the last bucket and silently wraps negative
            # ones into the top buckets; both are wrong input.
            raise ValueError("Auc.update: 'preds' must be probabilities in [0, 1], but received "
                             f"{preds[:, 1][bad][0]!r}")
        size = self._num_thresholds + 1
        positive = labels != 0
        self._stat_pos += np.bincount(bucket[positive], minlength=size)
        self._stat_neg += np.bincount(bucket[~positive], minlength=size)

    @staticmethod
    def trapezoid_area(x1, x2, y1, y2):
        """The area of the trapezoid between (x1, y1) and (x2, y2) over the x axis."""
        return abs(x1 - x2) * (y1 + y2) / 2.0

    def accumulate(self):
        # Running totals from the highest bucket down. cumsum adds in order, so every partial sum
        # (and the final area) is bit-for-bit Paddle's sequential loop.
        """The ROC area over all batches since the last reset (a float)."""
        tot_pos = np.cumsum(self._stat_pos[::-1])
        tot_neg = np.cumsum(self._stat_neg[::-1])
        prev_pos = np.concatenate(([0.0], tot_pos[:-1]))
        prev_neg = np.concatenate(([0.0], tot_neg[:-1]))
        area = np.cumsum(self.trapezoid_area(tot_neg, prev_neg, tot_pos, prev_pos))[-1]
        positives, negatives = tot_pos[-1], tot_neg[-1]
        if positives > 0.0 and negatives > 0.0:
            return float(area / positives / negatives)
        return 0.0

    def reset(self):
        """Clears the bins."""
        size = self._num_thresholds + 1
        self._stat_pos = np.zeros(size)
        self._stat_neg = np.zeros(size)

    def name(self):
        """The metric's name."""
        return self._name
