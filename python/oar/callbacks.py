"""oar.callbacks (paddle.callbacks): the callbacks of Model.fit, importable as a module
(`import oar.callbacks`, `from oar.callbacks import EarlyStopping`). They are defined in
python/oar/hapi/callbacks.py (paddle.hapi.callbacks holds the same classes)."""
from .hapi.callbacks import (  # noqa: F401
    Callback, EarlyStopping, LRScheduler, ModelCheckpoint, ProgBarLogger, ReduceLROnPlateau, VisualDL,
    WandbCallback)

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "VisualDL", "LRScheduler", "EarlyStopping",
           "ReduceLROnPlateau", "WandbCallback"]
