from __future__ import annotations

from ...functional import conv2d, pad
from ..format import ConvertibleQuantedLayer


class QuantedConv2D(ConvertibleQuantedLayer):
    """A Conv2D whose weight and input go through the config's quanters (sharing its weight)."""

    def __init__(self, layer, q_config):
        super().__init__()
        self._take_layer(layer, q_config)
        for attr in ("_groups", "_stride", "_padding", "_padding_mode", "_dilation", "_data_format"):
            setattr(self, attr, getattr(layer, attr))

    def forward(self, input):
        x, w = self._quanted(input)
        padding = self._padding
        if self._padding_mode != "zeros":  # reflect/replicate/circular: padded first, as Conv2D does
            x = pad(x, [self._padding] * 4, mode=self._padding_mode, data_format=self._data_format)
            padding = 0
        return conv2d(x, w, self.bias, stride=self._stride, padding=padding, dilation=self._dilation,
                      groups=self._groups, data_format=self._data_format)
