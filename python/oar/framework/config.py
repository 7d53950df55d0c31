"""Process-wide settings and build facts Paddle exposes at top level: the global flags (get_flags,
set_flags), disable_signal_handler, is_compiled_with_cuda."""

__all__ = ["get_flags", "set_flags", "disable_signal_handler", "is_compiled_with_cuda"]

_FLAGS = {"FLAGS_check_nan_inf": False, "FLAGS_use_mkldnn": True, "FLAGS_cudnn_deterministic": False}


def get_flags(flags):
    """Values of global flags (oar keeps Paddle's names; unknown ones raise ValueError)."""
    names = [flags] if isinstance(flags, str) else list(flags)
    for n in names:
        if n not in _FLAGS:
            raise ValueError(f"get_flags: unknown flag {n!r}; known: {sorted(_FLAGS)}")
    return {n: _FLAGS[n] for n in names}


def set_flags(flags):
    """Sets global flags (read back with get_flags); an unknown name raises ValueError. Known:
    FLAGS_check_nan_inf, FLAGS_use_mkldnn, FLAGS_cudnn_deterministic.

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
    for n, v in dict(flags).items():
        if n not in _FLAGS:
            raise ValueError(f"set_flags: unknown flag {n!r}; known: {sorted(_FLAGS)}")
        _FLAGS[n] = v


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
