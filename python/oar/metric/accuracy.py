"""Top-k accuracy: the streaming Accuracy metric and the one-batch accuracy function
(paddle.metric.Accuracy, paddle.metric.accuracy)."""
import numbers

import numpy as np

from .. import _C
from ..framework.dtype import float32, int64
from .base import Metric
from .inputs import as_numpy


def _as_tensor(x, fn, arg):
    if isinstance(x, _C.Tensor):
        return x
    if isinstance(x, (np.ndarray, np.generic)):
        return _C._from_array(np.ascontiguousarray(x), True)
    raise TypeError(f"{fn}: '{arg}' must be a Tensor or numpy.ndarray, but received {type(x).__name__}")


class Accuracy(Metric):
    """Top-k classification accuracy, accumulated over batches: the share of samples whose label
    is among their k highest scores.

    Args:
        topk (list|tuple, optional): The k values; one accuracy is kept for each. Default: (1,).
        name (str, optional): Base name; the names are ``name`` for topk=(1,) and
            ``name_top<k>`` otherwise. Default: 'acc'.

    Call:
        ``compute(pred, label)``: pred [N, ..., C] scores, label [N, ..., 1] (or [N], or one-hot)
        -> the correct-matrix [N, ..., max(topk)]. ``update(correct)`` folds it in and returns the
        batch's accuracy; ``accumulate()`` returns the running accuracy (a list when several k).

    Examples:
        >>> import oar
        >>> m = oar.metric.Accuracy(topk=(1, 2))
        >>> pred = oar.to_tensor([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2],
        ...                       [0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])
        >>> label = oar.to_tensor([[1], [1], [0], [0]])
        >>> correct = m.compute(pred, label)
        >>> m.update(correct)
        [0.5, 0.75]
        >>> print(m.accumulate(), m.name())
        [0.5, 0.75] ['acc_top1', 'acc_top2']
    """

    def __init__(self, topk=(1,), name=None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if isinstance(topk, numbers.Integral) or not hasattr(topk, "__iter__"):
            raise TypeError(f"Accuracy: 'topk' must be a list or tuple of ints, but received {topk!r}")
        topk = tuple(topk)
        if not topk or any(isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1
                           for k in topk):
            raise ValueError(f"Accuracy: 'topk' must hold positive ints, but received {topk!r}")
        self.topk = topk
        self.maxk = max(topk)
        self._init_name(name)
        self.reset()

    def compute(self, pred, label, *args):
        """The correct-matrix of a batch: entry j of a sample is 1.0 when its j-th highest score is
        its label's class.

        Args:
            pred (Tensor|numpy.ndarray): Scores [N, ..., C].
            label (Tensor|numpy.ndarray): Classes [N, ..., 1] or [N], or one-hot [N, ..., C].

        Returns:
            Tensor: float32 [N, ..., max(topk)].
        """
        pred = _as_tensor(pred, "Accuracy.compute", "pred")
        label = _as_tensor(label, "Accuracy.compute", "label")
        if pred.ndim == 0:
            raise ValueError("Accuracy.compute: 'pred' must have a class dimension, but is 0-D")
        if self.maxk > pred.shape[-1]:
            raise ValueError(f"Accuracy.compute: topk {self.maxk} is larger than the number of "
                             f"classes {pred.shape[-1]}")
        order = _C.argsort(pred, -1, True, True)  # stable: ties keep the lower class first
        top = order[..., :self.maxk]
        if label.ndim == 1 or (label.ndim == 2 and label.shape[-1] == 1):
            label = _C.reshape(label, [-1, 1])
        elif label.shape[-1] != 1:
            label = _C.argmax(label, -1, True)  # one-hot -> class index
        correct = top == _C.cast(label, top.dtype)
        return _C.cast(correct, float32)

    def update(self, correct, *args):
        """Folds a correct-matrix from ``compute`` into the running counts.

        Args:
            correct (Tensor|numpy.ndarray): [N, ..., max(topk)].

        Returns:
            float|list: the accuracy of this batch (a list when several k).
        """
        correct = as_numpy(correct, "Accuracy.update", "correct")
        if correct.ndim == 0:
            raise ValueError("Accuracy.update: 'correct' must be [batch, ..., topk], but is 0-D")
        num_samples = int(np.prod(correct.shape[:-1]))
        accs = []
        for i, k in enumerate(self.topk):
            num_corrects = float(correct[..., :k].sum(dtype=np.float64))
            accs.append(num_corrects / num_samples if num_samples else 0.0)
            self.total[i] += num_corrects
            self.count[i] += num_samples
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self):
        """Clears the running counts."""
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        """The accuracy over all batches since the last reset.

        Returns:
            float|list: one value per k (a single float for one k).
        """
        res = [float(t) / c if c > 0 else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res

    def _init_name(self, name):
        name = name or "acc"
        self._name = [f"{name}_top{k}" for k in self.topk] if self.maxk != 1 else [name]

    def name(self):
        """The metric's names, one per k (a list)."""
        return self._name


def accuracy(input, label, k=1, correct=None, total=None, name=None):
    """Top-k accuracy of one batch: the share of rows whose label is among their k highest
    scores.

    Args:
        input (Tensor): Scores [N, C].
        label (Tensor): Classes [N, 1], integer.
        k (int, optional): How many of the highest scores count. Default: 1.
        correct (Tensor, optional): An int tensor that receives the number of correct rows.
            Default: None.
        total (Tensor, optional): An int tensor that receives the number of rows. Default: None.
        name (str, optional): Usually left unset. Default: None.

    Returns:
        Tensor: a 0-D float32 Tensor.

    Examples:
        >>> import oar
        >>> pred = oar.to_tensor([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2],
        ...                       [0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])
        >>> label = oar.to_tensor([[1], [1], [0], [0]])
        >>> print(oar.metric.accuracy(pred, label, k=2))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.75000000)
    """
    fn = "accuracy"
    input = _as_tensor(input, fn, "input")
    label = _as_tensor(label, fn, "label")
    if input.ndim != 2:
        raise ValueError(f"{fn}: 'input' must be 2-D [N, classes], but received shape {input.shape}")
    if label.ndim != 2:
        # Paddle: ValueError "label's dimensions of AccuracyOp must be 2".
        raise ValueError(f"{fn}: 'label' must be 2-D [N, 1], but received shape {label.shape}")
    if label.shape[0] != input.shape[0]:
        raise ValueError(f"{fn}: 'input' and 'label' must have the same number of rows, but "
                         f"received {input.shape[0]} and {label.shape[0]}")
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1 or k > input.shape[1]:
        raise ValueError(f"{fn}: 'k' must be an int in [1, {input.shape[1]}] (the number of "
                         f"classes), but received {k!r}")
    rows = input.shape[0]
    if rows:
        _, indices = _C.topk(input, int(k), -1, True, True)
        hit = _C.any(indices == _C.cast(label, int64), [1], False)
        num_correct = int(_C.sum(_C.cast(hit, int64), None, None, False).item())
    else:
        num_correct = 0
    if correct is not None:
        correct.fill_(num_correct)
    if total is not None:
        total.fill_(rows)
    return _C.full([], num_correct / rows if rows else 0.0, float32)
