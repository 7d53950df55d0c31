"""ONNX converters of oar's ops, by topic; the table itself is registry.CONVERTERS."""
from . import activation, math, nn, rnn, shape  # noqa: F401  (each fills the table)
from .registry import CONVERTERS  # noqa: F401
