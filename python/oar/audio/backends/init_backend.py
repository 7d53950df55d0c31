"""Choosing the audio backend (paddle.audio.backends): oar has one, the wave backend.

Paddle can also use paddleaudio's soundfile backend when that package is installed; oar does
not load paddleaudio (a Paddle extension), so 'wave_backend' is the only name.
"""
from __future__ import annotations

__all__ = ["list_available_backends", "get_current_backend", "set_backend"]

_WAVE = "wave_backend"


def list_available_backends():
    """The audio backends that can be chosen.

    Returns:
        list[str]: ['wave_backend'].

    Examples:
        >>> import oar
        >>> print(oar.audio.backends.list_available_backends())
        ['wave_backend']
    """
    return [_WAVE]


def get_current_backend():
    """The name of the backend oar.audio.load, save and info use.

    Returns:
        str: 'wave_backend'.

    Examples:
        >>> import oar
        >>> print(oar.audio.backends.get_current_backend())
        wave_backend
    """
    return _WAVE


def set_backend(backend_name):
    """Chooses the audio backend, one of list_available_backends().

    Args:
        backend_name (str): 'wave_backend'.

    Returns:
        None.

    Examples:
        >>> import oar
        >>> oar.audio.backends.set_backend('wave_backend')
        >>> print(oar.audio.backends.get_current_backend())
        wave_backend
    """
    if backend_name not in list_available_backends():
        raise NotImplementedError(
            f"audio backend {backend_name!r} is not available: oar has {list_available_backends()} "
            f"(paddleaudio's backends, such as 'soundfile', are not loaded by oar)")
