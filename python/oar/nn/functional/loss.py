"""Losses of paddle.nn.functional. The hard-label cross entropy (cross_entropy,
softmax_with_cross_entropy, nll_loss) runs one fused C++ kernel (log_softmax + nll, forward and
backward); ctc_loss runs oar's C++ forward-backward in log space (oar/kernels/cpu/ctc.*); the other
losses are written with the elementwise and reduction ops (their gradients come from those ops)."""
import math

from ... import _C
from ...framework.errors import DTypeError
from ...framework.mode import is_symbolic

__all__ = ["cross_entropy", "softmax_with_cross_entropy", "nll_loss", "mse_loss", "l1_loss",
           "smooth_l1_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
           "kl_div", "margin_ranking_loss", "hinge_embedding_loss", "cosine_similarity",
           "cosine_embedding_loss", "sigmoid_focal_loss", "pairwise_distance",
           "triplet_margin_loss", "ctc_loss", "gaussian_nll_loss", "poisson_nll_loss",
           "soft_margin_loss", "multi_label_soft_margin_loss", "multi_margin_loss",
           "multi_label_margin_loss", "log_loss", "dice_loss", "square_error_cost", "npair_loss",
           "triplet_margin_with_distance_loss", "margin_cross_entropy", "hsigmoid_loss"]

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
        # Under auto_cast the result has the dtype the op would compute in (float32 at O1).
        out_dtype = _C._amp_compute_dtype("hard_cross_entropy", [input]) if _C._amp_active() else input.dtype
        return _reduce_hard(loss, wsum, label, weight, ignore_index, reduction).astype(out_dtype)
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
    """Mean squared error between input and label: reduction of (input - label) ** 2.

    Args:
        input (Tensor): The prediction, a floating-point tensor.
        label (Tensor): The target, broadcastable with input.
        reduction (str, optional): 'mean', 'sum' or 'none' (the elementwise loss). Default: 'mean'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: a 0-D tensor for 'mean' and 'sum', the broadcast shape for 'none'.

    Examples:
        >>> import oar
        >>> input = oar.to_tensor([1.0, 2.0, 3.0])
        >>> label = oar.to_tensor([1.5, 2.0, 1.0])
        >>> print(oar.nn.functional.mse_loss(input, label).numpy())
        1.4166666
    """
    _check_reduction("mse_loss", reduction)
    return _reduce(_C.square(input - label), reduction)


def l1_loss(input, label, reduction="mean", name=None):
    """Mean absolute error between input and label: reduction of |input - label|.

    Args:
        input (Tensor): The prediction, a floating-point tensor.
        label (Tensor): The target, broadcastable with input.
        reduction (str, optional): 'mean', 'sum' or 'none' (the elementwise loss). Default: 'mean'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: a 0-D tensor for 'mean' and 'sum', the broadcast shape for 'none'.

    Examples:
        >>> import oar
        >>> input = oar.to_tensor([1.0, 2.0, 3.0])
        >>> label = oar.to_tensor([1.5, 2.0, 1.0])
        >>> print(oar.nn.functional.l1_loss(input, label, reduction='none').numpy())
        [0.5 0.  2. ]
    """
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
    op = "cosine_embedding_loss"
    _check_reduction(op, reduction)
    # Paddle's checks, in its order and with its exception types (ValueError for the dtypes too).
    if label.ndim != 1:
        raise ValueError(f"{op}: 1D target tensor expected, multi-target not supported; got label of shape "
                         f"{list(label.shape)}")
    if input1.ndim not in (1, 2) or list(input1.shape) != list(input2.shape):
        raise ValueError(f"{op}: arguments 'input1' and 'input2' must be 1-D or 2-D "
                         f"of one shape, got {list(input1.shape)} and {list(input2.shape)}")
    for name, t in (("input1", input1), ("input2", input2)):
        if t.dtype.name not in ("float32", "float64"):
            raise DTypeError(f"{op}: The data type of input Variable must be 'float32' or 'float64', but "
                             f"argument '{name}' is {t.dtype.name}")
    if label.dtype.name not in ("int32", "int64", "float32", "float64"):
        raise DTypeError(f"{op}: The data type of label Variable must be 'int32', 'int64', 'float32', "
                         f"'float64', got {label.dtype.name}")
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


# ---- losses of loss2.yaml (ctc) and further compositions ----


def _same_shape(op, input, label):
    if list(input.shape) != list(label.shape):
        raise ValueError(f"{op}: arguments 'input' and 'label' must have the same shape, got "
                         f"{list(input.shape)} and {list(label.shape)}")


def _float_input(op, name, t):
    if t.dtype.name not in ("float32", "float64"):
        # TypeError by convention, and ValueError as Paddle's dynamic-mode checks raise.
        raise DTypeError(f"{op}: argument '{name}' must be a float32 or float64 tensor, got "
                        f"{t.dtype.name}")


def ctc_loss(log_probs, labels, input_lengths, label_lengths, blank=0, reduction="mean",
             norm_by_times=False, zero_infinity=False):
    """CTC loss of log_probs [T, N, C] (unnormalised: log-softmax is taken over C, as Paddle's
    warpctc) against padded labels [N, Lmax]. 'none': the per-sample loss [N]; 'mean': the mean
    of loss / label_lengths; norm_by_times divides the gradient by input_lengths (the loss is
    unchanged); zero_infinity: infeasible samples get loss 0 and no gradient."""
    _check_reduction("ctc_loss", reduction)
    loss, _ = _C.ctc_loss_base(log_probs, labels, input_lengths, label_lengths, int(blank),
                               bool(norm_by_times))
    if zero_infinity:
        loss = _C.where(_C.isinf(loss), _C.zeros_like(loss), loss)
    if reduction == "mean":
        return _C.mean(loss / _C.cast(label_lengths, loss.dtype))
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, label, variance, full=False, epsilon=1e-6, reduction="mean",
                      name=None):
    """0.5 (log(max(var, epsilon)) + (input - label)^2 / max(var, epsilon)) (+ 0.5 log(2 pi) when
    full); variance of input's shape, or of input's shape without (or with 1 as) its last dim.
    The clamp is not differentiated (gradient as if var were used directly)."""
    op = "gaussian_nll_loss"
    _check_reduction(op, reduction)
    for n, t in (("input", input), ("label", label), ("variance", variance)):
        _float_input(op, n, t)
    ishape, vshape = list(input.shape), list(variance.shape)
    if vshape != ishape:
        if ishape[:-1] == vshape:
            variance = _C.unsqueeze(variance, [-1])
        elif not (ishape[:-1] == vshape[:-1] and vshape and vshape[-1] == 1):
            raise ValueError(f"{op}: argument 'variance' must have input's shape {ishape}, or it "
                             f"without the last dim or with a last dim of 1, got {vshape}")
    # Checked when the op runs (a static program reads no data while it is built).
    variance = _C.check_values(variance, _C.logical_not(_C.less_than(variance, _C.zeros_like(variance))),
                               f"{op}: argument 'variance' has negative entries")
    # max(var, eps) in the forward, the gradient of var itself
    clamped = _C.clip(variance, float(epsilon))
    var = variance + (clamped - variance).detach()
    loss = 0.5 * (_C.log(var) + _C.square(input - label) / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def poisson_nll_loss(input, label, log_input=True, full=False, epsilon=1e-8, reduction="mean",
                     name=None):
    """exp(input) - label * input (log_input), else input - label * log(input + epsilon); full
    adds Stirling's term label log(label) - label + 0.5 log(2 pi label) where label > 1."""
    op = "poisson_nll_loss"
    if epsilon <= 0:
        raise ValueError(f"{op}: argument 'epsilon' must be > 0, got {epsilon}")
    _check_reduction(op, reduction)
    _same_shape(op, input, label)
    if log_input:
        loss = _C.exp(input) - label * input
    else:
        loss = input - label * _C.log(input + epsilon)
    if full:
        big = _C.greater_than(label, _C.ones_like(label))
        safe = _C.where(big, label, _C.full_like(label, 2.0))
        st = safe * _C.log(safe) - safe + 0.5 * _C.log(safe * (2 * math.pi))
        loss = loss + _C.where(big, st, _C.zeros_like(st))
    return _reduce(loss, reduction)


def soft_margin_loss(input, label, reduction="mean", name=None):
    """log(1 + exp(-label * input))."""
    op = "soft_margin_loss"
    _check_reduction(op, reduction)
    _same_shape(op, input, label)
    z = -_C.cast(label, input.dtype) * input
    # log1p(exp(z)) without overflow: max(z, 0) + log1p(exp(-|z|))
    return _reduce(_C.relu(z) + _C.log1p(_C.exp(-_C.abs(z))), reduction)


def multi_label_soft_margin_loss(input, label, weight=None, reduction="mean", name=None):
    """-mean over classes of label log sigmoid(x) + (1 - label) log sigmoid(-x) (times weight),
    one value per sample, then reduced."""
    op = "multi_label_soft_margin_loss"
    _check_reduction(op, reduction)
    _same_shape(op, input, label)
    loss = -(label * _C.log_sigmoid(input) + (1.0 - label) * _C.log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    return _reduce(_C.mean(loss, [-1], False), reduction)


def multi_margin_loss(input, label, p=1, margin=1.0, weight=None, reduction="mean", name=None):
    """sum over j != y of weight[y] max(0, margin - x[y] + x[j])^p / C per sample (p 1 or 2)."""
    op = "multi_margin_loss"
    _check_reduction(op, reduction)
    if p not in (1, 2):
        raise ValueError(f"{op}: argument 'p' must be 1 or 2, got {p}")
    if input.ndim != 2:
        raise ValueError(f"{op}: argument 'input' must be 2-D [N, C], got shape {list(input.shape)}")
    if label.shape[0] != input.shape[0]:
        raise ValueError(f"{op}: argument 'label' must have {input.shape[0]} entries (input's "
                         f"shape[0]), got shape {list(label.shape)}")
    C = input.shape[1]
    lab = _C.reshape(label, [-1, 1])
    xy = _C.take_along_axis(input, lab, 1, True)
    m = _C.relu(margin - xy + input)
    if p == 2:
        m = m * m
    loss = _C.mean(m, [1], False) - margin ** p / C
    if weight is not None:
        if weight.ndim != 1 or weight.shape[0] != C:
            raise ValueError(f"{op}: argument 'weight' expected shape [{C}] (input's shape[1]), got "
                             f"{list(weight.shape)}")
        wy = _C.gather(weight, _C.reshape(label, [-1]), 0)
        loss = _C.mean(m * _C.unsqueeze(wy, [1]), [1], False) - wy * (margin ** p / C)
    return _reduce(loss, reduction)


def multi_label_margin_loss(input, label, reduction="mean", name=None):
    """label [N, C] holds target classes up to the first -1; per sample the sum over targets j
    and non-targets k of max(0, 1 - (x[j] - x[k])), divided by C."""
    op = "multi_label_margin_loss"
    _check_reduction(op, reduction)
    if input.ndim != 2:
        raise ValueError(f"{op}: argument 'input' must be 2-D [N, C], got {input.ndim}-D")
    if label.ndim != 2:
        raise ValueError(f"{op}: argument 'label' must be 2-D [N, C], got {label.ndim}-D")
    _same_shape(op, input, label)
    C = input.shape[1]
    if is_symbolic(label):  # a program: checked when it runs
        label = _C.check_values(label, _C.logical_and(_C.greater_equal(label, _C.full_like(label, -1)),
                                                      _C.less_than(label, _C.full_like(label, C))),
                                f"{op}: label values must be in [-1, {C})")
    elif label.numel():
        lo, hi = int(_C.min(label, None, False).item()), int(_C.max(label, None, False).item())
        if lo < -1:
            raise ValueError(f"{op}: label values must be >= -1, got {lo}")
        if hi >= C:
            raise ValueError(f"{op}: label values must be < {C}, got {hi}")
    dt = input.dtype
    valid = _C.cumprod(_C.cast(_C.not_equal(label, _C.full_like(label, -1)), dt), 1, None)  # [N, L]
    safe = _C.where(_C.equal(label, _C.full_like(label, -1)), _C.zeros_like(label), label)
    onehot = _C.cast(_C.one_hot(safe, C), dt) * _C.unsqueeze(valid, [2])  # [N, L, C]
    is_target = _C.clip(_C.sum(onehot, [1], None, False), 0.0, 1.0)  # [N, C]
    xt = _C.take_along_axis(input, safe, 1, True)  # [N, L]
    margins = _C.relu(1.0 - _C.unsqueeze(xt, [2]) + _C.unsqueeze(input, [1]))  # [N, L, C]
    mask = _C.unsqueeze(valid, [2]) * _C.unsqueeze(1.0 - is_target, [1])
    loss = _C.sum(margins * mask, [1, 2], None, False) / C
    return _reduce(loss, reduction)


def log_loss(input, label, epsilon=1e-4, name=None):
    """-label log(input + epsilon) - (1 - label) log(1 - input + epsilon), elementwise."""
    _same_shape("log_loss", input, label)
    return -label * _C.log(input + epsilon) - (1.0 - label) * _C.log(1.0 - input + epsilon)


def dice_loss(input, label, epsilon=1e-5, name=None):
    """1 - 2 |input * onehot(label)| / (|input| + |onehot(label)| + epsilon) per sample, averaged;
    input [N, ..., C] probabilities, label [N, ..., 1] int classes."""
    op = "dice_loss"
    _float_input(op, "input", input)
    if label.dtype.name not in ("int32", "int64"):
        raise TypeError(f"{op}: argument 'label' must be an int32 or int64 tensor, got {label.dtype.name}")
    if input.ndim < 2:
        raise ValueError(f"{op}: argument 'input' must be at least 2-D, got shape {list(input.shape)}")
    if label.ndim != input.ndim or label.shape[-1] != 1 or list(label.shape[:-1]) != list(input.shape[:-1]):
        raise ValueError(f"{op}: argument 'label' expected shape {list(input.shape[:-1]) + [1]}, "
                         f"got {list(label.shape)}")
    oh = _C.cast(_C.one_hot(_C.squeeze(label, [-1]), input.shape[-1]), input.dtype)
    dims = list(range(1, input.ndim))
    inse = _C.sum(input * oh, dims, None, False)
    den = _C.sum(input, dims, None, False) + _C.sum(oh, dims, None, False)
    return _C.mean(1.0 - inse * 2.0 / (den + epsilon))


def square_error_cost(input, label):
    """(input - label)^2, elementwise."""
    return _C.square(input - label)


def npair_loss(anchor, positive, labels, l2_reg=0.002):
    """N-pair loss: soft-label cross entropy of anchor @ positive^T against the row-normalised
    same-label matrix, plus l2_reg / 4 times the mean squared norms of anchor and positive."""
    op = "npair_loss"
    if anchor.numel() == 0:
        raise ValueError(f"{op}: argument 'anchor' must not be empty")
    if positive.numel() == 0:
        raise ValueError(f"{op}: argument 'positive' must not be empty")
    B = labels.shape[0]
    lab = _C.reshape(labels, [B, 1])
    same = _C.cast(_C.equal(lab, _C.reshape(labels, [1, B])), anchor.dtype)
    same = same / _C.sum(same, [1], None, True)
    l2 = (_C.mean(_C.sum(_C.square(anchor), [1], None, False)) +
          _C.mean(_C.sum(_C.square(positive), [1], None, False))) * (0.25 * l2_reg)
    sim = _C.matmul(anchor, positive, False, True)
    ce = -_C.sum(same * _C.log_softmax(sim, 1), [1], None, True)  # [B, 1]
    return l2 + _C.mean(_C.sum(same * ce, [0], None, False))


def triplet_margin_with_distance_loss(input, positive, negative, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean", name=None):
    """max(0, d(input, positive) - d(input, negative) + margin), d = distance_function or the
    pairwise 2-norm distance; swap: the negative distance is min(d(a, n), d(p, n))."""
    op = "triplet_margin_with_distance_loss"
    _check_reduction(op, reduction)
    if margin < 0:
        raise ValueError(f"{op}: argument 'margin' must be >= 0, got {margin}")
    d = distance_function if distance_function is not None else pairwise_distance
    dp = d(input, positive)
    dn = d(input, negative)
    if swap:
        dn = _C.minimum(dn, d(positive, negative))
    return _reduce(_C.relu(dp - dn + margin), reduction)


def margin_cross_entropy(logits, label, margin1=1.0, margin2=0.5, margin3=0.0, scale=64.0,
                         group=None, return_softmax=False, reduction="mean"):
    """Combined-margin softmax cross entropy (ArcFace / CosFace / SphereFace), single process:
    logits are cosines; the target class's becomes cos(margin1 acos(x) + margin2) - margin3, all
    are scaled by `scale`, then softmax cross entropy. 'none' gives [N, 1]."""
    op = "margin_cross_entropy"
    if reduction is None:
        reduction = "none"
    _check_reduction(op, reduction)
    if group not in (None, False):
        raise NotImplementedError(f"{op}: model-parallel groups are not supported (single process)")
    if logits.ndim != 2:
        raise ValueError(f"{op}: argument 'logits' must be 2-D [N, C], got shape {list(logits.shape)}")
    if label.ndim == 2 and label.shape[1] == 1:
        label = _C.reshape(label, [-1])
    if label.ndim != 1 or label.shape[0] != logits.shape[0]:
        raise ValueError(f"{op}: argument 'label' expected shape [{logits.shape[0]}] or "
                         f"[{logits.shape[0]}, 1], got {list(label.shape)}")
    C = logits.shape[1]
    oh = _C.cast(_C.one_hot(label, C), logits.dtype)
    theta = _C.acos(_C.clip(logits, -1.0, 1.0))
    target = _C.cos(theta * margin1 + margin2) - margin3
    z = (logits + oh * (target - logits)) * scale
    logp = _C.log_softmax(z, 1)
    loss = -_C.sum(oh * logp, [1], None, True)
    loss = _reduce(loss, reduction)
    if return_softmax:
        return loss, _C.exp(logp)
    return loss


def hsigmoid_loss(input, label, num_classes, weight, bias=None, path_table=None, path_code=None,
                  is_sparse=False, name=None):
    """Hierarchical sigmoid loss, [N, 1]. Without path_table the classes are the leaves of a
    complete binary tree: for code = label + num_classes, step j of the path uses node
    (code >> (j + 1)) - 1 with bit (code >> j) & 1 while that node is >= 0. With path_table /
    path_code [N, L] the nodes and bits are given (nodes < 0 end a path). Per step
    pre = clip(weight[node] . x + bias[node], -40, 40); loss = sum of softplus(pre) - bit * pre,
    plus log 2 for every unused step of a path shorter than L (as Paddle)."""
    op = "hsigmoid_loss"
    if num_classes < 2:
        raise ValueError(f"{op}: argument 'num_classes' must be >= 2, got {num_classes}")
    _float_input(op, "input", input)
    if input.ndim != 2:
        raise ValueError(f"{op}: argument 'input' must be 2-D [N, D], got shape {list(input.shape)}")
    N, D = input.shape
    lab = _C.reshape(label, [-1])
    if lab.shape[0] != N:
        raise ValueError(f"{op}: argument 'label' must hold {N} labels (input's rows), got shape "
                         f"{list(label.shape)}")
    if (path_table is None) != (path_code is None):
        raise ValueError(f"{op}: arguments 'path_table' and 'path_code' must be given together")
    if path_table is None:
        if weight.ndim != 2 or list(weight.shape) != [num_classes - 1, D]:
            raise ValueError(f"{op}: argument 'weight' expected shape {[num_classes - 1, D]}, got "
                             f"{list(weight.shape)}")
        code = _C.cast(lab, "int64") + num_classes
        steps = max(1, (2 * num_classes - 1).bit_length() - 1)
        nodes = _C.stack([_C.floor_divide(code, _C.full_like(code, 2 ** (j + 1))) - 1
                          for j in range(steps)], 1)
        bits = _C.stack([_C.remainder(_C.floor_divide(code, _C.full_like(code, 2 ** j)),
                                      _C.full_like(code, 2)) for j in range(steps)], 1)
    else:
        nodes, bits = _C.cast(path_table, "int64"), _C.cast(path_code, "int64")
        if nodes.ndim != 2 or nodes.shape[0] != N or list(bits.shape) != list(nodes.shape):
            raise ValueError(f"{op}: arguments 'path_table' and 'path_code' must be [N, L] with "
                             f"N = {N}, got {list(path_table.shape)} and {list(path_code.shape)}")
    valid = _C.greater_equal(nodes, _C.zeros_like(nodes))
    safe = _C.where(valid, nodes, _C.zeros_like(nodes))
    L = nodes.shape[1]
    w = _C.reshape(_C.gather(weight, _C.reshape(safe, [-1]), 0), [N, L, D])
    pre = _C.sum(w * _C.unsqueeze(input, [1]), [2], None, False)
    if bias is not None:
        pre = pre + _C.reshape(_C.gather(_C.reshape(bias, [-1]), _C.reshape(safe, [-1]), 0), [N, L])
    pre = _C.clip(pre, -40.0, 40.0)
    sp = _C.relu(pre) + _C.log1p(_C.exp(-_C.abs(pre)))
    validf = _C.cast(valid, input.dtype)
    term = (sp - _C.cast(bits, input.dtype) * pre) * validf
    # As Paddle, each unused step of a path shorter than L adds softplus(0) = log 2 (a constant).
    pad = (L - _C.sum(validf, [1], None, True)) * math.log(2.0)
    return _C.sum(term, [1], None, True) + pad
