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
    """1-D convolution (cross-correlation) of x with weight.

    Args:
        x (Tensor): The input, shape [N, C, L] (channels last for 'NLC'), float32 or float64.
        weight (Tensor): The kernel, shape [C_out, C_in / groups, kL].
        bias (Tensor, optional): Shape [C_out], added to each output channel. Default: None.
        stride (int|list|tuple, optional): Step of the kernel, one int or one per spatial dim.
            Default: 1.
        padding (int|list|tuple|str, optional): Zero padding: an int, one int per spatial dim, a
            [before, after] pair per dim (batch and channel pairs zero), 'SAME' or 'VALID'.
            Default: 0.
        dilation (int|list|tuple, optional): Spacing between kernel elements. Default: 1.
        groups (int, optional): Number of channel groups; C_in and C_out must divide by it.
            Default: 1.
        data_format (str, optional): 'NCL' or 'NLC'. Default: 'NCL'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [N, C_out, ...] (or channels last), same dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.arange(8, dtype='float32').reshape([1, 1, 8])
        >>> w = oar.ones([1, 1, 3])
        >>> print(oar.nn.functional.conv1d(x, w).numpy())
        [[[ 3.  6.  9. 12. 15. 18.]]]
    """
    padding, algorithm = _padding(padding, 1)
    return _C.conv1d(x, weight, bias, stride, padding, dilation, groups, data_format, algorithm)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCHW",
           name=None):
    """2-D convolution (cross-correlation) of x with weight.

    Args:
        x (Tensor): The input, shape [N, C, H, W] (channels last for 'NHWC'), float32 or float64.
        weight (Tensor): The kernel, shape [C_out, C_in / groups, kH, kW].
        bias (Tensor, optional): Shape [C_out], added to each output channel. Default: None.
        stride (int|list|tuple, optional): Step of the kernel, one int or one per spatial dim.
            Default: 1.
        padding (int|list|tuple|str, optional): Zero padding: an int, one int per spatial dim, a
            [before, after] pair per dim (batch and channel pairs zero), 'SAME' or 'VALID'.
            Default: 0.
        dilation (int|list|tuple, optional): Spacing between kernel elements. Default: 1.
        groups (int, optional): Number of channel groups; C_in and C_out must divide by it.
            Default: 1.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [N, C_out, ...] (or channels last), same dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.arange(16, dtype='float32').reshape([1, 1, 4, 4])
        >>> w = oar.ones([1, 1, 2, 2])
        >>> print(oar.nn.functional.conv2d(x, w, stride=2).numpy())
        [[[[10. 18.]
           [42. 50.]]]]
    """
    padding, algorithm = _padding(padding, 2)
    return _C.conv2d(x, weight, bias, stride, padding, dilation, groups, data_format, algorithm)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCDHW", name=None):
    """3-D convolution (cross-correlation) of x with weight.

    Args:
        x (Tensor): The input, shape [N, C, D, H, W] (channels last for 'NDHWC'), float32 or
            float64.
        weight (Tensor): The kernel, shape [C_out, C_in / groups, kD, kH, kW].
        bias (Tensor, optional): Shape [C_out], added to each output channel. Default: None.
        stride (int|list|tuple, optional): Step of the kernel, one int or one per spatial dim.
            Default: 1.
        padding (int|list|tuple|str, optional): Zero padding: an int, one int per spatial dim, a
            [before, after] pair per dim (batch and channel pairs zero), 'SAME' or 'VALID'.
            Default: 0.
        dilation (int|list|tuple, optional): Spacing between kernel elements. Default: 1.
        groups (int, optional): Number of channel groups; C_in and C_out must divide by it.
            Default: 1.
        data_format (str, optional): 'NCDHW' or 'NDHWC'. Default: 'NCDHW'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [N, C_out, ...] (or channels last), same dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.ones([1, 1, 4, 4, 4])
        >>> w = oar.ones([2, 1, 3, 3, 3])
        >>> print(oar.nn.functional.conv3d(x, w, padding=1).shape)
        [1, 2, 4, 4, 4]
    """
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
    """1-D transposed convolution (the gradient of conv1d with respect to its input).

    Args:
        x (Tensor): The input, shape [N, C, L] (channels last for 'NLC'), float32 or float64.
        weight (Tensor): The kernel, shape [C_in, C_out / groups, kL].
        bias (Tensor, optional): Shape [C_out], added to each output channel. Default: None.
        stride (int|list|tuple, optional): Step of the kernel, one int or one per spatial dim.
            Default: 1.
        padding (int|list|tuple|str, optional): Padding of the convolution this transposes (it trims
            the output): an int, one int per spatial dim, a [before, after] pair per dim (batch
            and channel pairs zero), 'SAME' or 'VALID'. Default: 0.
        output_padding (int|list|tuple, optional): Extra size added to one side of each output dim.
            Default: 0.
        groups (int, optional): Number of channel groups. Default: 1.
        dilation (int|list|tuple, optional): Spacing between kernel elements. Default: 1.
        output_size (int|list|tuple, optional): The output spatial size, chosen among the
            sizes the other arguments allow. Default: None.
        data_format (str, optional): 'NCL' or 'NLC'. Default: 'NCL'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [N, C_out, ...] (or channels last), same dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[[1.0, 2.0]]])
        >>> w = oar.ones([1, 1, 2])
        >>> print(oar.nn.functional.conv1d_transpose(x, w).numpy())
        [[[1. 3. 2.]]]
    """
    padding, algorithm = _padding(padding, 1)
    output_padding, output_size = _transpose_sizes(output_padding, output_size)
    return _C.conv1d_transpose(x, weight, bias, stride, padding, output_padding, groups, dilation,
                               output_size, data_format, algorithm)


def conv2d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, dilation=1,
                     groups=1, output_size=None, data_format="NCHW", name=None):
    """2-D transposed convolution (the gradient of conv2d with respect to its input).

    Args:
        x (Tensor): The input, shape [N, C, H, W] (channels last for 'NHWC'), float32 or float64.
        weight (Tensor): The kernel, shape [C_in, C_out / groups, kH, kW].
        bias (Tensor, optional): Shape [C_out], added to each output channel. Default: None.
        stride (int|list|tuple, optional): Step of the kernel, one int or one per spatial dim.
            Default: 1.
        padding (int|list|tuple|str, optional): Padding of the convolution this transposes (it trims
            the output): an int, one int per spatial dim, a [before, after] pair per dim (batch
            and channel pairs zero), 'SAME' or 'VALID'. Default: 0.
        output_padding (int|list|tuple, optional): Extra size added to one side of each output dim.
            Default: 0.
        dilation (int|list|tuple, optional): Spacing between kernel elements. Default: 1.
        groups (int, optional): Number of channel groups. Default: 1.
        output_size (int|list|tuple, optional): The output spatial size, chosen among the
            sizes the other arguments allow. Default: None.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [N, C_out, ...] (or channels last), same dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.ones([1, 1, 2, 2])
        >>> w = oar.ones([1, 1, 2, 2])
        >>> print(oar.nn.functional.conv2d_transpose(x, w).numpy())
        [[[[1. 2. 1.]
           [2. 4. 2.]
           [1. 2. 1.]]]]
    """
    padding, algorithm = _padding(padding, 2)
    output_padding, output_size = _transpose_sizes(output_padding, output_size)
    return _C.conv2d_transpose(x, weight, bias, stride, padding, output_padding, dilation, groups,
                               output_size, data_format, algorithm)


def conv3d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format="NCDHW", name=None):
    """3-D transposed convolution (the gradient of conv3d with respect to its input).

    Args:
        x (Tensor): The input, shape [N, C, D, H, W] (channels last for 'NDHWC'), float32 or
            float64.
        weight (Tensor): The kernel, shape [C_in, C_out / groups, kD, kH, kW].
        bias (Tensor, optional): Shape [C_out], added to each output channel. Default: None.
        stride (int|list|tuple, optional): Step of the kernel, one int or one per spatial dim.
            Default: 1.
        padding (int|list|tuple|str, optional): Padding of the convolution this transposes (it trims
            the output): an int, one int per spatial dim, a [before, after] pair per dim (batch
            and channel pairs zero), 'SAME' or 'VALID'. Default: 0.
        output_padding (int|list|tuple, optional): Extra size added to one side of each output dim.
            Default: 0.
        groups (int, optional): Number of channel groups. Default: 1.
        dilation (int|list|tuple, optional): Spacing between kernel elements. Default: 1.
        output_size (int|list|tuple, optional): The output spatial size, chosen among the
            sizes the other arguments allow. Default: None.
        data_format (str, optional): 'NCDHW' or 'NDHWC'. Default: 'NCDHW'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [N, C_out, ...] (or channels last), same dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.ones([1, 1, 2, 2, 2])
        >>> w = oar.ones([1, 3, 2, 2, 2])
        >>> print(oar.nn.functional.conv3d_transpose(x, w, stride=2).shape)
        [1, 3, 4, 4, 4]
    """
    padding, algorithm = _padding(padding, 3)
    output_padding, output_size = _transpose_sizes(output_padding, output_size)
    return _C.conv3d_transpose(x, weight, bias, stride, padding, output_padding, groups, dilation,
                               output_size, data_format, algorithm)
