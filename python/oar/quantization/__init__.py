"""paddle.quantization: post-training quantization (PTQ) and quantization-aware training (QAT)
of Linear and Conv2D layers to int8 (or fewer bits), with observers, fake quanters and a
convert() that gives the inference form (integer weights, quantize/dequantize layers).
The arithmetic is C++ (oar/kernels/cpu/quant.h)."""
from . import observers, quanters  # noqa: F401
from .base_observer import BaseObserver  # noqa: F401
from .base_quanter import BaseQuanter  # noqa: F401
from .config import QuantConfig  # noqa: F401
from .factory import ObserverFactory, QuanterFactory, quanter  # noqa: F401
from .ptq import PTQ  # noqa: F401
from .qat import QAT  # noqa: F401

__all__ = ["QuantConfig", "BaseQuanter", "BaseObserver", "quanter", "QAT", "PTQ"]
