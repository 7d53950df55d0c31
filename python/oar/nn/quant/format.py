"""The layers of a converted (quantized) model: quantize/dequantize pairs holding the scales,
and the base of the quantized layers that convert into them (paddle.nn.quant.format)."""
from __future__ import annotations

import numpy as np

from ... import _C
from ..layer.layers import Layer

__all__ = ["LinearQuanter", "LinearDequanter", "LinearQuanterDequanter", "ConvertibleQuantedLayer"]


def _float_tensor(value):
    from ...tensor.creation import to_tensor
    if isinstance(value, _C.Tensor):
        return value.astype("float32").detach()
    return to_tensor(np.asarray(value, dtype=np.float32))


class _ScaledLayer(Layer):
    """Holds scale and zero point as non-trainable parameters (saved with the model)."""

    def __init__(self, scales, zero_point=None, quant_axis=None, bit_length=8, group_size=128):
        super().__init__()
        from ...nn.initializer import Assign
        scales = _float_tensor(scales)
        zp = _float_tensor(np.zeros(scales.shape, np.float32) if zero_point is None else zero_point)
        self._scales = self.create_parameter(scales.shape, dtype="float32", default_initializer=Assign(scales))
        self._zero_point = self.create_parameter(zp.shape, dtype="float32", default_initializer=Assign(zp))
        for p in (self._scales, self._zero_point):
            p.trainable = False
            p.stop_gradient = True
        self._quant_axis = -1 if quant_axis is None else int(quant_axis)
        self._bit_length = int(bit_length)
        self._group_size = group_size

    def _check_bits(self):
        if not isinstance(self._bit_length, int):
            raise NotImplementedError(f"{type(self).__name__}: float8 bit_length {self._bit_length} is not supported")


class LinearQuanter(_ScaledLayer):
    """x -> its integers: clip(round_half_even(x / scale * qmax), qmin, qmax), in x's dtype."""

    def forward(self, x):
        self._check_bits()
        return _C.quantize_linear(x, self._scales, self._zero_point, self._quant_axis, self._bit_length, 0)


class LinearDequanter(_ScaledLayer):
    """integers -> floats: x * scale / qmax."""

    def forward(self, x):
        self._check_bits()
        return _C.dequantize_linear(x, self._scales, self._zero_point, self._quant_axis, self._bit_length)


class LinearQuanterDequanter(Layer):
    """A quantize then dequantize pair (either may be None)."""

    def __init__(self, quanter, dequanter):
        super().__init__()
        self._quanter = quanter
        self._dequanter = dequanter

    def forward(self, x):
        out = x
        if self._quanter is not None:
            out = self._quanter(out)
        if self._dequanter is not None:
            out = self._dequanter(out)
        return out

    @staticmethod
    def from_quanter(quanter):
        """The pair that computes what `quanter` (an observer or fake quanter) decided."""
        scales = quanter.scales()
        if scales is None:
            raise RuntimeError(f"{type(quanter).__name__}: it has no scale yet: run the quantized model on "
                               "calibration data (or train it) before convert()")
        zero_points = quanter.zero_points()
        args = (scales, zero_points, quanter.quant_axis(), quanter.bit_length())
        return LinearQuanterDequanter(LinearQuanter(*args), LinearDequanter(*args))


class ConvertibleQuantedLayer(Layer):
    """A quantized layer that convert() turns into integer weights plus dequantizers."""

    def __init__(self):
        super().__init__()
        self.converted = False

    def _take_layer(self, layer, q_config):
        """Shares `layer`'s weight and bias and makes the config's weight and input quanters."""
        self.weight = layer.weight
        self.bias = layer.bias
        self.weight_quanter = q_config.weight._instance(layer) if q_config.weight is not None else None
        self.activation_quanter = (q_config.activation._instance(layer)
                                   if q_config.activation is not None else None)

    def _quanted(self, input):
        """(input, weight) through their quanters."""
        x = self.activation_quanter(input) if self.activation_quanter is not None else input
        w = self.weight_quanter(self.weight) if self.weight_quanter is not None else self.weight
        return x, w

    def weights_to_quanters(self):
        """[(weight attribute, its quanter attribute)]."""
        return [("weight", "weight_quanter")]

    def activation_quanters(self):
        """[activation quanter attribute]."""
        return ["activation_quanter"]

    def _convert_quanter_to_qdq(self, quanter_name):
        quanter = getattr(self, quanter_name)
        if quanter is None:
            return None
        qdq = LinearQuanterDequanter.from_quanter(quanter)
        setattr(self, quanter_name, qdq)
        self._sub_layers[quanter_name] = qdq
        return qdq

    def _quant_weights(self, weight_name, quanter):
        """The weight replaced in place by its integers (still a float tensor, as Paddle)."""
        weight = getattr(self, weight_name)
        ints = quanter(weight)
        weight.set_value(ints.numpy())

    def _convert(self, remain_weight=False):
        assert not self.converted, "The model should be converted only once."
        for weight_name, quanter_name in self.weights_to_quanters():
            qdq = self._convert_quanter_to_qdq(quanter_name)
            if qdq is not None and not remain_weight:
                self._quant_weights(weight_name, qdq._quanter)
                qdq._quanter = None
                qdq._sub_layers["_quanter"] = None
        for quanter_name in self.activation_quanters():
            self._convert_quanter_to_qdq(quanter_name)
        self.converted = True
