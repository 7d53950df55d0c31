"""paddle.distributed.fleet.utils: recompute, the file-system clients (LocalFS, HDFSClient) and
DistributedInfer."""
from . import fs  # noqa: F401
from .fs import HDFSClient, LocalFS
from .ps_util import DistributedInfer

__all__ = ["LocalFS", "recompute", "DistributedInfer", "HDFSClient"]


def recompute(function, *args, **kwargs):
    """Recomputes a block's intermediate activations in backward instead of keeping them (see
    oar.distributed.fleet.recompute.recompute): the block runs without a graph in forward, and
    backward runs it again, in the random state of the first run, to backpropagate.

    Args:
        function (Layer|callable): The block.
        *args: Its inputs.
        **kwargs: Its keyword arguments, ``preserve_rng_state`` (default True) and
            ``use_reentrant`` (default True).

    Returns:
        The block's output.

    Examples:
        >>> import oar
        >>> from oar.distributed.fleet.utils import recompute
        >>> block = oar.nn.Sequential(oar.nn.Linear(3, 3), oar.nn.Dropout(0.5), oar.nn.Linear(3, 1))
        >>> x = oar.randn([4, 3])
        >>> x.stop_gradient = False
        >>> recompute(block, x).sum().backward()
        >>> print(x.grad.shape)
        [4, 3]
    """
    from ..recompute.recompute import recompute as _recompute
    return _recompute(function, *args, **kwargs)
