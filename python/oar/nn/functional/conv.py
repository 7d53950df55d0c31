"""Convolutions (paddle.nn.functional): Paddle's names, argument order and padding forms.

The C++ ops (oar/ops/specs/conv.yaml) do the checking and the work; this layer only turns the
padding forms C++ cannot take (a string, a list of [before, after] pairs) into a flat list plus
Paddle's padding_algorithm, and output_size values that are tensors into ints.
"""
from ... import _C
from ..._C import Tensor as _Tensor

__all__ = ["conv1d", "conv2d", "conv3d", "conv1d_transpose", "conv2d_transpose",
           "conv3d_transpose"]


def _padding(padding, nd):
    """Paddle's padding -> (a flat list of ints, padding_algorithm)."""
    if isinstance(padding, str):
        algorithm = padding.upper()
        if algorithm not in ("SAME", "VALID"):
            raise ValueError(f"Unknown padding: '{algorithm}'. It can only be 'SAME' or 'VALID'.")
        return [0], algorithm
    if isinstance(padding, (list, tuple)):
        if any(isinstance(p, (list, tuple)) for p in padding):
            # One [before, after] pair per dim of x (batch and channel pairs must be zero).
            if len(padding) != nd + 2 or not all(isinstance(p, (list, tuple)) and len(p) == 2
                                                 for p in padding):
                raise ValueError(f"Invalid padding: {padding}")
            return [p for pair in padding for p in pair], "EXPLICIT"
        return list(padding), "EXPLICIT"
    return padding, "EXPLICIT"


def _int_list(v, what):
    """An int, a list/tuple of ints or 1-element tensors, or an integer tensor -> list of ints."""
    if isinstance(v, _Tensor):
        return [int(e) for e in v.numpy().reshape(-1)]
    if isinstance(v, (list, tuple)):
        return [int(e.item()) if isinstance(e, _Tensor) else int(e) for e in v]
    if isinstance(v, int):
        return [v]
    raise ValueError(f"{what} should be int, or list, tuple of ints or Tensor, got {v!r}")


def _is_zero(v):
    return v is None or (isinstance(v, int) and v == 0) or (
        isinstance(v, (list, tuple)) and all(e == 0 for e in v))


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCL",
           name=None):
    padding, algorithm = _padding(padding, 1)
    return _C.conv1d(x, weight, bias, stride, padding, dilation, groups, data_format, algorithm)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCHW",
           name=None):
    padding, algorithm = _padding(padding, 2)
    return _C.conv2d(x, weight, bias, stride, padding, dilation, groups, data_format, algorithm)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCDHW", name=None):
    padding, algorithm = _padding(padding, 3)
    return _C.conv3d(x, weight, bias, stride, padding, dilation, groups, data_format, algorithm)


def _transpose_sizes(output_padding, output_size):
    if output_size is None:
        return output_padding, None
    if not _is_zero(output_padding):
        raise ValueError("output_padding option is mutually exclusive with output_size")
    return 0, _int_list(output_size, "output_size")


def conv1d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format="NCL", name=None):
    padding, algorithm = _padding(padding, 1)
    output_padding, output_size = _transpose_sizes(output_padding, output_size)
    return _C.conv1d_transpose(x, weight, bias, stride, padding, output_padding, groups, dilation,
                               output_size, data_format, algorithm)


def conv2d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, dilation=1,
                     groups=1, output_size=None, data_format="NCHW", name=None):
    padding, algorithm = _padding(padding, 2)
    output_padding, output_size = _transpose_sizes(output_padding, output_size)
    return _C.conv2d_transpose(x, weight, bias, stride, padding, output_padding, dilation, groups,
                               output_size, data_format, algorithm)


def conv3d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format="NCDHW", name=None):
    padding, algorithm = _padding(padding, 3)
    output_padding, output_size = _transpose_sizes(output_padding, output_size)
    return _C.conv3d_transpose(x, weight, bias, stride, padding, output_padding, groups, dilation,
                               output_size, data_format, algorithm)
