"""SqueezeNet 1.0 and 1.1, as paddle.vision.models.SqueezeNet (Paddle's MakeFire/_convN layout)."""
from ... import _C, nn
from ...framework.param_attr import ParamAttr
from ...nn import functional as F
from ._utils import _reject_pretrained


class MakeFireConv(nn.Layer):
    """Conv2D followed by ReLU."""

    def __init__(self, input_channels, output_channels, filter_size, padding=0):
        super().__init__()
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, padding=padding,
                               weight_attr=ParamAttr(), bias_attr=ParamAttr())

    def forward(self, x):
        return F.relu(self._conv(x))


class MakeFire(nn.Layer):
    """A fire module: a 1x1 squeeze, then 1x1 and 3x3 expansions concatenated along channels."""

    def __init__(self, input_channels, squeeze_channels, expand1x1_channels, expand3x3_channels):
        super().__init__()
        self._conv = MakeFireConv(input_channels, squeeze_channels, 1)
        self._conv_path1 = MakeFireConv(squeeze_channels, expand1x1_channels, 1)
        self._conv_path2 = MakeFireConv(squeeze_channels, expand3x3_channels, 3, padding=1)

    def forward(self, inputs):
        x = self._conv(inputs)
        return _C.concat([self._conv_path1(x), self._conv_path2(x)], 1)


# (input, squeeze, expand 1x1, expand 3x3) channels of the eight fire modules, the same in both versions
_FIRE_CHANNELS = [(None, 16, 64, 64), (128, 16, 64, 64), (128, 32, 128, 128), (256, 32, 128, 128),
                  (256, 48, 192, 192), (384, 48, 192, 192), (384, 64, 256, 256), (512, 64, 256, 256)]
# after which fire modules the shared max pool runs
_POOL_AFTER = {"1.0": (3, 7), "1.1": (2, 4)}


class SqueezeNet(nn.Layer):
    """version '1.0' (7x7 stem, 96 channels) or '1.1' (3x3 stem, 64 channels, earlier pooling)."""

    def __init__(self, version, num_classes=1000, with_pool=True):
        super().__init__()
        if version not in ("1.0", "1.1"):
            raise ValueError(f"SqueezeNet: 'version' must be '1.0' or '1.1', but got {version!r}")
        self.version = version
        self.num_classes = num_classes
        self.with_pool = with_pool
        if version == "1.0":
            self._conv = nn.Conv2D(3, 96, 7, stride=2, weight_attr=ParamAttr(), bias_attr=ParamAttr())
        else:
            self._conv = nn.Conv2D(3, 64, 3, stride=2, padding=1, weight_attr=ParamAttr(), bias_attr=ParamAttr())
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        stem_channels = 96 if version == "1.0" else 64
        for i, (inp, squeeze, e1, e3) in enumerate(_FIRE_CHANNELS):
            setattr(self, f"_conv{i + 1}", MakeFire(inp or stem_channels, squeeze, e1, e3))
        # the head exists even when num_classes <= 0 (as in Paddle), it is just not run then
        self._drop = nn.Dropout(p=0.5, mode="downscale_in_infer")
        self._conv9 = nn.Conv2D(512, num_classes, 1, weight_attr=ParamAttr(), bias_attr=ParamAttr())
        self._avg_pool = nn.AdaptiveAvgPool2D(1)

    def forward(self, inputs):
        x = self._pool(F.relu(self._conv(inputs)))
        pool_after = _POOL_AFTER[self.version]
        for i in range(1, 9):
            x = getattr(self, f"_conv{i}")(x)
            if i in pool_after:
                x = self._pool(x)
        if self.num_classes > 0:
            x = self._conv9(self._drop(x))
        if self.with_pool:
            x = _C.squeeze(self._avg_pool(F.relu(x)), [2, 3])
        return x


def squeezenet1_0(pretrained=False, **kwargs):
    """SqueezeNet('1.0', **kwargs); pretrained=True is refused (oar never downloads)."""
    _reject_pretrained("squeezenet1_0", pretrained)
    return SqueezeNet("1.0", **kwargs)


def squeezenet1_1(pretrained=False, **kwargs):
    """SqueezeNet('1.1', **kwargs); pretrained=True is refused (oar never downloads)."""
    _reject_pretrained("squeezenet1_1", pretrained)
    return SqueezeNet("1.1", **kwargs)
