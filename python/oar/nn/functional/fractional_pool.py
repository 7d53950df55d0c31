"""Fractional max pooling (paddle.nn.functional.fractional_max_pool2d/3d; B. Graham, 2015).

Each spatial dim of size n is cut into m pseudo-random windows drawn from one number u in (0, 1).
Why no C++ kernel: the windows depend only on (n, m, kernel, u), so they are a few NumPy vectors
(O(windows * window size) work, independent of batch and channels); the data work is one gather
of every window's elements (index_select), one argmax over the window axis and a take_along_axis
of the winners, all C++ ops, and take_along_axis's backward already scatters the gradient to the
argmax (summing where windows overlap). A dedicated kernel would save the gathered intermediate
(about 2x the input for disjoint windows): measured on one thread, [16, 64, 64, 64] -> 32 x 32
forward + backward takes 3-4x Paddle's CPU time, none of it in Python.
"""
import math

import numpy as np

from ... import _C

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d"]

_DIM_NAMES = {2: ("height", "width"), 3: ("depth", "height", "width")}
# Paddle starts every window's running max at -FLT_MAX (for every dtype) and keeps an element only
# if it is strictly greater: NaNs and elements <= -FLT_MAX never win, and a window without a winner
# yields -FLT_MAX (in the input's dtype: -inf for float16) with mask -1.
_FLT_LOWEST = float(np.finfo(np.float32).min)
_DTYPES = ("float16", "float32", "float64")


def _intervals(n, m, k, u):
    """[start, end) of the m windows over a dim of size n, as Paddle 3.3.1 computes them.

    Found by experiment (identical to Paddle on thousands of random (n, m, k, u)): everything in
    float32, window edges floor(alpha * (i + u)) shifted so the first window starts at 0.
    Disjoint mode (k == 0): alpha = n / m and u is first scaled by the largest value that keeps the
    edges inside the input; the last window ends at n. Overlapping mode (k > 0): alpha =
    (n - k) / (m - 1), windows of length k, the last starting at n - k.
    """
    f32 = np.float32
    u = f32(u)
    i = np.arange(m + 1, dtype=f32)
    if k == 0:
        alpha = f32(n) / f32(m)
        base = n // m
        u_max = min(f32(base + 2) / alpha - f32(1), f32(n + 1 - base) / alpha - f32(m - 1))
        u = f32(u * u_max)
        edges = np.floor(alpha * (i + u)).astype(np.int64) - int(np.floor(alpha * u))
        return np.minimum(edges[:-1], n), np.minimum(edges[1:], n)
    alpha = f32(n - k) / f32(m - 1) if m > 1 else f32(0)
    starts = np.floor(alpha * (i[:-1] + u)).astype(np.int64) - int(np.floor(alpha * u))
    starts = np.minimum(starts, n - k)
    return starts, starts + k


def _window_elements(sizes, out_sizes, kernel, u):
    """[P, K]: the flat spatial index of every element of every window (P windows in row-major
    order, elements in row-major order, K the largest window's count); entries past a window's
    end hold prod(sizes), the index of a -inf sentinel appended to the data."""
    flat = np.zeros((1, 1), dtype=np.int64)
    real = np.ones((1, 1), dtype=bool)
    for n, m, k in zip(sizes, out_sizes, kernel):
        starts, ends = _intervals(n, m, k, u)
        lengths = ends - starts
        offs = np.arange(max(int(lengths.max(initial=0)), 1))
        idx = np.clip(starts[:, None] + offs[None, :], 0, n - 1)
        ok = offs[None, :] < lengths[:, None]
        flat = (flat[:, None, :, None] * n + idx[None, :, None, :]).reshape(flat.shape[0] * m, -1)
        real = (real[:, None, :, None] & ok[None, :, None, :]).reshape(real.shape[0] * m, -1)
    return np.where(real, flat, math.prod(sizes))


def _check_x(x, nd, fn):
    import oar
    if not isinstance(x, oar.Tensor):
        raise ValueError(f"{fn}(): argument 'x' (position 0) must be Tensor, but got "
                         f"{type(x).__module__}.{type(x).__name__}")
    if x.ndim != nd + 2:
        raise ValueError(f"{fn}: Excepted Input X is {nd + 2}-D tensor, but received {x.ndim}-D tensor "
                         f"of shape {list(x.shape)}")
    dtype = x.dtype.name
    if dtype not in _DTYPES:
        raise RuntimeError(f"{fn}: the input 'x' must be of dtype float16, float32 or float64, but "
                           f"got {dtype}")
    return dtype


def _sizes_arg(value, nd, sizes, fn):
    """output_size: an int, or a list/tuple of nd ints or None (None keeps the input's size)."""
    if isinstance(value, int):
        value = [value] * nd
    elif isinstance(value, (list, tuple)):
        value = list(value)
        if len(value) < nd:
            raise IndexError(f"{fn}: 'output_size' must have {nd} elements, but got {value}")
        if len(value) > nd:
            raise ValueError(f"{fn}: 'output_size' must have {nd} elements, but got {value}")
        value = [sizes[d] if v is None else v for d, v in enumerate(value)]
    else:
        raise TypeError(f"{fn}: 'output_size' must be an int or a list/tuple of {nd} ints, but got "
                        f"{type(value).__name__} {value!r}")
    for v in value:
        if not isinstance(v, int):
            raise TypeError(f"{fn}: 'output_size' must hold ints (or None), but got "
                            f"{type(v).__name__} in {value}")
        if v < 0:
            raise ValueError(f"{fn}: 'output_size' must be non-negative, but got {value}")
    return value


def _kernel_arg(value, nd, fn):
    """kernel_size: None or 0 along a dim means disjoint windows there."""
    if value is None:
        return [0] * nd
    if isinstance(value, int):
        value = [value] * nd
    elif isinstance(value, (list, tuple, str)):
        if len(value) != nd:
            raise ValueError(f"{fn}: The kernel_size's length must be {nd}. Received: {value}")
        value = list(value)
        for v in value:
            if not isinstance(v, int):
                raise TypeError(f"{fn}: 'kernel_size' must hold ints, but got "
                                f"{type(v).__name__} in {value}")
    else:
        raise ValueError(f"{fn}: The kernel_size's type must be list or tuple. Received: {value}")
    if any(v < 0 for v in value):
        # Paddle silently pools with mis-scaled disjoint windows here; a negative size is an error.
        raise ValueError(f"{fn}: 'kernel_size' must be non-negative (0 or None: disjoint windows), "
                         f"but got {value}")
    return value


def _random_u(value, fn):
    if value is None:
        import oar
        # Paddle draws u from its generator when none is given; ours is reproducible under oar.seed.
        return float(oar.rand([1], dtype="float32").item())
    if isinstance(value, str) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"{fn}: 'random_u' must be a float in (0, 1), but got "
                        f"{type(value).__name__} {value!r}")
    if math.isnan(value) or value <= 0 or value >= 1:
        raise ValueError(f"{fn}: The param `random_u` should be a `float` in (0, 1), but got {value}")
    return float(value)


def _fractional_max_pool(x, nd, output_size, kernel_size, random_u, return_mask):
    import oar
    fn = f"fractional_max_pool{nd}d"
    dtype = _check_x(x, nd, fn)
    sizes = [int(s) for s in x.shape[2:]]
    out_sizes = _sizes_arg(output_size, nd, sizes, fn)
    kernel = _kernel_arg(kernel_size, nd, fn)
    u = _random_u(random_u, fn)
    if not isinstance(return_mask, bool):
        raise TypeError(f"{fn}(): argument 'return_mask' (position 5) must be bool, but got "
                        f"{type(return_mask).__name__}")
    for name, n, m, k in zip(_DIM_NAMES[nd], sizes, out_sizes, kernel):
        if n < m - 1 + k:
            raise ValueError(f"{fn}: input_{name} [{n}] is less than valid output_{name} [{m - 1 + k}] "
                             f"(expected input_{name} >= output_{name} - 1 + pool_{name}, with "
                             f"output_{name} {m} and pool_{name} {k})")

    batch, channels = int(x.shape[0]), int(x.shape[1])
    out_shape = [batch, channels] + out_sizes
    lowest = oar.full([1], _FLT_LOWEST, dtype=dtype)
    if math.prod(out_shape) == 0 or math.prod(sizes) == 0:
        # No window has an element (or there is no window): Paddle's empty-window answer.
        out = oar.full(out_shape, _FLT_LOWEST, dtype=dtype)
        mask = oar.full(out_shape, -1, dtype="int32")
        return (out, mask) if return_mask else out

    flat = _window_elements(sizes, out_sizes, kernel, u)
    windows, width = flat.shape
    x_flat = _C.reshape(x, [batch, channels, -1])
    neg_inf = oar.full([1], -np.inf, dtype=dtype)
    with oar.no_grad():
        # NaN and values <= -FLT_MAX never win (-inf), then the sentinel column.
        vals = _C.where(_C.greater_than(x_flat, lowest), x_flat, neg_inf)
        vals = _C.concat([vals, oar.full([batch, channels, 1], -np.inf, dtype=dtype)], 2)
        elems = _C.index_select(vals, oar.to_tensor(flat.reshape(-1)), 2)
        pos = _C.argmax(_C.reshape(elems, [batch, channels, windows, width]), -1)  # first maximum
        row = oar.to_tensor(np.arange(windows, dtype=np.int64) * width)
        winner = _C.reshape(_C.index_select(oar.to_tensor(flat.reshape(-1)),
                                            _C.reshape(_C.add(pos, row), [-1]), 0),
                            [batch, channels, windows])
        # A window whose first maximum is -inf has no element that beats Paddle's -FLT_MAX.
        found = _C.greater_than(_C.take_along_axis(vals, winner, 2), neg_inf)
        safe = _C.where(found, winner, oar.zeros([1], dtype="int64"))
    # The one differentiable step: its backward sends each output's gradient to its argmax.
    out = _C.where(found, _C.take_along_axis(x_flat, safe, 2), lowest)
    out = _C.reshape(out, out_shape)
    if not return_mask:
        return out
    mask = _C.where(found, winner, oar.full([1], -1, dtype="int64"))
    return out, _C.reshape(_C.cast(mask, "int32"), out_shape)


def fractional_max_pool2d(x, output_size, kernel_size=None, random_u=None, return_mask=False, name=None):
    """Max over pseudo-random windows of x [N, C, H, W] giving [N, C, *output_size]; with
    return_mask also the flat H * W index of each maximum (int32, -1 for an empty window)."""
    return _fractional_max_pool(x, 2, output_size, kernel_size, random_u, return_mask)


def fractional_max_pool3d(x, output_size, kernel_size=None, random_u=None, return_mask=False, name=None):
    """As fractional_max_pool2d over x [N, C, D, H, W]; the mask indexes D * H * W."""
    return _fractional_max_pool(x, 3, output_size, kernel_size, random_u, return_mask)
