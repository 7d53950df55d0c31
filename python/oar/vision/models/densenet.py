"""DenseNet 121/161/169/201/264, as paddle.vision.models.DenseNet (Paddle's conv1_func/db_conv_N/tr_convN_blk
names and its BatchNorm-with-activation layers)."""
import math

from ... import _C, nn
from ...framework.param_attr import ParamAttr
from ...nn.initializer import Uniform
from ._utils import _reject_pretrained

# layers -> (stem channels, growth rate, dense layers per block)
_SPEC = {
    121: (64, 32, [6, 12, 24, 16]),
    161: (96, 48, [6, 12, 36, 24]),
    169: (64, 32, [6, 12, 32, 32]),
    201: (64, 32, [6, 12, 48, 32]),
    264: (64, 32, [6, 12, 64, 48]),
}


class BNACConvLayer(nn.Layer):
    """Pre-activation unit: BatchNorm + activation, then a bias-free convolution."""

    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1, act="relu"):
        super().__init__()
        self._batch_norm = nn.BatchNorm(num_channels, act=act)
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride, padding=pad, groups=groups,
                               bias_attr=False)

    def forward(self, input):
        return self._conv(self._batch_norm(input))


class ConvBNLayer(nn.Layer):
    """The stem unit: a bias-free convolution, then BatchNorm + activation."""

    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1, act="relu"):
        super().__init__()
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride, padding=pad, groups=groups,
                               bias_attr=False)
        self._batch_norm = nn.BatchNorm(num_filters, act=act)

    def forward(self, input):
        return self._batch_norm(self._conv(input))


class DenseLayer(nn.Layer):
    """1x1 bottleneck to bn_size * growth_rate channels, 3x3 to growth_rate, optional dropout; the result is
    appended to the input's channels."""

    def __init__(self, num_channels, growth_rate, bn_size, dropout):
        super().__init__()
        self.dropout = dropout
        self.bn_ac_func1 = BNACConvLayer(num_channels, bn_size * growth_rate, 1, pad=0, stride=1)
        self.bn_ac_func2 = BNACConvLayer(bn_size * growth_rate, growth_rate, 3, pad=1, stride=1)
        if dropout:
            self.dropout_func = nn.Dropout(p=dropout, mode="downscale_in_infer")

    def forward(self, input):
        conv = self.bn_ac_func2(self.bn_ac_func1(input))
        if self.dropout:
            conv = self.dropout_func(conv)
        return _C.concat([input, conv], 1)


class DenseBlock(nn.Layer):
    """num_layers DenseLayers, registered as {name}_1, {name}_2, ...; each adds growth_rate channels."""

    def __init__(self, num_channels, num_layers, bn_size, growth_rate, dropout, name=None):
        super().__init__()
        self.dropout = dropout
        self.dense_layer_func = []
        channels = num_channels
        for i in range(num_layers):
            layer = DenseLayer(channels, growth_rate=growth_rate, bn_size=bn_size, dropout=dropout)
            self.dense_layer_func.append(self.add_sublayer(f"{name}_{i + 1}", layer))
            channels += growth_rate

    def forward(self, input):
        conv = input
        for layer in self.dense_layer_func:
            conv = layer(conv)
        return conv


class TransitionLayer(nn.Layer):
    """Between dense blocks: BatchNorm + ReLU, 1x1 conv to num_output_features, 2x2 average pool."""

    def __init__(self, num_channels, num_output_features):
        super().__init__()
        self.conv_ac_func = BNACConvLayer(num_channels, num_output_features, 1, pad=0, stride=1)
        self.pool2d_avg = nn.AvgPool2D(kernel_size=2, stride=2, padding=0)

    def forward(self, input):
        return self.pool2d_avg(self.conv_ac_func(input))


class DenseNet(nn.Layer):
    """DenseNet image classifier (Huang et al., "Densely Connected Convolutional Networks", 2017), built
    randomly initialized (oar never downloads weights).

    Args:
        layers (int, optional): Depth: 121, 161, 169, 201 or 264. Default: 121.
        bn_size (int, optional): The bottleneck of each dense layer has bn_size * growth_rate channels.
            Default: 4.
        dropout (float, optional): Dropout rate after each dense layer (0 for none). Default: 0.0.
        num_classes (int, optional): Size of the classifier output; <= 0 leaves the classifier out.
            Default: 1000.
        with_pool (bool, optional): End the features with global average pooling. Default: True.

    Returns:
        Layer: the DenseNet model. Its forward maps [N, 3, H, W] images to [N, num_classes] logits
        ([N, C, 1, 1] features with num_classes <= 0).

    Examples:
        >>> import oar
        >>> model = oar.vision.models.DenseNet(layers=121, num_classes=10)
        >>> _ = model.eval()
        >>> print(model(oar.ones([1, 3, 32, 32])).shape)
        [1, 10]
    """

    def __init__(self, layers=121, bn_size=4, dropout=0.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        if layers not in _SPEC:
            raise ValueError(f"DenseNet: 'layers' must be one of {sorted(_SPEC)}, but got {layers!r}")
        num_init_features, growth_rate, block_config = _SPEC[layers]
        self.conv1_func = ConvBNLayer(3, num_init_features, 7, stride=2, pad=3, act="relu")
        self.pool2d_max = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.block_config = block_config
        # registered as db_conv_2, tr_conv2_blk, db_conv_3, ...: the order of Paddle's state dict
        self.dense_block_func_list = []
        self.transition_func_list = []
        num_features = num_init_features
        for i, num_layers in enumerate(block_config):
            block = DenseBlock(num_features, num_layers, bn_size=bn_size, growth_rate=growth_rate, dropout=dropout,
                               name=f"conv{i + 2}")
            self.dense_block_func_list.append(self.add_sublayer(f"db_conv_{i + 2}", block))
            num_features += num_layers * growth_rate
            if i != len(block_config) - 1:
                # each transition halves the channels as well as the resolution
                transition = TransitionLayer(num_features, num_features // 2)
                self.transition_func_list.append(self.add_sublayer(f"tr_conv{i + 2}_blk", transition))
                num_features //= 2
        self.batch_norm = nn.BatchNorm(num_features, act="relu")
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            stdv = 1.0 / math.sqrt(num_features * 1.0)
            self.out = nn.Linear(num_features, num_classes, weight_attr=ParamAttr(initializer=Uniform(-stdv, stdv)),
                                 bias_attr=ParamAttr())

    def forward(self, input):
        x = self.pool2d_max(self.conv1_func(input))
        for i, block in enumerate(self.dense_block_func_list):
            x = block(x)
            if i < len(self.transition_func_list):
                x = self.transition_func_list[i](x)
        x = self.batch_norm(x)
        # Paddle 3.3.1 fails here with with_pool=False (its output variable is only set by the pool);
        # oar returns the feature map instead, and flattens it into the classifier when there is one
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.out(_C.flatten(x, 1, -1))
        return x


def _densenet(arch, layers, pretrained, **kwargs):
    _reject_pretrained(arch, pretrained)
    return DenseNet(layers=layers, **kwargs)


def densenet121(pretrained=False, **kwargs):
    """DenseNet-121: DenseNet(layers=121, **kwargs).

    Args:
        pretrained (bool, optional): Must be False: oar never downloads weights (True raises
            NotImplementedError); load a local Paddle checkpoint with set_state_dict instead. Default: False.
        **kwargs: bn_size, dropout, num_classes, with_pool, as for DenseNet.

    Returns:
        DenseNet: the model, randomly initialized.

    Examples:
        >>> import oar
        >>> model = oar.vision.models.densenet121(num_classes=10)
        >>> _ = model.eval()
        >>> print(model(oar.ones([1, 3, 32, 32])).shape)
        [1, 10]
    """
    return _densenet("densenet121", 121, pretrained, **kwargs)


def densenet161(pretrained=False, **kwargs):
    """DenseNet-161 (96 stem channels, growth rate 48): DenseNet(layers=161, **kwargs).

    Args:
        pretrained (bool, optional): Must be False: oar never downloads weights (True raises
            NotImplementedError); load a local Paddle checkpoint with set_state_dict instead. Default: False.
        **kwargs: bn_size, dropout, num_classes, with_pool, as for DenseNet.

    Returns:
        DenseNet: the model, randomly initialized.

    Examples:
        >>> import oar
        >>> model = oar.vision.models.densenet161(num_classes=0)
        >>> print(model.batch_norm.weight.shape)
        [2208]
    """
    return _densenet("densenet161", 161, pretrained, **kwargs)


def densenet169(pretrained=False, **kwargs):
    """DenseNet-169: DenseNet(layers=169, **kwargs).

    Args:
        pretrained (bool, optional): Must be False: oar never downloads weights (True raises
            NotImplementedError); load a local Paddle checkpoint with set_state_dict instead. Default: False.
        **kwargs: bn_size, dropout, num_classes, with_pool, as for DenseNet.

    Returns:
        DenseNet: the model, randomly initialized.

    Examples:
        >>> import oar
        >>> model = oar.vision.models.densenet169(num_classes=10)
        >>> print(model.out.weight.shape)
        [1664, 10]
    """
    return _densenet("densenet169", 169, pretrained, **kwargs)


def densenet201(pretrained=False, **kwargs):
    """DenseNet-201: DenseNet(layers=201, **kwargs).

    Args:
        pretrained (bool, optional): Must be False: oar never downloads weights (True raises
            NotImplementedError); load a local Paddle checkpoint with set_state_dict instead. Default: False.
        **kwargs: bn_size, dropout, num_classes, with_pool, as for DenseNet.

    Returns:
        DenseNet: the model, randomly initialized.

    Examples:
        >>> import oar
        >>> model = oar.vision.models.densenet201(num_classes=10)
        >>> print(model.out.weight.shape)
        [1920, 10]
    """
    return _densenet("densenet201", 201, pretrained, **kwargs)


def densenet264(pretrained=False, **kwargs):
    """DenseNet-264: DenseNet(layers=264, **kwargs).

    Args:
        pretrained (bool, optional): Must be False: oar never downloads weights (True raises
            NotImplementedError); load a local Paddle checkpoint with set_state_dict instead. Default: False.
        **kwargs: bn_size, dropout, num_classes, with_pool, as for DenseNet.

    Returns:
        DenseNet: the model, randomly initialized.

    Examples:
        >>> import oar
        >>> model = oar.vision.models.densenet264(num_classes=10)
        >>> print(model.out.weight.shape)
        [2688, 10]
    """
    return _densenet("densenet264", 264, pretrained, **kwargs)
