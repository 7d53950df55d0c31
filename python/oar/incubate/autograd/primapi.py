"""enable_prim / disable_prim / prim_enabled (paddle.incubate.autograd): Paddle's switch that
lowers static programs to primitive operators before differentiating them. oar's static
gradients always come from the same vjp rules as dynamic mode (oar/static/backward.py), so the
switch is recorded (prim_enabled reads it back) and changes no result. As in Paddle, the three
work in static mode only."""
from ...framework import mode

_state = {"enabled": False}


class _StaticOnlyError(RuntimeError, AssertionError):
    """A static-mode API called in dynamic mode (Paddle asserts on it)."""


def _require_static(api):
    if not mode.in_static_mode():
        raise _StaticOnlyError(f"{api}() is only supported in static graph mode; call oar.enable_static() first")


def enable_prim():
    """Turns the primitive-operator switch on (paddle.incubate.autograd.enable_prim); static mode
    only. oar records it; its static gradients do not depend on it.

    Examples:
        >>> import oar
        >>> oar.enable_static()
        >>> oar.incubate.autograd.enable_prim()
        >>> print(oar.incubate.autograd.prim_enabled())
        True
        >>> oar.incubate.autograd.disable_prim()
        >>> oar.disable_static()
    """
    _require_static("enable_prim")
    _state["enabled"] = True


def disable_prim():
    """Turns the primitive-operator switch off (paddle.incubate.autograd.disable_prim); static
    mode only.

    Examples:
        >>> import oar
        >>> oar.enable_static()
        >>> oar.incubate.autograd.disable_prim()
        >>> print(oar.incubate.autograd.prim_enabled())
        False
        >>> oar.disable_static()
    """
    _require_static("disable_prim")
    _state["enabled"] = False


def prim_enabled():
    """Whether enable_prim() is in effect (paddle.incubate.autograd.prim_enabled); static mode
    only.

    Returns:
        bool: the switch.

    Examples:
        >>> import oar
        >>> oar.enable_static()
        >>> print(oar.incubate.autograd.prim_enabled())
        False
        >>> oar.disable_static()
    """
    _require_static("prim_enabled")
    return _state["enabled"]
