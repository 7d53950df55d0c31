"""oar.compat (paddle.compat): PyTorch-style functions over oar's ops, for code written against
PyTorch's signatures: argument names input/dim/keepdim/out, named-tuple results (values, indices),
torch.split's section sizes, torch.min/max's three call forms. oar.compat.nn and
oar.compat.nn.functional hold the layers and functions; oar.enable_compat() makes `import torch`
give these (see oar.compat.proxy).

Passing Paddle's own argument names (x, axis, ...) raises TypeError that names the Paddle
function to use instead."""
import secrets
from typing import NamedTuple

from .. import _C
from ..framework import mode
from . import nn  # noqa: F401
from ._utils import check_out, reject_keywords
from .proxy import (  # noqa: F401
    disable_torch_proxy, enable_torch_proxy, extend_torch_proxy_blocked_modules, use_torch_proxy_guard)

__all__ = ["equal", "slogdet", "sort", "split", "min", "max", "unique", "median", "nanmedian", "seed"]


def _oar():
    import oar
    return oar


# The dtype promotion of compat.equal (PyTorch's table over these ten dtypes).
_ORDER = ["uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "bool", "bfloat16"]
_TABLE = [
    "u1 i2 i2 i4 i8 f2 f4 f8 u1 bf",
    "i2 i1 i2 i4 i8 f2 f4 f8 i1 bf",
    "i2 i2 i2 i4 i8 f2 f4 f8 i2 bf",
    "i4 i4 i4 i4 i8 f2 f4 f8 i4 bf",
    "i8 i8 i8 i8 i8 f2 f4 f8 i8 bf",
    "f2 f2 f2 f2 f2 f2 f4 f8 f2 f4",
    "f4 f4 f4 f4 f4 f4 f4 f8 f4 f4",
    "f8 f8 f8 f8 f8 f8 f8 f8 f8 f8",
    "u1 i1 i2 i4 i8 f2 f4 f8 b1 bf",
    "bf bf bf bf bf f4 f4 f8 bf bf",
]
_SHORT = {"u1": "uint8", "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64", "f2": "float16",
          "f4": "float32", "f8": "float64", "b1": "bool", "bf": "bfloat16"}


def _dtype_name(t):
    return str(t.dtype).replace("paddle.", "").replace("oar.", "")


def _promote(a, b):
    na, nb = _dtype_name(a), _dtype_name(b)
    if na not in _ORDER or nb not in _ORDER:
        return None
    return _SHORT[_TABLE[_ORDER.index(na)].split()[_ORDER.index(nb)]]


@reject_keywords({"x", "y"}, "paddle.compat.equal", "paddle.equal")
def equal(input, other):
    """True when two tensors have the same shape and elements (torch.equal); a tensor holding NaN is
    never equal to one. Tensors of different dtypes are compared after PyTorch's promotion.

    Args:
        input (Tensor): The first tensor.
        other (Tensor): The second tensor.

    Returns:
        bool: Whether they are equal.

    Examples:
        >>> import oar
        >>> print(oar.compat.equal(oar.to_tensor([1, 2, 3]), oar.to_tensor([1, 3, 2])))
        False
        >>> print(oar.compat.equal(oar.to_tensor([1, 2]), oar.to_tensor([1., 2.])))
        True
    """
    oar = _oar()
    if input.dtype != other.dtype:
        common = _promote(input, other)
        if common is not None:
            if _dtype_name(input) != common:
                input = input.astype(common)
            if _dtype_name(other) != common:
                other = other.astype(common)
    return bool(oar.equal_all(input, other).item())


class MedianRetType(NamedTuple):
    values: _C.Tensor
    indices: _C.Tensor


class MinMaxRetType(NamedTuple):
    values: _C.Tensor
    indices: _C.Tensor


class SortRetType(NamedTuple):
    values: _C.Tensor
    indices: _C.Tensor


class SlogdetResult(NamedTuple):
    sign: _C.Tensor
    logabsdet: _C.Tensor


def _write_out(result, out):
    oar = _oar()
    if out is None:
        return
    if isinstance(result, tuple):
        oar.assign(result[0], out[0])
        oar.assign(result[1], out[1])
    else:
        oar.assign(result, out)


@reject_keywords({"x", "axis"}, "paddle.compat.median", "paddle.median")
def median(input, dim=None, keepdim=False, *, out=None):
    """The median of input's values (torch.median): the lower of the two middle values when their
    count is even. Without dim, one 0-D tensor over all values; with dim, a MedianRetType(values,
    indices) along dim (indices: int64, where each median sits).

    Args:
        input (Tensor): The input.
        dim (int, optional): The axis to reduce; None reduces all values. Default: None.
        keepdim (bool, optional): Keep the reduced axis (size 1). Default: False.
        out (Tensor|tuple[Tensor, Tensor], optional): Written with the result: a Tensor without
            dim, a (values, indices) pair with it. Default: None.

    Returns:
        Tensor|MedianRetType: The median, or (values, indices).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
        >>> print(oar.compat.median(x).item())
        5
        >>> ret = oar.compat.median(x, dim=1)
        >>> print(ret.values.numpy(), ret.indices.numpy())
        [2 5 8] [1 1 1]
    """
    oar = _oar()
    if dim is None:
        check_out(out, False)
        result = oar.median(input, axis=None, keepdim=keepdim, mode="min")
        if out is not None:
            oar.assign(result, out)
            return out
        return result
    check_out(out, True)
    values, indices = oar.median(input, axis=dim, keepdim=keepdim, mode="min")
    if input.dtype.name.startswith(("float", "bfloat")):
        # A slice holding NaN has median NaN, at the index of its first NaN (as Paddle's).
        first_nan = oar.argmax(oar.isnan(input).astype("int32"), axis=dim, keepdim=keepdim)
        indices = oar.where(oar.isnan(values), first_nan, indices)
    if out is not None:
        _write_out((values, indices), out)
        return MedianRetType(values=out[0], indices=out[1])
    return MedianRetType(values=values, indices=indices)


def _nan_lower_median(x, dim, keepdim):
    """The lower median of the non-NaN values along dim and its index (-1 where all are NaN): the
    values sort with NaN last (stably), and the median sits at (count - 1) // 2."""
    oar = _oar()
    order = oar.argsort(x, axis=dim, stable=True)
    count = oar.logical_not(oar.isnan(x)).astype("int64").sum(axis=dim, keepdim=True)
    half = oar.floor_divide(count - 1, oar.full_like(count, 2))
    pos = oar.maximum(half, oar.zeros_like(half))
    indices = oar.take_along_axis(order, pos, axis=dim)
    values = oar.take_along_axis(x, indices, axis=dim)
    indices = oar.where(count == 0, oar.full_like(indices, -1), indices)
    if not keepdim:
        values, indices = values.squeeze(dim), indices.squeeze(dim)
    return values, indices


@reject_keywords({"x", "axis"}, "paddle.compat.nanmedian", "paddle.nanmedian")
def nanmedian(input, dim=None, keepdim=False, *, out=None):
    """The median of input's values ignoring NaN (torch.nanmedian): the lower middle value of the
    non-NaN ones; NaN where all are NaN. With dim, a MedianRetType(values, indices); an all-NaN row
    gets index 0.

    Args:
        input (Tensor): The input (a floating dtype).
        dim (int, optional): The axis to reduce; None reduces all values. Default: None.
        keepdim (bool, optional): Keep the reduced axis (size 1). Default: False.
        out (Tensor|tuple[Tensor, Tensor], optional): Written with the result. Default: None.

    Returns:
        Tensor|MedianRetType: The median, or (values, indices).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1, float('nan'), 3], [4, 5, 6], [float('nan'), 8, 9]])
        >>> print(oar.compat.nanmedian(x).item())
        5.0
        >>> ret = oar.compat.nanmedian(x, dim=1)
        >>> print(ret.values.numpy(), ret.indices.numpy())
        [1. 5. 8.] [0 1 1]
    """
    oar = _oar()
    if dim is None:
        check_out(out, False)
        values, _ = _nan_lower_median(input.reshape([-1]), 0, False)
        if keepdim:
            values = values.reshape([1] * input.ndim)
        if out is not None:
            oar.assign(values, out)
            return out
        return values
    check_out(out, True)
    values, indices = _nan_lower_median(input, dim, keepdim)
    indices = oar.maximum(indices, oar.zeros_like(indices))
    if out is not None:
        _write_out((values, indices), out)
        return MedianRetType(values=out[0], indices=out[1])
    return MedianRetType(values=values, indices=indices)


def seed():
    """Seeds the random-number generator with a fresh non-deterministic seed and returns it
    (torch.seed).

    Returns:
        int: The seed now in use.

    Examples:
        >>> import oar
        >>> s = oar.compat.seed()
        >>> print(isinstance(s, int) and s >= 0)
        True
    """
    value = secrets.randbits(63)
    _oar().seed(value)
    return value


def _minmax_error(func_name, args, kwargs, prefix=""):
    kinds = [type(v).__name__ for v in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()]
    return TypeError(
        f"Invalid arguments for `paddle.compat.{func_name}`:\n{prefix}"
        f"Got: (paddle.Tensor input, {', '.join(kinds)}), but expect one of:\n"
        f" - (input: paddle.Tensor) for reduce_{func_name} on all dims.\n"
        f" - (input: paddle.Tensor, other: paddle.Tensor) -> see paddle.{func_name}imum\n"
        f" - (input: paddle.Tensor, int dim (cannot be None), bool keepdim = False)\n")


def _minmax_args(func_name, args, kwargs):
    """(dim or other, keepdim) from torch.min/max's call forms."""
    def need(key):
        if key not in kwargs:
            raise _minmax_error(func_name, args, kwargs) from None
        return kwargs[key]

    dim_or_other, keepdim = None, False
    total = len(args) + len(kwargs)
    if total > 2:
        raise _minmax_error(func_name, args, kwargs)
    if total == 2:
        if len(args) == 2:
            dim_or_other, keepdim = args
        elif len(args) == 1:
            dim_or_other, keepdim = args[0], need("keepdim")
        else:
            dim_or_other, keepdim = need("dim"), need("keepdim")
        if dim_or_other is None or isinstance(dim_or_other, _C.Tensor):
            raise _minmax_error(func_name, args, kwargs)
    elif total == 1:
        if args:
            dim_or_other = args[0]
        elif "dim" in kwargs:
            dim_or_other = kwargs["dim"]
        elif "other" in kwargs:
            dim_or_other = kwargs["other"]
            if not isinstance(dim_or_other, _C.Tensor):
                raise _minmax_error(func_name, args, kwargs)
        if dim_or_other is None:
            raise _minmax_error(func_name, args, kwargs)
    if dim_or_other is not None and not isinstance(dim_or_other, _C.Tensor) and type(dim_or_other) is not int:
        raise _minmax_error(
            func_name, args, kwargs,
            f"The second input must be int or Tensor or implicit None in compat.{func_name}, "
            f"but received {type(dim_or_other)}.\n")
    return dim_or_other, keepdim


def _minmax(func_name, input, args, kwargs, out):
    oar = _oar()
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"input should be a tensor, but got an instance with type '{type(input).__name__}'")
    name = _dtype_name(input)
    if name in ("int32", "int64", "uint8", "int16") and not input.stop_gradient:
        raise TypeError(f"Tensors with integral type: '{input.dtype}' should stop gradient.")
    dim_or_other, keepdim = _minmax_args(func_name, args, kwargs)
    if dim_or_other is None:
        check_out(out, False)
        result = oar.min(input) if func_name == "min" else oar.max(input)
    elif isinstance(dim_or_other, int):
        check_out(out, True)
        if input.ndim:
            if name in ("float16", "bfloat16", "int16"):
                raise TypeError(f"Non-CUDA GPU placed Tensor does not have '{input.dtype}' op registered.\n"
                                "Paddle support following DataTypes: int32, int64, float64, float32, uint8")
            arg = oar.argmin if func_name == "min" else oar.argmax
            indices = arg(input, axis=dim_or_other, keepdim=True)
            values = oar.take_along_axis(input, indices, axis=dim_or_other)
            if not keepdim:
                values, indices = values.squeeze(dim_or_other), indices.squeeze(dim_or_other)
            result = MinMaxRetType(values=values, indices=indices)
        else:
            result = MinMaxRetType(values=input, indices=oar.zeros([], dtype="int64"))
    else:
        check_out(out, False)
        result = oar.minimum(input, dim_or_other) if func_name == "min" else oar.maximum(input, dim_or_other)
    _write_out(result, out)
    return result


@reject_keywords({"x", "axis"}, "paddle.compat.min", "paddle.min")
def min(input, *args, out=None, **kwargs):
    """torch.min's three forms: min(input) reduces all values to a 0-D tensor; min(input, dim,
    keepdim=False) gives MinMaxRetType(values, indices) along dim (the gradient goes to the one
    element each index names); min(input, other) is oar.minimum.

    Args:
        input (Tensor): The input; an integer tensor must stop gradient.
        *args: dim (int) and keepdim (bool), or other (Tensor).
        out (Tensor|tuple[Tensor, Tensor], optional): Written with the result. Default: None.
        **kwargs: dim=, keepdim= or other=.

    Returns:
        Tensor|MinMaxRetType: The minimum, (values, indices), or the elementwise minimum.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0.2, 0.3, 0.5], [0.1, 0.2, 0.6]])
        >>> print(oar.compat.min(x).item())
        0.1...
        >>> ret = oar.compat.min(x, 1)
        >>> print(ret.indices.numpy())
        [0 0]
    """
    return _minmax("min", input, args, kwargs, out)


@reject_keywords({"x", "axis"}, "paddle.compat.max", "paddle.max")
def max(input, *args, out=None, **kwargs):
    """torch.max's three forms: max(input) reduces all values to a 0-D tensor; max(input, dim,
    keepdim=False) gives MinMaxRetType(values, indices) along dim (the gradient goes to the one
    element each index names); max(input, other) is oar.maximum.

    Args:
        input (Tensor): The input; an integer tensor must stop gradient.
        *args: dim (int) and keepdim (bool), or other (Tensor).
        out (Tensor|tuple[Tensor, Tensor], optional): Written with the result. Default: None.
        **kwargs: dim=, keepdim= or other=.

    Returns:
        Tensor|MinMaxRetType: The maximum, (values, indices), or the elementwise maximum.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0.2, 0.3, 0.5], [0.1, 0.2, 0.6]])
        >>> ret = oar.compat.max(x, dim=1, keepdim=True)
        >>> print(ret.values.shape, ret.indices.numpy().ravel())
        [2, 1] [2 2]
    """
    return _minmax("max", input, args, kwargs, out)


def slogdet(x, out=None):
    """The sign and the log of the absolute value of the determinant of square matrices (torch.slogdet),
    as a SlogdetResult(sign, logabsdet) of two tensors of shape x.shape[:-2]. A singular matrix
    gives (0, -inf).

    Args:
        x (Tensor): [*, n, n] matrices (float32, float64).
        out (tuple[Tensor, Tensor], optional): Written with (sign, logabsdet). Default: None.

    Returns:
        SlogdetResult: (sign, logabsdet).

    Examples:
        >>> import oar
        >>> r = oar.compat.slogdet(oar.to_tensor([[2., 0.], [0., 3.]]))
        >>> print(r.sign.item(), round(r.logabsdet.item(), 4))
        1.0 1.7918
    """
    oar = _oar()
    both = oar.linalg.slogdet(x)
    sign, logabsdet = both[0], both[1]
    if out is not None:
        oar.assign(sign, out[0])
        oar.assign(logabsdet, out[1])
    return SlogdetResult(sign, logabsdet)


@reject_keywords({"x", "axis"}, "paddle.compat.sort", "paddle.sort")
def sort(input, dim=-1, descending=False, stable=False, out=None):
    """Sorts along dim and returns SortRetType(values, indices) (torch.sort); the gradient of values
    flows back to input.

    Args:
        input (Tensor): The input.
        dim (int, optional): The axis to sort along. Default: -1.
        descending (bool, optional): Largest first. Default: False.
        stable (bool, optional): Keep the order of equal elements. Default: False.
        out (tuple[Tensor, Tensor], optional): Written with (values, indices). Default: None.

    Returns:
        SortRetType: (values, indices).

    Examples:
        >>> import oar
        >>> r = oar.compat.sort(oar.to_tensor([[5., 8., 9., 5.], [0., 0., 1., 7.]]), dim=-1)
        >>> print(r.values.numpy())
        [[5. 5. 8. 9.]
         [0. 0. 1. 7.]]
        >>> print(r.indices.numpy())
        [[0 3 1 2]
         [0 1 2 3]]
    """
    oar = _oar()
    check_out(out, expect_pair=True)
    indices = oar.argsort(input, axis=dim, descending=descending, stable=stable)
    values = oar.take_along_axis(input, indices, axis=dim)
    if out is not None:
        oar.assign(values, out[0])
        oar.assign(indices, out[1])
    return SortRetType(values=values, indices=indices)


@reject_keywords({"x", "axis"}, "paddle.compat.unique", "paddle.unique")
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The unique elements of input in ascending order (torch.unique), with the inverse indices and
    the counts when asked for.

    Args:
        input (Tensor): The input.
        sorted (bool, optional): Accepted for PyTorch's signature; the result is sorted. Default: True.
        return_inverse (bool, optional): Also return where each element of input went. Default: False.
        return_counts (bool, optional): Also return how often each unique element occurs. Default: False.
        dim (int, optional): Unique slices along this axis; None flattens input. Default: None.

    Returns:
        Tensor|tuple: The unique values, then inverse and counts when asked for.

    Examples:
        >>> import oar
        >>> out, inverse, counts = oar.compat.unique(oar.to_tensor([2, 3, 3, 1, 5, 3]), return_inverse=True,
        ...                                          return_counts=True)
        >>> print(out.numpy(), inverse.numpy(), counts.numpy())
        [1 2 3 5] [1 2 2 0 3 2] [1 1 3 1]
    """
    return _oar().unique(input, return_inverse=return_inverse, return_counts=return_counts, axis=dim,
                         sorted=sorted)


@reject_keywords({"x", "num_or_sections", "axis", "name"}, "paddle.compat.split", "paddle.split")
def split(tensor, split_size_or_sections, dim=0):
    """Splits a tensor into chunks (torch.split): an int is the size of each chunk (the last one may
    be smaller); a list gives each chunk's size, which must be non-negative and sum to the axis size.

    Args:
        tensor (Tensor): The input.
        split_size_or_sections (int|list|tuple): The chunk size, or the list of chunk sizes.
        dim (int|Tensor, optional): The axis to split (a 0-D integer tensor is read). Default: 0.

    Returns:
        tuple[Tensor, ...]: The chunks.

    Examples:
        >>> import oar
        >>> x = oar.rand([3, 8, 5])
        >>> print([t.shape for t in oar.compat.split(x, 3, dim=1)])
        [[3, 3, 5], [3, 3, 5], [3, 2, 5]]
        >>> print([t.shape for t in oar.compat.split(x, [1, 2, 5], dim=-2)])
        [[3, 1, 5], [3, 2, 5], [3, 5, 5]]
    """
    oar = _oar()
    if isinstance(split_size_or_sections, (list, tuple)):
        sections = [int(s.item()) if isinstance(s, _C.Tensor) else s for s in split_size_or_sections]
        for i, s in enumerate(sections):
            if s < 0:
                raise ValueError(f"paddle.compat.split expects split_sizes have only non-negative entries, "
                                 f"but got size = {s} on dim {i}")
    elif isinstance(split_size_or_sections, int):
        sections = None
    else:
        raise TypeError("The type of 'split_size_or_sections' in split must be int, list or tuple in "
                        f"imperative mode, but received {type(split_size_or_sections)}.")
    if isinstance(dim, _C.Tensor):
        dim = int(dim.item())
    rank = len(tensor.shape)
    if not -rank <= dim < rank:
        raise ValueError(f"(InvalidArgument) The dim is expected to be in range of [-{rank}, {rank}), "
                         f"but got {dim}")
    dim = dim + rank if dim < 0 else dim
    if sections is None:
        size = split_size_or_sections
        if size <= 0:
            raise AssertionError("split_size_or_sections must be greater than 0.")
        length = tensor.shape[dim]
        sections = [size] * (length // size) + ([length % size] if length % size else [])
        if not sections:
            sections = [0]
    return tuple(oar.split(tensor, sections, axis=dim))
