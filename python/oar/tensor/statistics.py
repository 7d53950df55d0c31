"""Order statistics, counting and integration as Paddle: quantile, nanquantile, nanmedian,
histogram, bincount, trapezoid, cumulative_trapezoid, renorm. Written over the C++ ops (sort,
take_along_axis, index_add, ...), so gradients flow where Paddle has them."""
from .. import _C
from ..framework.dtype import convert_dtype

Tensor = _C.Tensor


def _float(x):
    return x if x.dtype.name.startswith(("float", "bfloat")) else _C.cast(x, convert_dtype("float32"))


def _quantile(x, q, axis, keepdim, interpolation, ignore_nan, what):
    if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise ValueError(f"{what}: argument 'interpolation' must be one of 'linear', 'lower', "
                         f"'higher', 'midpoint', 'nearest', got {interpolation!r}")
    qs = q.tolist() if isinstance(q, Tensor) else q
    scalar_q = not isinstance(qs, (list, tuple))
    qs = [qs] if scalar_q else list(qs)
    for v in qs:
        if not 0 <= v <= 1:
            raise ValueError(f"{what}: every q must be in [0, 1], got {v}")
    x = _float(x)
    if axis is None:
        x, axes = _C.reshape(x, [-1]), [0]
    else:
        axes = [a + x.ndim if a < 0 else a for a in ([axis] if isinstance(axis, int) else list(axis))]
    # Move the reduced axes to the end and merge them into one.
    rest = [d for d in range(x.ndim) if d not in axes]
    moved = _C.transpose(x, rest + axes)
    n = 1
    for a in axes:
        n *= x.shape[a]
    flat = _C.reshape(moved, [x.shape[d] for d in rest] + [n])
    srt = _C.sort(flat, -1, False, True)  # NaNs last
    nan = _C.isnan(flat)
    valid = _C.sum(_C.cast(_C.logical_not(nan), convert_dtype("int64")), [-1], None, True)
    count = valid if ignore_nan else _C.full_like(valid, n)
    outs = []
    for v in qs:
        pos = _C.cast(_C.clip(count - 1, 0, n), flat.dtype) * float(v)
        lo = _C.cast(_C.floor(pos), convert_dtype("int64"))
        hi = _C.cast(_C.ceil(pos), convert_dtype("int64"))
        if interpolation == "nearest":
            near = _C.cast(_C.round(pos), convert_dtype("int64"))
            lo = hi = near
        a = _C.take_along_axis(srt, lo, -1, False)
        b = _C.take_along_axis(srt, hi, -1, False)
        if interpolation in ("lower", "nearest"):
            r = a
        elif interpolation == "higher":
            r = b
        elif interpolation == "midpoint":
            r = (a + b) * 0.5
        else:
            r = a + (b - a) * (pos - _C.cast(lo, pos.dtype))
        if ignore_nan:  # an all-NaN slice gives NaN
            r = _C.where(_C.equal(valid, _C.zeros_like(valid)), _C.full([], float("nan"), r.dtype), r)
        else:  # a NaN anywhere gives NaN
            r = _C.where(_C.any(nan, [-1], True), _C.full([], float("nan"), r.dtype), r)
        r = _C.squeeze(r, [-1])
        if keepdim:
            shape = list(x.shape)
            for a in axes:
                shape[a] = 1
            r = _C.reshape(r, shape if axis is not None else [1] * len(shape))
        outs.append(r)
    return outs[0] if scalar_q else _C.stack(outs, 0)


def quantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """The q-th quantiles of x over the given axes.

    Args:
        x (Tensor): The input; integer inputs are computed in float.
        q (float|list|tuple|Tensor): Quantile(s) in [0, 1].
        axis (int|list|tuple, optional): Axes to reduce; None flattens x. Default: None.
        keepdim (bool, optional): Keep the reduced axes with size 1. Default: False.
        interpolation (str, optional): Between two data points: 'linear', 'lower', 'higher',
            'midpoint'
            or 'nearest'. Default: 'linear'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the quantiles; with a list q, an extra leading dim of len(q). NaN where the data
        has NaN.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([1.0, 2.0, 3.0, 4.0])
        >>> print(oar.quantile(x, 0.5).numpy(), oar.quantile(x, [0.25, 0.75]).numpy())
        2.5 [1.75 3.25]
    """
    return _quantile(x, q, axis, keepdim, interpolation, False, "quantile")


def nanquantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """The q-th quantiles of x over the given axes, ignoring NaN.

    Args:
        x (Tensor): The input; integer inputs are computed in float.
        q (float|list|tuple|Tensor): Quantile(s) in [0, 1].
        axis (int|list|tuple, optional): Axes to reduce; None flattens x. Default: None.
        keepdim (bool, optional): Keep the reduced axes with size 1. Default: False.
        interpolation (str, optional): 'linear', 'lower', 'higher', 'midpoint' or 'nearest'.
            Default: 'linear'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the quantiles; with a list q, an extra leading dim of len(q). NaN where all values
        are NaN.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([1.0, float('nan'), 3.0, 4.0])
        >>> print(oar.nanquantile(x, 0.5).numpy())
        3.0
    """
    return _quantile(x, q, axis, keepdim, interpolation, True, "nanquantile")


def nanmedian(x, axis=None, keepdim=False, mode="avg", name=None):
    """Median of x over the given axes, ignoring NaN; the mean of the two middle values for an even
    count.

    Args:
        x (Tensor): The input.
        axis (int|list|tuple, optional): Axes to reduce; None flattens x. Default: None.
        keepdim (bool, optional): Keep the reduced axes with size 1. Default: False.
        mode (str, optional): Only 'avg' is supported. Default: 'avg'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the medians, floating point.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1.0, float('nan')], [3.0, 4.0]])
        >>> print(oar.nanmedian(x, axis=1).numpy())
        [1.  3.5]
    """
    if mode != "avg":
        raise NotImplementedError("nanmedian: only mode='avg' is supported")
    return _quantile(x, 0.5, axis, keepdim, "linear", True, "nanmedian")


def bincount(x, weights=None, minlength=0, name=None):
    """Counts (or summed weights) of each non-negative integer in 1-D x."""
    if not x.dtype.name.startswith(("int", "uint")):
        raise TypeError(f"bincount: argument 'x' must be an integer tensor, got {x.dtype.name}")
    if x.ndim != 1:
        raise ValueError(f"bincount: argument 'x' must be 1-D, got shape {x.shape}")
    # No value is read here (a static program decides the size when it runs): the check and
    # the length max(max(x) + 1, minlength) are ops; -1 stands in for the max of an empty x.
    i64 = convert_dtype("int64")
    x = _C.check_values(x, _C.greater_equal(x, _C.zeros_like(x)), "bincount: argument 'x' must hold non-negative values")
    top = _C.max(_C.concat([_C.cast(x, i64), _C.full([1], -1, i64)], 0), [], False)
    n = _C.maximum(top + 1, _C.full([], int(minlength), i64))
    vals = _C.ones_like(x, i64) if weights is None else weights
    zero = _C.full([], 0, i64)
    return _C.index_add(_C.zeros_like(_C.arange_tensor(zero, n, zero + 1, i64), vals.dtype), x, 0, vals)


def _histogram_range(input, min, max):
    """[lo, hi] of histogram and histogram_bin_edges as float64 0-d tensors, computed by ops (a
    static program reads the data when it runs) as Python numbers would be: min and max, or the
    data's range when both are 0 ((0, 0) for an empty input); as Paddle, an empty range widens by
    one each side."""
    f64 = convert_dtype("float64")
    lo = _C.full([], float(min), f64)
    hi = _C.full([], float(max), f64)
    if float(min) == 0 and float(max) == 0:
        flat = _C.cast(_C.reshape(input, [-1]), f64)
        dlo = _C.min(_C.concat([flat, _C.full([1], float("inf"), f64)], 0), [], False)
        dhi = _C.max(_C.concat([flat, _C.full([1], float("-inf"), f64)], 0), [], False)
        empty = _C.greater_than(dlo, dhi)
        lo, hi = _C.where(empty, lo, dlo), _C.where(empty, hi, dhi)
    same = _C.equal(lo, hi)
    return _C.where(same, lo - 1.0, lo), _C.where(same, hi + 1.0, hi)


def histogram_bin_edges(input, bins=100, min=0.0, max=0.0, name=None):
    """The bins + 1 evenly spaced edges histogram would use for input.

    Args:
        input (Tensor): The data.
        bins (int, optional): Number of bins. Default: 100.
        min (float, optional): Lower end. Default: 0.0.
        max (float, optional): Upper end; when min and max are both 0, the data's range is used.
            Default: 0.0.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: 1-D, bins + 1 edges, floating point.

    Examples:
        >>> import oar
        >>> print(oar.histogram_bin_edges(oar.to_tensor([1.0, 2.0, 5.0]), bins=4).numpy())
        [1. 2. 3. 4. 5.]
    """
    lo, hi = _histogram_range(input, min, max)
    return _C.linspace_tensor(lo, hi, bins + 1, _float(input).dtype)


def histogram(input, bins=100, min=0.0, max=0.0, weight=None, density=False, name=None):
    """Counts in `bins` equal bins over [min, max] (the data's range when both are 0); values
    outside are ignored, the last bin includes max."""
    if bins < 1:
        raise ValueError(f"histogram: argument 'bins' must be positive, got {bins}")
    x = _C.reshape(_float(input), [-1])
    # The ends rounded to x's dtype, as histogram_bin_edges' first and last edges are; the scale
    # bins / (hi - lo) from those rounded ends, in float64.
    f64 = convert_dtype("float64")
    lo, hi = _histogram_range(input, min, max)
    lo, hi = _C.cast(lo, x.dtype), _C.cast(hi, x.dtype)
    width = _C.cast(hi, f64) - _C.cast(lo, f64)
    inside = _C.logical_and(_C.greater_equal(x, lo), _C.less_equal(x, hi))
    idx = _C.cast(_C.floor((x - lo) * _C.cast(float(bins) / width, x.dtype)), convert_dtype("int64"))
    idx = _C.clip(idx, 0, bins - 1)
    if weight is None:
        vals = _C.cast(inside, convert_dtype("int64"))
    else:
        w = _C.reshape(weight, [-1])
        vals = _C.where(inside, w, _C.zeros_like(w))
    out = _C.index_add(_C.zeros([bins], vals.dtype), idx, 0, vals)
    if density:
        out = _C.cast(out, x.dtype)
        out = out / (_C.sum(out, [], None, False) * _C.cast(width / float(bins), x.dtype))
    return out


def _linspace_edges(lo, hi, num, dtype):
    """num evenly spaced values from lo to hi, as Paddle's linspace kernel rounds them in `dtype`:
    step = (hi - lo) / (num - 1); the first half counts up from lo, the second half down from hi."""
    import numpy as np
    t = np.dtype(dtype).type
    lo, hi = t(lo), t(hi)
    i = np.arange(num)
    if num == 1:
        return np.array([lo], dtype=dtype)
    step = t((hi - lo) / t(num - 1))
    up = lo + step * i.astype(dtype)
    down = hi - step * (num - 1 - i).astype(dtype)
    return np.where(i < num // 2, up, down).astype(dtype)


def _histogramdd_edges(x, flat, bins, ranges, D):
    """The bin edges of each of the D dimensions (Paddle's rules for bins and ranges)."""
    import numpy as np
    from .creation import to_tensor
    if ranges is None:
        lo = _C.min(flat, [0], False).numpy()
        hi = _C.max(flat, [0], False).numpy()
        bounds = np.stack([lo, hi], axis=1)
    else:
        if not isinstance(ranges, (list, tuple)):
            raise TypeError(f"The type of 'ranges' in histogramdd must be list or tuple, but received "
                            f"{type(ranges)}.")
        if len(ranges) != 2 * D:
            raise AssertionError(f"The length of ranges list must be {D * 2}\n")
        bounds = np.asarray(ranges, dtype=x.dtype.name).reshape(D, 2)
    if isinstance(bins, int) and not isinstance(bins, bool):
        bins = [bins] * D
    if isinstance(bins, list):
        if len(bins) != D:
            raise AssertionError(f"The length of bins must be {D} when bins is a list.\n")
        edges = []
        for i, b in enumerate(bins):
            if not isinstance(b, int) or isinstance(b, bool):
                raise ValueError(f"The type of {i}-th element in bins list must be int.")
            edges.append(to_tensor(_linspace_edges(bounds[i][0], bounds[i][1], b + 1, x.dtype.name)))
        return edges
    if isinstance(bins, tuple):
        edges = []
        for b in bins:
            b = b if isinstance(b, Tensor) else to_tensor(b)
            if b.dtype.name not in ("float32", "float64"):
                raise TypeError("The data type of 'bins' in histogramdd must be float32 or float64.")
            if b.dtype != x.dtype:
                raise AssertionError("When bins is Tensor[], the dtype of bins must be the same as x.\n")
            edges.append(b)
        if len(edges) != D:
            raise AssertionError(f"The length of bins must be {D} when bins is a tuple of Tensors.\n")
        return edges
    raise ValueError("Input bins must be Tensor[], int[], or int.")


def histogramdd(x, bins=10, ranges=None, density=False, weights=None, name=None):
    """The D-dimensional histogram of points (paddle.histogramdd): x's last axis holds each point's
    D coordinates. Points outside the edges are not counted; the last bin of each dimension includes
    its right edge.

    Args:
        x (Tensor): [..., D] points, float32 or float64, at least 2-D.
        bins (int|list[int]|tuple[Tensor], optional): Bins per dimension (one int for all), or a tuple
            of D increasing 1-D edge tensors of x's dtype. Default: 10.
        ranges (list[float], optional): [lo_0, hi_0, lo_1, hi_1, ...], 2*D values; None takes each
            dimension's min and max. Ignored for tuple bins. Default: None.
        density (bool, optional): Divide by the total count and the bin volumes so that the histogram
            integrates to 1. Default: False.
        weights (Tensor, optional): x.shape[:-1] weights of x's dtype, summed instead of counting.
            Default: None.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        tuple(Tensor, list[Tensor]): The histogram (x's dtype, one axis per dimension) and the D edge
        tensors.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0., 1.], [1., 0.], [2., 0.], [2., 2.]])
        >>> hist, edges = oar.histogramdd(x, bins=[3, 3], weights=oar.to_tensor([1., 2., 4., 8.]))
        >>> print(hist.numpy())
        [[0. 1. 0.]
         [2. 0. 0.]
         [4. 0. 8.]]
        >>> print(edges[0].numpy())
        [0.         0.6666667  1.3333333  2.        ]
    """
    if not isinstance(density, bool):
        raise TypeError(f"The type of 'density' in histogramdd must be bool, but received {type(density)}.")
    if len(x.shape) < 2:
        raise AssertionError("input x must be a tensor with at least 2 dimensions.")
    if x.dtype.name not in ("float32", "float64"):
        raise TypeError(f"The data type of 'x' in histogramdd must be ['float32', 'float64'], but received "
                        f"{x.dtype.name}.")
    if weights is not None:
        if list(weights.shape) != list(x.shape[:-1]):
            raise AssertionError("if weight tensor is provided,it should have the same shape as the input tensor "
                                 "excluding its innermost dimension.\n")
        if weights.dtype.name not in ("float32", "float64"):
            raise TypeError(f"The data type of 'weights' in histogramdd must be ['float32', 'float64'], but "
                            f"received {weights.dtype.name}.")
        if weights.dtype != x.dtype:
            raise AssertionError("The dtype of weights must be the same as x.\n")
    D = x.shape[-1]
    flat = _C.reshape(x, [-1, D])
    n = flat.shape[0]
    edges = _histogramdd_edges(x, flat, bins, ranges, D)
    i64 = convert_dtype("int64")
    # Each point's bin along each dimension: 0 below the first edge, len(edges) above the last
    # (the two outlier bins, dropped at the end); a point on the last edge joins the last bin.
    index = _C.zeros([n], i64)
    sizes = []
    for d, e in enumerate(edges):
        col = _C.reshape(_C.slice(flat, [1], [d], [d + 1]), [n])
        pos = _C.searchsorted(e, col, False, True)
        last = _C.slice(e, [0], [e.shape[0] - 1], [e.shape[0]])
        pos = _C.where(_C.equal(col, last), pos - 1, pos)
        size = e.shape[0] + 1
        index = index * size + pos
        sizes.append(size)
    total = 1
    for s in sizes:
        total *= s
    vals = _C.ones([n], i64) if weights is None else _C.reshape(weights, [n])
    hist = _C.index_add(_C.zeros([total], vals.dtype), index, 0, vals)
    hist = _C.cast(_C.reshape(hist, sizes), x.dtype)
    hist = _C.slice(hist, list(range(D)), [1] * D, [s - 1 for s in sizes])
    if density:
        norm = _C.sum(hist, [], None, False)
        for d, e in enumerate(edges):
            shape = [1] * D
            shape[d] = sizes[d] - 2
            width = _C.slice(e, [0], [1], [e.shape[0]]) - _C.slice(e, [0], [0], [e.shape[0] - 1])
            hist = hist / _C.reshape(width, shape)
        hist = hist / norm
    return hist, edges


def _trapezoid_parts(y, x, dx, axis):
    a = axis + y.ndim if axis < 0 else axis
    n = y.shape[a]
    left = _C.slice(y, [a], [0], [n - 1])
    right = _C.slice(y, [a], [1], [n])
    if x is not None:
        if x.ndim == 1:
            shape = [1] * y.ndim
            shape[a] = x.shape[0]
            x = _C.reshape(x, shape)
        xa = a if x.ndim == y.ndim else x.ndim - 1
        d = _C.slice(x, [xa], [1], [x.shape[xa]]) - _C.slice(x, [xa], [0], [x.shape[xa] - 1])
    else:
        d = 1.0 if dx is None else float(dx)
    return (left + right) * d * 0.5, a


def trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """Integral of y along axis by the trapezoidal rule.

    Args:
        y (Tensor): The values, floating point.
        x (Tensor, optional): Sample points (1-D, or y's shape). Default: None.
        dx (float, optional): Spacing when x is None; both None mean 1. Default: None.
        axis (int, optional): The axis. Default: -1.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: y's shape without axis.

    Examples:
        >>> import oar
        >>> y = oar.to_tensor([1.0, 2.0, 3.0])
        >>> print(oar.trapezoid(y).numpy(), oar.trapezoid(y, dx=0.5).numpy())
        4.0 2.0
    """
    if x is not None and dx is not None:
        raise ValueError("trapezoid: give 'x' or 'dx', not both")
    parts, a = _trapezoid_parts(y, x, dx, axis)
    return _C.sum(parts, [a], None, False)


def cumulative_trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """Running integral of y along axis by the trapezoidal rule.

    Args:
        y (Tensor): The values, floating point.
        x (Tensor, optional): Sample points (1-D, or y's shape). Default: None.
        dx (float, optional): Spacing when x is None; both None mean 1. Default: None.
        axis (int, optional): The axis. Default: -1.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: y's shape with one element fewer along axis.

    Examples:
        >>> import oar
        >>> print(oar.cumulative_trapezoid(oar.to_tensor([1.0, 2.0, 3.0])).numpy())
        [1.5 4. ]
    """
    if x is not None and dx is not None:
        raise ValueError("cumulative_trapezoid: give 'x' or 'dx', not both")
    parts, a = _trapezoid_parts(y, x, dx, axis)
    return _C.cumsum(parts, a, None)


def renorm(x, p, axis, max_norm):
    """Each slice along `axis` rescaled so that its p-norm is at most max_norm."""
    a = axis + x.ndim if axis < 0 else axis
    others = [d for d in range(x.ndim) if d != a]
    norms = _C.p_norm(x, float(p), others, True)
    scale = _C.where(_C.greater_than(norms, _C.full([], float(max_norm), norms.dtype)),
                     float(max_norm) / norms, _C.ones_like(norms))
    return x * scale


__all__ = ["quantile", "nanquantile", "nanmedian", "bincount", "histogram", "histogram_bin_edges", "histogramdd",
           "trapezoid", "cumulative_trapezoid", "renorm"]
