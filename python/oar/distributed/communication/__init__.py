"""oar.distributed.communication (paddle.distributed.communication): the package of the
collectives' stream API, oar.distributed.communication.stream (also oar.distributed.stream)."""
from . import stream  # noqa: F401
