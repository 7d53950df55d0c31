from __future__ import annotations

from ... import _C
from ...autograd import no_grad
from ..base_quanter import BaseQuanter
from ..factory import QuanterFactory

__all__ = ["FakeQuanterWithAbsMaxObserver", "FakeQuanterWithAbsMaxObserverLayer"]


class FakeQuanterWithAbsMaxObserver(QuanterFactory):
    """Fake quantization for QAT with a moving-average abs-max scale:
    state = rate * state + 1, accum = rate * accum + max|x|, scale = accum / state (in training;
    frozen in eval), out = round(clip(x, -scale, scale) / scale * qmax) * scale / qmax, with the
    gradient passed straight through.

    Args:
        moving_rate (float, optional): Default: 0.9.
        bit_length (int, optional): Default: 8.
        dtype (str, optional): Dtype of the scale. Default: 'float32'.
        name (str, optional): Prefix of the scale's parameter names.
    """

    def __init__(self, moving_rate=0.9, bit_length=8, dtype="float32", name=None):
        super().__init__(name=name, moving_rate=moving_rate, bit_length=bit_length, dtype=dtype)

    def _get_class(self):
        return FakeQuanterWithAbsMaxObserverLayer


class FakeQuanterWithAbsMaxObserverLayer(BaseQuanter):
    def __init__(self, layer, name=None, moving_rate=0.9, bit_length=8, dtype="float32"):
        super().__init__()
        if not 0.0 < moving_rate < 1.0:
            raise ValueError(f"FakeQuanterWithAbsMaxObserver: argument 'moving_rate' must be in (0, 1), got {moving_rate}")
        if not isinstance(bit_length, int) or not 2 <= bit_length <= 16:
            raise ValueError(f"FakeQuanterWithAbsMaxObserver: argument 'bit_length' must be an int in [2, 16], "
                             f"got {bit_length!r}")
        self._moving_rate = moving_rate
        self._bit_length = bit_length
        # Non-trainable parameters (saved with the model), started as Paddle's: scale 0.001, and
        # state and accumulator at 1.
        self._scale = self._state_param(dtype, 0.001)
        self._state = self._state_param(dtype, 1.0)
        self._accum = self._state_param(dtype, 1.0)

    def _state_param(self, dtype, value):
        from ...nn.initializer import Constant
        p = self.create_parameter([1], dtype=dtype, default_initializer=Constant(value))
        p.trainable = False
        p.stop_gradient = True
        return p

    def forward(self, input):
        if self.training:
            with no_grad():
                rate = self._moving_rate
                current = _C.max(_C.abs(input.detach()), None, False).astype(self._scale.dtype)
                state = self._state * rate + 1.0
                accum = self._accum * rate + current
                self._state.set_value(state)
                self._accum.set_value(accum)
                self._scale.set_value(accum / state)
        return _C.fake_quantize_dequantize(input, self._scale.astype(input.dtype) if input.dtype != self._scale.dtype
                                           else self._scale, self._bit_length, 1)

    def scales(self):
        return self._scale

    def zero_points(self):
        return None  # symmetric: convert() uses zero

    def quant_axis(self):
        return -1

    def bit_length(self):
        return self._bit_length
