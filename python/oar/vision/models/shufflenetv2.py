"""ShuffleNetV2, as paddle.vision.models.ShuffleNetV2 (Paddle's _conv1/"2_1".../_last_conv/_fc names)."""
from ... import _C, nn
from ._utils import _reject_pretrained
from .conv_norm_activation import ConvNormActivation

# output channels of: the stem, the three stages, the last 1x1 conv (Paddle's table, -1 dropped)
_STAGE_OUT_CHANNELS = {
    0.25: [24, 24, 48, 96, 512],
    0.33: [24, 32, 64, 128, 512],
    0.5: [24, 48, 96, 192, 1024],
    1.0: [24, 116, 232, 464, 1024],
    1.5: [24, 176, 352, 704, 1024],
    2.0: [24, 224, 488, 976, 2048],
}
# blocks per stage; the first of each halves the resolution
_STAGE_REPEATS = [4, 8, 4]


def create_activation_layer(act):
    """The activation class for act ('swish', 'relu' or None for none), as Paddle maps it."""
    if act == "swish":
        return nn.Swish
    if act == "relu":
        return nn.ReLU
    if act is None:
        return None
    raise RuntimeError(f"The activation function is not supported: {act}")


def channel_shuffle(x, groups):
    """Interleave the channels of `groups` groups: [g0c0, g0c1, g1c0, g1c1] -> [g0c0, g1c0, g0c1, g1c1]."""
    batch_size, num_channels, height, width = x.shape[0:4]
    x = _C.reshape(x, [batch_size, groups, num_channels // groups, height, width])
    x = _C.transpose(x, [0, 2, 1, 3, 4])
    return _C.reshape(x, [batch_size, num_channels, height, width])


class InvertedResidual(nn.Layer):
    """The stride-1 unit: half the channels pass through, the other half go 1x1 -> 3x3 depthwise -> 1x1;
    the halves are concatenated and shuffled."""

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_pw = ConvNormActivation(in_channels // 2, half, kernel_size=1, stride=1, padding=0,
                                           activation_layer=activation_layer)
        self._conv_dw = ConvNormActivation(half, half, kernel_size=3, stride=stride, padding=1, groups=half,
                                           activation_layer=None)
        self._conv_linear = ConvNormActivation(half, half, kernel_size=1, stride=1, padding=0,
                                               activation_layer=activation_layer)

    def forward(self, inputs):
        half = inputs.shape[1] // 2
        x1, x2 = _C.split(inputs, [half, half], 1)
        x2 = self._conv_linear(self._conv_dw(self._conv_pw(x2)))
        return channel_shuffle(_C.concat([x1, x2], 1), 2)


class InvertedResidualDS(nn.Layer):
    """The downsampling unit: both branches see the whole input (3x3 depthwise stride 2 -> 1x1, and
    1x1 -> 3x3 depthwise stride 2 -> 1x1); their outputs are concatenated and shuffled."""

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_dw_1 = ConvNormActivation(in_channels, in_channels, kernel_size=3, stride=stride, padding=1,
                                             groups=in_channels, activation_layer=None)
        self._conv_linear_1 = ConvNormActivation(in_channels, half, kernel_size=1, stride=1, padding=0,
                                                 activation_layer=activation_layer)
        self._conv_pw_2 = ConvNormActivation(in_channels, half, kernel_size=1, stride=1, padding=0,
                                             activation_layer=activation_layer)
        self._conv_dw_2 = ConvNormActivation(half, half, kernel_size=3, stride=stride, padding=1, groups=half,
                                             activation_layer=None)
        self._conv_linear_2 = ConvNormActivation(half, half, kernel_size=1, stride=1, padding=0,
                                                 activation_layer=activation_layer)

    def forward(self, inputs):
        x1 = self._conv_linear_1(self._conv_dw_1(inputs))
        x2 = self._conv_linear_2(self._conv_dw_2(self._conv_pw_2(inputs)))
        return channel_shuffle(_C.concat([x1, x2], 1), 2)


class ShuffleNetV2(nn.Layer):
    """ShuffleNetV2 image classifier (Ma et al., "ShuffleNet V2: Practical Guidelines for Efficient CNN
    Architecture Design", 2018), built randomly initialized (oar never downloads weights).

    Args:
        scale (float, optional): Channel-width multiplier, one of 0.25, 0.33, 0.5, 1.0, 1.5, 2.0.
            Default: 1.0.
        act (str|None, optional): Activation after the convolutions: "relu", "swish", or None for none.
            Default: "relu".
        num_classes (int, optional): Size of the classifier output; <= 0 leaves the classifier out.
            Default: 1000.
        with_pool (bool, optional): End the features with global average pooling. Default: True.

    Returns:
        Layer: the ShuffleNetV2 model. Its forward maps [N, 3, H, W] images to [N, num_classes] logits
        ([N, C, 1, 1] features with num_classes <= 0).

    Examples:
        >>> import oar
        >>> model = oar.vision.models.ShuffleNetV2(scale=0.25, act="swish", num_classes=10)
        >>> _ = model.eval()
        >>> print(model(oar.ones([1, 3, 64, 64])).shape)
        [1, 10]
    """

    def __init__(self, scale=1.0, act="relu", num_classes=1000, with_pool=True):
        super().__init__()
        self.scale = scale
        self.num_classes = num_classes
        self.with_pool = with_pool
        activation_layer = create_activation_layer(act)
        # compared with ==, as Paddle does, so 1 and True select the 1.0 table too
        channels = next((c for s, c in _STAGE_OUT_CHANNELS.items() if scale == s), None)
        if channels is None:
            raise NotImplementedError("This scale size:[" + str(scale) + "] is not implemented!")
        self._conv1 = ConvNormActivation(3, channels[0], kernel_size=3, stride=2, padding=1,
                                         activation_layer=activation_layer)
        self._max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        # the blocks are registered as "2_1".."4_4" (stage, index), the names Paddle's checkpoints use
        self._block_list = []
        for stage, repeats in enumerate(_STAGE_REPEATS):
            in_channels, out_channels = channels[stage], channels[stage + 1]
            for i in range(repeats):
                if i == 0:
                    block = InvertedResidualDS(in_channels, out_channels, 2, activation_layer=activation_layer)
                else:
                    block = InvertedResidual(out_channels, out_channels, 1, activation_layer=activation_layer)
                self._block_list.append(self.add_sublayer(f"{stage + 2}_{i + 1}", block))
        self._last_conv = ConvNormActivation(channels[-2], channels[-1], kernel_size=1, stride=1, padding=0,
                                             activation_layer=activation_layer)
        if with_pool:
            self._pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self._out_c = channels[-1]
            self._fc = nn.Linear(channels[-1], num_classes)

    def forward(self, inputs):
        x = self._max_pool(self._conv1(inputs))
        for block in self._block_list:
            x = block(x)
        x = self._last_conv(x)
        if self.with_pool:
            x = self._pool2d_avg(x)
        if self.num_classes > 0:
            x = self._fc(_C.flatten(x, 1, -1))
        return x


def _shufflenet_v2(arch, pretrained=False, scale=1.0, **kwargs):
    _reject_pretrained(arch, pretrained)
    return ShuffleNetV2(scale=scale, **kwargs)


def shufflenet_v2_x0_25(pretrained=False, **kwargs):
    """ShuffleNetV2 with 0.25x output channels: ShuffleNetV2(scale=0.25, **kwargs).

    Args:
        pretrained (bool, optional): Must be False: oar never downloads weights (True raises
            NotImplementedError); load a local Paddle checkpoint with set_state_dict instead. Default: False.
        **kwargs: act, num_classes, with_pool, as for ShuffleNetV2.

    Returns:
        ShuffleNetV2: the model, randomly initialized.

    Examples:
        >>> import oar
        >>> model = oar.vision.models.shufflenet_v2_x0_25(num_classes=10)
        >>> _ = model.eval()
        >>> print(model(oar.ones([1, 3, 64, 64])).shape)
        [1, 10]
    """
    return _shufflenet_v2("shufflenet_v2_x0_25", scale=0.25, pretrained=pretrained, **kwargs)


def shufflenet_v2_x0_33(pretrained=False, **kwargs):
    """ShuffleNetV2 with 0.33x output channels: ShuffleNetV2(scale=0.33, **kwargs).

    Args:
        pretrained (bool, optional): Must be False: oar never downloads weights (True raises
            NotImplementedError); load a local Paddle checkpoint with set_state_dict instead. Default: False.
        **kwargs: act, num_classes, with_pool, as for ShuffleNetV2.

    Returns:
        ShuffleNetV2: the model, randomly initialized.

    Examples:
        >>> import oar
        >>> model = oar.vision.models.shufflenet_v2_x0_33(num_classes=0)
        >>> _ = model.eval()
        >>> print(model(oar.ones([1, 3, 64, 64])).shape)
        [1, 512, 1, 1]
    """
    return _shufflenet_v2("shufflenet_v2_x0_33", scale=0.33, pretrained=pretrained, **kwargs)


def shufflenet_v2_x0_5(pretrained=False, **kwargs):
    """ShuffleNetV2 with 0.5x output channels: ShuffleNetV2(scale=0.5, **kwargs).

    Args:
        pretrained (bool, optional): Must be False: oar never downloads weights (True raises
            NotImplementedError); load a local Paddle checkpoint with set_state_dict instead. Default: False.
        **kwargs: act, num_classes, with_pool, as for ShuffleNetV2.

    Returns:
        ShuffleNetV2: the model, randomly initialized.

    Examples:
        >>> import oar
        >>> model = oar.vision.models.shufflenet_v2_x0_5(num_classes=0, with_pool=False)
        >>> _ = model.eval()
        >>> print(model(oar.ones([1, 3, 64, 64])).shape)
        [1, 1024, 2, 2]
    """
    return _shufflenet_v2("shufflenet_v2_x0_5", scale=0.5, pretrained=pretrained, **kwargs)


def shufflenet_v2_x1_0(pretrained=False, **kwargs):
    """ShuffleNetV2 with 1.0x output channels: ShuffleNetV2(scale=1.0, **kwargs).

    Args:
        pretrained (bool, optional): Must be False: oar never downloads weights (True raises
            NotImplementedError); load a local Paddle checkpoint with set_state_dict instead. Default: False.
        **kwargs: act, num_classes, with_pool, as for ShuffleNetV2.

    Returns:
        ShuffleNetV2: the model, randomly initialized.

    Examples:
        >>> import oar
        >>> model = oar.vision.models.shufflenet_v2_x1_0(num_classes=10)
        >>> _ = model.eval()
        >>> print(model(oar.ones([2, 3, 64, 64])).shape)
        [2, 10]
    """
    return _shufflenet_v2("shufflenet_v2_x1_0", scale=1.0, pretrained=pretrained, **kwargs)


def shufflenet_v2_x1_5(pretrained=False, **kwargs):
    """ShuffleNetV2 with 1.5x output channels: ShuffleNetV2(scale=1.5, **kwargs).

    Args:
        pretrained (bool, optional): Must be False: oar never downloads weights (True raises
            NotImplementedError); load a local Paddle checkpoint with set_state_dict instead. Default: False.
        **kwargs: act, num_classes, with_pool, as for ShuffleNetV2.

    Returns:
        ShuffleNetV2: the model, randomly initialized.

    Examples:
        >>> import oar
        >>> model = oar.vision.models.shufflenet_v2_x1_5(num_classes=10)
        >>> _ = model.eval()
        >>> print(model(oar.ones([1, 3, 64, 64])).shape)
        [1, 10]
    """
    return _shufflenet_v2("shufflenet_v2_x1_5", scale=1.5, pretrained=pretrained, **kwargs)


def shufflenet_v2_x2_0(pretrained=False, **kwargs):
    """ShuffleNetV2 with 2.0x output channels: ShuffleNetV2(scale=2.0, **kwargs).

    Args:
        pretrained (bool, optional): Must be False: oar never downloads weights (True raises
            NotImplementedError); load a local Paddle checkpoint with set_state_dict instead. Default: False.
        **kwargs: act, num_classes, with_pool, as for ShuffleNetV2.

    Returns:
        ShuffleNetV2: the model, randomly initialized.

    Examples:
        >>> import oar
        >>> model = oar.vision.models.shufflenet_v2_x2_0(num_classes=10)
        >>> _ = model.eval()
        >>> print(model(oar.ones([1, 3, 64, 64])).shape)
        [1, 10]
    """
    return _shufflenet_v2("shufflenet_v2_x2_0", scale=2.0, pretrained=pretrained, **kwargs)


def shufflenet_v2_swish(pretrained=False, **kwargs):
    """ShuffleNetV2 with 1.0x output channels and swish activations: ShuffleNetV2(scale=1.0, act="swish",
    **kwargs).

    Args:
        pretrained (bool, optional): Must be False: oar never downloads weights (True raises
            NotImplementedError); load a local Paddle checkpoint with set_state_dict instead. Default: False.
        **kwargs: num_classes, with_pool, as for ShuffleNetV2 (act is fixed: passing it raises TypeError).

    Returns:
        ShuffleNetV2: the model, randomly initialized.

    Examples:
        >>> import oar
        >>> model = oar.vision.models.shufflenet_v2_swish(num_classes=10)
        >>> _ = model.eval()
        >>> print(model(oar.ones([1, 3, 64, 64])).shape)
        [1, 10]
    """
    return _shufflenet_v2("shufflenet_v2_swish", scale=1.0, act="swish", pretrained=pretrained, **kwargs)
