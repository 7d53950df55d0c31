"""oar.nn, as paddle.nn: the functional API now; layers arrive with the training stack."""
from . import functional  # noqa: F401
from .clip import ClipGradByValue, ClipGradByNorm, ClipGradByGlobalNorm  # noqa: F401
