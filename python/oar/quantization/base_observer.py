"""BaseObserver: a quanter that only watches values during calibration (paddle.quantization.base_observer)."""
from __future__ import annotations

import abc

from .base_quanter import BaseQuanter

__all__ = ["BaseObserver"]


class BaseObserver(BaseQuanter, metaclass=abc.ABCMeta):
    """Returns its input unchanged and records what it needs to compute scales."""

    @abc.abstractmethod
    def cal_thresholds(self):
        ...
