"""QuantConfig: which quanters go on which layers (paddle.quantization.config)."""
from __future__ import annotations

import copy

from .. import nn
from .factory import QuanterFactory

__all__ = ["QuantConfig", "SingleLayerConfig"]


class SingleLayerConfig:
    """The activation and weight quanter factories of one layer (either may be None)."""

    def __init__(self, activation, weight):
        for arg, value in (("activation", activation), ("weight", weight)):
            if value is not None and not isinstance(value, QuanterFactory):
                raise TypeError(f"QuantConfig: argument '{arg}' should be a quanter or observer factory "
                                f"(e.g. AbsmaxObserver()), or None, but got {type(value).__name__}")
        self._activation = activation
        self._weight = weight

    @property
    def activation(self):
        return self._activation

    @property
    def weight(self):
        return self._weight

    def __str__(self):
        return f"activation: {self._activation}\nweight: {self._weight}"


def _default_mapping():
    from ..nn.quant import Stub
    from ..nn.quant.qat import QuantedConv2D, QuantedLinear
    from ..nn.quant.stub import QuanterStub
    return {Stub: QuanterStub, nn.Linear: QuantedLinear, nn.Conv2D: QuantedConv2D}


class QuantConfig:
    """The global quanters of a model, refined per layer, per layer name and per layer type.

    A layer's config: its own (add_layer_config / add_name_config), else its type's
    (add_type_config), else its parent's, else the global one.

    Args:
        activation (QuanterFactory|None): Quanter or observer of the layers' inputs.
        weight (QuanterFactory|None): Quanter or observer of the layers' weights.
    """

    def __init__(self, activation, weight):
        self._global_config = None if activation is None and weight is None else SingleLayerConfig(activation, weight)
        self._layer2config = {}
        self._prefix2config = {}
        self._type2config = {}
        self._qat_layer_mapping = _default_mapping()
        self._customized_qat_layer_mapping = {}
        self._customized_leaves = []
        self._default_leaves = [nn.ReLU, nn.AvgPool2D]

    # ---- refinements -----------------------------------------------------------------------
    def add_layer_config(self, layer, activation=None, weight=None):
        """Quanters for these layers (a Layer or a list), and the layers inside them."""
        layers = layer if isinstance(layer, list) else [layer]
        for each in layers:
            if not isinstance(each, nn.Layer):
                raise TypeError(f"QuantConfig.add_layer_config: expected a Layer or a list of Layers, got "
                                f"{type(each).__name__}")
            self.add_name_config(each.full_name(), activation, weight)

    def add_name_config(self, layer_name, activation=None, weight=None):
        """Quanters for the layers of these full names (a str or a list)."""
        names = layer_name if isinstance(layer_name, list) else [layer_name]
        for name in names:
            if not isinstance(name, str):
                raise TypeError(f"QuantConfig.add_name_config: expected a layer name (str) or a list of them, "
                                f"got {type(name).__name__}")
            self._prefix2config[name] = SingleLayerConfig(activation, weight)

    def add_type_config(self, layer_type, activation=None, weight=None):
        """Quanters for every layer of these types (a Layer subclass or a list)."""
        types = layer_type if isinstance(layer_type, list) else [layer_type]
        for t in types:
            if not (isinstance(t, type) and issubclass(t, nn.Layer)):
                raise TypeError(f"QuantConfig.add_type_config: expected a Layer subclass or a list of them, got {t!r}")
            self._type2config[t] = SingleLayerConfig(activation, weight)

    def add_qat_layer_mapping(self, source, target):
        """Quantize layers of type `source` as `target(layer, config)`."""
        assert isinstance(source, type) and issubclass(source, nn.Layer), \
            "The source layer to be placed should be a subclass of paddle.nn.Layer"
        assert isinstance(target, type) and issubclass(target, nn.Layer), \
            "The target layer should be a subclass of paddle.nn.qat.Layer"
        self._qat_layer_mapping[source] = target
        self._customized_qat_layer_mapping[source] = target

    def add_customized_leaf(self, layer_type):
        """Treat layers of this type as leaves: observed as a whole, not entered."""
        self._customized_leaves.append(layer_type)

    # ---- reading ----------------------------------------------------------------------------
    @property
    def customized_leaves(self):
        return self._customized_leaves

    @property
    def qat_layer_mappings(self):
        return self._qat_layer_mapping

    @property
    def default_qat_layer_mapping(self):
        return _default_mapping()

    @property
    def global_config(self):
        return self._global_config

    def _is_leaf(self, layer):
        return (type(layer) in self._default_leaves or type(layer) in self._customized_leaves
                or len(layer.sublayers()) == 0)

    def _has_observer_config(self, layer):
        config = self._layer2config.get(id(layer))
        return config is not None and config.activation is not None

    def _is_quantifiable(self, layer):
        return id(layer) in self._layer2config and type(layer) in self._qat_layer_mapping

    def _get_config_by_layer(self, layer):
        return self._layer2config.get(id(layer))

    def _get_qat_layer(self, layer):
        return self._qat_layer_mapping[type(layer)](layer, self._get_config_by_layer(layer))

    def _get_observer(self, layer):
        config = self._get_config_by_layer(layer)
        return config.activation._instance(layer) if config is not None and config.activation is not None else None

    def _specify(self, model):
        """Resolves the config of every layer under model (by identity)."""
        self._layer2config = {}
        self._names = {}

        def visit(parent):
            for child in parent.children():
                config = self._layer2config.get(id(parent), self._global_config)
                config = self._type2config.get(type(child), config)
                config = self._prefix2config.get(child.full_name(), config)
                if config is not None:
                    self._layer2config[id(child)] = config
                    self._names[id(child)] = child.full_name()
                visit(child)
        visit(model)

    def details(self):
        lines = [str(self)]
        for key, name in getattr(self, "_names", {}).items():
            lines.append(f"{name}: {self._layer2config[key]}")
        return "\n".join(lines)

    def __str__(self):
        text = f"Global config:\n{self._global_config}\n"
        if self._type2config:
            text += f"Layer type config:\n{ {t: str(c) for t, c in self._type2config.items()} }\n"
        if self._prefix2config:
            text += f"Layer prefix config: \n{ {n: str(c) for n, c in self._prefix2config.items()} }\n"
        return text

    def __deepcopy__(self, memo):
        # Factories and layer types are shared; the tables are copied.
        new = copy.copy(self)
        for attr in ("_layer2config", "_prefix2config", "_type2config", "_qat_layer_mapping",
                     "_customized_qat_layer_mapping"):
            setattr(new, attr, dict(getattr(self, attr)))
        new._customized_leaves = list(self._customized_leaves)
        return new
