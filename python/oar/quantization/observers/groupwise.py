from __future__ import annotations

from ... import _C
from ..base_observer import BaseObserver
from ..factory import ObserverFactory

__all__ = ["GroupWiseWeightObserver", "GroupWiseWeightObserverLayer"]


class GroupWiseWeightObserver(ObserverFactory):
    """Weight scales per group of `group_size` consecutive input rows of a [in, out] weight.

    Args:
        quant_bits (int, optional): Bits of the integers. Default: 8.
        group_size (int, optional): 64 or 128. Default: 128.
    """

    def __init__(self, quant_bits=8, group_size=128):
        super().__init__(quant_bits=quant_bits, group_size=group_size)

    def _get_class(self):
        return GroupWiseWeightObserverLayer


class GroupWiseWeightObserverLayer(BaseObserver):
    def __init__(self, layer, quant_bits=8, group_size=128):
        super().__init__()
        if group_size not in (64, 128):
            raise ValueError(f"GroupWiseWeightObserver: argument 'group_size' must be 64 or 128, got {group_size!r}")
        self._quant_bits = quant_bits
        self._group_size = group_size
        self._scale = None
        self._zero_point = None

    def forward(self, input):
        if input.ndim != 2 or input.shape[0] % self._group_size != 0:
            raise ValueError(f"GroupWiseWeightObserver: expected a 2-D weight whose first dim is a multiple of "
                             f"group_size {self._group_size}, got shape {list(input.shape)}")
        w = input.detach().astype("float32")
        groups = _C.reshape(_C.abs(w), [input.shape[0] // self._group_size, self._group_size, input.shape[1]])
        scale = _C.max(groups, [1], False)
        self._scale = _C.where(scale == 0, _C.full_like(scale, 1e-8, None), scale)
        self._zero_point = _C.zeros_like(self._scale)
        return input

    def cal_thresholds(self):
        if self._scale is None:
            raise RuntimeError("GroupWiseWeightObserver: no weight was observed: run the quantized model "
                               "once before convert()")

    def scales(self):
        return self._scale

    def zero_points(self):
        return self._zero_point

    def quant_axis(self):
        return -1

    def bit_length(self):
        return self._quant_bits
