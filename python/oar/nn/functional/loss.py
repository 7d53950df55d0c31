"""Losses of paddle.nn.functional. The hard-label cross entropy (cross_entropy,
softmax_with_cross_entropy, nll_loss) runs one fused C++ kernel (log_softmax + nll, forward and
backward); the other losses are written with the elementwise and reduction ops."""
from ... import _C

__all__ = ["cross_entropy", "softmax_with_cross_entropy", "nll_loss", "mse_loss", "l1_loss",
           "smooth_l1_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
           "kl_div", "margin_ranking_loss", "hinge_embedding_loss", "cosine_similarity",
           "cosine_embedding_loss", "sigmoid_focal_loss", "pairwise_distance",
           "triplet_margin_loss"]

_INPUT_LOGITS, _INPUT_PROBS, _INPUT_LOGPROBS = 0, 1, 2


def _check_reduction(op, reduction, allowed=("mean", "sum", "none")):
    if reduction not in allowed:
        raise ValueError(f"{op}: argument 'reduction' must be one of {', '.join(map(repr, allowed))}, "
                         f"got {reduction!r}")


def _reduce(loss, reduction):
    if reduction == "mean":
        return _C.mean(loss)
    if reduction == "sum":
        return _C.sum(loss)
    return loss


def _class_last(op, input, label, ax):
    """input with the class axis `ax` moved last and flattened to [M, C]; label flattened to
    [M]. label may have input's shape without the class dim, or with it of size 1."""
    shape = list(input.shape)
    rest = shape[:ax] + shape[ax + 1:]
    lshape = list(label.shape)
    with_one = shape[:ax] + [1] + shape[ax + 1:]
    if lshape != rest and lshape != with_one:
        raise ValueError(f"{op}: argument 'label' expected shape {rest} or {with_one} (input "
                         f"shape {shape} without its class axis {ax}), got {lshape}")
    if ax != input.ndim - 1:
        perm = [d for d in range(input.ndim) if d != ax] + [ax]
        input = _C.transpose(input, perm)
    return _C.reshape(input, [-1, shape[ax]]), _C.reshape(label, [-1])


def _axis(op, axis, ndim):
    ax = axis + ndim if axis < 0 else axis
    if not 0 <= ax < ndim:
        raise ValueError(f"{op}: argument 'axis' must be in [{-ndim}, {ndim}), got {axis}")
    return ax


def _bshape(weight, ndim, ax):
    s = [1] * ndim
    s[ax] = weight.shape[0]
    return _C.reshape(weight, s)


def cross_entropy(input, label, weight=None, ignore_index=-100, reduction="mean",
                  soft_label=False, axis=-1, use_softmax=True, label_smoothing=0.0, name=None):
    """Paddle's cross_entropy. Hard labels (int, shape [N] or [N, 1] for input [N, C]) use the
    fused kernel; a weighted mean divides by the sum of the weights of the non-ignored labels,
    an unweighted mean by their count when ignore_index >= 0 and by N otherwise (as Paddle)."""
    op = "cross_entropy"
    _check_reduction(op, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"{op}: argument 'label_smoothing' must be in [0, 1], got {label_smoothing}")
    ax = _axis(op, axis, input.ndim)
    C = input.shape[ax]
    if label_smoothing > 0.0:
        if not soft_label:
            lab = label
            if lab.ndim == input.ndim:
                lab = _C.squeeze(lab, [ax])
            lab = _C.one_hot(lab, C)
            if ax != input.ndim - 1:
                perm = list(range(ax)) + [input.ndim - 1] + list(range(ax, input.ndim - 1))
                lab = _C.transpose(lab, perm)
            label = _C.cast(lab, input.dtype)
        label = label * (1.0 - label_smoothing) + label_smoothing / C
        soft_label = True
    if soft_label:
        if list(label.shape) != list(input.shape):
            raise ValueError(f"{op}: with soft_label=True argument 'label' must have input's shape "
                             f"{list(input.shape)}, got {list(label.shape)}")
        logp = _C.log_softmax(input, ax) if use_softmax else _C.log(input)
        loss = -_C.sum(label * logp, [ax], None, True)
        if weight is None:
            return _reduce(loss, reduction)
        wl = _C.sum(label * _bshape(weight, input.ndim, ax), [ax], None, True)
        loss = loss * wl
        if reduction == "mean":
            return _C.sum(loss) / _C.sum(wl)
        return _reduce(loss, reduction)
    x2, l2 = _class_last(op, input, label, ax)
    half = input.dtype.name in ("float16", "bfloat16")
    if half:  # computed in float32; the loss comes back in the input's dtype
        x2 = x2.astype("float32")
        weight = None if weight is None else weight.astype("float32")
    loss, wsum, _ = _C.hard_cross_entropy(x2, l2, weight, int(ignore_index),
                                          _INPUT_LOGITS if use_softmax else _INPUT_PROBS)
    if half:
        return _reduce_hard(loss, wsum, label, weight, ignore_index, reduction).astype(input.dtype)
    return _reduce_hard(loss, wsum, label, weight, ignore_index, reduction)


def _reduce_hard(loss, wsum, label, weight, ignore_index, reduction):
    if reduction == "none":
        return _C.reshape(loss, list(label.shape))
    if reduction == "sum":
        return _C.sum(loss)
    if weight is None and ignore_index < 0:
        return _C.mean(loss)
    return _C.sum(loss) / _C.sum(wsum)


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100,
                               numeric_stable_mode=True, return_softmax=False, axis=-1):
    """Unreduced cross entropy of softmax(logits) along axis; the result has logits' shape with
    the axis of size 1 (and the softmax when return_softmax)."""
    op = "softmax_with_cross_entropy"
    ax = _axis(op, axis, logits.ndim)
    if soft_label:
        loss = cross_entropy(logits, label, None, ignore_index, "none", True, ax)
    else:
        shape = list(logits.shape)
        want = shape[:ax] + [1] + shape[ax + 1:]
        if list(label.shape) != want:
            raise ValueError(f"{op}: argument 'label' expected shape {want}, got {list(label.shape)}")
        x2, l2 = _class_last(op, logits, label, ax)
        loss, _, _ = _C.hard_cross_entropy(x2, l2, None, int(ignore_index), _INPUT_LOGITS)
        loss = _C.reshape(loss, want)
    if return_softmax:
        return loss, _C.softmax(logits, ax)
    return loss


def nll_loss(input, label, weight=None, ignore_index=-100, reduction="mean", name=None):
    """Negative log likelihood of log-probabilities input [N, C, *] at int labels [N, *]; the
    mean divides by the summed weights of the non-ignored labels."""
    op = "nll_loss"
    _check_reduction(op, reduction)
    if input.ndim < 2:
        raise ValueError(f"{op}: argument 'input' must be at least 2-D [N, C, ...], got shape "
                         f"{list(input.shape)}")
    shape = list(input.shape)
    if list(label.shape) != [shape[0]] + shape[2:]:
        raise ValueError(f"{op}: argument 'label' expected shape {[shape[0]] + shape[2:]}, got "
                         f"{list(label.shape)}")
    x2, l2 = _class_last(op, input, label, 1)
    loss, wsum, _ = _C.hard_cross_entropy(x2, l2, weight, int(ignore_index), _INPUT_LOGPROBS)
    if reduction == "none":
        return _C.reshape(loss, list(label.shape))
    if reduction == "sum":
        return _C.sum(loss)
    return _C.sum(loss) / _C.sum(wsum)


def mse_loss(input, label, reduction="mean", name=None):
    _check_reduction("mse_loss", reduction)
    return _reduce(_C.square(input - label), reduction)


def l1_loss(input, label, reduction="mean", name=None):
    _check_reduction("l1_loss", reduction)
    return _reduce(_C.abs(input - label), reduction)


def smooth_l1_loss(input, label, reduction="mean", delta=1.0, is_huber=True, name=None):
    """Huber loss (is_huber): 0.5 d^2 where |d| < delta, else delta (|d| - delta / 2);
    otherwise smooth L1: 0.5 d^2 / delta where |d| < delta, else |d| - delta / 2."""
    _check_reduction("smooth_l1_loss", reduction)
    if delta <= 0:
        raise ValueError(f"smooth_l1_loss: argument 'delta' must be > 0, got {delta}")
    d = input - label
    a = _C.abs(d)
    small = _C.less_than(a, _C.full_like(a, delta))
    if is_huber:
        loss = _C.where(small, 0.5 * d * d, delta * (a - 0.5 * delta))
    else:
        loss = _C.where(small, (0.5 / delta) * d * d, a - 0.5 * delta)
    return _reduce(loss, reduction)


def binary_cross_entropy(input, label, weight=None, reduction="mean", name=None):
    """-(label log(input) + (1 - label) log(1 - input)), logs clamped at -100 (as Paddle)."""
    _check_reduction("binary_cross_entropy", reduction)
    lo = _C.clip(_C.log(input), -100.0)
    l1 = _C.clip(_C.log(1.0 - input), -100.0)
    loss = -(label * lo + (1.0 - label) * l1)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(logit, label, weight=None, reduction="mean",
                                     pos_weight=None, name=None):
    """Sigmoid + binary cross entropy in a stable form:
    (1 - y) x + (1 + (pos_weight - 1) y) (log(1 + exp(-|x|)) + max(-x, 0))."""
    _check_reduction("binary_cross_entropy_with_logits", reduction)
    sp = _C.log1p(_C.exp(-_C.abs(logit))) + _C.relu(-logit)
    if pos_weight is not None:
        loss = (1.0 - label) * logit + (1.0 + (pos_weight - 1.0) * label) * sp
    else:
        loss = (1.0 - label) * logit + sp
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def kl_div(input, label, reduction="mean", log_target=False, name=None):
    """label * (log(label) - input) (0 where label <= 0); with log_target,
    exp(label) * (label - input). 'batchmean' divides the sum by the batch size."""
    _check_reduction("kl_div", reduction, ("mean", "sum", "none", "batchmean"))
    if log_target:
        loss = _C.exp(label) * (label - input)
    else:
        pos = _C.greater_than(label, _C.zeros_like(label))
        safe = _C.where(pos, label, _C.ones_like(label))
        loss = _C.where(pos, label * (_C.log(safe) - input), _C.zeros_like(label))
    if reduction == "batchmean":
        return _C.sum(loss) / (input.shape[0] if input.ndim else 1)
    return _reduce(loss, reduction)


def margin_ranking_loss(input, other, label, margin=0.0, reduction="mean", name=None):
    """max(0, -label * (input - other) + margin)."""
    _check_reduction("margin_ranking_loss", reduction)
    return _reduce(_C.relu(-label * (input - other) + margin), reduction)


def hinge_embedding_loss(input, label, margin=1.0, reduction="mean", name=None):
    """input where label == 1, max(0, margin - input) where label == -1 (0 elsewhere)."""
    _check_reduction("hinge_embedding_loss", reduction)
    zero = _C.zeros_like(input)
    pos = _C.where(_C.equal(label, _C.ones_like(label)), input, zero)
    neg = _C.where(_C.equal(label, _C.full_like(label, -1)), _C.relu(margin - input), zero)
    return _reduce(pos + neg, reduction)


def cosine_similarity(x1, x2, axis=1, eps=1e-8):
    """sum(x1 * x2) / sqrt(max(sum(x1^2) * sum(x2^2), eps^2)) along axis."""
    w12 = _C.sum(x1 * x2, [axis])
    w1 = _C.sum(x1 * x1, [axis])
    w2 = _C.sum(x2 * x2, [axis])
    return w12 / _C.sqrt(_C.clip(w1 * w2, eps * eps))


def cosine_embedding_loss(input1, input2, label, margin=0, reduction="mean", name=None):
    """1 - cos(input1, input2) where label == 1, max(0, cos - margin) where label == -1
    (rows along the last axis)."""
    _check_reduction("cosine_embedding_loss", reduction)
    if input1.ndim not in (1, 2) or list(input1.shape) != list(input2.shape):
        raise ValueError("cosine_embedding_loss: arguments 'input1' and 'input2' must be 1-D or 2-D "
                         f"of one shape, got {list(input1.shape)} and {list(input2.shape)}")
    cos = cosine_similarity(input1, input2, axis=-1, eps=1e-12)
    lab = _C.cast(label, cos.dtype)
    one = _C.ones_like(cos)
    loss = _C.where(_C.equal(lab, one), 1.0 - cos, _C.zeros_like(cos))
    loss = loss + _C.where(_C.equal(lab, -one), _C.relu(cos - margin), _C.zeros_like(cos))
    return _reduce(loss, reduction)


def sigmoid_focal_loss(logit, label, normalizer=None, alpha=0.25, gamma=2.0, reduction="sum",
                       name=None):
    """alpha_t * (1 - p_t)^gamma * bce_with_logits(logit, label), divided by normalizer."""
    _check_reduction("sigmoid_focal_loss", reduction)
    p = _C.sigmoid(logit)
    ce = binary_cross_entropy_with_logits(logit, label, reduction="none")
    p_t = p * label + (1.0 - p) * (1.0 - label)
    alpha_t = alpha * label + (1.0 - alpha) * (1.0 - label)
    loss = alpha_t * ce * _C.pow(1.0 - p_t, gamma) if gamma != 0 else alpha_t * ce
    if normalizer is not None:
        loss = loss / normalizer
    return _reduce(loss, reduction)


def pairwise_distance(x, y, p=2.0, epsilon=1e-06, keepdim=False, name=None):
    """||x - y + epsilon||_p along the last axis."""
    return _C.p_norm(x - y + epsilon, float(p), [-1], keepdim)


def triplet_margin_loss(input, positive, negative, margin=1.0, p=2, epsilon=1e-06, swap=False,
                        reduction="mean", name=None):
    """max(0, d(input, positive) - d(input, negative) + margin) with d the pairwise p-distance
    (swap: the negative distance is the smaller of d(input, negative), d(positive, negative))."""
    _check_reduction("triplet_margin_loss", reduction)
    dp = pairwise_distance(input, positive, p, epsilon)
    dn = pairwise_distance(input, negative, p, epsilon)
    if swap:
        dn = _C.minimum(dn, pairwise_distance(positive, negative, p, epsilon))
    return _reduce(_C.relu(dp - dn + margin), reduction)
