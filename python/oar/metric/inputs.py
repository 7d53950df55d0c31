"""Turning a metric's inputs (oar tensors or NumPy arrays) into NumPy arrays."""
import numpy as np

from .. import _C
from ..framework.dtype import bfloat16, float32


def as_numpy(x, fn, arg):
    """x as a NumPy array; a tensor's data are copied out (bfloat16 as float32 values)."""
    if isinstance(x, _C.Tensor):
        if x.dtype == bfloat16:  # its numpy() would be the raw uint16 bits
            x = _C.cast(x, float32)
        return np.array(x.numpy())
    if isinstance(x, (np.ndarray, np.generic)):
        return np.asarray(x)
    # Paddle raises ValueError here too ("The 'preds' must be a numpy ndarray or Tensor.").
    raise ValueError(f"{fn}: the '{arg}' must be a numpy ndarray or Tensor, but received "
                     f"{type(x).__name__}")


def per_sample(x, n, fn, arg):
    """x reshaped to (n,) when it holds exactly one value per sample ([n] or [n, 1])."""
    if x.ndim == 0 or x.shape[0] != n or x.size != n:
        raise ValueError(f"{fn}: '{arg}' must hold one value per sample, shape [{n}] or [{n}, 1], "
                         f"but received shape {list(x.shape)}")
    return x.reshape(n)
