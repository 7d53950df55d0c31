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
    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode)

    def forward(self, input):
        return F.max_pool1d(input, self.ksize, self.stride, self.padding, self.return_mask, self.ceil_mode)


class MaxPool2D(_MaxPool):
    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCHW",
                 name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, data_format)

    def forward(self, x):
        return F.max_pool2d(x, self.ksize, self.stride, self.padding, self.return_mask, self.ceil_mode,
                            self.data_format)


class MaxPool3D(_MaxPool):
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
    def __init__(self, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False, name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive)

    def forward(self, x):
        return F.avg_pool1d(x, self.ksize, self.stride, self.padding, self.exclusive, self.ceil_mode)


class AvgPool2D(_AvgPool):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
                 data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format)

    def forward(self, x):
        return F.avg_pool2d(x, self.ksize, self.stride, self.padding, self.ceil_mode, self.exclusive, self.divisor,
                            self.data_format)


class AvgPool3D(_AvgPool):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
                 data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format)

    def forward(self, x):
        return F.avg_pool3d(x, self.ksize, self.stride, self.padding, self.ceil_mode, self.exclusive, self.divisor,
                            self.data_format)


class AdaptiveAvgPool1D(Layer):
    def __init__(self, output_size, name=None):
        super().__init__()
        self._output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self._output_size)

    def extra_repr(self):
        return f"output_size={self._output_size}"


class AdaptiveAvgPool2D(AdaptiveAvgPool1D):
    def __init__(self, output_size, data_format="NCHW", name=None):
        super().__init__(output_size)
        self._data_format = data_format

    def forward(self, x):
        return F.adaptive_avg_pool2d(x, self._output_size, self._data_format)


class AdaptiveAvgPool3D(AdaptiveAvgPool1D):
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
    _pool = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2D(_AdaptiveMaxPool):
    _pool = staticmethod(F.adaptive_max_pool2d)


class AdaptiveMaxPool3D(_AdaptiveMaxPool):
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
    _unpool, _default_format = staticmethod(F.max_unpool1d), "NCL"


class MaxUnPool2D(_MaxUnPool):
    _unpool, _default_format = staticmethod(F.max_unpool2d), "NCHW"


class MaxUnPool3D(_MaxUnPool):
    _unpool, _default_format = staticmethod(F.max_unpool3d), "NCDHW"


class LPPool1D(Layer):
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
    """As Paddle prints it, a missing stride shows as the kernel size."""

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NCHW",
                 name=None):
        super().__init__(norm_type, kernel_size, stride if stride is not None else kernel_size, padding, ceil_mode,
                         data_format)

    def forward(self, input):
        return F.lp_pool2d(input, self.norm_type, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                           self.data_format)
