"""paddle.static.nn.nce: the noise-contrastive estimation loss, with its samplers."""
import math

import numpy as np

from ...framework import mode
from .common import _param, _prefix, _static_only

# Rows of the seeded draw pool used when the batch size is unknown and seed != 0 (see _uniform).
_POOL_ROWS = 4096


def _uniform(ref, cols, seed):
    """[B, cols] float64 draws in [0, 1), B = ref.shape[0] (known when the program runs).
    seed != 0 gives the same draws on every run, as Paddle's samplers seeded with `seed`.
    A known B draws them with one uniform op; an unknown B (a static program's -1) from
    Bernoulli bits (31 per draw, of a tensor shaped after ref), or, seeded, from the rows of a
    seeded [4096, cols] pool (row i takes pool row i mod 4096)."""
    import oar
    from ... import _C
    b = ref.shape[0]
    if b >= 0:
        return _C.uniform([b, cols], "float64", 0.0, 1.0, int(seed))
    col0 = oar.cast(ref[:, :1], "float64")
    if seed:
        pool = _C.uniform([_POOL_ROWS, cols], "float64", 0.0, 1.0, int(seed))
        rows = oar.cast(oar.cumsum(oar.ones_like(col0[:, 0]), 0), "int64") - 1
        return oar.gather(pool, oar.remainder(rows, oar.full_like(rows, _POOL_ROWS)))
    bits = oar.bernoulli(oar.unsqueeze(oar.zeros_like(col0), -1) + oar.full([1, cols, 31], 0.5, "float64"))
    scale = oar.to_tensor(np.ldexp(1.0, -np.arange(1, 32)), dtype="float64")
    return oar.sum(bits * scale, -1)


def _alias_table(dist):
    """Walker's alias table of the distribution `dist` (Paddle's construction, so the sampler
    makes the same choices): (alias, alias_probs), alias -1 where a class keeps its own slot."""
    n = len(dist)
    alias_probs, alias = [0.0] * n, [0] * n
    bigs, littles = [], []
    for i in range(n):
        p = float(dist[i]) * n
        if p - 1.0 > 0:
            bigs.append((i, p))
        elif 1.0 - p > 0:
            littles.append((i, p))
        else:
            alias_probs[i], alias[i] = p, -1
    while bigs and littles:
        big, little = bigs.pop(0), littles.pop(0)
        alias_probs[little[0]], alias[little[0]] = little[1], big[0]
        left = big[1] + little[1] - 1
        if left - 1.0 > 0:
            bigs.append((big[0], left))
        elif 1.0 - left > 0:
            littles.append((big[0], left))
        else:
            alias_probs[big[0]], alias[big[0]] = left, -1
    for rest in (bigs, littles):
        if rest:
            i = rest.pop(0)[0]
            alias_probs[i], alias[i] = 1.0, -1
    return alias, alias_probs


def _sample(sampler, u, n, tables):
    """Negative classes [B, k] (int64) from the draws u [B, k] (two per class for custom_dist)."""
    import oar
    if sampler == "uniform":
        return oar.clip(oar.cast(oar.floor(u * float(n)), "int64"), 0, n - 1)
    if sampler == "log_uniform":
        v = oar.cast(oar.floor(oar.exp(u * math.log(n))), "int64") - 1
        v = oar.clip(v, 0, n - 1)
        # Paddle takes the value mod (n - 1): a rounding up to n - 1 wraps to 0.
        return oar.remainder(v, oar.full_like(v, n - 1)) if n > 1 else v
    alias, alias_probs = tables
    k = u.shape[1] // 2
    idx = oar.clip(oar.cast(oar.floor(u[:, :k] * float(n)), "int64"), 0, n - 1)
    p = oar.cast(u[:, k:], "float32")
    other = oar.cast(oar.gather(alias, idx.flatten()).reshape(idx.shape), "int64")
    keep = oar.gather(alias_probs, idx.flatten()).reshape(idx.shape)
    return oar.where((p > keep) & (other != -1), other, idx)


def _nce_cost(input, sample_labels, num_true, weight, bias, probs, num_neg_samples, sample_weight=None):
    """The NCE cost [B, 1] of fixed sample labels [B, T + k] (T true classes first), as Paddle's
    nce kernel: o = sigmoid(input . weight[c] + bias[c]) for each sampled class c, b = P(c) * k
    (P the sampler's probability, float32), cost = sum_true -log(o / (o + b)) +
    sum_neg -log(b / (o + b)), times the row's sample weight."""
    import oar
    rows = oar.gather(weight, sample_labels.flatten()).reshape(list(sample_labels.shape) + [weight.shape[1]])
    logits = oar.sum(oar.unsqueeze(input, 1) * rows, -1)
    if bias is not None:
        logits = logits + oar.gather(bias.reshape([-1]), sample_labels.flatten()).reshape(sample_labels.shape)
    o = oar.nn.functional.sigmoid(logits)
    b = oar.gather(probs, sample_labels.flatten()).reshape(sample_labels.shape) * float(num_neg_samples)
    b = oar.cast(b, input.dtype)
    s = o + b
    true_cost = -oar.log(o[:, :num_true] / s[:, :num_true])
    neg_cost = -oar.log(b[:, num_true:] / s[:, num_true:])
    cost = oar.sum(true_cost, 1, keepdim=True) + oar.sum(neg_cost, 1, keepdim=True)
    if sample_weight is not None:
        cost = cost * oar.cast(sample_weight.reshape([-1, 1]), input.dtype)
    return cost


def nce(input, label, num_total_classes, sample_weight=None, param_attr=None, bias_attr=None, num_neg_samples=None,
        name=None, sampler="uniform", custom_dist=None, seed=0, is_sparse=False):
    """The noise-contrastive estimation loss (paddle.static.nn.nce; static mode only). Makes the
    class weights ``nce_<n>.w_0`` [num_total_classes, D] (Xavier) and biases ``nce_<n>.b_0``
    [num_total_classes, 1] (zeros); for custom_dist also the stop_gradient tables ``.w_1``
    (the probabilities, float32), ``.w_2`` (alias, int32) and ``.w_3`` (alias probabilities).
    Each run draws, for every row, num_neg_samples negative classes from the sampler:
    'uniform' (P(c) = 1 / N), 'log_uniform' (P(c) = log((c + 2) / (c + 1)) / log(N)) or
    'custom_dist' (P(c) = custom_dist[c], by Walker's alias method); true classes may be drawn.
    For each sampled class c, o = sigmoid(input . w_c + b_c) and b = P(c) * num_neg_samples;
    the row's cost is sum over the true classes of -log(o / (o + b)) plus sum over the negatives
    of -log(b / (o + b)), times its sample weight, and the result is cost / (num_neg_samples + 1).
    The samples are constants for the gradient. A nonzero seed makes every run draw the same
    samples (with an unknown batch size, rows repeat every 4096). As Paddle it prints a note about
    sparse mode when called.

    Args:
        input (Tensor): [B, D], float32 or float64.
        label (Tensor): int64 [B, T], the true classes.
        num_total_classes (int): N, the number of classes.
        sample_weight (Tensor, optional): [B, 1] weight of each row. Default: None (1).
        param_attr (ParamAttr, optional): The weights' attribute. Default: None.
        bias_attr (ParamAttr|bool, optional): The biases' attribute; False: none. Default: None.
        num_neg_samples (int, optional): Negatives per row. Default: None (10).
        name (str, optional): Unused. Default: None.
        sampler (str, optional): 'uniform', 'log_uniform' or 'custom_dist'. Default: 'uniform'.
        custom_dist (list|numpy.ndarray, optional): N probabilities, for 'custom_dist'. Default: None.
        seed (int, optional): 0: fresh samples each run; else the same ones. Default: 0.
        is_sparse (bool, optional): Unused (sparse gradients). Default: False.

    Returns:
        Tensor: the loss, [B, 1].

    Examples:
        >>> import oar, numpy as np
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('x', [None, 4], 'float32')
        ...     label = oar.static.data('label', [None, 1], 'int64')
        ...     loss = oar.static.nn.nce(x, label, num_total_classes=5, num_neg_samples=3,
        ...                              param_attr=oar.nn.initializer.Constant(0.0))
        With sparse mode, if your models has only small parameter prefetch may cause speed down
        >>> exe = oar.static.Executor()
        >>> out = exe.run(main, feed={'x': np.ones([2, 4], 'float32'), 'label': np.array([[1], [3]])},
        ...               fetch_list=[loss])[0]
        >>> print(out.shape, np.allclose(out, (np.log(1 + 0.6 / 0.5) + 3 * np.log(1 + 0.5 / 0.6)) / 4))
        (2, 1) True
        >>> oar.disable_static()
    """
    import oar
    from ... import _C
    from ...nn.initializer import Assign
    from ...framework.param_attr import ParamAttr
    _static_only("nce")
    if not isinstance(input, _C.Tensor) or input.dtype not in ("float32", "float64"):
        got = input.dtype if isinstance(input, _C.Tensor) else type(input).__name__
        raise TypeError(f"The data type of 'input' in nce must be ['float32', 'float64'], but received {got}.")
    if not isinstance(label, _C.Tensor) or label.dtype != "int64":
        got = label.dtype if isinstance(label, _C.Tensor) else type(label).__name__
        raise TypeError(f"The data type of 'label' in nce must be ['int64'], but received {got}.")
    if input.ndim != 2:
        raise ValueError(f"The rank of `input` must be 2, but received {input.ndim}.")
    if label.ndim != 2:
        raise ValueError(f"nce: label must be 2-D [batch_size, num_true_class], got shape {label.shape}")
    if not isinstance(num_total_classes, int) or num_total_classes <= 0:
        raise ValueError(f"nce: num_total_classes must be a positive int, got {num_total_classes!r}")
    dim, num_true = input.shape[1], label.shape[1]
    if dim < 0 or num_true < 0:
        raise ValueError(f"nce: the last dims of input and label must be known, got {input.shape} and {label.shape}")
    n = num_total_classes
    prefix = _prefix("nce", "nce")
    with mode.eager():
        w = _param("nce", prefix, param_attr, [n, dim], input.dtype)
        b = _param("nce", prefix, bias_attr, [n, 1], input.dtype, is_bias=True)
    tables = None
    if sampler == "uniform":
        probs = np.full([n], 1.0 / n, "float32")
    elif sampler == "log_uniform":
        c = np.arange(n, dtype="float64")
        probs = (np.log((c + 2.0) / (c + 1.0)) / math.log(n)).astype("float32")
    elif sampler == "custom_dist":
        assert custom_dist is not None
        dist = np.asarray(custom_dist, dtype="float64").reshape([-1])
        if dist.size != n:
            raise ValueError(f"nce: custom_dist must hold num_total_classes ({n}) probabilities, got {dist.size}")
        alias, alias_probs = _alias_table(dist)
        made = []
        with mode.eager():
            for values in (dist.astype("float32"), np.array(alias, "int32"), np.array(alias_probs, "float32")):
                # (an int32 tensor cannot be trainable in oar: the alias table is made untrainable)
                attr = None if values.dtype.kind == "f" else ParamAttr(trainable=False)
                t = _param("nce", prefix, attr, list(values.shape), str(values.dtype),
                           default_initializer=Assign(values))
                t.stop_gradient = True
                made.append(t)
        probs, tables = made[0], (made[1], made[2])
    else:
        raise Exception("Unsupported sampler type.")
    num_neg_samples = 10 if num_neg_samples is None else int(num_neg_samples)
    print("With sparse mode, if your models has only small parameter prefetch may cause speed down")
    if not isinstance(probs, _C.Tensor):
        with mode.eager():
            probs = oar.to_tensor(probs)
    u = _uniform(input, num_neg_samples * (2 if tables else 1), seed)
    neg = _sample(sampler, u, n, tables)
    sample_labels = oar.concat([label, neg], axis=1)
    cost = _nce_cost(input, sample_labels, num_true, w, b, probs, num_neg_samples, sample_weight)
    return cost / (num_neg_samples + 1)
