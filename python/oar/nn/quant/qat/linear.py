from __future__ import annotations

from ...functional import linear
from ..format import ConvertibleQuantedLayer


class QuantedLinear(ConvertibleQuantedLayer):
    """A Linear whose weight and input go through the config's quanters (sharing its weight)."""

    def __init__(self, layer, q_config):
        super().__init__()
        self._take_layer(layer, q_config)
        self.name = getattr(layer, "name", None)

    def forward(self, input):
        x, w = self._quanted(input)
        return linear(x, w, self.bias)
