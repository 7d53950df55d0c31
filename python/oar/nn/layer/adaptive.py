"""AdaptiveLogSoftmaxWithLoss (paddle.nn.AdaptiveLogSoftmaxWithLoss): the parameters of an
adaptive softmax (see oar.nn.functional.adaptive) and its three uses: the loss of given labels
(forward), the full [N, n_classes] log-probabilities (log_prob) and the most likely class
(predict).

As in Paddle, tail_weights is a plain list of [projection, output] pairs: only head_weight (and
head_bias) are registered parameters, so state_dict() has Paddle's keys and parameters() gives
what Paddle's gives (an optimizer built from it leaves the tail weights as they are)."""
from ... import _C
from .. import functional as F
from .layers import Layer

__all__ = ["AdaptiveLogSoftmaxWithLoss"]


def _check_cutoffs(cutoffs, n_classes):
    cls = "AdaptiveLogSoftmaxWithLoss"
    if not cutoffs:
        raise ValueError(f"{cls}: argument 'cutoffs' should be a non-empty sequence of class "
                         "boundaries, but received an empty one")
    for c in cutoffs:
        if isinstance(c, bool) or not isinstance(c, (int, float)):
            raise TypeError(f"{cls}: argument 'cutoffs' should hold integers, but received "
                            f"{type(c).__name__} {c!r}")
    if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
            or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
        raise ValueError(f"{cls}: cutoffs should be a sequence of unique, positive integers "
                         "sorted in an increasing order, where each value is between 1 and "
                         f"n_classes-1 (n_classes = {n_classes}), but received {cutoffs}")
    if any(isinstance(c, float) for c in cutoffs):
        raise TypeError(f"{cls}: argument 'cutoffs' should hold integers, but received {cutoffs}")


class AdaptiveLogSoftmaxWithLoss(Layer):
    """Adaptive softmax (Grave et al., 2016): an efficient softmax over many classes whose
    frequencies are skewed.

    The classes are split by ``cutoffs``: the frequent ones (below cutoffs[0]) are scored by a
    head layer that also scores one entry per tail cluster; cluster i (classes cutoffs[i] to
    cutoffs[i+1]) goes through a projection to ``in_features // div_value**(i+1)`` features and
    then to its classes. Classes should be sorted by decreasing frequency.

    Args:
        in_features (int): Size of each input feature vector.
        n_classes (int): Number of classes.
        cutoffs (list[int]): Increasing class indices between 1 and n_classes - 1 splitting the
            clusters.
        weight_attr (ParamAttr, optional): Attribute of the weights. Default: None.
        bias_attr (ParamAttr, optional): Attribute of the head bias. Default: None.
        div_value (float, optional): Divisor of the projection sizes of successive clusters.
            Default: 4.0.
        head_bias (bool, optional): Give the head layer a bias. Default: False.
        name (str, optional): Layer name; usually left unset. Default: None.

    Call:
        ``forward(input, label)`` with input [N, in_features] and label [N] int64 returns
        ``(output, loss)``: output [N], the log-probability of each label, and loss, the mean
        of their negatives (0-D). ``log_prob(input)`` gives all log-probabilities
        [N, n_classes]; ``predict(input)`` the most likely class of each row.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> asm = oar.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[4])
        >>> x = oar.randn([3, 8])
        >>> output, loss = asm(x, oar.to_tensor([0, 5, 9]))
        >>> print(output.shape, loss.shape, asm.log_prob(x).shape)
        [3] [] [3, 10]
    """

    def __init__(self, in_features, n_classes, cutoffs, weight_attr=None, bias_attr=None,
                 div_value=4.0, head_bias=False, name=None):
        super().__init__()
        self._dtype = _C.get_default_dtype()
        cutoffs = list(cutoffs)
        _check_cutoffs(cutoffs, n_classes)
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self._weight_attr = weight_attr
        self._bias_attr = bias_attr
        self.is_head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters

        self.head_weight = self.create_parameter([in_features, self.head_size], attr=weight_attr,
                                                 dtype=self._dtype)
        self.head_bias = (self.create_parameter([self.head_size], attr=bias_attr,
                                                dtype=self._dtype, is_bias=True)
                          if head_bias else None)
        self.tail_weights = []
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            classes = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail_weights.append([
                self.create_parameter([in_features, hidden], attr=weight_attr, dtype=self._dtype),
                self.create_parameter([hidden, classes], attr=weight_attr, dtype=self._dtype)])

    def forward(self, input, label):
        return F.adaptive_log_softmax_with_loss(input, label, self.head_weight, self.tail_weights,
                                                self.cutoffs, self.head_bias)

    def _full_log_prob(self, input, head_output):
        """[N, n_classes]: the head's log-probabilities for the shortlist, then each cluster's
        plus its head entry."""
        head_logprob = F.log_softmax(head_output, axis=1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i, (first, second) in enumerate(self.tail_weights):
            cluster = F.log_softmax(F.linear(F.linear(input, first), second), axis=1)
            slot = self.shortlist_size + i
            parts.append(cluster + head_logprob[:, slot:slot + 1])
        return _C.concat(parts, 1)

    def log_prob(self, input):
        """Log-probabilities of every class.

        Args:
            input (Tensor): [N, in_features].

        Returns:
            Tensor: [N, n_classes].
        """
        return self._full_log_prob(input, F.linear(input, self.head_weight, self.head_bias))

    def predict(self, input):
        """The most likely class of each row of ``input`` [N, in_features].

        As in Paddle, the result is float32 when some row's best head entry is a frequent class, and
        int64 when every row needs the full distribution.

        Returns:
            Tensor: [N].
        """
        head_output = F.linear(input, self.head_weight, self.head_bias)
        output = _C.cast(_C.argmax(head_output, 1, False, "int64"), "float32")
        beyond = _C.greater_equal(output, _C.full_like(output, self.shortlist_size))
        if not bool(_C.any(beyond, None, False).item()):
            return output
        if bool(_C.all(beyond, None, False).item()):
            return _C.argmax(self._full_log_prob(input, head_output), 1, False, "int64")
        rows = _C.reshape(_C.nonzero_coords(beyond), [-1])
        full = self._full_log_prob(_C.index_select(input, rows, 0),
                                   _C.index_select(head_output, rows, 0))
        best = _C.cast(_C.argmax(full, 1, False, "int64"), "float32")
        return _C.scatter(output, rows, best, True)
