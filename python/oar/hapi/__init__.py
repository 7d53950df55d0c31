"""oar's high-level API (paddle.hapi): Model, callbacks, summary and flops."""
from .summary import summary  # noqa: F401
from .flops import flops  # noqa: F401
