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
        """The correct-matrix [batch, ..., maxk]: entry j is 1.0 when the j-th highest score is
        the label's class. label is [batch, ..., 1], [batch] or one-hot [batch, ..., classes]."""
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
        """Fold in a correct-matrix; returns this batch's accuracy (a list for several k)."""
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
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        res = [float(t) / c if c > 0 else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res

    def _init_name(self, name):
        name = name or "acc"
        self._name = [f"{name}_top{k}" for k in self.topk] if self.maxk != 1 else [name]

    def name(self):
        return self._name


def accuracy(input, label, k=1, correct=None, total=None, name=None):
    """The share of rows whose label is among the k highest scores, as a 0-D float32 tensor.

    input: [N, classes]; label: [N, 1] integer classes. When given, `correct` and `total` (int
    tensors) receive this batch's counts, as Paddle's accuracy op writes them."""
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
