"""oar's high-level API (paddle.hapi): Model, callbacks, summary and flops."""
from .summary import summary  # noqa: F401
from .flops import flops  # noqa: F401
from .model import Model  # noqa: F401
from . import callbacks  # noqa: F401
