"""What PTQ and QAT share: resolving the config, replacing layers by quantized ones, inserting
activation observers, and convert() (paddle.quantization.quantize)."""
from __future__ import annotations

import abc
import copy

from ..nn.quant.format import ConvertibleQuantedLayer, LinearQuanterDequanter
from .base_quanter import BaseQuanter
from .config import QuantConfig
from .wrapper import ObserveWrapper

__all__ = ["Quantization"]


class Quantization(metaclass=abc.ABCMeta):
    def __init__(self, config):
        if not isinstance(config, QuantConfig):
            raise TypeError(f"{type(self).__name__}: argument 'config' should be a QuantConfig, but got "
                            f"{type(config).__name__}")
        self._config = copy.deepcopy(config)

    @abc.abstractmethod
    def quantize(self, model, inplace=False):
        ...

    def convert(self, model, inplace=False, remain_weight=False):
        """The inference form of a quantized model: weights as integers (in float tensors) with
        dequantizers, activations through quantize/dequantize pairs holding the learnt scales.
        Without inplace the given model is left as it was."""
        target = model if inplace else copy.deepcopy(model)
        self._convert_children(target, remain_weight)
        return target

    def _convert_children(self, layer, remain_weight):
        for name, child in list(layer.named_children()):
            if isinstance(child, ConvertibleQuantedLayer):
                if child.converted:
                    continue
                quanter = getattr(child, "weight_quanter", None)
                if quanter is None or quanter.scales() is None:
                    continue
                child._convert(remain_weight=remain_weight)
            elif isinstance(child, BaseQuanter):
                setattr(layer, name, LinearQuanterDequanter.from_quanter(child))
            else:
                self._convert_children(child, remain_weight)

    def _quantize_layers(self, model):
        """Quantized layers in place of the mapped ones, then observers before the leaves."""
        config = self._config
        config._specify(model)
        self._replace_layers(model, config)
        self._insert_activation_observers(model, config)

    def _replace_layers(self, layer, config):
        for name, child in list(layer.named_children()):
            if config._is_quantifiable(child):
                setattr(layer, name, config._get_qat_layer(child))
            else:
                self._replace_layers(child, config)

    def _insert_activation_observers(self, layer, config):
        for name, child in list(layer.named_children()):
            if isinstance(child, ConvertibleQuantedLayer):
                continue
            if config._is_leaf(child) and config._has_observer_config(child):
                setattr(layer, name, ObserveWrapper(config._get_observer(child), child))
            elif not config._is_leaf(child):
                self._insert_activation_observers(child, config)

    def __str__(self):
        return self._config.details()

    __repr__ = __str__
