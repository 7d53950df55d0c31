"""Quantization-aware training (paddle.quantization.QAT)."""
from __future__ import annotations

import copy

from .quantize import Quantization

__all__ = ["QAT"]


class QAT(Quantization):
    """Quantizes a model for training: ``quantize`` puts fake quanters on the configured layers
    (the forward rounds as int8 inference will, gradients pass straight through); after training
    ``convert`` gives the inference form.

    Examples:
        >>> q = FakeQuanterWithAbsMaxObserver(moving_rate=0.9)
        >>> qat = QAT(QuantConfig(activation=q, weight=q))
        >>> qmodel = qat.quantize(model)       # model in training mode
        >>> ...train qmodel...
        >>> infer_model = qat.convert(qmodel.eval())
    """

    def quantize(self, model, inplace=False):
        assert model.training, ("Quantization-Aware Training should work on training models. Please set "
                                "training mode by model.train().")
        target = model if inplace else copy.deepcopy(model)
        self._quantize_layers(target)
        return target
