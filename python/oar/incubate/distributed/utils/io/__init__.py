"""paddle.incubate.distributed.utils.io: distributed save (gathering sharded optimizer states to
chosen ranks) and the per-rank save for auto-parallel inference."""
from . import dist_save, save_for_auto  # noqa: F401
from .dist_save import save, save_for_auto_inference  # noqa: F401

__all__ = []
