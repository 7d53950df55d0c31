"""oar.sparse.nn layers: the functional ops of oar.sparse.nn.functional with their parameters,
named as Paddle names them (weight [*kernel, C_in, C_out] and bias for convolutions; weight,
bias, _mean, _variance for BatchNorm), so state dicts move between the frameworks."""
import math

from .._lazy import oar
from oar.nn import Layer
from oar.nn.initializer import Normal
from oar.nn.layer.norm import BatchNorm1D

from .. import _tensor
from . import functional as F

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "Softmax", "BatchNorm", "SyncBatchNorm", "Conv2D", "Conv3D",
           "SubmConv2D", "SubmConv3D", "MaxPool3D"]


class ReLU(Layer):
    """max(x, 0) on the stored elements of a sparse tensor (oar.sparse.nn.functional.relu).

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [-2.0, 3.0], [2, 2])
        >>> print(oar.sparse.nn.ReLU()(x).values().numpy())
        [0. 3.]
    """

    def __init__(self, name=None):
        super().__init__()

    def forward(self, x):
        return F.relu(x)


class ReLU6(Layer):
    """min(max(x, 0), 6) on the stored elements of a sparse tensor.

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [-2.0, 8.0], [2, 2])
        >>> print(oar.sparse.nn.ReLU6()(x).values().numpy())
        [0. 6.]
    """

    def __init__(self, name=None):
        super().__init__()

    def forward(self, x):
        return F.relu6(x)


class LeakyReLU(Layer):
    """Leaky ReLU on the stored elements of a sparse tensor.

    Args:
        negative_slope (float): The slope for negative values (default 0.01).

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [-2.0, 3.0], [2, 2])
        >>> print(oar.sparse.nn.LeakyReLU(0.5)(x).values().numpy())
        [-1.  3.]
    """

    def __init__(self, negative_slope=0.01, name=None):
        super().__init__()
        self._negative_slope = negative_slope

    def forward(self, x):
        return F.leaky_relu(x, self._negative_slope)


class Softmax(Layer):
    """Softmax over each row's stored elements (oar.sparse.nn.functional.softmax).

    Args:
        axis (int): -1.

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_csr_tensor([0, 2, 3], [0, 1, 0], [1.0, 1.0, 5.0], [2, 2])
        >>> print(oar.sparse.nn.Softmax()(x).values().numpy())
        [0.5 0.5 1. ]
    """

    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._axis = axis

    def forward(self, x):
        return F.softmax(x, self._axis)


class BatchNorm(BatchNorm1D):
    """Batch normalization of a sparse COO tensor's channels (its values [nnz, C]): statistics over
    the stored elements only, as Paddle's sparse BatchNorm.

    Args:
        num_features (int): C.
        momentum (float): Weight of the old running statistics (default 0.9).
        epsilon (float): Added to the variance (default 1e-5).
        weight_attr (ParamAttr|bool, optional): The scale's attribute.
        bias_attr (ParamAttr|bool, optional): The shift's attribute.
        data_format (str): 'NDHWC' or 'NHWC' (channels last).
        use_global_stats (bool, optional): As oar.nn.BatchNorm1D.
        name (str, optional): Unused.

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [[1.0], [3.0]], [2, 2, 1])
        >>> print(oar.sparse.nn.BatchNorm(1)(x).values().numpy().ravel().round(4))
        [-1.  1.]
    """

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NDHWC", use_global_stats=None, name=None):
        if data_format not in ("NDHWC", "NHWC"):
            raise ValueError(f"sparse.nn.BatchNorm: data_format must be 'NDHWC' or 'NHWC', got '{data_format}'")
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, "NC", use_global_stats, name)
        self._sparse_format = data_format

    def forward(self, input):
        if not isinstance(input, _tensor.SparseCooTensor):
            raise TypeError(f"sparse.nn.BatchNorm: input must be a sparse COO tensor, got {type(input).__name__}")
        if input.dense_dim() != 1:
            raise ValueError("sparse.nn.BatchNorm: input must have one dense dim (the channels), got "
                             f"dense_dim {input.dense_dim()}")
        return input._with_values(super().forward(input.values()))

    def extra_repr(self):
        return (f"num_features={self._num_features}, momentum={self._momentum}, epsilon={self._epsilon}, "
                f"data_format={self._sparse_format}")


class SyncBatchNorm(BatchNorm):
    """Sparse BatchNorm whose statistics are all-reduced over the ranks of a distributed job;
    in one process it is BatchNorm.

    Examples:
        >>> import oar
        >>> bn = oar.sparse.nn.SyncBatchNorm(2)
        >>> print([n for n, _ in bn.named_parameters()])
        ['weight', 'bias', '_mean', '_variance']
    """

    def forward(self, input):
        import oar.distributed as dist
        if not (dist.is_initialized() and dist.get_world_size() > 1 and self.training):
            return super().forward(input)
        v = input.values()
        count = oar.to_tensor([float(v.shape[0])], dtype=v.dtype)
        total = oar.sum(v, axis=0)
        squares = oar.sum(v * v, axis=0)
        for t in (count, total, squares):
            dist.all_reduce(t)
        mean = total / count
        var = squares / count - mean * mean
        with oar.no_grad():
            self._mean.set_value(self._momentum * self._mean + (1 - self._momentum) * mean)
            self._variance.set_value(self._momentum * self._variance + (1 - self._momentum) * var)
        out = (v - mean) / oar.sqrt(var + self._epsilon)
        if self.weight is not None:
            out = out * self.weight
        if self.bias is not None:
            out = out + self.bias
        return input._with_values(out)

    @classmethod
    def convert_sync_batchnorm(cls, layer):
        """Replaces every sparse BatchNorm inside layer by a SyncBatchNorm with the same state."""
        if isinstance(layer, BatchNorm) and not isinstance(layer, SyncBatchNorm):
            new = cls(layer._num_features, layer._momentum, layer._epsilon, data_format=layer._sparse_format,
                      use_global_stats=layer._use_global_stats)
            new.set_state_dict(layer.state_dict())
            return new
        for name, child in layer.named_children():
            setattr(layer, name, cls.convert_sync_batchnorm(child))
        return layer


class _Conv(Layer):
    _nd = 3
    _subm = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", key=None, weight_attr=None, bias_attr=None, data_format=None):
        super().__init__()
        nd = self._nd
        layout = "NDHWC" if nd == 3 else "NHWC"
        data_format = data_format or layout
        if data_format != layout:
            raise ValueError(f"sparse.nn: data_format must be '{layout}', got '{data_format}'")
        if groups != 1:
            raise ValueError(f"sparse.nn: only groups=1 is supported, got {groups}")
        if padding_mode != "zeros":
            raise ValueError(f"sparse.nn: only padding_mode='zeros' is supported, got '{padding_mode}'")
        self._kernel_size = [kernel_size] * nd if isinstance(kernel_size, int) else list(kernel_size)
        self._stride, self._padding, self._dilation = stride, padding, dilation
        self._groups, self._data_format, self._key = groups, data_format, key
        self._in_channels, self._out_channels = in_channels, out_channels
        std = math.sqrt(2.0 / (in_channels * math.prod(self._kernel_size)))
        self.weight = self.create_parameter(self._kernel_size + [in_channels, out_channels], attr=weight_attr,
                                            default_initializer=Normal(0.0, std))
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x):
        fn = {(3, False): F.conv3d, (3, True): F.subm_conv3d, (2, False): F.conv2d, (2, True): F.subm_conv2d}[
            (self._nd, self._subm)]
        return fn(x, self.weight, self.bias, self._stride, self._padding, self._dilation, self._groups,
                  self._data_format)

    def extra_repr(self):
        return (f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}, stride={self._stride}, "
                f"padding={self._padding}, data_format={self._data_format}")


def _conv_class(name, nd, subm):
    layout = "NDHWC" if nd == 3 else "NHWC"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", key=None, weight_attr=None, bias_attr=None, data_format=layout,
                 backend=None):
        _Conv.__init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                       padding_mode, key, weight_attr, bias_attr, data_format)

    if not subm:
        def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,  # noqa: F811
                     groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None, data_format=layout):
            _Conv.__init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                           padding_mode, None, weight_attr, bias_attr, data_format)
    kshape = "[kD, kH, kW, C_in, C_out]" if nd == 3 else "[kH, kW, C_in, C_out]"
    doc = f"""{'Submanifold s' if subm else 'S'}parse {nd}-D convolution of a {layout} COO tensor
    (oar.sparse.nn.functional.{'subm_' if subm else ''}conv{nd}d) with a weight {kshape} drawn from
    Normal(0, sqrt(2 / (C_in * kernel volume))) and a zero bias.

    Args:
        in_channels (int): C_in.
        out_channels (int): C_out.
        kernel_size (int|list): The kernel's spatial size.
        stride (int|list): The stride.
        padding (int|list|str): Zero padding.
        dilation (int|list): The dilation.
        groups (int): 1.
        padding_mode (str): 'zeros'.
        weight_attr (ParamAttr, optional): The weight's attribute.
        bias_attr (ParamAttr|bool, optional): The bias's attribute; False: no bias.
        data_format (str): '{layout}'.

    Examples:
        >>> import oar
        >>> conv = oar.sparse.nn.{name}(1, 2, 3, padding=1)
        >>> print(conv.weight.shape)
        {[3] * nd + [1, 2]}
    """
    return type(name, (_Conv,), {"_nd": nd, "_subm": subm, "__init__": __init__, "__doc__": doc,
                                 "__module__": __name__})


Conv3D = _conv_class("Conv3D", 3, False)
SubmConv3D = _conv_class("SubmConv3D", 3, True)
Conv2D = _conv_class("Conv2D", 2, False)
SubmConv2D = _conv_class("SubmConv2D", 2, True)


class MaxPool3D(Layer):
    """Sparse 3-D max pooling of an NDHWC COO tensor (oar.sparse.nn.functional.max_pool3d).

    Args:
        kernel_size (int|list): The window.
        stride (int|list, optional): The stride (default: kernel_size).
        padding (int|list): Zero padding.
        return_mask (bool): Must be False.
        ceil_mode (bool): Must be False.
        data_format (str): 'NDHWC'.

    Examples:
        >>> import oar
        >>> x = oar.ones([1, 2, 2, 2, 1]).to_sparse_coo(4)
        >>> print(oar.sparse.nn.MaxPool3D(2)(x).shape)
        [1, 1, 1, 1, 1]
    """

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format="NDHWC", name=None):
        super().__init__()
        if return_mask:
            raise NotImplementedError("sparse.nn.MaxPool3D: return_mask=True is not supported (as in Paddle)")
        self._kernel_size, self._stride, self._padding = kernel_size, stride, padding
        self._ceil_mode, self._data_format = ceil_mode, data_format

    def forward(self, x):
        return F.max_pool3d(x, self._kernel_size, self._stride, self._padding, self._ceil_mode, self._data_format)
