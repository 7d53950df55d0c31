"""Factories of quanters and observers: what a QuantConfig holds. A factory keeps its arguments
and makes one quanter layer per quantized layer (paddle.quantization.factory)."""
from __future__ import annotations

import inspect

__all__ = ["QuanterFactory", "ObserverFactory", "quanter"]


class QuanterFactory:
    """Keeps the arguments of a quanter; ``_instance(layer)`` makes the quanter layer for `layer`."""

    def __init__(self, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs
        self.partial_class = None

    def _get_class(self):
        raise NotImplementedError(f"{type(self).__name__} must define _get_class()")

    def _instance(self, layer):
        return self._get_class()(layer, *self.args, **self.kwargs)

    def __str__(self):
        parts = [str(a) for a in self.args] + [f"{k}={v}" for k, v in self.kwargs.items()]
        return f"{type(self).__name__}({','.join(parts)})"

    __repr__ = __str__


ObserverFactory = QuanterFactory


def quanter(class_name):
    """Decorator of a BaseQuanter subclass X: defines the factory class `class_name` in the
    calling module (``class_name(*args, **kwargs)`` makes ``X(layer, *args, **kwargs)``) and
    returns X unchanged.

    Examples:
        >>> @quanter("MyQuanter")
        ... class MyQuanterLayer(BaseQuanter): ...
        >>> config = QuantConfig(activation=MyQuanter(bits=8), weight=None)
    """
    if not isinstance(class_name, str):
        raise TypeError(f"quanter: class_name should be a str, but got {type(class_name).__name__}")

    def wrap(target):
        factory = type(class_name, (QuanterFactory,), {"_get_class": lambda self: target})
        module = inspect.getmodule(inspect.stack()[1][0])
        if module is not None:
            setattr(module, class_name, factory)
            if hasattr(module, "__all__") and class_name not in module.__all__:
                module.__all__.append(class_name)
        return target
    return wrap
