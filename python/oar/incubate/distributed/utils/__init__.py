"""paddle.incubate.distributed.utils."""
from . import io  # noqa: F401

__all__ = []
