"""Data types: oar.float32 and friends, printed and compared like Paddle's."""
from .. import _C


class dtype:
    """An element type. Compares equal to itself and to its name ('float32')."""

    __slots__ = ("_oar_code", "name")

    def __init__(self, code, name):
        self._oar_code = code
        self.name = name

    def __repr__(self):
        return f"paddle.{self.name}"

    __str__ = __repr__

    def __eq__(self, other):
        if isinstance(other, dtype):
            return self._oar_code == other._oar_code
        if isinstance(other, str):
            return other.replace("paddle.", "").replace("oar.", "") == self.name
        return NotImplemented

    def __hash__(self):
        return hash(self.name)

    def __reduce__(self):
        return (_lookup, (self.name,))


_BY_NAME = {}
for _i, _n in enumerate(_C._dtype_names()):
    _BY_NAME[_n] = dtype(_i, _n)
_C._register_dtypes([_BY_NAME[n] for n in _C._dtype_names()])


def _lookup(name):
    return _BY_NAME[name]


bool_ = _BY_NAME["bool"]
int8 = _BY_NAME["int8"]
uint8 = _BY_NAME["uint8"]
int16 = _BY_NAME["int16"]
int32 = _BY_NAME["int32"]
int64 = _BY_NAME["int64"]
float16 = _BY_NAME["float16"]
bfloat16 = _BY_NAME["bfloat16"]
float32 = _BY_NAME["float32"]
float64 = _BY_NAME["float64"]
complex64 = _BY_NAME["complex64"]
complex128 = _BY_NAME["complex128"]
float8_e4m3fn = _BY_NAME["float8_e4m3fn"]  # storage only: cast in and out, copies, fills
float8_e5m2 = _BY_NAME["float8_e5m2"]
# Paddle's uint16 is its bfloat16 (the same DataType); uint32, uint64, pstring and raw are
# dtypes without CPU tensors there, and here: making a tensor of one raises ValueError.
uint16 = bfloat16
uint32, uint64, pstring, raw = (dtype(-1 - i, n) for i, n in enumerate(("uint32", "uint64", "pstring", "raw")))
for _d in (uint32, uint64, pstring, raw):
    _BY_NAME[_d.name] = _d


def _with_tensors(d):
    if d._oar_code < 0:
        raise ValueError(f"Not supported numpy dtype {d.name}: oar has no tensors of this dtype (nor has Paddle's "
                         f"CPU build)")
    return d


def convert_dtype(d):
    """Any dtype spelling -> oar dtype object (None stays None); a dtype without tensors (uint32,
    uint64, pstring, raw) raises ValueError."""
    if d is None:
        return d
    if isinstance(d, dtype):
        return _with_tensors(d)
    if isinstance(d, str):
        key = d.replace("paddle.", "").replace("oar.", "")
        key = {"float": "float32", "double": "float64", "int": "int64", "half": "float16"}.get(key, key)
        if key in _BY_NAME:
            return _with_tensors(_BY_NAME[key])
        raise TypeError(f"unknown dtype '{d}': expected one of {', '.join(_BY_NAME)}")
    if d is float:
        return float32
    if d is int:
        return int64
    if d is bool:
        return bool_
    import numpy as np

    try:
        name = np.dtype(d).name
    except TypeError:
        raise TypeError(f"cannot interpret {d!r} as a data type") from None
    return _BY_NAME["bfloat16" if name == "uint16" else name]


def get_default_dtype():
    """The default floating-point dtype, used where a float dtype is not given.

    Returns:
        str: 'float16', 'bfloat16', 'float32' or 'float64'.

    Examples:
        >>> import oar
        >>> print(oar.get_default_dtype())
        float32
    """
    return _C.get_default_dtype().name


def set_default_dtype(d):
    """Sets the default floating-point dtype.

    Args:
        d (str|dtype|type): float16, bfloat16, float32 or float64; other dtypes raise TypeError.

    Returns:
        None

    Examples:
        >>> import oar
        >>> oar.set_default_dtype('float64')
        >>> print(oar.to_tensor([1.0]).dtype)
        paddle.float64
        >>> oar.set_default_dtype('float32')
    """
    d = convert_dtype(d)
    if d not in (float16, bfloat16, float32, float64):
        raise TypeError(f"set_default_dtype only supports float16, bfloat16, float32 and float64, got {d.name}")
    _C.set_default_dtype(d)


def iinfo(d):
    """Machine limits of an integer dtype (numpy.iinfo).

    Args:
        d (str|dtype): An integer dtype.

    Returns:
        numpy.iinfo: with bits, min and max.

    Examples:
        >>> import oar
        >>> print(oar.iinfo('int8').min, oar.iinfo('int8').max)
        -128 127
    """
    import numpy as np
    return np.iinfo(convert_dtype(d).name)


def finfo(d):
    """Machine limits of a floating-point dtype (numpy.finfo; bfloat16 reports float32's limits).

    Args:
        d (str|dtype): A floating-point dtype.

    Returns:
        numpy.finfo: with bits, eps, min, max, tiny, resolution, ...

    Examples:
        >>> import oar
        >>> print(oar.finfo('float32').eps)
        1.1920929e-07
    """
    import numpy as np
    d = convert_dtype(d)
    return np.finfo(np.float32 if d == bfloat16 else d.name)
