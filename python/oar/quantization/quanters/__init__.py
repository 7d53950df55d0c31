"""Quanters (paddle.quantization.quanters): fake quantization for QAT."""
from .abs_max import FakeQuanterWithAbsMaxObserver  # noqa: F401

__all__ = ["FakeQuanterWithAbsMaxObserver"]
