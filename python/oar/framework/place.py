"""Places: where a tensor's memory lives (paddle.CPUPlace, CUDAPlace, CUDAPinnedPlace, CustomPlace).

A place prints as Paddle prints it (Place(cpu), Place(gpu:0), Place(gpu_pinned),
Place(custom_cpu:0)) and travels to C++ as its key string ("cpu", "gpu:0", "gpu_pinned",
"custom_cpu:0"), which oar/core/place.cc parses. Whether a device exists is decided where memory
is placed (its backend raises then), so a place can be built on any machine, as in Paddle.
"""
from .. import _C


class Place:
    """A device place: where a tensor's memory lives. It prints as Paddle's (Place(cpu),
    Place(gpu:0)); CPUPlace, CUDAPlace, CUDAPinnedPlace and CustomPlace build the usual ones. A
    place
    can be built on any machine; a missing device raises only when memory is placed there.

    Args:
        kind (str, optional): 'cpu', 'gpu', 'gpu_pinned', 'xpu', 'xpu_pinned' or a custom device
            type.
            Default: 'cpu'.
        device_id (int, optional): The device index. Default: 0.

    Examples:
        >>> import oar
        >>> print(oar.Place(), oar.Place('gpu', 1))
        Place(cpu) Place(gpu:1)
        >>> print(oar.Place('gpu', 1).is_gpu_place(), oar.CPUPlace() == oar.Place())
        True True
    """

    def __init__(self, kind="cpu", device_id=0):
        self._kind, self._id = kind, device_id

    def _key(self):
        return self._kind if self._kind in ("cpu", "gpu_pinned", "xpu_pinned") else f"{self._kind}:{self._id}"

    def __repr__(self):
        return f"Place({self._key()})"

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, Place) and (self._kind, self._id) == (other._kind, other._id)

    def __hash__(self):
        return hash((self._kind, self._id))

    def is_cpu_place(self):
        return self._kind == "cpu"

    def is_gpu_place(self):
        return self._kind == "gpu"

    def is_cuda_pinned_place(self):
        return self._kind == "gpu_pinned"

    def is_xpu_pinned_place(self):
        return self._kind == "xpu_pinned"

    def is_xpu_place(self):
        return self._kind == "xpu"

    def is_custom_place(self):
        return self._kind not in ("cpu", "gpu", "gpu_pinned", "xpu", "xpu_pinned")

    def get_device_id(self):
        return self._id

    def get_device_type(self):
        return self._kind

    gpu_device_id = get_device_id


class CPUPlace(Place):
    """The host (paddle.CPUPlace())."""

    def __init__(self):
        super().__init__("cpu", 0)


def _device_id(fn, id):
    if isinstance(id, bool) or not isinstance(id, int):
        raise TypeError(f"{fn}: argument 'id' must be an int, but got {type(id).__name__}")
    if id < 0:
        raise ValueError(f"{fn}: argument 'id' must be a non-negative device id, but got {id}")
    return id


class CUDAPlace(Place):
    """A GPU device by its id (paddle.CUDAPlace(id))."""

    def __init__(self, id):
        super().__init__("gpu", _device_id("CUDAPlace", id))


class CUDAPinnedPlace(Place):
    """Page-locked host memory for fast copies to a GPU (paddle.CUDAPinnedPlace())."""

    def __init__(self):
        super().__init__("gpu_pinned", 0)


class XPUPinnedPlace(Place):
    """Page-locked host memory for fast copies to an XPU (paddle.XPUPinnedPlace())."""

    def __init__(self):
        super().__init__("xpu_pinned", 0)


class CustomPlace(Place):
    """A device of a plug-in device type (paddle.CustomPlace('custom_cpu', 0))."""

    def __init__(self, dev_type, id=0):
        if not isinstance(dev_type, str) or not dev_type or dev_type in ("cpu", "gpu", "gpu_pinned"):
            raise ValueError(f"CustomPlace: argument 'dev_type' must name a plug-in device type, but got "
                             f"{dev_type!r}")
        super().__init__(dev_type, _device_id("CustomPlace", id))


def from_key(key):
    """The Place of a key string as C++ returns it ("cpu", "gpu:0", "custom_cpu:1", ...)."""
    name, _, num = key.partition(":")
    if name == "cpu":
        return CPUPlace()
    if name == "gpu_pinned":
        return CUDAPinnedPlace()
    if name == "gpu":
        return CUDAPlace(int(num or 0))
    return CustomPlace(name, int(num or 0))


def to_key(fn, place):
    """The key string of a place given as a Place, a device string ('cpu', 'gpu', 'gpu:1',
    'cuda:0', 'custom_cpu:0') or an int (a GPU id); TypeError/ValueError name `fn` otherwise."""
    if isinstance(place, Place):
        return place._key()
    if isinstance(place, bool):
        raise TypeError(f"{fn}: expected a place or a device string, but got bool")
    if isinstance(place, int):
        return f"gpu:{_device_id(fn, place)}"
    if isinstance(place, str):
        text = place.strip().lower()
        if text == "cuda" or text.startswith("cuda:"):
            text = "gpu" + text[4:]
        if text == "gpu":
            text = "gpu:0"
        try:
            return _C._check_place(text)
        except ValueError as e:
            raise ValueError(f"{fn}: {e}") from None
    raise TypeError(f"{fn}: expected a place (CPUPlace(), CUDAPlace(0), CustomPlace(...)) or a device "
                    f"string such as 'cpu', 'gpu:0', 'custom_cpu:0', but got {type(place).__name__}")


def available(key):
    """Whether memory can be placed at the place key (its backend is loaded and has that device)."""
    if key == "cpu":
        return True
    if key == "gpu_pinned":
        return _C._device_count("gpu") > 0
    name, _, num = key.partition(":")
    if num and not num.isdigit():
        return False
    return int(num or 0) < _C._device_count(name)


def placement_key(fn, place):
    """to_key for an argument that puts data on the place: a device that is not present raises
    ValueError (RuntimeError for pinned memory without a GPU), as Paddle's builds do."""
    key = to_key(fn, place)
    if not available(key):
        if key in ("gpu_pinned", "xpu_pinned"):
            raise RuntimeError(f"{fn}: cannot place data in Place({key}): pinned memory needs the GPU "
                               "backend, and no GPU is available")
        name = key.partition(":")[0]
        why = (("the CUDA backend found no GPU" if "gpu" in _C._device_types() else
                "oar was built without CUDA (or the CUDA runtime is not installed)") if name == "gpu" else
               f"no plug-in registered the device type '{name}' (oar.device.load_custom_device)"
               if _C._device_count(name) == 0 else f"only {_C._device_count(name)} {name} device(s) exist")
        raise ValueError(f"{fn}: cannot place data on Place({key}): {why}")
    return key


def move_in_place(t, key):
    """Moves tensor `t` (a parameter or buffer) to the place key in place: the same Python object
    and TensorImpl, so optimizers and programs that hold it keep it; its gradient moves too."""
    if t is None or _C._place_of(t) == key:
        return
    from ..autograd import no_grad
    with no_grad():
        stop_gradient, grad = t.stop_gradient, t.grad
        _C._assign_view_inplace(t, _C._to_place(t.detach(), key))
        t.stop_gradient = stop_gradient
        if grad is not None:
            t.grad = _C._to_place(grad, key)
