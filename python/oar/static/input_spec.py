"""InputSpec (paddle.static.InputSpec): the shape (None/-1 for unknown dims), dtype and name of
a program input, for to_static and jit.save."""
import numpy as np

from ..framework.dtype import convert_dtype


class InputSpec:
    """Describes a model input by shape, dtype and name, for oar.jit.to_static and oar.jit.save
    (input_spec=[...]). None or -1 in shape marks a dim known only when the program runs.

    Args:
        shape (int|list|tuple): The dims; None and -1 mean variable.
        dtype (str|dtype, optional): The dtype. Default: 'float32'.
        name (str, optional): The input's name. Default: None.
        stop_gradient (bool, optional): Whether the input is excluded from gradients. Default:
            False.

    Examples:
        >>> import oar
        >>> spec = oar.static.InputSpec([None, 3], 'float32', 'x')
        >>> print(spec.shape, spec.dtype)
        (-1, 3) paddle.float32
        >>> print(spec.batch(4).shape)
        (4, -1, 3)
    """

    def __init__(self, shape, dtype="float32", name=None, stop_gradient=False):
        if isinstance(shape, int):
            shape = [shape]
        if not isinstance(shape, (list, tuple)):
            raise TypeError(f"InputSpec: shape must be a list or tuple, but received {type(shape).__name__}")
        dims = []
        for d in shape:
            if d is None:
                d = -1
            if not isinstance(d, (int, np.integer)) or d < -1:
                raise ValueError(f"InputSpec: dims must be non-negative ints, -1 or None, got {list(shape)}")
            dims.append(int(d))
        self.shape = tuple(dims)
        self.dtype = convert_dtype(dtype)
        self.name = name
        self.stop_gradient = stop_gradient

    @classmethod
    def from_tensor(cls, tensor, name=None):
        return cls(tensor.shape, tensor.dtype, name or getattr(tensor, "name", None))

    @classmethod
    def from_numpy(cls, ndarray, name=None):
        return cls(ndarray.shape, ndarray.dtype, name)

    def batch(self, batch_size):
        if isinstance(batch_size, (list, tuple)):
            batch_size = batch_size[0]
        return InputSpec((batch_size,) + self.shape, self.dtype, self.name, self.stop_gradient)

    def unbatch(self):
        if not self.shape:
            raise ValueError("InputSpec.unbatch: the shape is already 0-D")
        return InputSpec(self.shape[1:], self.dtype, self.name, self.stop_gradient)

    def __repr__(self):
        return (f"InputSpec(shape={self.shape}, dtype={self.dtype}, name={self.name}, "
                f"stop_gradient={self.stop_gradient})")

    def __eq__(self, other):
        return (isinstance(other, InputSpec) and self.shape == other.shape and self.dtype == other.dtype
                and self.name == other.name and self.stop_gradient == other.stop_gradient)

    def __hash__(self):
        return hash((self.shape, self.dtype.name, self.name, self.stop_gradient))
