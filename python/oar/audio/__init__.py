"""oar.audio, as paddle.audio: feature layers (features/), their building blocks (functional/),
WAV input and output (backends/: load, save, info) and audio classification datasets read from
local files (datasets/)."""
from . import backends, datasets, features, functional
from .backends.wave_backend import info, load, save

__all__ = ["functional", "features", "datasets", "backends", "load", "info", "save"]
