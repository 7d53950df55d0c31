"""paddle.incubate.distributed.fleet: recompute_sequential and recompute_hybrid."""
from ....distributed.fleet.recompute.recompute import recompute_hybrid, recompute_sequential

__all__ = ["recompute_sequential", "recompute_hybrid"]
