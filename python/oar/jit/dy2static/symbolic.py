"""The bridge to static mode: whether a value is symbolic, and the IR control-flow builders.

Resolved lazily through `oar.static` so that dy2static works (on Python values and eager tensors)
whether or not static mode is loaded; `oar.static` is imported only when a program is being built.
"""
import sys


def is_symbolic(value):
    """True when `value` is a tensor standing for an IR value of a program being built."""
    static = sys.modules.get("oar.static")
    if static is None:
        return False
    check = getattr(static, "is_symbolic", None)
    return check is not None and check(value)


def static_nn():
    """`oar.static.nn` (cond, while_loop); only reached once some value was symbolic."""
    from oar.static import nn
    return nn


def bool_predicate(pred):
    """A symbolic predicate as cond/while_loop take it: a bool tensor (Paddle casts likewise)."""
    import oar
    return pred if pred.dtype == oar.bool else pred.astype("bool")


def as_branch_value(value):
    """A branch or loop output as static control flow takes it: Python bool/int/float become
    0-d tensors, since the two branches (or iterations) may give different values."""
    import oar
    for pytype, dtype in ((bool, "bool"), (int, "int64"), (float, "float32")):
        if type(value) is pytype:
            return oar.full([], value, dtype=dtype)
    return value


def convert_shape(x, site):
    """`x.shape`; for a symbolic tensor its unknown (-1) dims are 0-d int tensors read from
    `oar.shape(x)` at run time (as Paddle), so loops and arithmetic over them stay correct."""
    shape = x.shape
    if not is_symbolic(x) or all(d is not None and d >= 0 for d in shape):
        return shape
    import oar
    dynamic = oar.shape(x)
    if not is_symbolic(dynamic):
        from .errors import Dy2StaticError
        raise Dy2StaticError(
            site, f"`.shape` of a tensor whose shape is unknown while building ({list(shape)}): "
                  "oar.shape does not record an op in programs yet, so the -1 would be used as "
                  "a size", "Give this dimension a fixed size in the InputSpec, or avoid reading "
                  "it in Python (use shape-agnostic ops such as reshape with -1)")
    return [dynamic[i] if d is None or d < 0 else d for i, d in enumerate(shape)]
