"""Tensor printing in Paddle's format."""
import numpy as np

_PRINT = {"precision": 8, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": False}


def set_printoptions(precision=None, threshold=None, edgeitems=None, sci_mode=None, linewidth=None):
    for k, v in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                 ("sci_mode", sci_mode), ("linewidth", linewidth)):
        if v is not None:
            _PRINT[k] = v


def _format_array(arr):
    kind = arr.dtype.kind
    if arr.size == 0:
        return "[]"
    if kind == "b":
        width = 5 if (~arr).any() else 4
        fmt = {"bool": lambda v: str(bool(v)).ljust(width)}
    elif kind == "f":
        finite = arr[np.isfinite(arr)]
        p = _PRINT["precision"]
        integral = finite.size == 0 or np.all(finite == np.round(finite))
        big = finite.size and (np.abs(finite).max() >= 1e8 or (np.abs(finite[finite != 0]).min(initial=1) < 1e-4))
        if _PRINT["sci_mode"] or (big and not integral):
            fmt = {"float_kind": lambda v: np.format_float_scientific(v, precision=p, unique=False)}
        elif integral:
            fmt = {"float_kind": lambda v: f"{v:.0f}." if np.isfinite(v) else str(v)}
        else:
            fmt = {"float_kind": lambda v: f"{v:.{p}f}" if np.isfinite(v) else str(v)}
    else:
        fmt = None
    summarize = arr.size > _PRINT["threshold"]
    return np.array2string(arr, separator=", ", prefix="       ", formatter=fmt,
                           threshold=_PRINT["threshold"] if summarize else arr.size + 1,
                           edgeitems=_PRINT["edgeitems"], max_line_width=_PRINT["linewidth"])


def tensor_repr(t):
    arr = t.numpy()
    if t.dtype.name == "bfloat16":
        arr = t.astype("float32").numpy()
    head = (f"Tensor(shape={list(t.shape)}, dtype={t.dtype.name}, place={t.place}, "
            f"stop_gradient={t.stop_gradient},\n       ")
    if arr.ndim == 0:
        body = _format_array(arr.reshape(1))[1:-1].strip()
    else:
        body = _format_array(arr)
    return head + body + ")"
