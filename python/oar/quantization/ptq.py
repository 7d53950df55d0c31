"""Post-training quantization (paddle.quantization.PTQ)."""
from __future__ import annotations

import copy

from .quantize import Quantization

__all__ = ["PTQ"]


class PTQ(Quantization):
    """Quantizes a trained model: ``quantize`` puts observers on the configured layers, forward
    runs on calibration data record the value ranges, ``convert`` turns them into scales.

    Examples:
        >>> ptq = PTQ(QuantConfig(activation=AbsmaxObserver(), weight=AbsmaxObserver()))
        >>> qmodel = ptq.quantize(model.eval())
        >>> for x in calibration_batches: qmodel(x)
        >>> infer_model = ptq.convert(qmodel)
    """

    def quantize(self, model, inplace=False):
        assert not model.training, ("Post-Training Quantization should not work on training models. "
                                    "Please set evaluation mode by model.eval().")
        target = model if inplace else copy.deepcopy(model)
        target.eval()
        self._quantize_layers(target)
        return target
