"""DLPack interop: share memory with NumPy, PyTorch and other frameworks."""
import numpy as np

from .. import _C


def to_dlpack(x):
    """A DLPack capsule viewing x's memory (contiguous tensors share it)."""
    return x.__dlpack__()


class _CapsuleHolder:
    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)


def from_dlpack(dlpack):
    """A tensor sharing memory with a DLPack capsule or any object with __dlpack__."""
    src = dlpack if hasattr(dlpack, "__dlpack__") else _CapsuleHolder(dlpack)
    arr = np.from_dlpack(src)
    return _C._from_array(arr, False)
