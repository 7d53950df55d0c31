"""oar.audio, as paddle.audio: feature layers (features/) and their building blocks
(functional/)."""
from . import features, functional

__all__ = ["functional", "features"]
