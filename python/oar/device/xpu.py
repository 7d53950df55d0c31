"""oar.device.xpu (paddle.device.xpu): Kunlun XPU devices. oar has no XPU backend, so each name does
what Paddle's CPU build does: device_count() is 0, Stream and Event cannot be made and
synchronize raises RuntimeError, and the memory and debug functions raise ValueError saying an
XPU build is needed."""
import warnings

from ..framework.place import Place
from ..utils.deprecated import VisibleDeprecationWarning

__all__ = ["Stream", "Event", "synchronize", "device_count", "set_debug_level", "empty_cache",
           "max_memory_allocated", "max_memory_reserved", "reset_max_memory_allocated",
           "reset_max_memory_reserved", "memory_allocated", "memory_reserved", "memory_total", "memory_used"]


def _xpu_only(api):
    raise ValueError(f"The API oar.device.xpu.{api} is only supported on XPU devices, and oar has no XPU "
                     "backend (as Paddle's builds without XPU support)")


class Stream:
    """An XPU stream (paddle.device.xpu.Stream); without an XPU it cannot be made: RuntimeError.

    Args:
        device (Place|int, optional): The XPU. Default: None.

    Examples:
        >>> import oar
        >>> try:
        ...     oar.device.xpu.Stream()
        ... except RuntimeError as e:
        ...     print("no XPU")
        no XPU
    """

    def __init__(self, device=None):
        if device is not None and (isinstance(device, bool) or not isinstance(device, (int, Place))):
            raise TypeError(f"Stream(): argument 'device' must be an XPU place or an int, got "
                            f"{type(device).__name__}")
        raise RuntimeError("(Unavailable) Class XPUStream can only be initialized on the XPU platform: oar has "
                           "no XPU backend")


class Event:
    """An XPU event (paddle.device.xpu.Event); without an XPU it cannot be made: RuntimeError.

    Examples:
        >>> import oar
        >>> try:
        ...     oar.device.xpu.Event()
        ... except RuntimeError as e:
        ...     print("no XPU")
        no XPU
    """

    def __init__(self):
        raise RuntimeError("(Unavailable) Class XPUEvent can only be initialized on the XPU platform: oar has "
                           "no XPU backend")


def synchronize(device=None):
    """Waits for an XPU's work (deprecated in Paddle since 2.5: use oar.device.synchronize). Warns
    (VisibleDeprecationWarning), then raises RuntimeError: oar has no XPU.

    Args:
        device (Place|int|str, optional): The XPU. Default: None.

    Examples:
        >>> import oar, warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     try:
        ...         oar.device.xpu.synchronize()
        ...     except RuntimeError:
        ...         print("no XPU")
        no XPU
    """
    warnings.warn('API "paddle.device.xpu.synchronize" is deprecated since 2.5.0, and will be removed in future '
                  'versions. Please use "paddle.device.synchronize" instead.\n'
                  "    Reason: synchronize in paddle.device.xpu will be removed in future",
                  VisibleDeprecationWarning, stacklevel=2)
    raise RuntimeError("(Unavailable) oar is not compiled with XPU. Cannot visit device synchronize.")


def device_count():
    """The number of XPUs: 0 (oar has no XPU backend).

    Returns:
        int: 0.

    Examples:
        >>> import oar
        >>> print(oar.device.xpu.device_count())
        0
    """
    return 0


def set_debug_level(level=0):
    """Sets the XPU runtime's debug level; raises ValueError: oar has no XPU.

    Args:
        level (int, optional): The level. Default: 0.

    Examples:
        >>> import oar
        >>> try:
        ...     oar.device.xpu.set_debug_level(1)
        ... except ValueError:
        ...     print("no XPU")
        no XPU
    """
    _xpu_only("set_debug_level")


def empty_cache():
    """Releases the XPU allocator's cached memory; raises ValueError: oar has no XPU.

    Examples:
        >>> import oar
        >>> try:
        ...     oar.device.xpu.empty_cache()
        ... except ValueError:
        ...     print("no XPU")
        no XPU
    """
    _xpu_only("empty_cache")


def _memory_api(api, doc):
    def fn(device=None):
        _xpu_only(api)
    fn.__name__ = fn.__qualname__ = api
    fn.__doc__ = (f"{doc} of an XPU; raises ValueError: oar has no XPU.\n\n"
                  "    Args:\n        device (Place|int|str, optional): The XPU. Default: None.\n\n"
                  "    Examples:\n        >>> import oar\n        >>> try:\n"
                  f"        ...     oar.device.xpu.{api}()\n        ... except ValueError:\n"
                  "        ...     print(\"no XPU\")\n        no XPU\n")
    return fn


max_memory_allocated = _memory_api("max_memory_allocated", "The peak memory allocated to tensors")
max_memory_reserved = _memory_api("max_memory_reserved", "The peak memory the allocator held")
reset_max_memory_allocated = _memory_api("reset_max_memory_allocated", "Resets the peak allocated memory")
reset_max_memory_reserved = _memory_api("reset_max_memory_reserved", "Resets the peak reserved memory")
memory_allocated = _memory_api("memory_allocated", "The memory allocated to tensors")
memory_reserved = _memory_api("memory_reserved", "The memory the allocator holds")
memory_total = _memory_api("memory_total", "The total memory")
memory_used = _memory_api("memory_used", "The memory in use")
