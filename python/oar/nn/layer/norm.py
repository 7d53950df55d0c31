"""Normalisation layers, as paddle.nn: BatchNorm (1D/2D/3D, the older BatchNorm, SyncBatchNorm on one
process), LayerNorm, GroupNorm, InstanceNorm1D/2D/3D, LocalResponseNorm.

Scale starts at one and shift at zero; BatchNorm's running mean/variance are non-trainable
parameters named like Paddle's ("batch_norm2d_0.w_1", ".w_2") so that Paddle checkpoints load.
"""
import math

from ... import _C
from ...framework.param_attr import ParamAttr
from .. import functional as F
from ..initializer import Constant, Normal
from .layers import Layer


def _affine(layer, shape, weight_attr, bias_attr):
    layer.weight = layer.create_parameter(shape, attr=weight_attr, default_initializer=Constant(1.0))
    layer.bias = layer.create_parameter(shape, attr=bias_attr, is_bias=True)


class _BatchNormBase(Layer):
    _expected_dims = (4,)
    _default_format = "NCHW"

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format=None, use_global_stats=None, name=None, moving_mean_name=None,
                 moving_variance_name=None):
        super().__init__()
        self._num_features, self._momentum, self._epsilon = num_features, momentum, epsilon
        self._data_format = data_format or self._default_format
        self._use_global_stats, self._name = use_global_stats, name
        _affine(self, [num_features], weight_attr, bias_attr)
        self._mean = self.create_parameter([num_features], attr=ParamAttr(
            name=moving_mean_name, initializer=Constant(0.0), trainable=False))
        self._variance = self.create_parameter([num_features], attr=ParamAttr(
            name=moving_variance_name, initializer=Constant(1.0), trainable=False))

    def _check_input_dim(self, input):
        if input.ndim not in self._expected_dims:
            want = " or ".join(f"{d}D" for d in self._expected_dims)
            raise ValueError(f"expected {want} input (got {input.ndim}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        return F.batch_norm(input, self._mean, self._variance, weight=self.weight, bias=self.bias,
                            training=self.training, momentum=self._momentum, epsilon=self._epsilon,
                            data_format=self._data_format, use_global_stats=self._use_global_stats)

    def extra_repr(self):
        text = f"num_features={self._num_features}, momentum={self._momentum}, epsilon={self._epsilon}"
        if self._data_format != "NCHW":
            text += f", data_format={self._data_format}"
        return text + (f", name={self._name}" if self._name is not None else "")


class BatchNorm1D(_BatchNormBase):
    """Batch normalization over 2-D [N, C] or 3-D [N, C, L] input: each channel is normalised by the batch's mean and
    variance, then scaled by ``weight`` and shifted by ``bias``.

    While training the statistics of the batch are used and the running mean and variance
    (``_mean``, ``_variance``) move towards them: ``running = momentum * running + (1 - momentum)
    * batch``; in evaluation (``layer.eval()``) the running statistics are used.

    Args:
        num_features (int): Number of channels C.
        momentum (float, optional): Weight of the old running statistics. Default: 0.9.
        epsilon (float, optional): Added to the variance to avoid dividing by zero. Default: 1e-05.
        weight_attr (ParamAttr|bool, optional): Attribute of the scale (starts at 1); False for
            no learnable scale. Default: None.
        bias_attr (ParamAttr|bool, optional): Attribute of the shift (starts at 0); False for no
            learnable shift. Default: None.
        data_format (str, optional): 'NCL' or 'NLC'. Default: 'NCL'.
        use_global_stats (bool, optional): True always uses the running statistics, False always
            the batch's; None follows training/evaluation. Default: None.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: 2-D [N, C] or 3-D [N, C, L] Tensor in data_format.
        - output: the same shape.

    Examples:
        >>> import oar
        >>> bn = oar.nn.BatchNorm1D(2)
        >>> x = oar.to_tensor([[1.0, 2.0], [3.0, 6.0]])
        >>> print(bn(x))
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,
               [[-0.99999..., -0.99999...],
                [ 0.99999...,  0.99999...]])
        >>> print(bn._mean.numpy())
        [0.2 0.4]
    """
    _expected_dims, _default_format = (2, 3), "NCL"

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCL", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats,
                         name)


class BatchNorm2D(_BatchNormBase):
    """Batch normalization over 4-D [N, C, H, W] input: each channel is normalised by the batch's mean and
    variance, then scaled by ``weight`` and shifted by ``bias``.

    While training the statistics of the batch are used and the running mean and variance
    (``_mean``, ``_variance``) move towards them: ``running = momentum * running + (1 - momentum)
    * batch``; in evaluation (``layer.eval()``) the running statistics are used.

    Args:
        num_features (int): Number of channels C.
        momentum (float, optional): Weight of the old running statistics. Default: 0.9.
        epsilon (float, optional): Added to the variance to avoid dividing by zero. Default: 1e-05.
        weight_attr (ParamAttr|bool, optional): Attribute of the scale (starts at 1); False for
            no learnable scale. Default: None.
        bias_attr (ParamAttr|bool, optional): Attribute of the shift (starts at 0); False for no
            learnable shift. Default: None.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.
        use_global_stats (bool, optional): True always uses the running statistics, False always
            the batch's; None follows training/evaluation. Default: None.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: 4-D [N, C, H, W] Tensor in data_format.
        - output: the same shape.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> bn = oar.nn.BatchNorm2D(3)
        >>> print(bn(oar.randn([2, 3, 4, 4])).shape)
        [2, 3, 4, 4]
    """
    _expected_dims, _default_format = (4,), "NCHW"

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCHW", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats,
                         name)


class BatchNorm3D(_BatchNormBase):
    """Batch normalization over 5-D [N, C, D, H, W] input: each channel is normalised by the batch's mean and
    variance, then scaled by ``weight`` and shifted by ``bias``.

    While training the statistics of the batch are used and the running mean and variance
    (``_mean``, ``_variance``) move towards them: ``running = momentum * running + (1 - momentum)
    * batch``; in evaluation (``layer.eval()``) the running statistics are used.

    Args:
        num_features (int): Number of channels C.
        momentum (float, optional): Weight of the old running statistics. Default: 0.9.
        epsilon (float, optional): Added to the variance to avoid dividing by zero. Default: 1e-05.
        weight_attr (ParamAttr|bool, optional): Attribute of the scale (starts at 1); False for
            no learnable scale. Default: None.
        bias_attr (ParamAttr|bool, optional): Attribute of the shift (starts at 0); False for no
            learnable shift. Default: None.
        data_format (str, optional): 'NCDHW' or 'NDHWC'. Default: 'NCDHW'.
        use_global_stats (bool, optional): True always uses the running statistics, False always
            the batch's; None follows training/evaluation. Default: None.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: 5-D [N, C, D, H, W] Tensor in data_format.
        - output: the same shape.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> bn = oar.nn.BatchNorm3D(3)
        >>> print(bn(oar.randn([2, 3, 2, 4, 4])).shape)
        [2, 3, 2, 4, 4]
    """
    _expected_dims, _default_format = (5,), "NCDHW"

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCDHW", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats,
                         name)


class SyncBatchNorm(_BatchNormBase):
    """Batch normalization whose statistics are meant to be gathered across all training
    processes; in a single process (oar has no multi-process training) it is BatchNorm.

    Takes input of any rank from 2 to 5, channels at axis 1 (or last with 'NHWC').

    Args:
        num_features (int): Number of channels C.
        momentum (float, optional): Weight of the old running statistics. Default: 0.9.
        epsilon (float, optional): Added to the variance to avoid dividing by zero. Default: 1e-05.
        weight_attr (ParamAttr|bool, optional): Attribute of the scale; False for none.
            Default: None.
        bias_attr (ParamAttr|bool, optional): Attribute of the shift; False for none.
            Default: None.
        data_format (str, optional): 'NCHW' (channels first, any rank) or 'NHWC'.
            Default: 'NCHW'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, *].
        - output: the same shape.

    Examples:
        >>> import oar
        >>> model = oar.nn.Sequential(oar.nn.Conv2D(3, 2, 1), oar.nn.BatchNorm2D(2))
        >>> model = oar.nn.SyncBatchNorm.convert_sync_batchnorm(model)
        >>> print(model[1])
        SyncBatchNorm(num_features=2, momentum=0.9, epsilon=1e-05)
    """

    _expected_dims = (2, 3, 4, 5)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCHW", name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, None, name)

    def extra_repr(self):
        text = f"num_features={self._num_features}, momentum={self._momentum}, epsilon={self._epsilon}"
        return text + (f", name={self._name}" if self._name is not None else "")

    @classmethod
    def convert_sync_batchnorm(cls, layer):
        """Returns ``layer`` with every BatchNorm1D/2D/3D inside it replaced by a SyncBatchNorm
        sharing the same parameters and statistics.

        Args:
            layer (Layer): A layer or model.

        Returns:
            Layer: the converted layer (the same object unless ``layer`` itself is a batch norm).

        Examples:
            >>> import oar
            >>> bn = oar.nn.SyncBatchNorm.convert_sync_batchnorm(oar.nn.BatchNorm1D(4))
            >>> print(type(bn).__name__)
            SyncBatchNorm
        """
        if isinstance(layer, _BatchNormBase) and not isinstance(layer, SyncBatchNorm):
            out = cls(layer._num_features, layer._momentum, layer._epsilon, data_format=layer._data_format
                      if layer._data_format in ("NCHW", "NHWC") else "NCHW")
            for name in ("weight", "bias", "_mean", "_variance"):
                if getattr(layer, name) is not None:
                    out._parameters[name] = getattr(layer, name)
            return out
        for name, sub in list(layer._sub_layers.items()):
            if sub is not None:
                layer._sub_layers[name] = cls.convert_sync_batchnorm(sub)
        return layer


class BatchNorm(_BatchNormBase):
    """The older batch normalization layer of Paddle (paddle.nn.BatchNorm), for input of any rank
    from 2 to 5, with an optional activation after it.

    Args:
        num_channels (int): Number of channels C.
        act (str, optional): Name of an activation of oar.nn.functional applied to the output
            ('relu', ...). Default: None.
        is_test (bool, optional): Always use the running statistics. Default: False.
        momentum (float, optional): Weight of the old running statistics. Default: 0.9.
        epsilon (float, optional): Added to the variance to avoid dividing by zero. Default: 1e-05.
        param_attr (ParamAttr|bool, optional): Attribute of the scale. Default: None.
        bias_attr (ParamAttr|bool, optional): Attribute of the shift. Default: None.
        dtype (str, optional): Data type of the parameters. Default: 'float32'.
        data_layout (str, optional): 'NCHW' (channels first) or 'NHWC'. Default: 'NCHW'.
        in_place (bool, optional): Accepted for compatibility; no effect. Default: False.
        moving_mean_name (str, optional): Parameter name of the running mean. Default: None.
        moving_variance_name (str, optional): Parameter name of the running variance.
            Default: None.
        do_model_average_for_mean_and_var (bool, optional): Accepted for compatibility; no
            effect. Default: True.
        use_global_stats (bool, optional): Always use the running statistics. Default: False.
        trainable_statistics (bool, optional): Use the batch statistics even in evaluation.
            Default: False.

    Shape:
        - input: [N, C, *].
        - output: the same shape.

    Examples:
        >>> import oar
        >>> bn = oar.nn.BatchNorm(2, act="relu")
        >>> x = oar.to_tensor([[1.0, 2.0], [3.0, 6.0]])
        >>> print(bn(x))
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,
               [[0.        , 0.        ],
                [0.99999..., 0.99999...]])
    """

    _expected_dims = (2, 3, 4, 5)

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None,
                 bias_attr=None, dtype="float32", data_layout="NCHW", in_place=False, moving_mean_name=None,
                 moving_variance_name=None, do_model_average_for_mean_and_var=True, use_global_stats=False,
                 trainable_statistics=False):
        super().__init__(num_channels, momentum, epsilon, param_attr, bias_attr, data_layout,
                         use_global_stats or None, None, moving_mean_name, moving_variance_name)
        self._act, self._is_test, self._trainable_statistics = act, is_test, trainable_statistics

    def forward(self, input):
        training = self.training and not self._is_test
        if self._trainable_statistics:
            training = True
        out = F.batch_norm(input, self._mean, self._variance, weight=self.weight, bias=self.bias,
                           training=training, momentum=self._momentum, epsilon=self._epsilon,
                           data_format=self._data_format, use_global_stats=self._use_global_stats)
        if self._act is not None:
            out = getattr(F, self._act)(out)
        return out

    def extra_repr(self):
        return ""


class LayerNorm(Layer):
    """Layer normalization: normalises each sample over its trailing ``normalized_shape``
    dimensions, then applies an elementwise scale and shift (flat parameters of
    prod(normalized_shape) elements).

    Args:
        normalized_shape (int|list|tuple): The trailing dimensions to normalise over.
        epsilon (float, optional): Added to the variance to avoid dividing by zero. Default: 1e-05.
        weight_attr (ParamAttr|bool, optional): Keyword-only. Attribute of the scale (starts at
            1); False for none. Default: None.
        bias_attr (ParamAttr|bool, optional): Keyword-only. Attribute of the shift (starts at 0);
            False for none. Default: None.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [*, *normalized_shape].
        - output: the same shape.

    Examples:
        >>> import oar
        >>> ln = oar.nn.LayerNorm(2)
        >>> print(ln(oar.to_tensor([[1.0, 2.0], [3.0, 6.0]])))
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,
               [[-0.99997...,  0.99997...],
                [-0.99999...,  0.99999...]])
    """

    def __init__(self, normalized_shape, epsilon=1e-05, *, elementwise_affine=True, bias=True, device=None,
                 dtype=None, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self._normalized_shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
        self._epsilon, self._name = epsilon, name
        if dtype is not None:
            self._dtype = dtype
        size = [math.prod(self._normalized_shape)]
        if not elementwise_affine:
            weight_attr, bias_attr = False, False
        if not bias:
            bias_attr = False
        _affine(self, size, weight_attr, bias_attr)

    def forward(self, input):
        return F.layer_norm(input, self._normalized_shape, weight=self.weight, bias=self.bias,
                            epsilon=self._epsilon)

    def extra_repr(self):
        return f"normalized_shape={self._normalized_shape}, epsilon={self._epsilon}"


class GroupNorm(Layer):
    """Group normalization: the channels are split into ``num_groups`` groups and each group of
    each sample is normalised, then a per-channel scale and shift are applied.

    Args:
        num_groups (int): Number of groups; num_channels must be divisible by it.
        num_channels (int): Number of channels C.
        epsilon (float, optional): Added to the variance to avoid dividing by zero. Default: 1e-05.
        weight_attr (ParamAttr|bool, optional): Keyword-only. Attribute of the scale (starts at
            1); False for none. Default: None.
        bias_attr (ParamAttr|bool, optional): Keyword-only. Attribute of the shift (starts at 0);
            False for none. Default: None.
        data_format (str, optional): Keyword-only. 'NCHW' (channels first, any rank) or 'NHWC'.
            Default: 'NCHW'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, *].
        - output: the same shape.

    Examples:
        >>> import oar
        >>> gn = oar.nn.GroupNorm(num_groups=2, num_channels=4)
        >>> x = oar.arange(8, dtype="float32").reshape([1, 4, 1, 2])
        >>> print(gn(x).flatten())
        Tensor(shape=[8], dtype=float32, place=Place(cpu), stop_gradient=False,
               [-1.34163..., -0.44721...,  0.44721...,  1.34163..., -1.34163..., -0.44721...,
                 0.44721...,  1.34163...])
    """

    def __init__(self, num_groups, num_channels, epsilon=1e-05, *, affine=True, device=None, dtype=None,
                 weight_attr=None, bias_attr=None, data_format="NCHW", name=None):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self._num_groups, self._num_channels, self._epsilon = num_groups, num_channels, epsilon
        self._data_format = data_format
        if dtype is not None:
            self._dtype = dtype
        if not affine:
            weight_attr, bias_attr = False, False
        _affine(self, [num_channels], weight_attr, bias_attr)

    def forward(self, input):
        return F.group_norm(input, self._num_groups, epsilon=self._epsilon, weight=self.weight, bias=self.bias,
                            data_format=self._data_format)

    def extra_repr(self):
        return f"num_groups={self._num_groups}, num_channels={self._num_channels}, epsilon={self._epsilon}"


class _InstanceNormBase(Layer):
    _expected_dims, _default_format = (3,), "NCL"

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None,
                 data_format=None, name=None):
        super().__init__()
        if (weight_attr is False) != (bias_attr is False):
            raise ValueError("weight_attr and bias_attr must be set to False at the same time in InstanceNorm")
        self._num_features, self._epsilon, self._momentum = num_features, epsilon, momentum
        self._data_format = data_format or self._default_format
        self.scale = self.create_parameter([num_features], attr=weight_attr, default_initializer=Constant(1.0))
        self.bias = self.create_parameter([num_features], attr=bias_attr, is_bias=True)

    def forward(self, input):
        if input.ndim not in self._expected_dims:
            want = " or ".join(f"{d}D" for d in self._expected_dims)
            raise ValueError(f"expected {want} input (got {input.ndim}D input)")
        return F.instance_norm(input, weight=self.scale, bias=self.bias, eps=self._epsilon,
                               data_format=self._data_format)

    def extra_repr(self):
        return f"num_features={self._num_features}, epsilon={self._epsilon}"


class InstanceNorm1D(_InstanceNormBase):
    """Instance normalization over [N, C, L] (or [C, L]) input: each channel of each sample is normalised
    over its own spatial positions, then scaled and shifted per channel.

    Args:
        num_features (int): Number of channels C.
        epsilon (float, optional): Added to the variance to avoid dividing by zero. Default: 1e-05.
        momentum (float, optional): Accepted for compatibility; unused. Default: 0.9.
        weight_attr (ParamAttr|bool, optional): Attribute of the scale (starts at 1); False (with
            bias_attr False too) for no affine transform. Default: None.
        bias_attr (ParamAttr|bool, optional): Attribute of the shift (starts at 0). Default: None.
        data_format (str, optional): 'NCL'. Default: 'NCL'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, L] (or [C, L]).
        - output: the same shape.

    Examples:
        >>> import oar
        >>> m = oar.nn.InstanceNorm1D(2)
        >>> print(m(oar.to_tensor([[[1.0, 3.0], [2.0, 2.0]]])))
        Tensor(shape=[1, 2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,
               [[[-0.99999...,  0.99999...],
                 [ 0.        ,  0.        ]]])
    """
    _expected_dims, _default_format = (2, 3), "NCL"


class InstanceNorm2D(_InstanceNormBase):
    """Instance normalization over [N, C, H, W] input: each channel of each sample is normalised
    over its own spatial positions, then scaled and shifted per channel.

    Args:
        num_features (int): Number of channels C.
        epsilon (float, optional): Added to the variance to avoid dividing by zero. Default: 1e-05.
        momentum (float, optional): Accepted for compatibility; unused. Default: 0.9.
        weight_attr (ParamAttr|bool, optional): Attribute of the scale (starts at 1); False (with
            bias_attr False too) for no affine transform. Default: None.
        bias_attr (ParamAttr|bool, optional): Attribute of the shift (starts at 0). Default: None.
        data_format (str, optional): 'NCHW'. Default: 'NCHW'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, H, W].
        - output: the same shape.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> m = oar.nn.InstanceNorm2D(2)
        >>> print(m(oar.randn([1, 2, 3, 3])).shape)
        [1, 2, 3, 3]
    """
    _expected_dims, _default_format = (4,), "NCHW"


class InstanceNorm3D(_InstanceNormBase):
    """Instance normalization over [N, C, D, H, W] input: each channel of each sample is normalised
    over its own spatial positions, then scaled and shifted per channel.

    Args:
        num_features (int): Number of channels C.
        epsilon (float, optional): Added to the variance to avoid dividing by zero. Default: 1e-05.
        momentum (float, optional): Accepted for compatibility; unused. Default: 0.9.
        weight_attr (ParamAttr|bool, optional): Attribute of the scale (starts at 1); False (with
            bias_attr False too) for no affine transform. Default: None.
        bias_attr (ParamAttr|bool, optional): Attribute of the shift (starts at 0). Default: None.
        data_format (str, optional): 'NCDHW'. Default: 'NCDHW'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, D, H, W].
        - output: the same shape.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> m = oar.nn.InstanceNorm3D(2)
        >>> print(m(oar.randn([1, 2, 2, 3, 3])).shape)
        [1, 2, 2, 3, 3]
    """
    _expected_dims, _default_format = (5,), "NCDHW"


class LocalResponseNorm(Layer):
    """Local response normalization across channels:
    ``out = x / (k + alpha / size * sum(x^2 over size neighbouring channels))^beta``.

    Args:
        size (int): Number of neighbouring channels summed over.
        alpha (float, optional): Scale. Default: 0.0001.
        beta (float, optional): Exponent. Default: 0.75.
        k (float, optional): Additive constant. Default: 1.0.
        data_format (str, optional): 'NCL', 'NCHW', 'NCDHW' or their channels-last forms.
            Default: 'NCHW'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: a 3-D, 4-D or 5-D Tensor.
        - output: the same shape.

    Examples:
        >>> import oar
        >>> m = oar.nn.LocalResponseNorm(size=3)
        >>> print(m(oar.ones([1, 4, 2, 2])).shape)
        [1, 4, 2, 2]
    """

    def __init__(self, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW", name=None):
        super().__init__()
        self.size, self.alpha, self.beta, self.k, self.data_format = size, alpha, beta, k, data_format

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k, self.data_format)

    def extra_repr(self):
        text = f"size={self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
        return text + (f", data_format={self.data_format}" if self.data_format != "NCHW" else "")


class SpectralNorm(Layer):
    """Spectral normalization: returns ``weight / sigma``, sigma the largest singular value of
    the weight viewed as a matrix [shape[dim], rest].

    sigma is estimated by ``power_iters`` power iterations starting from the stored vectors
    ``weight_u`` and ``weight_v`` (random normal at creation; not updated by the call). The
    gradient is that of this whole computation.

    Args:
        weight_shape (list|tuple): Shape of the weight to normalise.
        dim (int, optional): The dimension taken as the matrix rows. Default: 0.
        power_iters (int, optional): Number of power iterations. Default: 1.
        eps (float, optional): Added to norms to avoid dividing by zero. Default: 1e-12.
        dtype (str, optional): Data type of weight_u and weight_v. Default: 'float32'.

    Shape:
        - input: a Tensor of shape weight_shape.
        - output: the same shape.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> sn = oar.nn.SpectralNorm([2, 3], power_iters=20)
        >>> w = oar.to_tensor([[3.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
        >>> print(sn(w))
        Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[1.        , 0.        , 0.        ],
                [0.        , 0.33333..., 0.        ]])
    """

    # The gradient goes through the power iterations exactly; Paddle 3.3.1's backward of this
    # layer disagrees with finite differences (measured), ours does not.
    def __init__(self, weight_shape, dim=0, power_iters=1, eps=1e-12, dtype="float32"):
        super().__init__()
        weight_shape = list(weight_shape)
        if not -len(weight_shape) <= dim < len(weight_shape):
            raise ValueError(f"SpectralNorm: dim {dim} is out of range for weight_shape {weight_shape}")
        if power_iters < 0:
            raise ValueError(f"SpectralNorm: power_iters must be >= 0, but got {power_iters}")
        self._power_iters, self._eps, self._dim = power_iters, eps, dim % len(weight_shape)
        self._dtype = dtype
        h = weight_shape[self._dim]
        w = math.prod(weight_shape) // h
        self.weight_u = self.create_parameter([h], attr=ParamAttr(trainable=False), dtype=dtype,
                                              default_initializer=Normal(0.0, 1.0))
        self.weight_v = self.create_parameter([w], attr=ParamAttr(trainable=False), dtype=dtype,
                                              default_initializer=Normal(0.0, 1.0))

    def forward(self, x):
        order = [self._dim] + [i for i in range(x.ndim) if i != self._dim]
        matrix = _C.reshape(_C.transpose(x, order), [x.shape[self._dim], -1])
        u, v = self.weight_u, self.weight_v
        for _ in range(self._power_iters):
            v = _C.matmul(u, matrix, False, False)
            v = v / (_C.sqrt(_C.sum(v * v)) + self._eps)
            u = _C.matmul(matrix, v, False, False)
            u = u / (_C.sqrt(_C.sum(u * u)) + self._eps)
        sigma = _C.sum(u * _C.matmul(matrix, v, False, False))
        return x / sigma

    def extra_repr(self):
        return ""
