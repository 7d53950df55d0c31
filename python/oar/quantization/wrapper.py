"""ObserveWrapper: an observer put in front of (or behind) a layer (paddle.quantization.wrapper)."""
from __future__ import annotations

from ..nn.layer.layers import Layer

__all__ = ["ObserveWrapper"]


class ObserveWrapper(Layer):
    """forward: observed(observer(input)) (observe_input) or observer(observed(input))."""

    def __init__(self, observer, observed, observe_input=True):
        super().__init__()
        self._observer = observer
        self._observed = observed
        self._observe_input = observe_input

    def forward(self, *inputs, **kwargs):
        if self._observe_input:
            return self._observed(self._observer(*inputs), **kwargs)
        return self._observer(self._observed(*inputs, **kwargs))
