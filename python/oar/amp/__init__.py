"""paddle.amp: automatic mixed precision (auto_cast, decorate, GradScaler).

The per-op dtype decisions are C++ (oar/ops/amp.h); this package sets their state and holds the
training-loop helpers. See docs/amp.md.
"""
from __future__ import annotations

from .. import _C
from . import amp_lists, debugging, grad_scaler  # noqa: F401
from .amp_lists import black_list, white_list  # noqa: F401
from .auto_cast import (  # noqa: F401
    amp_decorate, amp_guard, auto_cast, autocast, decorate, get_autocast_dtype, is_autocast_enabled,
)
from .grad_scaler import AmpScaler, GradScaler, OptimizerState  # noqa: F401

__all__ = [
    'auto_cast', 'GradScaler', 'decorate', 'is_float16_supported', 'is_bfloat16_supported',
    'is_autocast_enabled', 'get_autocast_dtype', 'get_autocast_cpu_dtype', 'get_autocast_gpu_dtype',
]

get_autocast_cpu_dtype = get_autocast_dtype
get_autocast_gpu_dtype = get_autocast_dtype


def _place_of(device, api):
    from ..framework.place import from_key, placement_key
    if device is None:
        return from_key(_C._get_device())
    return from_key(placement_key(api, device))


def is_float16_supported(device=None) -> bool:
    """Whether float16 mixed precision runs at full speed on ``device`` (default: the current
    device): GPUs of compute capability 7 and up. On a CPU float16 is stored in 16 bits but
    computed in float32, so this is False there (as Paddle's CPU build says); auto_cast still works."""
    place = _place_of(device, "is_float16_supported")
    if place.is_gpu_place():
        from ..device import cuda
        return cuda.get_device_capability(place.get_device_id())[0] >= 7
    return False


def is_bfloat16_supported(device=None) -> bool:
    """Whether bfloat16 mixed precision is supported on ``device`` (default: the current device):
    GPUs of compute capability 8 and up, and every CPU (as Paddle's CPU build says; CPUs with
    AVX512_BF16 or AMX compute it natively, others convert on the fly)."""
    place = _place_of(device, "is_bfloat16_supported")
    if place.is_gpu_place():
        from ..device import cuda
        return cuda.get_device_capability(place.get_device_id())[0] >= 8
    return True
