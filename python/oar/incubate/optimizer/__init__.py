"""oar.incubate.optimizer (paddle.incubate.optimizer): optimizers that wrap or follow another
one. LookAhead and ModelAverage are also exported by oar.incubate."""
from .lookahead import LookAhead
from .modelaverage import ModelAverage

__all__ = ["LookAhead", "ModelAverage"]
