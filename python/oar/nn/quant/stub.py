"""Stub (paddle.nn.quant.Stub): marks a point in forward where the activation is observed or
quantized, for functional ops that are not layers."""
from __future__ import annotations

from ..layer.layers import Layer

__all__ = ["Stub", "QuanterStub"]


class Stub(Layer):
    """Identity, until quantization replaces it with a QuanterStub.

    Args:
        observer (QuanterFactory, optional): The observer or quanter here (default: the config's
            activation one).
    """

    def __init__(self, observer=None):
        super().__init__()
        self._observer = observer

    def forward(self, input):
        return input


class QuanterStub(Layer):
    """What a Stub becomes in a quantized model: its observer (or the config's activation one)."""

    def __init__(self, layer, q_config):
        super().__init__()
        self._observer = None
        if layer._observer is not None:
            self._observer = layer._observer._instance(layer)
        elif q_config.activation is not None:
            self._observer = q_config.activation._instance(layer)

    def forward(self, input):
        return self._observer(input) if self._observer is not None else input
