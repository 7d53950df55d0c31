"""MobileNetV1, as paddle.vision.models.MobileNetV1 (sublayers conv1, conv2_1 ... conv6)."""
from ... import _C, nn
from ._utils import _check_scale, _reject_pretrained
from .conv_norm_activation import ConvNormActivation


class DepthwiseSeparable(nn.Layer):
    """A 3x3 depthwise ConvNormActivation followed by a 1x1 pointwise one, channels scaled by `scale`."""

    def __init__(self, in_channels, out_channels1, out_channels2, num_groups, stride, scale):
        super().__init__()
        self._depthwise_conv = ConvNormActivation(in_channels, int(out_channels1 * scale), kernel_size=3,
                                                  stride=stride, padding=1, groups=int(num_groups * scale))
        self._pointwise_conv = ConvNormActivation(int(out_channels1 * scale), int(out_channels2 * scale),
                                                  kernel_size=1, stride=1, padding=0)

    def forward(self, x):
        return self._pointwise_conv(self._depthwise_conv(x))


# (sublayer name, input channels, depthwise channels, pointwise channels, stride) before scaling
_STAGES = ([("conv2_1", 32, 32, 64, 1), ("conv2_2", 64, 64, 128, 2), ("conv3_1", 128, 128, 128, 1),
            ("conv3_2", 128, 128, 256, 2), ("conv4_1", 256, 256, 256, 1), ("conv4_2", 256, 256, 512, 2)]
           + [(f"conv5_{i}", 512, 512, 512, 1) for i in range(1, 6)]
           + [("conv5_6", 512, 512, 1024, 2), ("conv6", 1024, 1024, 1024, 1)])


class MobileNetV1(nn.Layer):
    """scale multiplies every channel count (int() truncation, as Paddle)."""

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        _check_scale("MobileNetV1", scale)
        self.scale = scale
        self.num_classes = num_classes
        self.with_pool = with_pool
        self.conv1 = ConvNormActivation(in_channels=3, out_channels=int(32 * scale), kernel_size=3, stride=2,
                                        padding=1)
        # a plain list keeps the run order; the blocks are registered under Paddle's names
        self.dwsl = []
        for name, inp, c1, c2, stride in _STAGES:
            block = DepthwiseSeparable(in_channels=int(inp * scale), out_channels1=c1, out_channels2=c2,
                                       num_groups=c1, stride=stride, scale=scale)
            self.dwsl.append(self.add_sublayer(name, block))
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.fc = nn.Linear(int(1024 * scale), num_classes)

    def forward(self, x):
        x = self.conv1(x)
        for block in self.dwsl:
            x = block(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.fc(_C.flatten(x, 1, -1))
        return x


def mobilenet_v1(pretrained=False, scale=1.0, **kwargs):
    """MobileNetV1(scale=scale, **kwargs); pretrained=True is refused (oar never downloads)."""
    _reject_pretrained("mobilenet_v1", pretrained)
    return MobileNetV1(scale=scale, **kwargs)
