"""oar.device (paddle.device): choosing the device, plug-in devices, synchronisation, streams,
events and allocator statistics. Devices come from backends registered through the plug-in ABI
(oar/device/device_ext.h): 'gpu' from the CUDA backend where a GPU and its runtime are present,
custom types ('custom_cpu', ...) from plug-ins loaded with load_custom_device or found in
OAR_CUSTOM_DEVICE_ROOT."""
import contextlib

from .. import _C
from ..framework.place import CPUPlace, CUDAPinnedPlace, CUDAPlace, CustomPlace, Place, from_key, to_key  # noqa: F401

__all__ = ["set_device", "get_device", "get_all_device_type", "get_all_custom_device_type",
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
    return device_type in get_all_custom_device_type()


def is_compiled_with_rocm():
    return False


is_compiled_with_xpu = is_compiled_with_ipu = is_compiled_with_cinn = is_compiled_with_rocm


def is_compiled_with_distribute():
    return False


def device_count(device_type=None):
    """Devices of a type (default: the GPU, or the expected place's type)."""
    if device_type is None:
        current = get_device()
        device_type = current.split(":")[0] if current != "cpu" else "gpu"
    return _C._device_count(device_type)


def _key(fn, device):
    """The place key of a device argument (None: the expected place, when it is a device)."""
    if device is None:
        return get_device()
    return to_key(fn, device)


def synchronize(device=None):
    """Waits until all work queued on the device has finished."""
    key = _key("synchronize", device)
    if key != "cpu":
        _C._synchronize(key)


def _device_key(fn, device):
    key = _key(fn, device)
    if key in ("cpu", "gpu_pinned"):
        raise ValueError(f"{fn}: streams and events belong to a device, not to {key}; "
                         "call oar.set_device('gpu') or pass device='gpu:0'")
    return key


class Stream:
    """A queue of device work (paddle.device.Stream). Work on one stream runs in order; work on
    different streams may overlap unless ordered with events (wait_event, wait_stream)."""

    def __init__(self, device=None, priority=2, stream_base=None):
        self.device = from_key(_device_key("Stream", device))
        self._key = self.device._key()
        self._owned = stream_base is None
        self.stream_base = _C._stream_create(self._key) if stream_base is None else stream_base

    def __del__(self):
        if getattr(self, "_owned", False) and self.stream_base:
            try:
                _C._stream_destroy(self._key, self.stream_base)
            except Exception:  # interpreter shutdown: the backend may be gone
                pass

    def synchronize(self):
        _C._stream_synchronize(self._key, self.stream_base)

    def wait_event(self, event):
        _C._stream_wait_event(self._key, self.stream_base, event.event_base)

    def wait_stream(self, stream):
        e = Event(self.device)
        e.record(stream)
        self.wait_event(e)

    def record_event(self, event=None):
        event = event or Event(self.device)
        event.record(self)
        return event

    def query(self):
        return self.record_event().query()

    def __eq__(self, other):
        return isinstance(other, Stream) and (self._key, self.stream_base) == (other._key, other.stream_base)

    def __hash__(self):
        return hash((self._key, self.stream_base))

    def __repr__(self):
        return f"<oar.device.Stream(device={self.device}, stream_base={self.stream_base:#x})>"


class Event:
    """A marker in a stream (paddle.device.Event): record it, then query, synchronize or time it."""

    def __init__(self, device=None, enable_timing=False, blocking=False, interprocess=False):
        self.device = from_key(_device_key("Event", device))
        self._key = self.device._key()
        self.event_base = _C._event_create(self._key)

    def __del__(self):
        if getattr(self, "event_base", 0):
            try:
                _C._event_destroy(self._key, self.event_base)
            except Exception:
                pass

    def record(self, stream=None):
        s = current_stream(self.device) if stream is None else stream
        _C._event_record(self._key, self.event_base, s.stream_base)

    def query(self):
        return _C._event_query(self._key, self.event_base)

    def synchronize(self):
        _C._event_synchronize(self._key, self.event_base)

    def elapsed_time(self, end_event):
        return _C._event_elapsed(self._key, self.event_base, end_event.event_base)


def current_stream(device=None):
    """The stream new work on the device goes to (its default stream unless set_stream chose one)."""
    key = _device_key("current_stream", device)
    return Stream(key, stream_base=_C._current_stream(key))


def set_stream(stream):
    """Makes `stream` the current stream of its device; returns the previous one."""
    previous = _C._set_stream(stream._key, stream.stream_base)
    return Stream(stream._key, stream_base=previous)


@contextlib.contextmanager
def stream_guard(stream):
    """Runs the block's device work on `stream`, then restores the previous current stream."""
    if stream is None:
        yield
        return
    previous = set_stream(stream)
    try:
        yield
    finally:
        set_stream(previous)


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
