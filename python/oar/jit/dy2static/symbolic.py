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
