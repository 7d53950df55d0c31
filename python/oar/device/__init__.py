"""oar.device (paddle.device): choosing the device, plug-in devices, synchronisation, streams,
events and allocator statistics. Devices come from backends registered through the plug-in ABI
(oar/device/device_ext.h): 'gpu' from the CUDA backend where a GPU and its runtime are present,
custom types ('custom_cpu', ...) from plug-ins loaded with load_custom_device or found in
OAR_CUSTOM_DEVICE_ROOT."""
from .. import _C
from ..framework.place import CPUPlace, CUDAPinnedPlace, CUDAPlace, CustomPlace, Place, from_key, to_key  # noqa: F401
from ..framework.generator import GeneratorState
from ..tensor.typed_tensor import (BFloat16Tensor, BoolTensor, ByteTensor, CharTensor, DoubleTensor,  # noqa: F401
                                   FloatTensor, HalfTensor, IntTensor, LongTensor, ShortTensor)
from .stream import Event, Stream, _key, current_stream, set_stream, stream_guard  # noqa: F401

__all__ = ["set_device", "get_device", "set_default_device", "device_guard", "get_all_device_type", "get_all_custom_device_type",
           "get_available_device", "get_available_custom_device", "is_compiled_with_cuda",
           "is_compiled_with_custom_device", "is_compiled_with_rocm", "is_compiled_with_xpu",
           "is_compiled_with_ipu", "is_compiled_with_cinn", "is_compiled_with_distribute", "device_count",
           "synchronize", "Stream", "Event", "current_stream", "set_stream", "stream_guard",
           "load_custom_device", "memory_allocated", "max_memory_allocated", "memory_reserved",
           "max_memory_reserved", "reset_max_memory_allocated", "reset_max_memory_reserved",
           "empty_cache", "memory_stats", "cuda", "manual_seed", "get_rng_state", "set_rng_state",
           "is_available", "get_device_name", "get_device_capability", "get_device_properties",
           "is_bf16_supported", "get_cudnn_version", "is_current_stream_capturing", "ipc_collect",
           "reset_peak_memory_stats", "get_stream_from_external", "device", "StreamContext",
           "XPUPlace", "IPUPlace", "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor",
           "ByteTensor", "CharTensor", "ShortTensor", "IntTensor", "LongTensor", "BoolTensor"]


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


def manual_seed(seed):
    """Seeds the global random generator (oar has one generator, which draws on the host for
    every place), as paddle.device.manual_seed.

    Args:
        seed (int): The seed.

    Returns:
        None

    Examples:
        >>> import oar
        >>> oar.device.manual_seed(102)
        >>> a = oar.rand([2])
        >>> oar.device.manual_seed(102)
        >>> print(bool((a == oar.rand([2])).all()))
        True
    """
    _C.seed(seed)


def _rng_device(fn, device):
    # Paddle's CPU build accepts a CPU place, a device string or an int and ignores it: its one
    # generator is the CPU one. oar's generator serves every place, so the same holds here.
    if device is None or isinstance(device, (int, str, Place)) and not isinstance(device, bool):
        return
    raise TypeError(f"{fn}: argument 'device' must be a Place, a device string or an int, but got "
                    f"{type(device).__name__}")


def get_rng_state(device=None):
    """The state of the random generator: one GeneratorState (seed, offset), as Paddle's CPU build
    returns it (oar.get_rng_state returns it in a list).

    Args:
        device (Place|str|int, optional): The device; oar's one generator serves every place.
            Default: None.

    Returns:
        GeneratorState: The state, for set_rng_state.

    Examples:
        >>> import oar
        >>> state = oar.device.get_rng_state()
        >>> a = oar.rand([2])
        >>> oar.device.set_rng_state(state)
        >>> print(bool((a == oar.rand([2])).all()))
        True
    """
    _rng_device("get_rng_state", device)
    return GeneratorState(*_C._get_rng_state())


def set_rng_state(new_state, device=None):
    """Restores the random generator to a state from get_rng_state.

    Args:
        new_state (GeneratorState): The state.
        device (Place|str|int, optional): The device; oar's one generator serves every place.
            Default: None.

    Returns:
        None

    Examples:
        >>> import oar
        >>> state = oar.device.get_rng_state()
        >>> oar.device.set_rng_state(state)
    """
    _rng_device("set_rng_state", device)
    if not isinstance(new_state, GeneratorState):
        raise TypeError("set_rng_state: argument 'new_state' must be a GeneratorState (from "
                        f"oar.device.get_rng_state()), but got {type(new_state).__name__}")
    _C._set_rng_state(new_state[0], new_state[1])


def is_available():
    """Whether at least one accelerator (a GPU, or a device of a loaded plug-in when it is the
    expected place) is present: device_count() >= 1. False on a CPU-only machine.

    Returns:
        bool

    Examples:
        >>> import oar
        >>> print(oar.device.is_available() == (oar.device.device_count() >= 1))
        True
    """
    return device_count() >= 1


def _accelerator_key(fn, device):
    key = _key(fn, device)
    if key in ("cpu", "gpu_pinned", "xpu_pinned"):
        raise ValueError(f"{fn}: the CPU has no device properties; pass an accelerator "
                         "('gpu:0', 'custom_cpu:0') or set one with oar.device.set_device")
    if not available(key):
        raise ValueError(f"{fn}: the device {key} is not present")
    return key


def get_device_properties(device=None):
    """The properties of an accelerator (default: the expected place): name, major and minor
    compute capability, total_memory (bytes) and multi_processor_count. The CPU has none: with
    no accelerator this raises ValueError.

    Args:
        device (Place|str|int, optional): 'gpu:0', 'custom_cpu:0', a Place or a GPU id.
            Default: None, the expected place.

    Returns:
        _gpuDeviceProperties

    Examples:
        >>> import oar
        >>> try:
        ...     oar.device.get_device_properties('cpu')
        ... except ValueError as e:
        ...     print('ValueError')
        ValueError
    """
    from .cuda import _gpuDeviceProperties
    return _gpuDeviceProperties(*_C._device_properties(_accelerator_key("get_device_properties", device)))


def get_device_name(device=None):
    """The name of an accelerator (default: the expected place), e.g. 'NVIDIA H200'; ValueError
    for the CPU.

    Args:
        device (Place|str|int, optional): The device. Default: None, the expected place.

    Returns:
        str

    Examples:
        >>> import oar
        >>> if oar.device.is_available():
        ...     name = oar.device.get_device_name(0)
    """
    return get_device_properties(device).name


def get_device_capability(device=None):
    """The compute capability (major, minor) of an accelerator; ValueError for the CPU.

    Args:
        device (Place|str|int, optional): The device. Default: None, the expected place.

    Returns:
        tuple[int, int]

    Examples:
        >>> import oar
        >>> if oar.device.is_available():
        ...     major, minor = oar.device.get_device_capability(0)
    """
    p = get_device_properties(device)
    return p.major, p.minor


def is_bf16_supported(including_emulation=True):
    """Whether bfloat16 tensors can be made at the expected place. oar's CPU kernels compute
    bfloat16 (through float32), so this is True on the CPU as in Paddle's CPU build; on a GPU with
    including_emulation=False it asks for native support (compute capability 8.0 or higher).

    Args:
        including_emulation (bool, optional): Count emulated bfloat16 as supported. Default: True.

    Returns:
        bool

    Examples:
        >>> import oar
        >>> print(oar.device.is_bf16_supported())
        True
    """
    key = get_device()
    if key.startswith("gpu:") and not including_emulation:
        return get_device_capability(key)[0] >= 8
    try:
        from ..tensor.creation import to_tensor
        to_tensor([1.0], dtype="bfloat16", place=from_key(key))
        return True
    except Exception:
        return False


def get_cudnn_version():
    """The cuDNN version as an int (7600 for 7.6); None, since oar does not use cuDNN (its GPU
    kernels are its own), as Paddle answers without cuDNN.

    Returns:
        int|None

    Examples:
        >>> import oar
        >>> print(oar.device.get_cudnn_version())
        None
    """
    return None


def is_current_stream_capturing():
    """Whether the current stream is capturing a CUDA graph: always False (oar records no CUDA
    graphs).

    Returns:
        bool

    Examples:
        >>> import oar
        >>> print(oar.device.is_current_stream_capturing())
        False
    """
    return False


def ipc_collect():
    """Frees GPU memory released by CUDA IPC. oar does not share GPU memory between processes,
    so with a GPU there is nothing to collect; without one this raises RuntimeError as Paddle's
    CPU build does.

    Returns:
        None

    Examples:
        >>> import oar
        >>> if oar.device.is_available():
        ...     oar.device.ipc_collect()
    """
    if _C._device_count("gpu") == 0:
        raise RuntimeError("ipc_collect: oar has no GPU here (not compiled with CUDA, or no device), "
                           "so `ipc_collect` cannot be used")


def reset_peak_memory_stats(device=None):
    """Resets the peak allocated and reserved memory statistics of the device (default: the
    expected place). oar keeps statistics for the CPU too, so unlike Paddle's CPU build this works
    there.

    Args:
        device (Place|str|int, optional): The device. Default: None.

    Returns:
        None

    Examples:
        >>> import oar
        >>> oar.device.reset_peak_memory_stats()
        >>> print(oar.device.max_memory_allocated() == oar.device.memory_allocated())
        True
    """
    _C._reset_peak_memory(_stats_key(device))


def get_stream_from_external(data_ptr, device=None):
    """Wraps a stream made by another library (its native handle as an int: a cudaStream_t for
    the GPU) as a Stream of the device. The caller keeps the stream alive while it is used; oar
    does not destroy it.

    Args:
        data_ptr (int): The native stream handle.
        device (Place|str|int, optional): The device the stream belongs to. Default: None, the
            expected place (which must be a device, not the CPU).

    Returns:
        Stream

    Examples:
        >>> import oar
        >>> if oar.device.is_available():
        ...     s = oar.device.get_stream_from_external(oar.device.current_stream().stream_base)
    """
    if isinstance(data_ptr, bool) or not isinstance(data_ptr, int):
        raise TypeError(f"get_stream_from_external: argument 'data_ptr' must be an int, but got "
                        f"{type(data_ptr).__name__}")
    from .stream import _device_key
    return Stream(_device_key("get_stream_from_external", device), stream_base=data_ptr)


class device:
    """Context manager that makes `device` the expected place inside its block (paddle.device.device
    and paddle.cuda.device); the previous one comes back after it. An int is a GPU id.

    Args:
        device (Place|int|str, optional): The device. Default: None, the expected place.

    Examples:
        >>> import oar
        >>> with oar.device.device('cpu'):
        ...     print(oar.device.get_device())
        cpu
    """

    def __init__(self, device=None):
        self.place = from_key(get_device() if device is None else to_key("device", device))
        self.prev_place_str = "-1"

    def __enter__(self):
        self.prev_place_str = get_device()
        set_device(self.place)

    def __exit__(self, exc_type, exc_value, traceback):
        set_device(self.prev_place_str)
        return False


class StreamContext:
    """Context manager that runs its block's device work on `stream` (paddle.device.StreamContext,
    the class behind stream_guard); None does nothing.

    Args:
        stream (Stream, optional): The stream. Default: None.

    Examples:
        >>> import oar
        >>> with oar.device.StreamContext(None):
        ...     x = oar.ones([2])
    """

    def __init__(self, stream=None):
        self.stream = stream
        self._previous = None

    def __enter__(self):
        if self.stream is not None:
            self._previous = set_stream(self.stream)

    def __exit__(self, exc_type, exc_value, traceback):
        if self.stream is not None:
            set_stream(self._previous)
        return False


def XPUPlace(dev_id):
    """An XPU device place. oar has no XPU backend, so this raises ValueError as Paddle's CPU and
    GPU builds do ("use wrong place").

    Args:
        dev_id (int): The device id.

    Returns:
        Place

    Examples:
        >>> import oar
        >>> try:
        ...     oar.device.XPUPlace(0)
        ... except ValueError:
        ...     print('no XPU')
        no XPU
    """
    raise ValueError(f"XPUPlace({dev_id}): use wrong place: oar is not built with XPU support; use "
                     "CPUPlace() (or CUDAPlace) instead")


def IPUPlace():
    """An IPU device place. oar has no IPU backend, so this raises ValueError as Paddle's builds
    without IPU do.

    Returns:
        Place

    Examples:
        >>> import oar
        >>> try:
        ...     oar.device.IPUPlace()
        ... except ValueError:
        ...     print('no IPU')
        no IPU
    """
    raise ValueError("IPUPlace(): use wrong place: oar is not built with IPU support; use CPUPlace() instead")


from ..framework.place import available  # noqa: E402
from . import cuda, xpu  # noqa: E402,F401
