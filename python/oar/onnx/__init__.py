"""oar.onnx (paddle.onnx): export a Layer as an ONNX model (docs/onnx.md).

The onnx package is imported when a model is exported, not with oar.
"""
from .export import export  # noqa: F401

__all__ = ["export", "supported_ops"]


def supported_ops():
    """The oar ops that have an ONNX conversion, sorted."""
    from .converters import CONVERTERS
    return sorted(CONVERTERS)
