"""paddle.nn.quant: the layers of quantized models (Stub, the quantized Linear/Conv2D in qat,
the quantize/dequantize layers of converted models in format)."""
from . import format, qat, stub  # noqa: F401
from .stub import Stub  # noqa: F401

__all__ = ["Stub"]
