"""Tensor printing, byte-identical to Paddle 3.3.1's.

The rules, measured from Paddle:
- Floats print with `precision` decimals; a whole number (and +-inf) prints as "3." / "inf.";
  sci_mode prints every float as "1.50000000e+00". There is no automatic switch to scientific notation.
- Complex prints "(re+imj)" with both parts in the float format, never shortened; the "+" is there
  only when the imaginary part is >= 0 ("+-0.0", "nanj").
- Every item is left-justified to a common width. When some item is negative (complex: by real part,
  then imaginary part), the items that are not negative (-0.0 and NaN included) and are shorter than
  that width get one leading space (a sign column).
- The width and the sign column are measured on the edge items only (the first and last `edgeitems`
  along every axis longer than 2*edgeitems), even when the tensor is small enough to print whole.
- Above `threshold` items the tensor is summarised: axes longer than 2*edgeitems keep their edge
  items around "...". Rows wrap after (linewidth - indent) // (width + 2) items, "..." counting as one.
"""
import math

import numpy as np

from .. import _C

__all__ = ["set_printoptions", "tensor_repr", "tensor_format"]

_DEFAULTS = {"precision": 8, "threshold": 1000, "edgeitems": 3, "sci_mode": False, "linewidth": 80}
_PRINT = dict(_DEFAULTS)

_PREFIX = "Tensor"
_INDENT = len(_PREFIX) + 1  # the data lines up under the "(" of "Tensor("


def set_printoptions(precision=None, threshold=None, edgeitems=None, sci_mode=None, linewidth=None):
    """paddle.set_printoptions: options left as None keep their current value."""
    given = {"precision": precision, "threshold": threshold, "edgeitems": edgeitems,
             "linewidth": linewidth}
    for name, value in given.items():
        # Paddle rejects non-integers (its C++ binding raises RuntimeError); bool passes as an int there too.
        if value is not None and not isinstance(value, (int, np.integer)):
            raise RuntimeError(f"set_printoptions: '{name}' must be an int, but got "
                               f"{type(value).__name__} {value!r}")
    if precision is not None and precision < 0:
        # Paddle accepts this and then fails on every print; refuse it here instead.
        raise ValueError(f"set_printoptions: 'precision' must be >= 0, but got {precision}")
    for name, value in given.items():
        if value is not None:
            _PRINT[name] = int(value)
    if sci_mode is not None:
        _PRINT["sci_mode"] = bool(sci_mode)


def _edges(arr, edgeitems):
    """The first and last edgeitems along axis 0, as Python slices (as Paddle measures the width:
    edgeitems=0 keeps everything, a negative one keeps the overlap of two slices)."""
    return arr[:edgeitems], arr[-edgeitems:]


def _edge_items(arr, edgeitems):
    """arr reduced to its edge items along every axis longer than 2*edgeitems."""
    for axis, n in enumerate(arr.shape):
        if n > 2 * edgeitems:
            head, tail = _edges(np.moveaxis(arr, axis, 0), edgeitems)
            arr = np.moveaxis(np.concatenate([head, tail]), 0, axis)
    return arr


def _item_formatter(kind):
    """A function turning one Python scalar (from ndarray.tolist) into its unpadded text."""
    if kind not in "fc":
        return str  # bool and integers: True, False, -3
    number = (f"{{:.{_PRINT['precision']}e}}" if _PRINT["sci_mode"] else f"{{:.{_PRINT['precision']}f}}").format
    if kind == "c":
        # "+" goes only before an imaginary part >= 0, so -0.0 prints "+-0.0" and NaN prints "nanj".
        return lambda z: "(" + number(z.real) + ("+" if z.imag >= 0 else "") + number(z.imag) + "j)"
    if _PRINT["sci_mode"]:
        return number

    def float_text(x):
        if math.isinf(x) or x.is_integer():
            return f"{x:.0f}."
        return number(x)
    return float_text


def _negative(values):
    """values < 0 elementwise; complex values order by real part, then imaginary part (NaN: never)."""
    if values.dtype.kind == "c":
        return (values.real < 0) | ((values.real == 0) & (values.imag < 0))
    if values.dtype.kind == "b":
        return np.zeros(values.shape, dtype=bool)
    return values < 0


def _pad(text, width, signed, negative):
    """Left-justify to width; in a signed tensor a non-negative item (-0.0 and NaN included) gets a
    leading space, but only when it is shorter than width."""
    if len(text) >= width:
        return text
    if signed and not negative:
        return " " + text.ljust(width - 1)
    return text.ljust(width)


def _bfloat16_bits_to_float32(bits):
    """bfloat16 is the high half of a float32: widening the raw uint16 bits is exact."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


class _Layout:
    """Lays out the (already reduced) items of one tensor as nested, wrapped rows."""

    def __init__(self, item_text, width, signed, summarize, widen):
        self.item_text = item_text
        self.widen = widen
        self.width = width
        self.signed = signed
        self.summarize = summarize
        self.edgeitems = _PRINT["edgeitems"]
        self.linewidth = _PRINT["linewidth"]

    def _kept(self, arr):
        """(head, tail) along axis 0 when this axis is summarised ("..." goes between), else (arr, None)."""
        n = arr.shape[0]
        if self.summarize and n > 2 * self.edgeitems:
            # Printed edges are index ranges (none at all for edgeitems <= 0), unlike _edges' slices.
            kept = max(self.edgeitems, 0)
            return arr[:kept], arr[n - kept:]
        return arr, None

    def row(self, arr, indent):
        head, tail = self._kept(arr)
        items = self.texts(head)
        if tail is not None:
            items += ["..."] + self.texts(tail)
        per_line = max(1, (self.linewidth - indent) // (self.width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"

    def block(self, arr, indent):
        if arr.ndim == 1:
            return self.row(arr, indent)
        head, tail = self._kept(arr)
        parts = [self.block(sub, indent + 1) for sub in head]
        if tail is not None:
            parts += ["..."] + [self.block(sub, indent + 1) for sub in tail]
        separator = "," + "\n" * (arr.ndim - 1) + " " * (indent + 1)
        return "[" + separator.join(parts) + "]"

    def texts(self, values):
        values = self.widen(values)
        with np.errstate(invalid="ignore"):
            negative = _negative(values).tolist()
        return [_pad(self.item_text(v), self.width, self.signed, neg)
                for v, neg in zip(values.tolist(), negative)]


def format_data(arr, indent=_INDENT, bfloat16=False):
    """The data part of a tensor's repr for the ndarray arr (for bfloat16: its raw uint16 bits, widened
    here only for the items that are measured or printed, so big tensors print fast)."""
    widen = _bfloat16_bits_to_float32 if bfloat16 else (lambda values: values)
    item_text = _item_formatter("f" if bfloat16 else arr.dtype.kind)
    if arr.ndim == 0:
        return item_text(widen(arr).item())
    edge = widen(_edge_items(arr, _PRINT["edgeitems"]))
    width = max((len(item_text(v)) for v in edge.ravel().tolist()), default=0)
    with np.errstate(invalid="ignore"):
        signed = bool(_negative(edge).any())
    summarize = arr.size > _PRINT["threshold"]
    return _Layout(item_text, width, signed, summarize, widen).block(arr, indent)


def tensor_repr(t):
    """repr(x) and str(x) (Tensor.__repr__, __str__)."""
    if _C._ir.is_symbolic(t):
        # A value of a program being built (as Paddle's static Value prints).
        op, index = _C._ir.value_info(t)
        dims = "x".join(str(d) for d in t.shape)
        code = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16", "int64": "i64",
                "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "ui8", "bool": "b",
                "complex64": "c64", "complex128": "c128"}[t.dtype.name]
        return (f"Value(define_op_name={op}, index={index}, dtype=tensor<{dims + 'x' if dims else ''}{code}>, "
                f"stop_gradient={t.stop_gradient})")
    # float8 comes out of numpy() as raw bits: its values print through float32.
    arr = t.astype("float32").numpy() if t.dtype.name.startswith("float8") else t.numpy()
    # bfloat16 comes out of numpy() as its raw uint16 bits (as in Paddle), which format_data widens.
    data = format_data(arr, bfloat16=t.dtype.name == "bfloat16" and arr.dtype == np.uint16)
    return (f"{_PREFIX}(shape={list(t.shape)}, dtype={t.dtype.name}, place={t.place}, "
            f"stop_gradient={t.stop_gradient},\n{' ' * _INDENT}{data})")


def tensor_format(self, spec):
    """format(x, spec) (Tensor.__format__): a 0-D tensor formats its value, others print whole."""
    return format(self.item(), spec) if self.ndim == 0 else tensor_repr(self)
