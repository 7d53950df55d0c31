from __future__ import annotations

from ...functional import conv2d, pad
from ..format import ConvertibleQuantedLayer


class QuantedConv2D(ConvertibleQuantedLayer):
    """A Conv2D whose weight and input go through the config's quanters (sharing its weight)."""

    def __init__(self, layer, q_config):
        super().__init__()
        self.weight = layer.weight
        self.bias = layer.bias
        for attr in ("_groups", "_stride", "_padding", "_padding_mode", "_dilation", "_data_format"):
            setattr(self, attr, getattr(layer, attr))
        self.weight_quanter = q_config.weight._instance(layer) if q_config.weight is not None else None
        self.activation_quanter = (q_config.activation._instance(layer)
                                   if q_config.activation is not None else None)

    def forward(self, input):
        x = self.activation_quanter(input) if self.activation_quanter is not None else input
        w = self.weight_quanter(self.weight) if self.weight_quanter is not None else self.weight
        padding = self._padding
        if self._padding_mode != "zeros":  # reflect/replicate/circular: padded first, as Conv2D does
            x = pad(x, [self._padding] * 4, mode=self._padding_mode, data_format=self._data_format)
            padding = 0
        return conv2d(x, w, self.bias, stride=self._stride, padding=padding, dilation=self._dilation,
                      groups=self._groups, data_format=self._data_format)

    def weights_to_quanters(self):
        return [("weight", "weight_quanter")]

    def activation_quanters(self):
        return ["activation_quanter"]
