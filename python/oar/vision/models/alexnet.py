"""AlexNet, as paddle.vision.models.AlexNet (Paddle's layout: ConvPoolLayer blocks, _convN/_fcN names)."""
import math

from ... import _C, nn
from ...framework.param_attr import ParamAttr
from ...nn import functional as F
from ...nn.initializer import Uniform
from ._utils import _reject_pretrained


def _uniform_attr(stdv):
    return ParamAttr(initializer=Uniform(-stdv, stdv))


class ConvPoolLayer(nn.Layer):
    """Conv2D, an optional ReLU, then a 3x3 stride-2 max pool."""

    def __init__(self, input_channels, output_channels, filter_size, stride, padding, stdv, groups=1, act=None):
        super().__init__()
        self.relu = nn.ReLU() if act == "relu" else None
        self._conv = nn.Conv2D(in_channels=input_channels, out_channels=output_channels,
                               kernel_size=filter_size, stride=stride, padding=padding, groups=groups,
                               weight_attr=_uniform_attr(stdv), bias_attr=_uniform_attr(stdv))
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)

    def forward(self, inputs):
        x = self._conv(inputs)
        if self.relu is not None:
            x = self.relu(x)
        return self._pool(x)


class AlexNet(nn.Layer):
    """Five convolutions and three fully connected layers; expects 3x224x224 (the classifier needs 6x6)."""

    def __init__(self, num_classes=1000):
        super().__init__()
        self.num_classes = num_classes
        # every layer starts uniform in +-1/sqrt(fan_in)
        self._conv1 = ConvPoolLayer(3, 64, 11, 4, 2, 1.0 / math.sqrt(3 * 11 * 11), act="relu")
        self._conv2 = ConvPoolLayer(64, 192, 5, 1, 2, 1.0 / math.sqrt(64 * 5 * 5), act="relu")
        stdv = 1.0 / math.sqrt(192 * 3 * 3)
        self._conv3 = nn.Conv2D(192, 384, 3, stride=1, padding=1, weight_attr=_uniform_attr(stdv),
                                bias_attr=_uniform_attr(stdv))
        stdv = 1.0 / math.sqrt(384 * 3 * 3)
        self._conv4 = nn.Conv2D(384, 256, 3, stride=1, padding=1, weight_attr=_uniform_attr(stdv),
                                bias_attr=_uniform_attr(stdv))
        self._conv5 = ConvPoolLayer(256, 256, 3, 1, 1, 1.0 / math.sqrt(256 * 3 * 3), act="relu")
        if self.num_classes > 0:
            stdv = 1.0 / math.sqrt(256 * 6 * 6)
            # downscale_in_infer: at inference the activations are scaled by 1 - p, as in Paddle
            self._drop1 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc6 = nn.Linear(in_features=256 * 6 * 6, out_features=4096, weight_attr=_uniform_attr(stdv),
                                  bias_attr=_uniform_attr(stdv))
            self._drop2 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc7 = nn.Linear(in_features=4096, out_features=4096, weight_attr=_uniform_attr(stdv),
                                  bias_attr=_uniform_attr(stdv))
            self._fc8 = nn.Linear(in_features=4096, out_features=num_classes, weight_attr=_uniform_attr(stdv),
                                  bias_attr=_uniform_attr(stdv))

    def forward(self, inputs):
        x = self._conv1(inputs)
        x = self._conv2(x)
        x = F.relu(self._conv3(x))
        x = F.relu(self._conv4(x))
        x = self._conv5(x)
        if self.num_classes > 0:
            x = _C.flatten(x, 1, -1)
            x = F.relu(self._fc6(self._drop1(x)))
            x = F.relu(self._fc7(self._drop2(x)))
            x = self._fc8(x)
        return x


def alexnet(pretrained=False, **kwargs):
    """AlexNet(**kwargs); pretrained=True is refused (oar never downloads)."""
    _reject_pretrained("alexnet", pretrained)
    return AlexNet(**kwargs)
