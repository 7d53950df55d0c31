"""oar.device (paddle.device): choosing the device, plug-in devices, synchronisation, streams,
events and allocator statistics. Devices come from backends registered through the plug-in ABI
(oar/device/device_ext.h): 'gpu' from the CUDA backend where a GPU and its runtime are present,
custom types ('custom_cpu', ...) from plug-ins loaded with load_custom_device or found in
OAR_CUSTOM_DEVICE_ROOT."""
from .. import _C
from ..framework.place import CPUPlace, CUDAPinnedPlace, CUDAPlace, CustomPlace, Place, from_key, to_key  # noqa: F401
from .stream import Event, Stream, _key, current_stream, set_stream, stream_guard  # noqa: F401

__all__ = ["set_device", "get_device", "set_default_device", "device_guard", "get_all_device_type", "get_all_custom_device_type",
           "get_available_device", "get_available_custom_device", "is_compiled_with_cuda",
           "is_compiled_with_custom_device", "is_compiled_with_rocm", "is_compiled_with_xpu",
           "is_compiled_with_ipu", "is_compiled_with_cinn", "is_compiled_with_distribute", "device_count",
           "synchronize", "Stream", "Event", "current_stream", "set_stream", "stream_guard",
           "load_custom_device", "memory_allocated", "max_memory_allocated", "memory_reserved",
           "max_memory_reserved", "reset_max_memory_allocated", "reset_max_memory_reserved",
           "empty_cache", "memory_stats", "cuda"]


def set_device(device):
    """Sets the expected place, where new tensors go ('cpu', 'gpu', 'gpu:1', 'custom_cpu:0', a
    Place); returns it. Raises ValueError for a device that is not present."""
    key = to_key("set_device", device)
    try:
        return from_key(_C._set_device(key))
    except (RuntimeError, IndexError) as e:
        raise ValueError(f"set_device: {e}") from None


def get_device():
    """The expected place as a string: 'cpu', 'gpu:0', 'custom_cpu:0', ..."""
    return _C._get_device()


def set_default_device(device):
    """paddle.set_default_device: set_device that also takes a device index (an int: the GPU of
    that index where a GPU is present; the CPU otherwise, as Paddle's CPU build does)."""
    if isinstance(device, int) and not isinstance(device, bool):
        device = f"gpu:{device}" if device_count("gpu") > 0 else "cpu"
    set_device(device)


class device_guard:
    """paddle.device_guard(device): inside the block `device` is the expected place (where new
    tensors and ops without tensor inputs go); the previous one comes back when it ends."""

    def __init__(self, device):
        self._target = device
        self._previous = None

    def __enter__(self):
        self._previous = get_device()
        set_device(self._target)
        return self

    def __exit__(self, *exc):
        set_device(self._previous)
        return False


def load_custom_device(path):
    """Loads a device plug-in library (a shared library exporting oar_plugin_init)."""
    _C._load_custom_device(str(path))


def get_all_device_type():
    return ["cpu"] + [t for t in _C._device_types() if _C._device_count(t) > 0]


def get_all_custom_device_type():
    return [t for t in _C._device_types() if t != "gpu"]


def get_available_device():
    out = ["cpu"]
    for t in _C._device_types():
        out += [f"{t}:{i}" for i in range(_C._device_count(t))]
    return out


def get_available_custom_device():
    return [d for d in get_available_device() if d != "cpu" and not d.startswith("gpu:")]


def is_compiled_with_cuda():
    return "gpu" in _C._device_types()


def is_compiled_with_custom_device(device_type):
    """Whether a plug-in of that custom device type (e.g. 'custom_cpu') is loaded."""
    return device_type in get_all_custom_device_type()


def is_compiled_with_rocm():
    """False: oar has no ROCm backend."""
    return False


def is_compiled_with_xpu():
    """False: oar has no XPU backend."""
    return False


def is_compiled_with_ipu():
    """False: oar has no IPU backend."""
    return False


def is_compiled_with_cinn():
    """False: oar has no CINN compiler."""
    return False


def is_compiled_with_distribute():
    """Whether oar was built with its collective engine (Gloo): oar.distributed can run."""
    return bool(_C._dist.available)


def device_count(device_type=None):
    """Devices of a type (default: the GPU, or the expected place's type)."""
    if device_type is None:
        current = get_device()
        device_type = current.split(":")[0] if current != "cpu" else "gpu"
    return _C._device_count(device_type)


def synchronize(device=None):
    """Waits until all work queued on the device has finished."""
    key = _key("synchronize", device)
    if key != "cpu":
        _C._synchronize(key)


def _stats_key(device):
    return "cpu" if device is None and get_device() == "cpu" else _key("memory_stats", device)


def memory_allocated(device=None):
    """Bytes held by live tensors on the device (default: the expected place)."""
    return _C._memory_stats(_stats_key(device))["allocated"]


def max_memory_allocated(device=None):
    return _C._memory_stats(_stats_key(device))["peak_allocated"]


def memory_reserved(device=None):
    """Bytes held from the system: live tensors plus the allocator's cache."""
    return _C._memory_stats(_stats_key(device))["reserved"]


def max_memory_reserved(device=None):
    return _C._memory_stats(_stats_key(device))["peak_reserved"]


def reset_max_memory_allocated(device=None):
    _C._reset_peak_memory(_stats_key(device))


reset_max_memory_reserved = reset_max_memory_allocated


def empty_cache(device=None):
    """Returns cached blocks to the system (all devices' caches when device is None, as Paddle)."""
    if device is not None:
        _C._empty_cache(_key("empty_cache", device))
        return
    _C._empty_cache("cpu")
    for t in _C._device_types():
        for i in range(_C._device_count(t)):
            _C._empty_cache(f"{t}:{i}")


def memory_stats(device=None):
    return dict(_C._memory_stats(_stats_key(device)))


from . import cuda  # noqa: E402,F401
