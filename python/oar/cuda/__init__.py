"""oar.cuda (paddle.cuda): Paddle 3.3's torch-style CUDA module. Each name is oar.device's (or
oar.device.cuda's) function with an int device meaning 'gpu:<int>' and 'cuda:0' meaning 'gpu:0'.
On a machine without a GPU, is_available() is False, device_count() is 0 and the functions that
need a GPU raise ValueError naming it, as in Paddle's CPU build.

cudart() and check_error() reach the CUDA runtime library (libcudart) through ctypes: its profiler
switches, error strings and error codes. Without a GPU and a CUDA runtime they raise
AttributeError, as Paddle's CPU build does (its libpaddle has no _cudart)."""
from .. import _C
from ..device import (BFloat16Tensor, BoolTensor, ByteTensor, CharTensor, DoubleTensor, Event,  # noqa: F401
                      FloatTensor, HalfTensor, IntTensor, LongTensor, ShortTensor, Stream, StreamContext,
                      device, get_device_capability, get_device_name, get_device_properties, get_rng_state,
                      get_stream_from_external, ipc_collect, is_bf16_supported, manual_seed,
                      reset_peak_memory_stats, set_rng_state, set_stream)
from .. import device as _device
from ..device import cuda as _cuda
from ..framework.place import to_key as _to_key

__all__ = ["BFloat16Tensor", "BoolTensor", "ByteTensor", "CharTensor", "DoubleTensor", "Event", "FloatTensor",
           "HalfTensor", "IntTensor", "LongTensor", "ShortTensor", "Stream", "StreamContext", "current_device",
           "current_stream", "device", "device_count", "empty_cache", "get_device_capability", "get_device_name",
           "get_device_properties", "get_rng_state", "get_stream_from_external", "ipc_collect", "is_available",
           "is_bf16_supported", "is_initialized", "manual_seed", "manual_seed_all", "max_memory_allocated",
           "max_memory_reserved", "mem_get_info", "memory_allocated", "memory_reserved",
           "reset_peak_memory_stats", "set_device", "set_rng_state", "set_stream", "stream", "synchronize",
           "cudart", "check_error"]


def is_available():
    """Whether an accelerator is present (oar.device.is_available): False without a GPU.

    Returns:
        bool

    Examples:
        >>> import oar
        >>> print(oar.cuda.is_available() == (oar.cuda.device_count() > 0))
        True
    """
    return _device.is_available()


def is_initialized():
    """Whether a device backend (the CUDA one, or a plug-in) is loaded in this process.

    Returns:
        bool

    Examples:
        >>> import oar
        >>> print(oar.cuda.is_initialized() == bool(oar.device.get_all_custom_device_type()
        ...                                        or oar.device.is_compiled_with_cuda()))
        True
    """
    return _device.is_compiled_with_cuda() or bool(_device.get_all_custom_device_type())


def device_count():
    """The number of devices of the expected place's type (GPUs by default); 0 without any.

    Returns:
        int

    Examples:
        >>> import oar
        >>> n = oar.cuda.device_count()
    """
    return _device.device_count()


def current_device():
    """The index of the expected place's device (0 for the CPU), as paddle.cuda.current_device.

    Returns:
        int

    Examples:
        >>> import oar
        >>> with oar.cuda.device('cpu'):
        ...     print(oar.cuda.current_device())
        0
    """
    key = _C._get_device()
    return int(key.split(":")[1]) if ":" in key else 0


def set_device(device):
    """Makes `device` (an int GPU id, 'gpu:0', 'cuda:0', a Place) the expected place. Returns
    None, unlike oar.device.set_device; ValueError when the device is not present.

    Args:
        device (Place|int|str): The device.

    Returns:
        None

    Examples:
        >>> import oar
        >>> oar.cuda.set_device('cpu')
    """
    _device.set_device(_to_key("set_device", device))


def synchronize(device=None):
    """Waits until the device's queued work has finished (oar.device.synchronize).

    Args:
        device (Place|int|str, optional): The device. Default: None, the expected place.

    Returns:
        None

    Examples:
        >>> import oar
        >>> if oar.cuda.is_available():
        ...     oar.cuda.synchronize(0)
    """
    _device.synchronize(device)


def current_stream(device=None):
    """The current stream of a device (oar.device.current_stream); ValueError for the CPU.

    Args:
        device (Place|int|str, optional): The device. Default: None, the expected place.

    Returns:
        Stream

    Examples:
        >>> import oar
        >>> if oar.cuda.is_available():
        ...     s = oar.cuda.current_stream(0)
    """
    return _device.current_stream(device)


def stream(stream):
    """A context manager that runs its block's device work on `stream` (StreamContext(stream));
    None does nothing.

    Args:
        stream (Stream|None): The stream.

    Returns:
        StreamContext

    Examples:
        >>> import oar
        >>> with oar.cuda.stream(None):
        ...     x = oar.ones([2])
    """
    return StreamContext(stream)


def manual_seed_all(seed):
    """Seeds the random generator of every device: oar has one generator for all places, so this
    is oar.seed(seed).

    Args:
        seed (int): The seed.

    Returns:
        None

    Examples:
        >>> import oar
        >>> oar.cuda.manual_seed_all(7)
    """
    _C.seed(seed)


def empty_cache():
    """Returns every device allocator's cached blocks to the system (oar.device.empty_cache()).

    Returns:
        None

    Examples:
        >>> import oar
        >>> oar.cuda.empty_cache()
    """
    _device.empty_cache()


def memory_allocated(device=None):
    """Bytes held by live tensors on the device (default: the expected place; oar counts the CPU
    too).

    Args:
        device (Place|int|str, optional): The device. Default: None.

    Returns:
        int

    Examples:
        >>> import oar
        >>> n = oar.cuda.memory_allocated()
    """
    return _device.memory_allocated(device)


def max_memory_allocated(device=None):
    """The peak of memory_allocated since the start or the last reset.

    Args:
        device (Place|int|str, optional): The device. Default: None.

    Returns:
        int

    Examples:
        >>> import oar
        >>> print(oar.cuda.max_memory_allocated() >= oar.cuda.memory_allocated())
        True
    """
    return _device.max_memory_allocated(device)


def memory_reserved(device=None):
    """Bytes the device's allocator holds from the system (live tensors plus its cache).

    Args:
        device (Place|int|str, optional): The device. Default: None.

    Returns:
        int

    Examples:
        >>> import oar
        >>> print(oar.cuda.memory_reserved() >= 0)
        True
    """
    return _device.memory_reserved(device)


def max_memory_reserved(device=None):
    """The peak of memory_reserved since the start or the last reset.

    Args:
        device (Place|int|str, optional): The device. Default: None.

    Returns:
        int

    Examples:
        >>> import oar
        >>> print(oar.cuda.max_memory_reserved() >= oar.cuda.memory_reserved())
        True
    """
    return _device.max_memory_reserved(device)


def mem_get_info(device=None):
    """(free, total) bytes of a GPU's memory. A device that is not a GPU (the CPU by default on
    a CPU-only machine) raises ValueError("Expected a cuda device, ...") as in Paddle.

    Args:
        device (CUDAPlace|int|str, optional): The GPU. Default: None, the expected place.

    Returns:
        tuple[int, int]

    Examples:
        >>> import oar
        >>> if oar.cuda.is_available():
        ...     free, total = oar.cuda.mem_get_info(0)
    """
    key = _C._get_device() if device is None else _to_key("mem_get_info", device)
    if not key.startswith("gpu:"):
        raise ValueError(f"Expected a cuda device, but got: Place({key})")
    return _cuda.mem_get_info(key)


class _CudaErrorCodes:
    """cudart().cudaError: the CUDA runtime's error codes that Paddle's binding names."""
    success = 0
    invalid_value = 1
    memory_allocation = 2


class _CudaRuntime:
    """The CUDA runtime API as cudart() returns it: cudaProfilerStart(), cudaProfilerStop(),
    cudaGetErrorString(code) and cudaError, over libcudart."""

    cudaError = _CudaErrorCodes

    def __init__(self, lib):
        import ctypes
        self._lib = lib
        lib.cudaGetErrorString.restype = ctypes.c_char_p
        lib.cudaGetErrorString.argtypes = [ctypes.c_int]
        lib.cudaProfilerStart.restype = ctypes.c_int
        lib.cudaProfilerStop.restype = ctypes.c_int

    def cudaProfilerStart(self):
        return int(self._lib.cudaProfilerStart())

    def cudaProfilerStop(self):
        return int(self._lib.cudaProfilerStop())

    def cudaGetErrorString(self, code):
        return self._lib.cudaGetErrorString(int(code)).decode()


_runtime = []


def _load_cudart():
    import ctypes
    import ctypes.util
    names = [ctypes.util.find_library("cudart")] + [f"libcudart.so.{v}" for v in (13, 12, 11)] + ["libcudart.so"]
    for name in names:
        if not name:
            continue
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


class _NoCudaRuntime(AttributeError):
    """cudart() without a GPU: Paddle's CPU build raises AttributeError (libpaddle has no _cudart)."""


def cudart():
    """The CUDA runtime API (paddle.cuda.cudart): an object with cudaProfilerStart(),
    cudaProfilerStop(), cudaGetErrorString(code) and cudaError (success, ...), over the CUDA runtime
    library. Without a GPU and libcudart it raises AttributeError, as Paddle's CPU build does.

    Returns:
        object: The CUDA runtime API.

    Examples:
        >>> import oar
        >>> try:
        ...     success = oar.cuda.cudart().cudaError.success
        ... except AttributeError:  # no GPU
        ...     success = 0
        >>> print(success)
        0
    """
    if not _runtime:
        lib = _load_cudart() if _cuda.device_count() > 0 else None
        if lib is None:
            raise _NoCudaRuntime("oar.cuda.cudart: no CUDA runtime: oar found no GPU (or no libcudart), as "
                                 "Paddle's CPU build, whose libpaddle has no _cudart")
        _runtime.append(_CudaRuntime(lib))
    return _runtime[0]


class CudaError(RuntimeError):
    """A CUDA runtime call failed: the runtime's message and the code."""

    def __init__(self, code):
        super().__init__(f"{cudart().cudaGetErrorString(code)} ({code})")


def check_error(res):
    """Raises CudaError (a RuntimeError with the runtime's message) unless res, the return code of a
    CUDA runtime call, is success (0) (paddle.cuda.check_error). Needs the CUDA runtime: without a
    GPU it raises AttributeError, as Paddle's CPU build does.

    Args:
        res (int): The return code.

    Examples:
        >>> import oar
        >>> if oar.device.cuda.device_count() > 0:
        ...     oar.cuda.check_error(0)
    """
    runtime = cudart()
    if int(res) != runtime.cudaError.success:
        raise CudaError(int(res))
