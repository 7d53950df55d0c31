"""paddle.LazyGuard: parameters created inside the guard are initialised later, by
param.initialize().

Paddle's semantics, as measured: a parameter built under the guard has its shape, dtype and name
but no values yet (_is_initialized() is False); initialize() runs its initializer then, so the
random draws happen in the order of the initialize() calls (seeding, building a network under the
guard and initialising its parameters in order gives the same values as building it eagerly);
initialising twice, or a parameter that was never lazy, is an error.

Departure: Paddle gives the lazy parameter no memory and raises if it is used before
initialize(); oar holds it as zeros until then (a Python layer cannot intercept the C++ ops that
would read it), so using it early computes with zeros. Call initialize() on every parameter first.
"""
from .. import _C

_depth = 0


class LazyGuard:
    """with LazyGuard(): net = Linear(10, 10)  # then: for p in net.parameters(): p.initialize()"""

    def __enter__(self):
        global _depth
        _depth += 1

    def __exit__(self, exc_type, exc_val, exc_tb):
        global _depth
        _depth -= 1


def active():
    """Whether parameters being created now should be initialised lazily."""
    return _depth > 0


def defer(param, fill):
    """Marks `param` as not initialised; fill(param) writes its values when initialize() runs."""
    param._lazy_fill = fill


def initialize(self):
    """param.initialize(): runs the initializer of a parameter created under LazyGuard."""
    fill = getattr(self, "_lazy_fill", None)
    if fill is None:
        raise RuntimeError(f"initialize: parameter '{self.name}' has no pending initialisation (it was "
                           "not created under LazyGuard, or initialize() already ran)")
    self._lazy_fill = None
    prev = _C.is_grad_enabled()
    _C._set_grad_enabled(False)
    try:
        fill(self)
    finally:
        _C._set_grad_enabled(prev)


def is_initialized(self):
    """param._is_initialized(): False until a lazily created parameter is initialized."""
    return getattr(self, "_lazy_fill", None) is None
