"""oar.incubate.distributed (paddle.incubate.distributed): fleet's recompute entry points and the
distributed save utilities."""
from . import fleet  # noqa: F401
from . import utils  # noqa: F401

__all__ = []
