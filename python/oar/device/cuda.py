"""oar.device.cuda (paddle.device.cuda): the GPU's count, streams, events and memory, by device
id or place. Without a GPU, device_count() is 0 and the rest raise naming the missing device."""
from .. import _C
from .stream import Event, Stream, current_stream as _current_stream, stream_guard  # noqa: F401
from ..framework.place import to_key


def _gpu(fn, device):
    if device is None:
        current = _C._get_device()
        return current if current.startswith("gpu:") else "gpu:0"
    return to_key(fn, device)


def device_count():
    return _C._device_count("gpu")


def synchronize(device=None):
    _C._synchronize(_gpu("synchronize", device))


def current_stream(device=None):
    return _current_stream(_gpu("current_stream", device))


def memory_allocated(device=None):
    return _C._memory_stats(_gpu("memory_allocated", device))["allocated"]


def max_memory_allocated(device=None):
    return _C._memory_stats(_gpu("max_memory_allocated", device))["peak_allocated"]


def memory_reserved(device=None):
    return _C._memory_stats(_gpu("memory_reserved", device))["reserved"]


def max_memory_reserved(device=None):
    return _C._memory_stats(_gpu("max_memory_reserved", device))["peak_reserved"]


def reset_max_memory_allocated(device=None):
    _C._reset_peak_memory(_gpu("reset_max_memory_allocated", device))


reset_max_memory_reserved = reset_max_memory_allocated


def empty_cache():
    for i in range(device_count()):
        _C._empty_cache(f"gpu:{i}")


def mem_get_info(device=None):
    """(free, total) bytes of the GPU."""
    return _C._memory_info(_gpu("mem_get_info", device))


def _require_gpu(fn):
    if device_count() == 0:  # Paddle's CPU-only build raises the same way
        raise ValueError(f"The API oar.device.cuda.{fn} needs a GPU: none is present (oar's CUDA backend "
                         "found no device)")


def get_device_name(device=None):
    """The GPU's name, e.g. 'NVIDIA H200'."""
    _require_gpu("get_device_name")
    return _C._device_name(_gpu("get_device_name", device))


class _gpuDeviceProperties:
    """What get_device_properties returns (Paddle's _gpuDeviceProperties): name, major, minor,
    total_memory (bytes), multi_processor_count."""

    def __init__(self, name, major, minor, total_memory, multi_processor_count):
        self.name, self.major, self.minor = name, major, minor
        self.total_memory, self.multi_processor_count = total_memory, multi_processor_count

    def __repr__(self):
        return (f"_gpuDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"multi_processor_count={self.multi_processor_count})")


def get_device_properties(device=None):
    """The GPU's properties: name, compute capability (major, minor), total memory and
    multiprocessor count."""
    _require_gpu("get_device_properties")
    return _gpuDeviceProperties(*_C._device_properties(_gpu("get_device_properties", device)))


def get_device_capability(device=None):
    """The GPU's compute capability as (major, minor), e.g. (9, 0) for an H100/H200."""
    p = get_device_properties(device)
    return p.major, p.minor


class _NoGpuError(ValueError, AttributeError):
    """A GPU-only API called without a GPU. Paddle's CPU build raises ValueError for some of these and
    AttributeError (a missing binding) for others; this is both."""


def memory_summary(device=None):
    """Prints a summary of a GPU's memory (paddle.device.cuda.memory_summary): the device's total and
    free memory, and what oar's caching allocator holds (allocated to tensors, reserved, their
    peaks). Without a GPU it raises ValueError (also an AttributeError, as Paddle's CPU build's).

    Args:
        device (Place|int|str, optional): The GPU; None is the current one. Default: None.

    Examples:
        >>> import oar
        >>> if oar.device.cuda.device_count() == 0:
        ...     try:
        ...         oar.device.cuda.memory_summary()
        ...     except ValueError:
        ...         print("no GPU")
        no GPU
    """
    if device_count() == 0:
        raise _NoGpuError("The API oar.device.cuda.memory_summary needs a GPU: none is present (oar's CUDA "
                          "backend found no device)")
    key = _gpu("memory_summary", device)
    free, total = _C._memory_info(key)
    stats = _C._memory_stats(key)
    mb = 1024.0 * 1024.0
    lines = [
        f"==================== GPU memory summary ({key}) ====================",
        "Global Summary",
        f"  Total memory:        {total / mb:12.2f} MB",
        f"  Free memory:         {free / mb:12.2f} MB",
        f"  Used memory:         {(total - free) / mb:12.2f} MB ({100.0 * (total - free) / max(total, 1):.1f}%)",
        "Allocator Summary (oar's caching allocator)",
        f"  Reserved:            {stats['reserved'] / mb:12.2f} MB (peak {stats['peak_reserved'] / mb:.2f} MB)",
        f"  Allocated:           {stats['allocated'] / mb:12.2f} MB (peak {stats['peak_allocated'] / mb:.2f} MB)",
        f"  Cached, not in use:  {(stats['reserved'] - stats['allocated']) / mb:12.2f} MB",
        "=" * 68,
    ]
    print("\n".join(lines))


def vmm_compact(device=None):
    """Compacts the virtual-memory allocator's blocks and returns the bytes it moved
    (paddle.device.cuda.vmm_compact). oar's caching allocator does not use CUDA virtual memory, so on
    a GPU nothing moves and the result is 0; without a GPU it raises ValueError, as Paddle's CPU build.

    Args:
        device (Place|int|str, optional): The GPU; None is the current one. Default: None.

    Returns:
        int: The bytes moved.

    Examples:
        >>> import oar
        >>> if oar.device.cuda.device_count() == 0:
        ...     try:
        ...         oar.device.cuda.vmm_compact()
        ...     except ValueError:
        ...         print("no GPU")
        no GPU
    """
    if device_count() == 0:
        raise ValueError("The API oar.device.cuda.vmm_compact is not supported without a GPU (oar's CUDA backend "
                         "found no device), as in CPU-only PaddlePaddle")
    _gpu("vmm_compact", device)
    return 0
