"""oar.audio.backends, as paddle.audio.backends: the WAV reader and writer (wave_backend.py),
AudioInfo (backend.py) and the backend choice (init_backend.py)."""
from . import backend, wave_backend
from .init_backend import get_current_backend, list_available_backends, set_backend

__all__ = ["get_current_backend", "list_available_backends", "set_backend"]
