"""Pooling layers, as paddle.nn: max/avg pooling in 1-3 D, adaptive pooling and max-unpooling.
Each forwards to the functional op with its stored arguments."""
from .. import functional as F
from .layers import Layer


class _MaxPool(Layer):
    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format=None,
                 name=None):
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode, self.data_format = return_mask, ceil_mode, data_format

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class MaxPool1D(_MaxPool):
    """1-D max pooling: the maximum of each window along the last dimension.

    Args:
        kernel_size (int|list|tuple): Window size.
        stride (int|list|tuple, optional): Step between windows; None means kernel_size.
            Default: None.
        padding (int|list|tuple|str, optional): Implicit padding (never chosen as the maximum):
            an int, [pad] or [left, right], or 'SAME' / 'VALID'. Default: 0.
        return_mask (bool, optional): Also return the index of each maximum (for MaxUnPool1D).
            Default: False.
        ceil_mode (bool, optional): Round the output length up instead of down. Default: False.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, L].
        - output: [N, C, L_out] (and the int32 indices, same shape, with return_mask).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[[1.0, 2.0, 3.0, 4.0]]])
        >>> print(oar.nn.MaxPool1D(kernel_size=2)(x))
        Tensor(shape=[1, 1, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[2., 4.]]])
    """

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode)

    def forward(self, input):
        return F.max_pool1d(input, self.ksize, self.stride, self.padding, self.return_mask, self.ceil_mode)


class MaxPool2D(_MaxPool):
    """2-D max pooling: the maximum of each window of the two spatial dimensions.

    Args:
        kernel_size (int|list|tuple): Window size [k_h, k_w], or one int for both.
        stride (int|list|tuple, optional): Step between windows; None means kernel_size.
            Default: None.
        padding (int|list|tuple|str, optional): Implicit padding (never chosen as the maximum):
            an int, [pad_h, pad_w], [top, bottom, left, right], or 'SAME' / 'VALID'. Default: 0.
        return_mask (bool, optional): Also return the flat H * W index of each maximum (for
            MaxUnPool2D). Default: False.
        ceil_mode (bool, optional): Round the output size up instead of down. Default: False.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, H, W] (or [N, H, W, C]).
        - output: [N, C, H_out, W_out] (and the int32 indices with return_mask).

    Examples:
        >>> import oar
        >>> x = oar.arange(16, dtype="float32").reshape([1, 1, 4, 4])
        >>> print(oar.nn.MaxPool2D(kernel_size=2)(x))
        Tensor(shape=[1, 1, 2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[[5. , 7. ],
                  [13., 15.]]]])
    """

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCHW",
                 name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, data_format)

    def forward(self, x):
        return F.max_pool2d(x, self.ksize, self.stride, self.padding, self.return_mask, self.ceil_mode,
                            self.data_format)


class MaxPool3D(_MaxPool):
    """3-D max pooling: the maximum of each window of the three spatial dimensions.

    Args:
        kernel_size (int|list|tuple): Window size [k_d, k_h, k_w], or one int for all.
        stride (int|list|tuple, optional): Step between windows; None means kernel_size.
            Default: None.
        padding (int|list|tuple|str, optional): Implicit padding: an int, one per spatial
            dimension, one per side, or 'SAME' / 'VALID'. Default: 0.
        return_mask (bool, optional): Also return the flat D * H * W index of each maximum.
            Default: False.
        ceil_mode (bool, optional): Round the output size up instead of down. Default: False.
        data_format (str, optional): 'NCDHW' or 'NDHWC'. Default: 'NCDHW'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, D, H, W] (or [N, D, H, W, C]).
        - output: [N, C, D_out, H_out, W_out].

    Examples:
        >>> import oar
        >>> m = oar.nn.MaxPool3D(kernel_size=2)
        >>> print(m(oar.ones([1, 1, 4, 4, 4])).shape)
        [1, 1, 2, 2, 2]
    """

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, data_format)

    def forward(self, x):
        return F.max_pool3d(x, self.ksize, self.stride, self.padding, self.return_mask, self.ceil_mode,
                            self.data_format)


class _AvgPool(Layer):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
                 data_format=None, name=None):
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.exclusive, self.divisor = ceil_mode, exclusive, divisor_override
        self.data_format = data_format

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class AvgPool1D(_AvgPool):
    """1-D average pooling: the mean of each window along the last dimension.

    Args:
        kernel_size (int|list|tuple): Window size.
        stride (int|list|tuple, optional): Step between windows; None means kernel_size.
            Default: None.
        padding (int|list|tuple|str, optional): Zero padding: an int, [pad] or [left, right], or
            'SAME' / 'VALID'. Default: 0.
        exclusive (bool, optional): Leave the padding out of the averages' counts. Default: True.
        ceil_mode (bool, optional): Round the output length up instead of down. Default: False.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, L].
        - output: [N, C, L_out].

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[[1.0, 2.0, 3.0, 4.0]]])
        >>> print(oar.nn.AvgPool1D(kernel_size=2)(x))
        Tensor(shape=[1, 1, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[1.50000000, 3.50000000]]])
    """

    def __init__(self, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False, name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive)

    def forward(self, x):
        return F.avg_pool1d(x, self.ksize, self.stride, self.padding, self.exclusive, self.ceil_mode)


class AvgPool2D(_AvgPool):
    """2-D average pooling: the mean of each window of the two spatial dimensions.

    Args:
        kernel_size (int|list|tuple): Window size [k_h, k_w], or one int for both.
        stride (int|list|tuple, optional): Step between windows; None means kernel_size.
            Default: None.
        padding (int|list|tuple|str, optional): Zero padding: an int, [pad_h, pad_w],
            [top, bottom, left, right], or 'SAME' / 'VALID'. Default: 0.
        ceil_mode (bool, optional): Round the output size up instead of down. Default: False.
        exclusive (bool, optional): Leave the padding out of the averages' counts. Default: True.
        divisor_override (int|float, optional): Divide every window sum by this instead.
            Default: None.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, H, W] (or [N, H, W, C]).
        - output: [N, C, H_out, W_out].

    Examples:
        >>> import oar
        >>> x = oar.arange(16, dtype="float32").reshape([1, 1, 4, 4])
        >>> print(oar.nn.AvgPool2D(kernel_size=2)(x))
        Tensor(shape=[1, 1, 2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[[2.50000000 , 4.50000000 ],
                  [10.50000000, 12.50000000]]]])
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
                 data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format)

    def forward(self, x):
        return F.avg_pool2d(x, self.ksize, self.stride, self.padding, self.ceil_mode, self.exclusive, self.divisor,
                            self.data_format)


class AvgPool3D(_AvgPool):
    """3-D average pooling: the mean of each window of the three spatial dimensions.

    Args:
        kernel_size (int|list|tuple): Window size [k_d, k_h, k_w], or one int for all.
        stride (int|list|tuple, optional): Step between windows; None means kernel_size.
            Default: None.
        padding (int|list|tuple|str, optional): Zero padding: an int, one per spatial dimension,
            one per side, or 'SAME' / 'VALID'. Default: 0.
        ceil_mode (bool, optional): Round the output size up instead of down. Default: False.
        exclusive (bool, optional): Leave the padding out of the averages' counts. Default: True.
        divisor_override (int|float, optional): Divide every window sum by this instead.
            Default: None.
        data_format (str, optional): 'NCDHW' or 'NDHWC'. Default: 'NCDHW'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, D, H, W] (or [N, D, H, W, C]).
        - output: [N, C, D_out, H_out, W_out].

    Examples:
        >>> import oar
        >>> m = oar.nn.AvgPool3D(kernel_size=2)
        >>> print(m(oar.ones([1, 1, 4, 4, 4])).shape)
        [1, 1, 2, 2, 2]
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
                 data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format)

    def forward(self, x):
        return F.avg_pool3d(x, self.ksize, self.stride, self.padding, self.ceil_mode, self.exclusive, self.divisor,
                            self.data_format)


class AdaptiveAvgPool1D(Layer):
    """1-D adaptive average pooling: averages over windows chosen so that the output has length
    ``output_size``.

    Args:
        output_size (int): Output length.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, L].
        - output: [N, C, output_size].

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[[1.0, 2.0, 3.0, 4.0]]])
        >>> print(oar.nn.AdaptiveAvgPool1D(output_size=2)(x))
        Tensor(shape=[1, 1, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[1.50000000, 3.50000000]]])
    """

    def __init__(self, output_size, name=None):
        super().__init__()
        self._output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self._output_size)

    def extra_repr(self):
        return f"output_size={self._output_size}"


class AdaptiveAvgPool2D(AdaptiveAvgPool1D):
    """2-D adaptive average pooling to a fixed output size [H_out, W_out].

    Args:
        output_size (int|list|tuple): [H_out, W_out], or one int for both; an entry None keeps
            that input size.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, H, W] (or [N, H, W, C]).
        - output: [N, C, H_out, W_out].

    Examples:
        >>> import oar
        >>> x = oar.arange(16, dtype="float32").reshape([1, 1, 4, 4])
        >>> print(oar.nn.AdaptiveAvgPool2D(output_size=1)(x))
        Tensor(shape=[1, 1, 1, 1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[[7.50000000]]]])
    """

    def __init__(self, output_size, data_format="NCHW", name=None):
        super().__init__(output_size)
        self._data_format = data_format

    def forward(self, x):
        return F.adaptive_avg_pool2d(x, self._output_size, self._data_format)


class AdaptiveAvgPool3D(AdaptiveAvgPool1D):
    """3-D adaptive average pooling to a fixed output size [D_out, H_out, W_out].

    Args:
        output_size (int|list|tuple): [D_out, H_out, W_out], or one int for all; an entry None
            keeps that input size.
        data_format (str, optional): 'NCDHW' or 'NDHWC'. Default: 'NCDHW'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, D, H, W] (or [N, D, H, W, C]).
        - output: [N, C, D_out, H_out, W_out].

    Examples:
        >>> import oar
        >>> m = oar.nn.AdaptiveAvgPool3D(output_size=1)
        >>> print(m(oar.ones([1, 2, 3, 3, 3])).shape)
        [1, 2, 1, 1, 1]
    """

    def __init__(self, output_size, data_format="NCDHW", name=None):
        super().__init__(output_size)
        self._data_format = data_format

    def forward(self, x):
        return F.adaptive_avg_pool3d(x, self._output_size, self._data_format)


class _AdaptiveMaxPool(Layer):
    _pool = None

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__()
        self._output_size, self._return_mask = output_size, return_mask

    def forward(self, x):
        return type(self)._pool(x, self._output_size, self._return_mask)

    def extra_repr(self):
        return f"output_size={self._output_size}, return_mask={self._return_mask}"


class AdaptiveMaxPool1D(_AdaptiveMaxPool):
    """1-D adaptive max pooling: maxima over windows chosen so that the output has length
    ``output_size``.

    Args:
        output_size (int): Output length.
        return_mask (bool, optional): Also return the index of each maximum. Default: False.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, L].
        - output: [N, C, output_size] (and the indices with return_mask).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[[1.0, 2.0, 3.0, 4.0]]])
        >>> print(oar.nn.AdaptiveMaxPool1D(output_size=2)(x))
        Tensor(shape=[1, 1, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[2., 4.]]])
    """
    _pool = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2D(_AdaptiveMaxPool):
    """2-D adaptive max pooling to a fixed output size [H_out, W_out].

    Args:
        output_size (int|list|tuple): [H_out, W_out], or one int for both.
        return_mask (bool, optional): Also return the flat H * W index of each maximum.
            Default: False.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, H, W].
        - output: [N, C, H_out, W_out] (and the int32 indices with return_mask).

    Examples:
        >>> import oar
        >>> x = oar.arange(16, dtype="float32").reshape([1, 1, 4, 4])
        >>> out, mask = oar.nn.AdaptiveMaxPool2D(output_size=2, return_mask=True)(x)
        >>> print(out)
        Tensor(shape=[1, 1, 2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[[5. , 7. ],
                  [13., 15.]]]])
        >>> print(mask)
        Tensor(shape=[1, 1, 2, 2], dtype=int32, place=Place(cpu), stop_gradient=True,
               [[[[5 , 7 ],
                  [13, 15]]]])
    """
    _pool = staticmethod(F.adaptive_max_pool2d)


class AdaptiveMaxPool3D(_AdaptiveMaxPool):
    """3-D adaptive max pooling to a fixed output size [D_out, H_out, W_out].

    Args:
        output_size (int|list|tuple): [D_out, H_out, W_out], or one int for all.
        return_mask (bool, optional): Also return the flat D * H * W index of each maximum.
            Default: False.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, D, H, W].
        - output: [N, C, D_out, H_out, W_out] (and the indices with return_mask).

    Examples:
        >>> import oar
        >>> m = oar.nn.AdaptiveMaxPool3D(output_size=1)
        >>> print(m(oar.ones([1, 2, 3, 3, 3])).shape)
        [1, 2, 1, 1, 1]
    """
    _pool = staticmethod(F.adaptive_max_pool3d)


class _MaxUnPool(Layer):
    _unpool, _default_format = None, "NCHW"

    def __init__(self, kernel_size, stride=None, padding=0, data_format=None, output_size=None, name=None):
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.data_format = data_format or self._default_format
        self.output_size = output_size

    def forward(self, x, indices):
        return type(self)._unpool(x, indices, self.ksize, stride=self.stride, padding=self.padding,
                                  data_format=self.data_format, output_size=self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class MaxUnPool1D(_MaxUnPool):
    """Partial inverse of MaxPool1D: puts each value at the position its index names and
    zeros elsewhere.

    Args:
        kernel_size (int|list|tuple): The pooling's window size.
        stride (int|list|tuple, optional): The pooling's stride; None means kernel_size.
            Default: None.
        padding (int|list|tuple, optional): The pooling's padding. Default: 0.
        data_format (str, optional): 'NCL'. Default: 'NCL'.
        output_size (list|tuple, optional): The output size, when the pooling's input size is
            ambiguous. Default: None.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - x, indices: [N, C, L_in] (indices from MaxPool1D with return_mask=True).
        - output: [N, C, L_out].

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[[1.0, 2.0, 3.0, 4.0]]])
        >>> out, indices = oar.nn.MaxPool1D(2, return_mask=True)(x)
        >>> print(oar.nn.MaxUnPool1D(2)(out, indices))
        Tensor(shape=[1, 1, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[0., 2., 0., 4.]]])
    """
    _unpool, _default_format = staticmethod(F.max_unpool1d), "NCL"


class MaxUnPool2D(_MaxUnPool):
    """Partial inverse of MaxPool2D: puts each value at the position its index names and
    zeros elsewhere.

    Args:
        kernel_size (int|list|tuple): The pooling's window size.
        stride (int|list|tuple, optional): The pooling's stride; None means kernel_size.
            Default: None.
        padding (int|list|tuple, optional): The pooling's padding. Default: 0.
        data_format (str, optional): 'NCHW'. Default: 'NCHW'.
        output_size (list|tuple, optional): The output size, when the pooling's input size is
            ambiguous. Default: None.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - x, indices: [N, C, H_in, W_in] (indices from MaxPool2D with return_mask=True).
        - output: [N, C, H_out, W_out].

    Examples:
        >>> import oar
        >>> x = oar.arange(16, dtype="float32").reshape([1, 1, 4, 4])
        >>> out, indices = oar.nn.MaxPool2D(2, return_mask=True)(x)
        >>> print(oar.nn.MaxUnPool2D(2)(out, indices))
        Tensor(shape=[1, 1, 4, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[[0. , 0. , 0. , 0. ],
                  [0. , 5. , 0. , 7. ],
                  [0. , 0. , 0. , 0. ],
                  [0. , 13., 0. , 15.]]]])
    """
    _unpool, _default_format = staticmethod(F.max_unpool2d), "NCHW"


class MaxUnPool3D(_MaxUnPool):
    """Partial inverse of MaxPool3D: puts each value at the position its index names and
    zeros elsewhere.

    Args:
        kernel_size (int|list|tuple): The pooling's window size.
        stride (int|list|tuple, optional): The pooling's stride; None means kernel_size.
            Default: None.
        padding (int|list|tuple, optional): The pooling's padding. Default: 0.
        data_format (str, optional): 'NCDHW'. Default: 'NCDHW'.
        output_size (list|tuple, optional): The output size, when the pooling's input size is
            ambiguous. Default: None.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - x, indices: [N, C, D_in, H_in, W_in] (from MaxPool3D with return_mask=True).
        - output: [N, C, D_out, H_out, W_out].

    Examples:
        >>> import oar
        >>> x = oar.arange(8, dtype="float32").reshape([1, 1, 2, 2, 2])
        >>> out, indices = oar.nn.MaxPool3D(2, return_mask=True)(x)
        >>> print(oar.nn.MaxUnPool3D(2)(out, indices).shape)
        [1, 1, 2, 2, 2]
    """
    _unpool, _default_format = staticmethod(F.max_unpool3d), "NCDHW"


class LPPool1D(Layer):
    """1-D power-average pooling: ``(sum(x^p over the window))^(1/p)`` with p = norm_type.

    Args:
        norm_type (int|float): The exponent p.
        kernel_size (int|list|tuple): Window size.
        stride (int|list|tuple, optional): Step between windows; None means kernel_size.
            Default: None.
        padding (int|list|tuple, optional): Zero padding. Default: 0.
        ceil_mode (bool, optional): Round the output length up instead of down. Default: False.
        data_format (str, optional): 'NCL' or 'NLC'. Default: 'NCL'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, L].
        - output: [N, C, L_out].

    Examples:
        >>> import oar
        >>> m = oar.nn.LPPool1D(norm_type=2, kernel_size=2)
        >>> print(m(oar.to_tensor([[[3.0, 4.0, 1.0, 1.0]]])))
        Tensor(shape=[1, 1, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[5.        , 1.41421...]]])
    """

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NCL",
                 name=None):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.padding = float(norm_type), kernel_size, stride, padding
        self.ceil_mode, self.data_format = ceil_mode, data_format

    def forward(self, input):
        return F.lp_pool1d(input, self.norm_type, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                           self.data_format)

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}")


class LPPool2D(LPPool1D):
    """2-D power-average pooling: ``(sum(x^p over the window))^(1/p)`` with p = norm_type.

    Args:
        norm_type (int|float): The exponent p.
        kernel_size (int|list|tuple): Window size [k_h, k_w], or one int for both.
        stride (int|list|tuple, optional): Step between windows; None means kernel_size (and is
            printed as such). Default: None.
        padding (int|list|tuple, optional): Zero padding. Default: 0.
        ceil_mode (bool, optional): Round the output size up instead of down. Default: False.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, H, W] (or [N, H, W, C]).
        - output: [N, C, H_out, W_out].

    Examples:
        >>> import oar
        >>> x = oar.arange(16, dtype="float32").reshape([1, 1, 4, 4])
        >>> m = oar.nn.LPPool2D(norm_type=1, kernel_size=2)
        >>> print(m(x))
        Tensor(shape=[1, 1, 2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[[10., 18.],
                  [42., 50.]]]])
    """

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NCHW",
                 name=None):
        super().__init__(norm_type, kernel_size, stride if stride is not None else kernel_size, padding, ceil_mode,
                         data_format)

    def forward(self, input):
        return F.lp_pool2d(input, self.norm_type, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                           self.data_format)
