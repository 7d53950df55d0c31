"""Observers (paddle.quantization.observers): quanters that only watch, for PTQ."""
from .abs_max import AbsmaxObserver  # noqa: F401
from .groupwise import GroupWiseWeightObserver  # noqa: F401

__all__ = ["AbsmaxObserver", "GroupWiseWeightObserver"]
