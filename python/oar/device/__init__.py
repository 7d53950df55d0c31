"""oar.device: device selection and allocator statistics (CPU build)."""
from .. import _C


def get_device():
    return "cpu"


def set_device(device):
    if not str(device).startswith("cpu"):
        raise ValueError(f"set_device: this build of oar supports only 'cpu', got '{device}'")
    return "cpu"


def is_compiled_with_cuda():
    return False


def device_count():
    return 0


def memory_allocated(device=None):
    """Bytes held by live tensors."""
    return _C._memory_stats()["allocated"]


def max_memory_allocated(device=None):
    return _C._memory_stats()["peak_allocated"]


def memory_reserved(device=None):
    """Bytes held from the system: live tensors plus the allocator's cache."""
    return _C._memory_stats()["reserved"]


def max_memory_reserved(device=None):
    return _C._memory_stats()["peak_reserved"]


def reset_max_memory_allocated(device=None):
    _C._reset_peak_memory()


reset_max_memory_reserved = reset_max_memory_allocated


def empty_cache():
    _C._empty_cache()


def memory_stats(device=None):
    return dict(_C._memory_stats())


class cuda:  # paddle.device.cuda.* spelled the same way on CPU builds
    memory_allocated = staticmethod(memory_allocated)
    max_memory_allocated = staticmethod(max_memory_allocated)
    memory_reserved = staticmethod(memory_reserved)
    max_memory_reserved = staticmethod(max_memory_reserved)
    empty_cache = staticmethod(empty_cache)

    @staticmethod
    def device_count():
        return 0
