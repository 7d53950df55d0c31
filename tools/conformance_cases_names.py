"""Conformance cases for the legacy and low-level names: the typed tensor factories (FloatTensor, ...),
as_strided, Tensor.unfold, Tensor.fill_diagonal_tensor(_) and Tensor.value.

Not compared here (see tests/python/test_names_*.py): as_strided with offset != 0, which Paddle
3.3.1 counts in bytes (it reads misaligned garbage) where oar counts elements; views reaching past
the storage (Paddle reads out of bounds, oar raises); the places, LazyGuard and Generator, which
compute nothing.
"""
import numpy as np

from conformance_cases import FLOATS, Case, arr, lazy_table

_FILL_DIAG = ("Paddle 3.3.1's fill_diagonal_tensor records no gradient for y (paddle.grad returns None); "
              "oar's is checked against finite differences in tests/python/test_names_diagonal_fill.py")
_UNFOLD = ("Paddle 3.3.1's unfold backward does not add up overlapping windows (step < size): each "
           "element gets the gradient of one window only; oar sums them, checked against finite "
           "differences in tests/python/test_names_strided.py")
_AS_STRIDED = ("Paddle 3.3.1's as_strided backward does not add up storage positions the view reads more "
               "than once (overlapping windows, stride 0): the last read wins; oar sums them, checked "
               "against finite differences in tests/python/test_names_strided.py")
KNOWN = {"paddle.Tensor.fill_diagonal_tensor": _FILL_DIAG, "paddle.Tensor.unfold": _UNFOLD,
         "paddle.as_strided": _AS_STRIDED, "paddle.Tensor.as_strided": _AS_STRIDED}

_TYPED = {"FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16",
          "BFloat16Tensor": "bfloat16", "IntTensor": "int32", "LongTensor": "int64",
          "ShortTensor": "int16", "CharTensor": "int8", "ByteTensor": "uint8", "BoolTensor": "bool"}


def _typed_cases(dtype):
    data = [[0, 1, 1], [1, 0, 1]] if dtype in ("bool", "uint8") else [[1.5, -2.0, 3.25], [0.0, 4.0, -1.0]]
    if dtype == "uint8":
        data = [[0, 7, 255], [1, 2, 3]]
    return [Case([data], grad=False),                       # data, converted to the factory's dtype
            Case([tuple(data[0])], grad=False),             # a tuple counts as data too
            Case([], grad=False),                           # empty, shape [0]
            Case([2, 0], grad=False),                       # a shape (zero-size: no uninitialised values)
            Case([arr((2, 3), "float64")], grad=False),     # an array keeps its own dtype
            Case([arr((2, 3), "int32")], grad=False),
            Case([2.5], grad=False)]                        # a float alone is rejected


def _as_strided(dt):
    return [Case([arr((12,), dt), [3, 2], [4, 1]]),
            Case([arr((12,), dt), [2, 2], [1, 1]]),         # overlapping windows: the gradient sums
            Case([arr((3, 4), dt), [2, 3], [4, 1]]),
            Case([arr((3, 4), dt), [3, 3], [1, 3]]),        # a transposed read
            Case([arr((6,), dt), [], []]),                  # a 0-D view of the first element
            Case([arr((6,), dt), [3], [0]])]                # stride 0 repeats one element


def _table():
    f = FLOATS
    table = {name: _typed_cases(dt) for name, dt in _TYPED.items()}
    table["as_strided"] = ([c for dt in f for c in _as_strided(dt)]
                           + [Case([arr((6,), "int32", -5, 5), [2, 2], [2, 1]], grad=False),
                              Case([arr((6,), "int64", -5, 5), [2, 2], [1, 1]], grad=False)])
    table["unfold"] = ([Case([arr((3, 4), dt), 1, 2, 2]) for dt in f]            # disjoint windows
                       + [Case([arr((3, 4), dt), 0, 2, 1]) for dt in f]          # overlapping windows
                       + [Case([arr((2, 5, 3), dt), -2, 3, 2]) for dt in f]
                       + [Case([arr((3, 4), dt), 1, 0, 1], grad=False) for dt in f]  # empty windows
                       + [Case([arr((4,), "int64", -5, 5), 0, 2, 1], grad=False),
                          Case([arr((3, 4), "float64"), 1, 5, 1], grad=False),    # size too large
                          Case([arr((3, 4), "float64"), 1, 2, 0], grad=False)])   # step 0
    fill = []
    for dt in f:
        fill += [Case([arr((3, 4), dt), arr((3,), dt)]),
                 Case([arr((3, 4), dt), arr((3,), dt)], {"offset": 1}),
                 Case([arr((3, 4), dt), arr((2,), dt)], {"offset": -1}),
                 Case([arr((2, 3, 4), dt), arr((2, 3), dt)], {"dim1": 1, "dim2": 2}),
                 Case([arr((2, 3, 4), dt), arr((2, 2), dt)], {"offset": 1, "dim1": 2, "dim2": 1}),
                 Case([arr((2, 3, 4), dt), arr((4, 2), dt)], {"dim1": 0, "dim2": -2}),
                 Case([arr((3, 4), dt), arr((2,), dt)], grad=False)]         # wrong y shape
    fill.append(Case([arr((3, 4), "int64", -5, 5), arr((3,), "int64", -5, 5)], grad=False))
    table["fill_diagonal_tensor"] = fill
    table["fill_diagonal_tensor_"] = [Case(c.args, c.kwargs, grad=False) for c in fill]
    table["value"] = [Case([arr((2, 3), dt)]) for dt in f]
    return table


_build = lazy_table(_table, ("paddle", "paddle.Tensor"))
_TENSOR_ONLY = ("unfold", "fill_diagonal_tensor", "fill_diagonal_tensor_", "value")


def cases(namespace, name):
    if namespace == "paddle" and name in _TENSOR_ONLY:
        return []
    if namespace == "paddle.Tensor" and name in _TYPED:
        return []
    return _build(namespace, name)
