"""Python faces of the search ops whose Paddle signatures return a varying number of tensors or
take Python numbers where the C++ op takes tensors: nonzero, unique, unique_consecutive,
median, put_along_axis."""
from .. import _C
from ..framework.dtype import convert_dtype, get_default_dtype

Tensor = _C.Tensor


def nonzero(x, as_tuple=False, *, out=None):
    """[count, ndim] int64 coordinates of the nonzero elements, or one [count] tensor per dim."""
    coords = _C.nonzero_coords(x)
    if not as_tuple:
        return coords
    if x.ndim == 0:
        return (_C.reshape(coords, [-1]),)
    return tuple(_C.reshape(_C.slice(coords, [1], [d], [d + 1]), [-1]) for d in range(x.ndim))


def _pick(parts, flags):
    out = [parts[0]] + [p for p, f in zip(parts[1:], flags) if f]
    return out[0] if len(out) == 1 else tuple(out)


def _along_axis(x, axis, consecutive, dtype, op):
    """[values, first index, inverse, counts] of the slices of x along axis (unique rows of x
    with dims 0 and axis swapped and the others flattened)."""
    nd = x.ndim
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise TypeError(f"{op}: argument 'axis' must be an int or None, got {type(axis).__name__}")
    if not -nd <= axis < nd:
        raise ValueError(f"{op}: argument 'axis' must be in [{-nd}, {nd}) for x of shape "
                         f"{list(x.shape)}, got {axis}")
    a = axis % nd
    n = x.shape[a]
    m = 1
    for d, s in enumerate(x.shape):
        m *= s if d != a else 1
    # Paddle orders the slices by their elements in the layout of x with dims 0 and axis
    # swapped (not with axis moved first, as NumPy): same for 2-D, not for axis >= 2.
    perm = list(range(nd))
    perm[0], perm[a] = a, 0
    rows = _C.reshape(_C.transpose(x, perm), [n, m])
    first, inverse, counts = _C.unique_rows(rows, consecutive, convert_dtype(dtype))
    values = _C.index_select(x, first, a)
    return [values, first, inverse, counts]


def unique(x, return_index=False, return_inverse=False, return_counts=False, axis=None,
           dtype="int64", sorted=True, name=None):
    """Sorted unique values of flattened x or, with axis, the unique slices along axis (ordered
    lexicographically); index/inverse/counts in dtype (int32 or int64)."""
    if axis is None:
        parts = _C.unique_flat(x, False, convert_dtype(dtype))
    else:
        parts = _along_axis(x, axis, False, dtype, "unique")
    return _pick(parts, [return_index, return_inverse, return_counts])


def unique_consecutive(x, return_inverse=False, return_counts=False, axis=None, dtype="int64",
                       name=None):
    """One value (or, with axis, one slice) per run of equal neighbours."""
    if axis is None:
        values, _, inverse, counts = _C.unique_flat(x, True, convert_dtype(dtype))
    else:
        values, _, inverse, counts = _along_axis(x, axis, True, dtype, "unique_consecutive")
    return _pick([values, inverse, counts], [return_inverse, return_counts])


def median(x, axis=None, keepdim=False, mode="avg", name=None, *, out=None):
    """The middle value along axis (all values when None). mode 'avg' averages the two middle
    values of an even count (float result); 'min' takes the lower one and, with an axis, also
    returns its index. A NaN in a slice gives NaN."""
    if mode not in ("avg", "min"):
        raise ValueError(f"median: argument 'mode' must be 'avg' or 'min', got {mode!r}")
    if axis is None:
        flat = _C.reshape(x, [-1])
        res = median(flat, 0, False, mode)
        res = res[0] if isinstance(res, tuple) else res
        return _C.reshape(res, [1] * x.ndim) if keepdim else res
    a = axis + x.ndim if axis < 0 else axis
    n = x.shape[a] if x.ndim else 1
    if n == 0:
        raise ValueError(f"median: axis {axis} of x (shape {x.shape}) is empty")
    idx = _C.argsort(x, a, False, True)
    lo_i = _C.slice(idx, [a], [(n - 1) // 2], [(n - 1) // 2 + 1])
    lo = _C.take_along_axis(x, lo_i, a, False) if x.ndim else x
    has_nan = _C.any(_C.isnan(x), [a], True) if x.dtype.name.startswith(("float", "bfloat")) else None
    if mode == "min":
        if has_nan is not None:
            lo = _C.where(has_nan, _C.full([], float("nan"), lo.dtype), lo)
        if not keepdim and x.ndim:
            lo, lo_i = _C.squeeze(lo, [a]), _C.squeeze(lo_i, [a])
        return lo, lo_i
    # float32/float64 keep their dtype; integers and halves average in float32 (as Paddle).
    fdt = x.dtype if x.dtype.name in ("float32", "float64") else convert_dtype("float32")
    lo = _C.cast(lo, fdt)
    if n % 2 == 0:
        hi_i = _C.slice(idx, [a], [n // 2], [n // 2 + 1])
        lo = (lo + _C.cast(_C.take_along_axis(x, hi_i, a, False), fdt)) * 0.5
    if has_nan is not None:
        lo = _C.where(has_nan, _C.full([], float("nan"), fdt), lo)
    return _C.squeeze(lo, [a]) if not keepdim and x.ndim else lo


def where(condition, x=None, y=None, name=None, *, out=None):
    """Elements of x where condition is true, else of y (Python numbers allowed, taking the other
    operand's dtype, or the default float dtype when both are numbers); with condition alone, the
    coordinates of its true elements, one tensor per dim (as nonzero(..., as_tuple=True))."""
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    if x is None or y is None:
        raise ValueError("where: give both 'x' and 'y', or neither")
    if not isinstance(x, Tensor) or not isinstance(y, Tensor):
        like = x if isinstance(x, Tensor) else y if isinstance(y, Tensor) else None
        if like is None:
            is_float = isinstance(x, float) or isinstance(y, float)
            dt = convert_dtype(get_default_dtype() if is_float else "int64")
        else:
            dt = like.dtype
        x = x if isinstance(x, Tensor) else _C.full([], x, dt)
        y = y if isinstance(y, Tensor) else _C.full([], y, dt)
    return _C.where(condition, x, y)


def argwhere(input):
    """Coordinates of the nonzero elements of input, one a row, in row-major order.

    Args:
        input (Tensor): The input.

    Returns:
        Tensor: int64, shape [number of nonzeros, input.ndim].

    Examples:
        >>> import oar
        >>> print(oar.argwhere(oar.to_tensor([[0, 1], [2, 0]])).numpy())
        [[0 1]
         [1 0]]
    """
    return _C.nonzero_coords(input)


def mode(x, axis=-1, keepdim=False, name=None):
    """The most frequent value along axis (the smallest among ties) and the index of its last
    occurrence, as Paddle."""
    if x.ndim == 0:
        return x.clone(), _C.zeros([], convert_dtype("int64"))
    a = axis + x.ndim if axis < 0 else axis
    n = x.shape[a]
    idx = _C.argsort(x, a, False, True)
    s = _C.take_along_axis(x, idx, a, False)
    shape = [1] * x.ndim
    shape[a] = n
    pos = _C.broadcast_to(_C.reshape(_C.arange(0, n, 1, convert_dtype("int64")), shape), x.shape)
    prev = _C.concat([_C.slice(s, [a], [0], [1]), _C.slice(s, [a], [0], [n - 1])], a)
    new_run = _C.logical_or(_C.not_equal(s, prev), _C.equal(pos, _C.zeros_like(pos)))
    run_start = _C.cummax(_C.where(new_run, pos, _C.zeros_like(pos)), a)[0]
    best = _C.argmax(pos - run_start, a, True)  # first longest run: its end, smallest value
    values = _C.take_along_axis(s, best, a, False)
    indices = _C.take_along_axis(idx, best, a, False)
    if not keepdim:
        values, indices = _C.squeeze(values, [a]), _C.squeeze(indices, [a])
    return values, indices


def put_along_axis(arr, indices, values, axis, reduce="assign", include_self=True, broadcast=True):
    """Writes values into a copy of arr at the indices along axis (the inverse of take_along_axis).

    Args:
        arr (Tensor): The input.
        indices (Tensor): Integer indices, with arr's rank.
        values (Tensor|int|float): The values written, broadcast to indices.
        axis (int): The axis.
        reduce (str, optional): How a value combines with the existing one: 'assign', 'add', 'mul'
            ('multiply'), 'amin', 'amax' or 'mean'. Default: 'assign'.
        include_self (bool, optional): Include arr's own value in the reduction. Default: True.
        broadcast (bool, optional): Broadcast indices against arr in the other dims. Default: True.

    Returns:
        Tensor: the updated copy, arr's shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[10, 20, 30]])
        >>> print(oar.put_along_axis(x, oar.to_tensor([[0, 2]]), 0, 1).numpy())
        [[ 0 20  0]]
    """
    if not isinstance(values, Tensor):
        values = _C.full([], values, arr.dtype)
    return _C.put_along_axis(arr, indices, values, axis, reduce, include_self, broadcast)


def put_along_axis_(arr, indices, values, axis, reduce="assign", include_self=True, broadcast=True):
    """In-place put_along_axis: writes values into arr at the indices along axis.

    Args:
        arr (Tensor): The input; it is overwritten.
        indices (Tensor): Integer indices, with arr's rank.
        values (Tensor|int|float): The values written, broadcast to indices.
        axis (int): The axis.
        reduce (str, optional): 'assign', 'add', 'mul' ('multiply'), 'amin', 'amax' or 'mean'.
            Default: 'assign'.
        include_self (bool, optional): Include arr's own value in the reduction. Default: True.
        broadcast (bool, optional): Broadcast indices against arr in the other dims. Default: True.

    Returns:
        Tensor: arr, holding the result.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[10, 20, 30]])
        >>> _ = oar.put_along_axis_(x, oar.to_tensor([[1]]), 99, 1)
        >>> print(x.numpy())
        [[10 99 30]]
    """
    if not isinstance(values, Tensor):
        values = _C.full([], values, arr.dtype)
    return _C.put_along_axis_(arr, indices, values, axis, reduce, include_self, broadcast)


def _top_p_uniform(shape, dtype, seed, topp_seed):
    """Uniform [0, 1) draws of `shape` ([batch, n]): from the global generator (seed -1), from a
    generator seeded with `seed` (every row the same stream), or row i from topp_seed[i]."""
    from ..framework.random import get_rng_state, seed as set_seed, set_rng_state
    if topp_seed is None and seed == -1:
        return _C.rand(shape, dtype)
    state = get_rng_state()
    try:
        if topp_seed is None:
            set_seed(int(seed))
            row = _C.rand([1, shape[1]], dtype)
            return _C.expand(row, shape) if shape[0] != 1 else row
        seeds = [int(v) for v in _C.reshape(topp_seed, [-1]).tolist()]
        if len(seeds) != shape[0]:
            raise ValueError(f"top_p_sampling: argument 'topp_seed' must hold one seed per row ({shape[0]}), "
                             f"got {len(seeds)}")
        rows = []
        for s in seeds:  # one generator stream per row
            set_seed(s)
            rows.append(_C.rand([1, shape[1]], dtype))
        return _C.concat(rows, 0)
    finally:
        set_rng_state(state)


def top_p_sampling(x, ps, threshold=None, topp_seed=None, seed=-1, k=0, mode="truncated", return_top=False,
                   name=None):
    """Nucleus (top-p) sampling of one token per row of probabilities x (paddle.tensor.top_p_sampling,
    whose kernel Paddle builds for GPUs only; oar composes it from sort, cumsum and gathers).

    Row i keeps its most probable tokens while the probability before each is below ps[i]:
    - mode 'truncated': a draw r = U(0, 1) * ps[i] picks the first token, in descending order of
      probability, at which the running sum reaches r. A pick below threshold[i] falls back to the
      last token that is not (the first if none is).
    - mode 'non-truncated': tokens of the nucleus at or above threshold[i] are drawn in proportion to
      their probability (the largest p / Exp(1) wins); none: the most probable token.
    A row whose probabilities never add up to ps[i] gives its most probable token.

    Args:
        x (Tensor): [batch, vocab] probabilities (float16, bfloat16, float32, float64).
        ps (Tensor): [batch] top-p of each row.
        threshold (Tensor, optional): [batch] minimum probability of a sampled token. Default: None.
        topp_seed (Tensor, optional): [batch] int64 seeds, one random stream per row. Default: None.
        seed (int, optional): One seed for all rows; -1 draws from the global generator. Default: -1.
        k (int, optional): Also compute the k most probable tokens of each row. Default: 0.
        mode (str, optional): 'truncated' or 'non-truncated'. Default: 'truncated'.
        return_top (bool, optional): Also return the top-k scores and ids. Default: False.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        tuple(Tensor): ([batch, 1] sampled probabilities, [batch, 1] int64 token ids), then with
        return_top the [batch, k] top-k scores and int64 ids.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3]])
        >>> value, index = oar.tensor.top_p_sampling(x, oar.to_tensor([0.5, 0.4]))
        >>> print(index.numpy().ravel(), value.numpy().ravel())
        [1 0] [0.6 0.5]
    """
    if mode not in ("truncated", "non-truncated"):
        raise ValueError(f"top_p_sampling: argument 'mode' must be 'truncated' or 'non-truncated', got {mode!r}")
    if x.ndim != 2:
        raise ValueError(f"top_p_sampling: argument 'x' must be a 2-D [batch, vocab] tensor, got shape {x.shape}")
    if not x.dtype.name.startswith(("float", "bfloat")):
        raise TypeError(f"top_p_sampling: argument 'x' must be a floating tensor, got {x.dtype.name}")
    batch, vocab = x.shape
    if ps.size != batch:
        raise ValueError(f"top_p_sampling: argument 'ps' must hold one top-p per row ({batch}), got shape {ps.shape}")
    if isinstance(k, bool) or not isinstance(k, int) or k < 0 or k > vocab:
        raise ValueError(f"top_p_sampling: argument 'k' must be an int in [0, {vocab}], got {k!r}")
    i64 = convert_dtype("int64")
    f32 = convert_dtype("float32")
    work = x if x.dtype.name in ("float32", "float64") else _C.cast(x, f32)
    p = _C.cast(_C.reshape(ps, [batch, 1]), work.dtype)
    if threshold is None:
        thr = _C.zeros([batch, 1], work.dtype)
    else:
        if threshold.size != batch:
            raise ValueError(f"top_p_sampling: argument 'threshold' must hold one value per row ({batch}), got "
                             f"shape {threshold.shape}")
        thr = _C.cast(_C.reshape(threshold, [batch, 1]), work.dtype)
    order = _C.argsort(work, 1, True, True)
    probs = _C.take_along_axis(work, order, 1, True)
    csum = _C.cumsum(probs, 1)
    total = _C.slice(csum, [1], [vocab - 1], [vocab])
    if mode == "truncated":
        r = _top_p_uniform([batch, 1], work.dtype, seed, topp_seed) * p
        pos = _C.sum(_C.cast(_C.less_than(csum, r), i64), [1], None, True)
        pos = _C.where(_C.greater_equal(total, r), pos, _C.zeros_like(pos))
        picked = _C.take_along_axis(probs, pos, 1, True)
        above = _C.sum(_C.cast(_C.greater_equal(probs, thr), i64), [1], None, True)
        fallback = _C.clip(above - 1, 0, vocab)
        pos = _C.where(_C.less_than(picked, thr), fallback, pos)
    else:
        u = _top_p_uniform([batch, vocab], work.dtype, seed, topp_seed)
        exp = -_C.log(1.0 - u)
        keep = _C.logical_and(_C.less_than(csum - probs, p), _C.greater_equal(probs, thr))
        score = _C.where(keep, probs, _C.zeros_like(probs)) / exp
        pos = _C.argmax(score, 1, True, i64)
        pos = _C.where(_C.greater_equal(total, p), pos, _C.zeros_like(pos))
    ids = _C.take_along_axis(order, pos, 1, True)
    out = _C.take_along_axis(x, ids, 1, True)
    if not return_top:
        return out, ids
    top_ids = _C.slice(order, [1], [0], [k])
    return out, ids, _C.take_along_axis(x, top_ids, 1, True), top_ids


__all__ = ["top_p_sampling", "nonzero", "unique", "unique_consecutive", "median", "put_along_axis", "put_along_axis_",
           "argwhere", "mode", "where"]
