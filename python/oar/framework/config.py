"""Process-wide settings and build facts Paddle exposes at top level: the global flags (get_flags,
set_flags), disable_signal_handler, is_compiled_with_cuda."""

__all__ = ["get_flags", "set_flags", "disable_signal_handler", "is_compiled_with_cuda"]

import os

_FLAGS = {"FLAGS_check_nan_inf": False, "FLAGS_check_nan_inf_level": 0, "FLAGS_use_mkldnn": True,
          "FLAGS_cudnn_deterministic": False}


def _apply_check_nan_inf():
    """FLAGS_check_nan_inf checks every op's floating outputs (paddle.amp.debugging's tensor
    checker); FLAGS_check_nan_inf_level is its DebugMode (0: raise at the first nan/inf)."""
    from .. import _C
    if _FLAGS["FLAGS_check_nan_inf"]:
        level = int(_FLAGS["FLAGS_check_nan_inf_level"])
        if not 0 <= level <= 3:
            raise ValueError(f"set_flags: FLAGS_check_nan_inf_level must be 0, 1, 2 or 3, got {level}")
        _C._amp_enable_tensor_checker(level, [], [])
    else:
        _C._amp_disable_tensor_checker()


def _flags_from_environment():
    """As Paddle, FLAGS_check_nan_inf=1 in the environment turns the check on at import."""
    if os.environ.get("FLAGS_check_nan_inf", "").lower() in ("1", "true"):
        level = os.environ.get("FLAGS_check_nan_inf_level", "0")
        set_flags({"FLAGS_check_nan_inf": True, "FLAGS_check_nan_inf_level": int(level) if level.isdigit() else 0})


def get_flags(flags):
    """Values of global flags (oar keeps Paddle's names; unknown ones raise ValueError)."""
    names = [flags] if isinstance(flags, str) else list(flags)
    for n in names:
        if n not in _FLAGS:
            raise ValueError(f"get_flags: unknown flag {n!r}; known: {sorted(_FLAGS)}")
    return {n: _FLAGS[n] for n in names}


def set_flags(flags):
    """Sets global flags (read back with get_flags); an unknown name raises ValueError. Known:
    FLAGS_check_nan_inf (with FLAGS_check_nan_inf_level: every op's floating outputs are checked
    and the first nan/inf raises RuntimeError naming the op), FLAGS_use_mkldnn,
    FLAGS_cudnn_deterministic.

    Args:
        flags (dict): Flag names and their values.

    Returns:
        None

    Examples:
        >>> import oar
        >>> oar.set_flags({'FLAGS_check_nan_inf': False})
        >>> print(oar.get_flags(['FLAGS_check_nan_inf']))
        {'FLAGS_check_nan_inf': False}
    """
    flags = dict(flags)
    for n in flags:
        if n not in _FLAGS:
            raise ValueError(f"set_flags: unknown flag {n!r}; known: {sorted(_FLAGS)}")
    _FLAGS.update(flags)
    if "FLAGS_check_nan_inf" in flags or "FLAGS_check_nan_inf_level" in flags:
        _apply_check_nan_inf()


def disable_signal_handler():
    """Paddle installs C++ signal handlers and lets users remove them; oar installs none."""
    return None


# paddle.is_compiled_with_cuda at top level says False (oar.device.is_compiled_with_cuda, a
# different function, says whether the CUDA backend is present).
def is_compiled_with_cuda():
    """Whether oar was built with CUDA; this build is not.

    Returns:
        bool: False.

    Examples:
        >>> import oar
        >>> print(oar.is_compiled_with_cuda())
        False
    """
    return False
