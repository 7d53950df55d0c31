"""oar.incubate.optimizer (paddle.incubate.optimizer): optimizers that wrap or follow another
one. LookAhead and ModelAverage are also exported by oar.incubate."""
from .lookahead import LookAhead
from .modelaverage import ModelAverage
from . import functional  # noqa: F401  (minimize_bfgs, minimize_lbfgs)
from ...utils.deprecated import deprecated as _deprecated

__all__ = ["LookAhead", "ModelAverage", "LBFGS"]


@_deprecated(since="2.5.0", update_to="paddle.optimizer.LBFGS", level=1)
def LBFGS(*args, **kwargs):
    """The L-BFGS optimizer under its old incubate name (paddle.incubate.optimizer.LBFGS, deprecated
    since Paddle 2.5): each call warns (VisibleDeprecationWarning) and returns oar.optimizer.LBFGS(...)
    with the same arguments.

    Examples:
        >>> import warnings
        >>> import oar
        >>> layer = oar.nn.Linear(2, 1)
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     opt = oar.incubate.optimizer.LBFGS(parameters=layer.parameters())
        >>> print(type(opt).__name__)
        LBFGS
    """
    from ...optimizer import LBFGS as _LBFGS
    return _LBFGS(*args, **kwargs)
