"""paddle.enable_static, which starts recording into the default main program. The state of static
mode and the functions that read it (disable_static, in_dynamic_mode, is_symbolic, eager, ...) are
in framework/mode.py, which this module re-exports as oar.static.mode.<name>."""
from ..framework.mode import (  # noqa: F401
    disable_static, eager, in_dynamic_mode, in_static_mode, is_symbolic, start_static, tracing,
    user_location)
from .program import default_main_program

__all__ = ["enable_static", "disable_static", "in_dynamic_mode", "in_static_mode", "is_symbolic",
           "eager", "tracing", "user_location"]


def enable_static():
    """Turns on static mode: ops build the default main program (paddle.enable_static)."""
    start_static(default_main_program()._tracer)
