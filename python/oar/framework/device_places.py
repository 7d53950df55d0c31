"""The accelerator places of Paddle's API: CUDAPlace, CUDAPinnedPlace, XPUPinnedPlace.

oar runs on the CPU only. These places can be built, compared and printed as Paddle prints them
(Place(gpu:0), Place(gpu_pinned), Place(xpu_pinned)), so code that names a place in its
configuration still runs; putting data on one raises, as Paddle's CPU build does
(check_place). Departure: Paddle's CPU build already refuses to construct them.
"""
from ..tensor.patch import Place


class CUDAPlace(Place):
    """A GPU device by its id (paddle.CUDAPlace(id))."""

    def __init__(self, id):
        if isinstance(id, bool) or not isinstance(id, int):
            raise TypeError(f"CUDAPlace: argument 'id' must be an int, but got {type(id).__name__}")
        if id < 0:
            raise ValueError(f"CUDAPlace: argument 'id' must be a non-negative device id, but got {id}")
        super().__init__("gpu", id)

    def get_device_id(self):
        return self._id

    gpu_device_id = get_device_id


class CUDAPinnedPlace(Place):
    """Page-locked host memory for fast copies to a GPU (paddle.CUDAPinnedPlace())."""

    def __init__(self):
        super().__init__("gpu_pinned", 0)

    def __repr__(self):
        return "Place(gpu_pinned)"

    __str__ = __repr__


class XPUPinnedPlace(Place):
    """Page-locked host memory for fast copies to an XPU (paddle.XPUPinnedPlace())."""

    def __init__(self):
        super().__init__("xpu_pinned", 0)

    def __repr__(self):
        return "Place(xpu_pinned)"

    __str__ = __repr__


def _is_kind(kind):
    return lambda self: self._kind == kind


# The predicates every Paddle place answers.
Place.is_cuda_pinned_place = _is_kind("gpu_pinned")
Place.is_xpu_pinned_place = _is_kind("xpu_pinned")
Place.is_xpu_place = _is_kind("xpu")
Place.is_custom_place = _is_kind("custom")


def check_place(fn, place):
    """Raises when `place` names memory oar cannot hold data in (anything but the CPU): ValueError
    for a device (as Paddle's CPU build does for CUDAPlace), RuntimeError for pinned host memory
    (Paddle's PermissionDenied). None, strings and the CPU place pass (strings are checked where
    devices are set)."""
    if place is None or not isinstance(place, Place) or place._kind == "cpu":
        return
    if place._kind in ("gpu_pinned", "xpu_pinned"):
        raise RuntimeError(f"{fn}: cannot place data in {place}: oar is built for the CPU only "
                           "(no pinned accelerator memory); use CPUPlace()")
    raise ValueError(f"{fn}: cannot place data on {place}: oar is built for the CPU only; "
                     "use CPUPlace()")
