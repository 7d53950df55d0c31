"""paddle.distributed.fleet.recompute: activation recomputation (recompute, recompute_sequential,
recompute_hybrid)."""
from .recompute import recompute, recompute_sequential, recompute_hybrid, custom_state_manager  # noqa: F401

__all__ = []
