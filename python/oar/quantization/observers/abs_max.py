from __future__ import annotations

from ... import _C
from ..base_observer import BaseObserver
from ..factory import ObserverFactory

__all__ = ["AbsmaxObserver", "AbsmaxObserverLayer"]


class AbsmaxObserver(ObserverFactory):
    """Per-tensor symmetric scale: the largest |x| seen over the calibration batches.

    Args:
        quant_bits (int, optional): Bits of the integers. Default: 8.
    """

    def __init__(self, quant_bits=8):
        super().__init__(quant_bits=quant_bits)

    def _get_class(self):
        return AbsmaxObserverLayer


class AbsmaxObserverLayer(BaseObserver):
    def __init__(self, layer, quant_bits=8):
        super().__init__()
        if not isinstance(quant_bits, int) or not 2 <= quant_bits <= 16:
            raise ValueError(f"AbsmaxObserver: argument 'quant_bits' must be an int in [2, 16], got {quant_bits!r}")
        self._quant_bits = quant_bits
        self._max = None
        self._scale = None
        self._zero_point = None

    def forward(self, input):
        current = _C.max(_C.abs(input.detach()), None, False).astype("float32")
        self._max = current if self._max is None else _C.maximum(self._max, current)
        return input

    def cal_thresholds(self):
        if self._max is None:
            raise RuntimeError("AbsmaxObserver: no data was observed: run the quantized model on "
                               "calibration batches before convert()")
        self._scale = self._max
        self._zero_point = _C.zeros_like(self._scale)

    def scales(self):
        if self._scale is None:
            self.cal_thresholds()
        return self._scale

    def zero_points(self):
        if self._zero_point is None and self._max is not None:
            self.cal_thresholds()
        return self._zero_point

    def quant_axis(self):
        return -1

    def bit_length(self):
        return self._quant_bits
