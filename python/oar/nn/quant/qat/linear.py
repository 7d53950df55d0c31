from __future__ import annotations

from ...functional import linear
from ..format import ConvertibleQuantedLayer


class QuantedLinear(ConvertibleQuantedLayer):
    """A Linear whose weight and input go through the config's quanters (sharing its weight)."""

    def __init__(self, layer, q_config):
        super().__init__()
        self.weight = layer.weight
        self.bias = layer.bias
        self.name = getattr(layer, "name", None)
        self.weight_quanter = q_config.weight._instance(layer) if q_config.weight is not None else None
        self.activation_quanter = (q_config.activation._instance(layer)
                                   if q_config.activation is not None else None)

    def forward(self, input):
        x = self.activation_quanter(input) if self.activation_quanter is not None else input
        w = self.weight_quanter(self.weight) if self.weight_quanter is not None else self.weight
        return linear(x, w, self.bias)

    def weights_to_quanters(self):
        return [("weight", "weight_quanter")]

    def activation_quanters(self):
        return ["activation_quanter"]
