"""Static mode's state: while it is on, every op called on this thread is recorded into the current
main program (through the C++ tracer) instead of running. `eager()` suspends that for code that
must compute now (weight initialisation, optimizer updates, metrics); is_symbolic tells a value of a
program being built from a tensor with data. The tensor functions, layers, optimizers and oar.static
read it from here; static/mode.py's enable_static turns it on (it needs the default main program)."""
import atexit
import contextlib
import os
import sys

from .. import _C

__all__ = ["start_static", "disable_static", "in_dynamic_mode", "in_static_mode", "is_symbolic",
           "eager", "tracing", "user_location"]

_ir = _C._ir
_state = {"static": False, "tracer": None}
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _activate(tracer):
    _state["tracer"] = tracer
    _ir.set_tracer(tracer)


@atexit.register
def _forget_tracer_at_exit():
    """A program still being recorded at exit (enable_static without disable_static) is let go
    before the interpreter tears down, so nanobind sees no live Tracer or Program (it would
    report them as leaks)."""
    _state["tracer"] = None
    _ir.set_tracer(None)


def start_static(tracer):
    """Turns static mode on, ops recording into `tracer` (static.mode.enable_static passes the
    default main program's)."""
    _state["static"] = True
    _activate(tracer)


def disable_static(place=None):
    """Back to dynamic (eager) mode (paddle.disable_static)."""
    _state["static"] = False
    _activate(None)


def in_dynamic_mode():
    """True unless static mode is on (paddle.in_dynamic_mode)."""
    return not _state["static"]


def in_static_mode():
    return _state["static"]


def is_symbolic(x):
    """x is a tensor standing for a value of a program being built (no data until it runs)."""
    return isinstance(x, _C.Tensor) and _ir.is_symbolic(x)


@contextlib.contextmanager
def eager():
    """Runs the body eagerly even in static mode (weights are created and updated with data)."""
    tracer = _state["tracer"]
    if tracer is None:
        yield
        return
    # _state follows too, so that an eager() nested inside (a Python kernel the executor calls)
    # leaves the tracer off when it ends.
    _activate(None)
    try:
        yield
    finally:
        _activate(tracer)


@contextlib.contextmanager
def dynamic():
    """Dynamic mode for the body, whatever the global mode: ops run eagerly and in_dynamic_mode()
    is True (the Python kernels of program ops, which the executor calls, run this way)."""
    previous = _state["static"]
    _state["static"] = False
    try:
        with eager():
            yield
    finally:
        _state["static"] = previous


@contextlib.contextmanager
def tracing(tracer):
    """Records ops into `tracer`'s program for the body (to_static, program_guard)."""
    previous = _state["tracer"]
    _activate(tracer)
    try:
        yield
    finally:
        _activate(previous)


def user_location():
    """'file.py:12' of the innermost caller outside the oar package (recorded with each op)."""
    f = sys._getframe(1)
    while f is not None:
        fn = f.f_code.co_filename
        if not fn.startswith(_PACKAGE_DIR) and not fn.startswith("<frozen"):
            return f"{fn}:{f.f_lineno}"
        f = f.f_back
    return ""
