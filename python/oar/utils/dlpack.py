"""DLPack interop: share memory with NumPy, PyTorch and other frameworks, on the CPU and on devices."""
from .. import _C


def to_dlpack(x):
    """A DLPack capsule sharing x's memory where it lives (its strides kept; a device's queued work
    finishes first). The capsule's device is x's: CPU, CUDA (gpu:N), CUDA host (pinned) or, for a
    custom device, DLPack's extension device."""
    return x.__dlpack__()


def from_dlpack(dlpack):
    """A tensor sharing memory with a DLPack capsule or any object with ``__dlpack__`` (a NumPy
    array, a torch tensor, ...), on the capsule's device."""
    if hasattr(dlpack, "__dlpack__"):
        # The capsule is made here, in Python, rather than by the binding's own call of
        # __dlpack__ (nanobind's method call with no arguments passes memcpy a null pointer,
        # which UBSan reports).
        dlpack = dlpack.__dlpack__()
    return _C._from_dlpack(dlpack)
