"""paddle.static.auc: the area under the ROC curve of a batch, as ops (so it runs in programs)."""


def auc(input, label, curve="ROC", num_thresholds=2 ** 12 - 1, topk=1, slide_steps=1, ins_tag_weight=None):
    """The ROC AUC of one batch (paddle.static.auc, as in Paddle 3's default PIR mode, where the
    statistics start from zero at each run). Each row's score is its last column; it falls into
    bucket int(score * num_thresholds) of the positives (label != 0) or of the negatives. The
    AUC is the trapezoid area of the ROC curve swept from the highest bucket down, divided by
    positives x negatives (0 when either is 0). An ins_tag_weight whose first value is 0 marks
    the batch as fake data: nothing is counted. `curve`, `topk` and `slide_steps` are accepted
    as in Paddle, which computes the ROC AUC for each curve.

    Args:
        input (Tensor): Scores [N, C] in [0, 1], float32 or float64.
        label (Tensor): [N, 1] (or [N]) int32 or int64.
        curve (str, optional): 'ROC' or 'PR'. Default: 'ROC'.
        num_thresholds (int, optional): Buckets - 1. Default: 4095.
        topk (int, optional): Unused. Default: 1.
        slide_steps (int, optional): Unused in PIR mode. Default: 1.
        ins_tag_weight (Tensor, optional): float32/float64; first value 0: fake data. Default: None.

    Returns:
        tuple: (auc, stat_pos, stat_neg): the AUC (0-D float64) and the bucket counts of the
        positives and negatives ([1, num_thresholds + 1] int64).

    Examples:
        >>> import oar, numpy as np
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     p = oar.static.data('p', [4, 2], 'float32')
        ...     l = oar.static.data('l', [4, 1], 'int64')
        ...     area, pos, neg = oar.static.auc(p, l, num_thresholds=7)
        >>> exe = oar.static.Executor()
        >>> s = np.array([0.9, 0.8, 0.3, 0.1], 'float32')
        >>> out = exe.run(main, feed={'p': np.stack([1 - s, s], 1), 'l': np.array([[1], [0], [1], [0]])},
        ...               fetch_list=[area, pos, neg])
        >>> print(float(out[0]), out[1].tolist(), out[2].tolist())
        0.75 [[0, 0, 1, 0, 0, 0, 1, 0]] [[1, 0, 0, 0, 0, 1, 0, 0]]
        >>> oar.disable_static()
    """
    import oar
    from .. import _C
    for arg, value, dtypes in (("input", input, ("float32", "float64")), ("label", label, ("int32", "int64"))):
        if not isinstance(value, _C.Tensor):
            raise TypeError(f"auc: {arg} must be a Tensor, but received {type(value).__name__}")
        if value.dtype not in dtypes:
            raise TypeError(f"auc: {arg} must be {' or '.join(dtypes)}, but received {value.dtype}")
    if ins_tag_weight is not None:
        if not isinstance(ins_tag_weight, _C.Tensor) or ins_tag_weight.dtype not in ("float32", "float64"):
            raise TypeError("auc: ins_tag_weight must be a float32 or float64 Tensor")
    if not isinstance(num_thresholds, int) or num_thresholds < 1:
        raise ValueError(f"auc: num_thresholds must be a positive int, got {num_thresholds!r}")
    if input.ndim != 2:
        raise ValueError(f"auc: input must be 2-D [N, C], got shape {input.shape}")
    buckets = num_thresholds + 1
    score = input[:, -1]
    idx = oar.cast(score * float(num_thresholds), "int64")
    idx = oar.clip(idx, 0, num_thresholds)
    is_pos = oar.cast(oar.reshape(label, [-1]) != 0, "int64")
    if ins_tag_weight is not None:
        real = oar.cast(oar.reshape(ins_tag_weight, [-1])[0] != 0, "int64")
        is_pos_w, is_neg_w = is_pos * real, (1 - is_pos) * real
    else:
        is_pos_w, is_neg_w = is_pos, 1 - is_pos
    zeros = oar.zeros([buckets], "int64")
    pos = oar.index_add(zeros, idx, 0, is_pos_w)
    neg = oar.index_add(zeros, idx, 0, is_neg_w)
    # Swept from the highest bucket down: true/false positives so far.
    tp = oar.cumsum(oar.cast(oar.flip(pos, [0]), "float64"), 0)
    fp = oar.cumsum(oar.cast(oar.flip(neg, [0]), "float64"), 0)
    zero = oar.zeros([1], "float64")
    tp_prev = oar.concat([zero, tp[:-1]])
    fp_prev = oar.concat([zero, fp[:-1]])
    area = oar.sum((fp - fp_prev) * (tp + tp_prev) * 0.5)
    total = tp[-1] * fp[-1]
    value = oar.where(total > 0.0, area / oar.where(total > 0.0, total, oar.ones_like(total)),
                      oar.zeros_like(area))
    return value, oar.reshape(pos, [1, buckets]), oar.reshape(neg, [1, buckets])


def ctr_metric_bundle(input, label, ins_tag_weight=None):
    """Running sums of CTR metrics (paddle.static.ctr_metric_bundle, as in Paddle's static mode):
    six float32 accumulators, kept between runs of the program (each run adds its batch and
    the fetched values include it). With d = input - label:

    - local_sqrerr: sum of d ** 2; local_abserr: sum of |d|; local_prob: sum of input;
    - local_q: sum of sigmoid(input) times w; local_pos_num: sum of label;
    - local_ins_num: the number of rows times w;

    where w is ins_tag_weight's first row (1 for real data, 0 for fake; default 1). As in Paddle,
    w scales only local_q and local_ins_num, and those two take w's shape ([1, 1] for the default
    and an [N, 1] ins_tag_weight). Divide by local_ins_num for MAE, RMSE (after sqrt), predicted
    CTR and q.

    Args:
        input (Tensor): Predicted probabilities, [N, 1] float32 or float64.
        label (Tensor): Labels of input's shape, floating point (Paddle rejects integer labels).
        ins_tag_weight (Tensor, optional): [N, 1] float; its first row is the batch's weight.
            Default: None (1).

    Returns:
        tuple: (local_sqrerr, local_abserr, local_prob, local_q, local_pos_num, local_ins_num).

    Examples:
        >>> import oar, numpy as np
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     p = oar.static.data('p', [None, 1], 'float32')
        ...     l = oar.static.data('l', [None, 1], 'float32')
        ...     sqrerr, abserr, prob, q, pos, ins = oar.static.ctr_metric_bundle(p, l)
        >>> exe = oar.static.Executor()
        >>> feed = {'p': np.array([[0.5], [0.25]], 'float32'), 'l': np.array([[1.], [0.]], 'float32')}
        >>> for _ in range(2):
        ...     out = exe.run(main, feed=feed, fetch_list=[abserr, pos, ins])
        >>> print(out[0], out[1], out[2])
        [1.5] [2.] [[4.]]
        >>> oar.disable_static()
    """
    import oar
    from .. import _C
    from ..framework import mode
    from ..utils import unique_name
    from .program import current_tracer, default_main_program
    current_tracer("ctr_metric_bundle")
    for arg, value in (("input", input), ("label", label)):
        if not isinstance(value, _C.Tensor):
            raise TypeError(f"ctr_metric_bundle: {arg} must be a Tensor, but received {type(value).__name__}")
    assert list(input.shape) == list(label.shape)
    if input.dtype not in ("float32", "float64"):
        raise TypeError(f"ctr_metric_bundle: input must be float32 or float64, but received {input.dtype}")
    if label.dtype not in ("float16", "bfloat16", "float32", "float64"):
        raise TypeError(f"ctr_metric_bundle: label must be a floating-point tensor (Paddle's type promotion "
                        f"rejects {input.dtype} - {label.dtype}), but received {label.dtype}")
    if ins_tag_weight is None:
        ins_tag_weight = oar.full([1, 1], 1.0, "float32")
    elif not isinstance(ins_tag_weight, _C.Tensor):
        raise TypeError(f"ctr_metric_bundle: ins_tag_weight must be a Tensor, but received "
                        f"{type(ins_tag_weight).__name__}")
    diff = input - oar.cast(label, input.dtype)
    batch_sqrerr = oar.reshape(oar.sum(diff * diff), [1])
    batch_abserr = oar.reshape(oar.sum(oar.abs(diff)), [1])
    batch_prob = oar.reshape(oar.sum(input), [1])
    batch_q = oar.reshape(oar.sum(oar.nn.functional.sigmoid(input)), [1])
    batch_pos = oar.reshape(oar.sum(label), [1])
    batch_ins = oar.reshape(oar.sum(oar.ones_like(oar.cast(label[:, :1] if label.ndim > 1 else label, "float32"))),
                            [1])
    w = oar.cast(ins_tag_weight[0:1], "float32")
    batch_ins = batch_ins * w
    batch_q = oar.cast(batch_q, "float32") * w
    main = default_main_program()
    outs = []
    with mode.eager():
        names = [unique_name.generate("_generated_var") for _ in range(6)]
    # Paddle's creation order names local_abserr first, then local_sqrerr, prob, q, pos, ins.
    order = [1, 0, 2, 3, 4, 5]
    for k, batch in enumerate((batch_sqrerr, batch_abserr, batch_prob, batch_q, batch_pos, batch_ins)):
        shape = [1 if d < 0 else d for d in batch.shape]
        with mode.eager():
            local = oar.zeros(shape, "float32")
        local.name, local.persistable, local.stop_gradient = names[order[k]], True, True
        total = local + oar.cast(batch, "float32")
        main._write_back(local, total)
        outs.append(total)
    return tuple(outs)
