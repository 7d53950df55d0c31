"""BaseQuanter: what convert() asks every quanter and observer (paddle.quantization.base_quanter)."""
from __future__ import annotations

import abc

from ..nn.layer.layers import Layer

__all__ = ["BaseQuanter"]


class BaseQuanter(Layer, metaclass=abc.ABCMeta):
    """A layer that fake-quantizes or observes a tensor; convert() reads its scales, zero points,
    quantization axis and bit length."""

    @abc.abstractmethod
    def forward(self, input):
        ...

    @abc.abstractmethod
    def scales(self):
        ...

    @abc.abstractmethod
    def zero_points(self):
        ...

    @abc.abstractmethod
    def quant_axis(self):
        ...

    @abc.abstractmethod
    def bit_length(self):
        ...
