"""Convolution layers, as paddle.nn: Conv1D/2D/3D and their transposes.

Weights are [out, in/groups, *kernel] (transposed: [in, out/groups, *kernel]); a convolution's
default init is Normal(0, sqrt(2 / (in_channels * prod(kernel)))), a transpose's is Xavier-uniform
(Paddle's defaults); biases start at zero.
"""
import math

from .. import functional as F
from ..initializer import Normal
from .layers import Layer

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _ntuple(value, n, what):
    if isinstance(value, int):
        return [value] * n
    value = list(value)
    if len(value) != n or not all(isinstance(v, int) for v in value):
        raise ValueError(f"{what} must be an int or a list of {n} ints, but got {value}")
    return value


class _ConvNd(Layer):
    _dims = 2
    _transposed = False
    _default_format = "NCHW"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format=None, dtype=None):
        super().__init__()
        name = type(self).__name__
        if groups <= 0:
            raise ValueError(f"{name}: groups must be a positive int, but got {groups}")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups.")
        if out_channels % groups != 0 and not self._transposed:
            raise ValueError("out_channels must be divisible by groups.")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {set(_PADDING_MODES)}, but got padding_mode='{padding_mode}'")
        if padding_mode != "zeros" and not isinstance(padding, int):
            raise TypeError("when padding_mode in ['reflect', 'replicate', 'circular'], type of padding must be int")
        n = self._dims
        self._in_channels, self._out_channels, self._groups = in_channels, out_channels, groups
        self._kernel_size = _ntuple(kernel_size, n, f"{name}: kernel_size")
        self._stride = _ntuple(stride, n, f"{name}: stride")
        self._dilation = _ntuple(dilation, n, f"{name}: dilation")
        self._padding, self._output_padding, self._padding_mode = padding, output_padding, padding_mode
        self._data_format = data_format or self._default_format
        if dtype is not None:
            self._dtype = dtype
        if self._transposed:
            shape = [in_channels, out_channels // groups] + self._kernel_size
            default_init = None
        else:
            shape = [out_channels, in_channels // groups] + self._kernel_size
            default_init = Normal(0.0, math.sqrt(2.0 / (in_channels * math.prod(self._kernel_size))))
        self.weight = self.create_parameter(shape, attr=weight_attr, default_initializer=default_init)
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def _pad_input(self, x):
        """reflect/replicate/circular padding is done before a convolution with no padding."""
        if self._padding_mode == "zeros":
            return x, self._padding
        amount = [self._padding] * (2 * self._dims)
        return F.pad(x, amount, mode=self._padding_mode, data_format=self._data_format), 0

    def extra_repr(self):
        text = f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}"
        if self._stride != [1] * self._dims:
            text += f", stride={self._stride}"
        if self._padding != 0:
            text += f", padding={self._padding}"
        if self._padding_mode != "zeros":
            text += f", padding_mode={self._padding_mode}"
        if self._output_padding != 0:
            text += f", output_padding={self._output_padding}"
        if self._dilation != [1] * self._dims:
            text += f", dilation={self._dilation}"
        if self._groups != 1:
            text += f", groups={self._groups}"
        return text + f", data_format={self._data_format}"


class _Conv(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, *,
                 bias=True, padding_mode="zeros", device=None, dtype=None, weight_attr=None, bias_attr=None,
                 data_format=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, 0, dilation, groups,
                         padding_mode, weight_attr, bias_attr if bias else False, data_format, dtype)

    def forward(self, x):
        x, padding = self._pad_input(x)
        return self._conv(x, self.weight, self.bias, stride=self._stride, padding=padding,
                          dilation=self._dilation, groups=self._groups, data_format=self._data_format)


class Conv1D(_Conv):
    """1-D convolution (cross-correlation) over a batch of 1-D signals.

    ``out = conv(x, weight) + bias``; the weight has shape
    [out_channels, in_channels / groups, *kernel_size] and starts as Normal(0, sqrt(2 / fan_in)),
    fan_in = in_channels * prod(kernel_size); the bias starts at zero. The arguments after
    ``groups`` are keyword-only.

    Args:
        in_channels (int): Number of input channels.
        out_channels (int): Number of output channels (filters).
        kernel_size (int|list|tuple): Kernel size [L], or one int for all.
        stride (int|list|tuple, optional): Step of the kernel. Default: 1.
        padding (int|list|tuple|str, optional): Zero padding: one int, one per spatial
            dimension, one per side, or 'SAME' / 'VALID'. Default: 0.
        dilation (int|list|tuple, optional): Spacing of the kernel's elements. Default: 1.
        groups (int, optional): Number of channel groups; in_channels and out_channels must be
            divisible by it. Default: 1.
        padding_mode (str, optional): 'zeros', 'reflect', 'replicate' or 'circular' (the last
            three need an int padding). Default: 'zeros'.
        weight_attr (ParamAttr, optional): Attribute of the weight. Default: None.
        bias_attr (ParamAttr|bool, optional): Attribute of the bias; False for no bias.
            Default: None.
        data_format (str, optional): 'NCL' or 'NLC'. Default: 'NCL'.

    Shape:
        - input: [N, in_channels, L] (or channels last).
        - output: [N, out_channels, L_out], each ``(size + pads - dilation * (k - 1) - 1)
          // stride + 1``.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> conv = oar.nn.Conv1D(4, 8, kernel_size=3)
        >>> print(conv(oar.randn([2, 4, 10])).shape)
        [2, 8, 8]
    """
    _dims, _default_format, _conv = 1, "NCL", staticmethod(F.conv1d)


class Conv2D(_Conv):
    """2-D convolution (cross-correlation) over a batch of 2-D signals.

    ``out = conv(x, weight) + bias``; the weight has shape
    [out_channels, in_channels / groups, *kernel_size] and starts as Normal(0, sqrt(2 / fan_in)),
    fan_in = in_channels * prod(kernel_size); the bias starts at zero. The arguments after
    ``groups`` are keyword-only.

    Args:
        in_channels (int): Number of input channels.
        out_channels (int): Number of output channels (filters).
        kernel_size (int|list|tuple): Kernel size [H, W], or one int for all.
        stride (int|list|tuple, optional): Step of the kernel. Default: 1.
        padding (int|list|tuple|str, optional): Zero padding: one int, one per spatial
            dimension, one per side, or 'SAME' / 'VALID'. Default: 0.
        dilation (int|list|tuple, optional): Spacing of the kernel's elements. Default: 1.
        groups (int, optional): Number of channel groups; in_channels and out_channels must be
            divisible by it. Default: 1.
        padding_mode (str, optional): 'zeros', 'reflect', 'replicate' or 'circular' (the last
            three need an int padding). Default: 'zeros'.
        weight_attr (ParamAttr, optional): Attribute of the weight. Default: None.
        bias_attr (ParamAttr|bool, optional): Attribute of the bias; False for no bias.
            Default: None.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.

    Shape:
        - input: [N, in_channels, H, W] (or channels last).
        - output: [N, out_channels, H, W_out], each ``(size + pads - dilation * (k - 1) - 1)
          // stride + 1``.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> conv = oar.nn.Conv2D(3, 6, kernel_size=3, padding=1)
        >>> print(conv(oar.randn([2, 3, 8, 8])).shape)
        [2, 6, 8, 8]
    """
    _dims, _default_format, _conv = 2, "NCHW", staticmethod(F.conv2d)


class Conv3D(_Conv):
    """3-D convolution (cross-correlation) over a batch of 3-D signals.

    ``out = conv(x, weight) + bias``; the weight has shape
    [out_channels, in_channels / groups, *kernel_size] and starts as Normal(0, sqrt(2 / fan_in)),
    fan_in = in_channels * prod(kernel_size); the bias starts at zero. The arguments after
    ``groups`` are keyword-only.

    Args:
        in_channels (int): Number of input channels.
        out_channels (int): Number of output channels (filters).
        kernel_size (int|list|tuple): Kernel size [D, H, W], or one int for all.
        stride (int|list|tuple, optional): Step of the kernel. Default: 1.
        padding (int|list|tuple|str, optional): Zero padding: one int, one per spatial
            dimension, one per side, or 'SAME' / 'VALID'. Default: 0.
        dilation (int|list|tuple, optional): Spacing of the kernel's elements. Default: 1.
        groups (int, optional): Number of channel groups; in_channels and out_channels must be
            divisible by it. Default: 1.
        padding_mode (str, optional): 'zeros', 'reflect', 'replicate' or 'circular' (the last
            three need an int padding). Default: 'zeros'.
        weight_attr (ParamAttr, optional): Attribute of the weight. Default: None.
        bias_attr (ParamAttr|bool, optional): Attribute of the bias; False for no bias.
            Default: None.
        data_format (str, optional): 'NCDHW' or 'NDHWC'. Default: 'NCDHW'.

    Shape:
        - input: [N, in_channels, D, H, W] (or channels last).
        - output: [N, out_channels, D, H, W_out], each ``(size + pads - dilation * (k - 1) - 1)
          // stride + 1``.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> conv = oar.nn.Conv3D(2, 4, kernel_size=3)
        >>> print(conv(oar.randn([1, 2, 5, 5, 5])).shape)
        [1, 4, 3, 3, 3]
    """
    _dims, _default_format, _conv = 3, "NCDHW", staticmethod(F.conv3d)


class _ConvTranspose(_ConvNd):
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 dilation=1, weight_attr=None, bias_attr=None, data_format=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, output_padding, dilation, groups,
                         "zeros", weight_attr, bias_attr, data_format)

    def forward(self, x, output_size=None):
        return self._conv(x, self.weight, self.bias, stride=self._stride, padding=self._padding,
                          output_padding=self._output_padding, dilation=self._dilation, groups=self._groups,
                          output_size=output_size, data_format=self._data_format)


class Conv1DTranspose(_ConvTranspose):
    """1-D transposed convolution (the gradient of a convolution with respect to its input),
    used to upsample.

    The weight has shape [in_channels, out_channels / groups, *kernel_size] and is
    Xavier-initialised; the bias starts at zero. ``forward(x, output_size=None)``: output_size
    picks one of the output sizes a strided transposed convolution can give.

    Args:
        in_channels (int): Number of input channels.
        out_channels (int): Number of output channels.
        kernel_size (int|list|tuple): Kernel size [L], or one int for all.
        stride (int|list|tuple, optional): Step of the kernel. Default: 1.
        padding (int|list|tuple|str, optional): Padding removed from the output, as in the
            matching convolution ('SAME' / 'VALID' too). Default: 0.
        output_padding (int|list|tuple, optional): Extra size added to one side of each spatial
            output dimension; smaller than stride or dilation. Default: 0.
        groups (int, optional): Number of channel groups. Default: 1.
        dilation (int|list|tuple, optional): Spacing of the kernel's elements. Default: 1.
        weight_attr (ParamAttr, optional): Attribute of the weight. Default: None.
        bias_attr (ParamAttr|bool, optional): Attribute of the bias; False for no bias.
            Default: None.
        data_format (str, optional): 'NCL' or 'NLC'. Default: 'NCL'.

    Shape:
        - input: [N, in_channels, L] (or channels last).
        - output: [N, out_channels, L_out], each ``(size - 1) * stride - pads
          + dilation * (k - 1) + output_padding + 1``.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> deconv = oar.nn.Conv1DTranspose(4, 2, kernel_size=3, stride=2)
        >>> print(deconv(oar.randn([1, 4, 5])).shape)
        [1, 2, 11]
    """
    _dims, _default_format, _conv = 1, "NCL", staticmethod(F.conv1d_transpose)


class Conv2DTranspose(_ConvTranspose):
    """2-D transposed convolution (the gradient of a convolution with respect to its input),
    used to upsample.

    The weight has shape [in_channels, out_channels / groups, *kernel_size] and is
    Xavier-initialised; the bias starts at zero. ``forward(x, output_size=None)``: output_size
    picks one of the output sizes a strided transposed convolution can give.

    Args:
        in_channels (int): Number of input channels.
        out_channels (int): Number of output channels.
        kernel_size (int|list|tuple): Kernel size [H, W], or one int for all.
        stride (int|list|tuple, optional): Step of the kernel. Default: 1.
        padding (int|list|tuple|str, optional): Padding removed from the output, as in the
            matching convolution ('SAME' / 'VALID' too). Default: 0.
        output_padding (int|list|tuple, optional): Extra size added to one side of each spatial
            output dimension; smaller than stride or dilation. Default: 0.
        dilation (int|list|tuple, optional): Spacing of the kernel's elements. Default: 1.
        groups (int, optional): Number of channel groups. Default: 1.
        weight_attr (ParamAttr, optional): Attribute of the weight. Default: None.
        bias_attr (ParamAttr|bool, optional): Attribute of the bias; False for no bias.
            Default: None.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.

    Shape:
        - input: [N, in_channels, H, W] (or channels last).
        - output: [N, out_channels, H, W_out], each ``(size - 1) * stride - pads
          + dilation * (k - 1) + output_padding + 1``.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> deconv = oar.nn.Conv2DTranspose(4, 2, 3, stride=2, padding=1, output_padding=1)
        >>> print(deconv(oar.randn([1, 4, 5, 5])).shape)
        [1, 2, 10, 10]
    """
    _dims, _default_format, _conv = 2, "NCHW", staticmethod(F.conv2d_transpose)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, dilation=1,
                 groups=1, weight_attr=None, bias_attr=None, data_format="NCHW"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, output_padding, groups, dilation,
                         weight_attr, bias_attr, data_format)


class Conv3DTranspose(_ConvTranspose):
    """3-D transposed convolution (the gradient of a convolution with respect to its input),
    used to upsample.

    The weight has shape [in_channels, out_channels / groups, *kernel_size] and is
    Xavier-initialised; the bias starts at zero. ``forward(x, output_size=None)``: output_size
    picks one of the output sizes a strided transposed convolution can give.

    Args:
        in_channels (int): Number of input channels.
        out_channels (int): Number of output channels.
        kernel_size (int|list|tuple): Kernel size [D, H, W], or one int for all.
        stride (int|list|tuple, optional): Step of the kernel. Default: 1.
        padding (int|list|tuple|str, optional): Padding removed from the output, as in the
            matching convolution ('SAME' / 'VALID' too). Default: 0.
        output_padding (int|list|tuple, optional): Extra size added to one side of each spatial
            output dimension; smaller than stride or dilation. Default: 0.
        dilation (int|list|tuple, optional): Spacing of the kernel's elements. Default: 1.
        groups (int, optional): Number of channel groups. Default: 1.
        weight_attr (ParamAttr, optional): Attribute of the weight. Default: None.
        bias_attr (ParamAttr|bool, optional): Attribute of the bias; False for no bias.
            Default: None.
        data_format (str, optional): 'NCDHW' or 'NDHWC'. Default: 'NCDHW'.

    Shape:
        - input: [N, in_channels, D, H, W] (or channels last).
        - output: [N, out_channels, D, H, W_out], each ``(size - 1) * stride - pads
          + dilation * (k - 1) + output_padding + 1``.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> deconv = oar.nn.Conv3DTranspose(4, 2, kernel_size=2, stride=2)
        >>> print(deconv(oar.randn([1, 4, 3, 3, 3])).shape)
        [1, 2, 6, 6, 6]
    """
    _dims, _default_format, _conv = 3, "NCDHW", staticmethod(F.conv3d_transpose)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, dilation=1,
                 groups=1, weight_attr=None, bias_attr=None, data_format="NCDHW"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, output_padding, groups, dilation,
                         weight_attr, bias_attr, data_format)
