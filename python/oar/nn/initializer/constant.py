"""Constant and Assign: parameters filled with given values."""
import numpy as np

from ... import _C
from .initializer import Initializer


class Constant(Initializer):
    """Initializer that fills a parameter with one value. ConstantInitializer is the same class.

    Args:
        value (float|int|bool, optional): The value. Default: 0.0.
        force_cpu (bool, optional): Unused; for Paddle compatibility. Default: False.

    Examples:
        >>> import oar
        >>> attr = oar.ParamAttr(initializer=oar.nn.initializer.Constant(2.0))
        >>> print(oar.nn.Linear(2, 3, weight_attr=attr).weight.numpy())
        [[2. 2. 2.]
         [2. 2. 2.]]
    """

    def __init__(self, value=0.0, force_cpu=False):
        self.value = value

    def _values(self, shape, dtype):
        return _C.full(shape, self.value, dtype)


class Assign(Initializer):
    """Fills the parameter with `value` (a NumPy array, a list or a Tensor) of the same size."""

    def __init__(self, value, name=None):
        if isinstance(value, _C.Tensor):
            value = value.numpy()
        if not isinstance(value, (np.ndarray, list, tuple, int, float)):
            raise TypeError(f"Assign: 'value' must be a numpy array, list, tuple or Tensor, "
                            f"but got {type(value).__name__}")
        self.value = np.asarray(value)

    def _values(self, shape, dtype):
        if self.value.size != int(np.prod(shape)):
            raise ValueError(f"Assign: the value has {self.value.size} elements but the parameter of shape "
                             f"{shape} has {int(np.prod(shape))}")
        from ...tensor.creation import to_tensor
        return to_tensor(self.value.reshape(shape), dtype=dtype.name if dtype.name != "bfloat16" else "float32")
