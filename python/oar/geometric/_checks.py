"""Argument checks shared by oar.geometric's functions (Paddle's messages and error types)."""
from .. import _C

Tensor = _C.Tensor

INDEX_DTYPES = ("int32", "int64")
VALUE_DTYPES = ("float16", "bfloat16", "float32", "float64", "int32", "int64")


def dtype_name(t):
    return str(t.dtype).rsplit(".", 1)[-1]


def check_tensor(fn, name, value, dtypes):
    if not isinstance(value, Tensor):
        raise TypeError(f"The {name} of '{fn}' must be a Tensor, but received {type(value).__name__}.")
    if dtype_name(value) not in dtypes:
        raise TypeError(f"The data type of '{name}' in {fn} must be {', '.join(dtypes)}, "
                        f"but received {dtype_name(value)}.")
