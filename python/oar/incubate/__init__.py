"""oar.incubate (paddle.incubate): APIs that Paddle marks as incubating. Each subpackage is
imported below, one line each."""
from . import autograd  # noqa: F401

__all__ = []
