"""Quantized layers (paddle.nn.quant.qat): Linear and Conv2D whose weights and inputs pass
through quanters."""
from .conv import QuantedConv2D  # noqa: F401
from .linear import QuantedLinear  # noqa: F401

__all__ = ["QuantedLinear", "QuantedConv2D"]
