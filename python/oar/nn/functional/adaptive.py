"""Adaptive softmax (Grave et al., "Efficient softmax approximation for GPUs", 2017), as
paddle.nn.functional.adaptive_log_softmax_with_loss.

The classes are split by cutoffs into a head (the frequent classes [0, cutoffs[0]) plus one
entry per tail cluster) and tail clusters [cutoffs[i-1], cutoffs[i]). A sample's log-probability
is the head's log-softmax at its class (or at its cluster's entry), plus, for a tail class, the
cluster's own log-softmax (through a two-matrix projection) at the class's place in the cluster.
Each cluster's projection runs only on the rows whose label falls in it."""
from ... import _C
from .common import linear
from .activation import log_softmax

__all__ = ["adaptive_log_softmax_with_loss"]

_OP = "adaptive_log_softmax_with_loss"


def _check_shapes(input, label):
    """Paddle's rules: a 1-D label with a 2-D input (same batch), or a 0-D label with a 1-D
    input (one sample)."""
    if label.ndim == 1:
        if input.shape[0] != label.shape[0] and label.shape[0] != 0:
            raise ValueError(f"{_OP}: input and label should have the same size in the batch "
                             f"dimension, but got input {list(input.shape)} and label "
                             f"{list(label.shape)}")
        if input.ndim != 2:
            raise ValueError(f"{_OP}: 1D label tensor expects 2D input tensors, but found inputs "
                             f"with size {list(input.shape)}")
    elif label.ndim == 0:
        if input.ndim != 1:
            raise ValueError(f"{_OP}: 0D label tensor expects 1D input tensors, but found inputs "
                             f"with size {list(input.shape)}")
    else:
        raise ValueError(f"{_OP}: 0D or 1D label tensor expected, multi-label not supported "
                         f"(label has shape {list(label.shape)})")


def adaptive_log_softmax_with_loss(input, label, head_weight, tail_weights, cutoffs,
                                   head_bias=None, name=None):
    """(output, loss): output[n] is the log-probability of label[n] ([N], or [] for a 1-D input
    with a 0-D label) and loss the mean of -output. head_weight: [in_features, cutoffs[0] +
    len(cutoffs) - 1]; tail_weights[i]: a pair [in_features, h_i], [h_i, cutoffs[i+1] -
    cutoffs[i]]; cutoffs: increasing class boundaries ending with the number of classes."""
    _check_shapes(input, label)
    batched = label.ndim > 0
    if not batched:
        input, label = _C.unsqueeze(input, [0]), _C.unsqueeze(label, [0])
    bounds = [0] + [int(c) for c in cutoffs]
    n_clusters = len(bounds) - 2
    if len(tail_weights) < n_clusters:
        raise IndexError(f"{_OP}: cutoffs {list(bounds[1:])} define {n_clusters} tail clusters, "
                         f"but tail_weights has {len(tail_weights)} [projection, output] pairs")
    if head_weight.shape[-1] < bounds[1] + n_clusters:
        raise IndexError(f"{_OP}: head_weight needs cutoffs[0] + {n_clusters} clusters = "
                         f"{bounds[1] + n_clusters} columns, but has shape "
                         f"{list(head_weight.shape)}")
    n = label.shape[0]
    index = label if label.dtype.name in ("int32", "int64") else _C.cast(label, "int64")

    if n:
        lo, hi = int(_C.min(index, None, False).item()), int(_C.max(index, None, False).item())
        if lo < 0 or hi >= bounds[-1]:
            raise ValueError(f"{_OP}: label values should be in [0, n_classes - 1], but values in "
                             f"range [{lo}, {hi}] were found (n_classes = {bounds[-1]})")

    # Each sample's entry in the head: its class when frequent, else its cluster's slot.
    head_index = index
    tail = None
    for i in range(1, len(bounds) - 1):
        start, stop = bounds[i], bounds[i + 1]
        in_cluster = _C.logical_and(_C.greater_equal(index, _C.full_like(index, start)),
                                    _C.less_than(index, _C.full_like(index, stop)))
        rows = _C.reshape(_C.nonzero_coords(in_cluster), [-1])
        if rows.shape[0] == 0:
            continue
        head_index = _C.where(in_cluster, _C.full_like(index, bounds[1] + i - 1), head_index)
        hidden = linear(_C.index_select(input, rows, 0), tail_weights[i - 1][0])
        cluster_logprob = log_softmax(linear(hidden, tail_weights[i - 1][1]), axis=1)
        place = _C.unsqueeze(_C.masked_select(index, in_cluster) - start, [1])
        picked = _C.reshape(_C.take_along_axis(cluster_logprob, place, 1), [-1])
        part = _C.scatter_nd(_C.unsqueeze(rows, [1]), picked, [n])
        tail = part if tail is None else tail + part

    head_logprob = log_softmax(linear(input, head_weight, head_bias), axis=1)
    output = _C.reshape(_C.take_along_axis(head_logprob, _C.unsqueeze(head_index, [1]), 1), [-1])
    if tail is not None:
        output = tail + output
    loss = _C.mean(-output)
    if not batched:
        output = _C.squeeze(output, [0])
    return output, loss
