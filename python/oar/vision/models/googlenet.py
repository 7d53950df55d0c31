"""GoogLeNet (Inception v1), as paddle.vision.models.GoogLeNet: Paddle's _conv/_inceNx names, its two
auxiliary heads, and its quirks (no normalization, no activation between the stem convolutions)."""
from ... import _C, nn
from ...framework.param_attr import ParamAttr
from ...nn import functional as F
from ...nn.initializer import Uniform
from ._utils import _reject_pretrained


def xavier(channels, filter_size):
    """Uniform in +-sqrt(3 / fan_in): the initializer of Paddle's GoogLeNet classifiers."""
    stdv = (3.0 / (filter_size ** 2 * channels)) ** 0.5
    return ParamAttr(initializer=Uniform(-stdv, stdv))


class ConvLayer(nn.Layer):
    """A bias-free 'same' convolution, nothing after it (the Inception module applies the ReLU)."""

    def __init__(self, num_channels, num_filters, filter_size, stride=1, groups=1):
        super().__init__()
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride,
                               padding=(filter_size - 1) // 2, groups=groups, bias_attr=False)

    def forward(self, inputs):
        return self._conv(inputs)


class Inception(nn.Layer):
    """Four parallel branches (1x1; 1x1 -> 3x3; 1x1 -> 5x5; 3x3 max pool -> 1x1) concatenated, then ReLU.
    output_channels is unused, as in Paddle: the sum of the branch widths decides it."""

    def __init__(self, input_channels, output_channels, filter1, filter3R, filter3, filter5R, filter5, proj):
        super().__init__()
        self._conv1 = ConvLayer(input_channels, filter1, 1)
        self._conv3r = ConvLayer(input_channels, filter3R, 1)
        self._conv3 = ConvLayer(filter3R, filter3, 3)
        self._conv5r = ConvLayer(input_channels, filter5R, 1)
        self._conv5 = ConvLayer(filter5R, filter5, 5)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=1, padding=1)
        self._convprj = ConvLayer(input_channels, proj, 1)

    def forward(self, inputs):
        branches = [self._conv1(inputs), self._conv3(self._conv3r(inputs)), self._conv5(self._conv5r(inputs)),
                    self._convprj(self._pool(inputs))]
        return F.relu(_C.concat(branches, 1))


class GoogLeNet(nn.Layer):
    """GoogLeNet (Inception v1) image classifier (Szegedy et al., "Going Deeper with Convolutions", 2015),
    built randomly initialized (oar never downloads weights).

    The forward returns three tensors: the main output and those of the auxiliary heads on inception 4a
    and 4d. With the default with_pool and num_classes > 0 the auxiliary heads need 3x3 maps after their
    5x5/3 average pool, i.e. inputs of about 192x192 to 224x224.

    Args:
        num_classes (int, optional): Size of the classifier outputs; <= 0 leaves the classifiers out (the
            three outputs are then feature maps). Default: 1000.
        with_pool (bool, optional): Pool the three feature maps before the classifiers. Default: True.

    Returns:
        Layer: the GoogLeNet model. Its forward maps [N, 3, H, W] images to three [N, num_classes] logits.

    Examples:
        >>> import oar
        >>> model = oar.vision.models.GoogLeNet(num_classes=0)
        >>> _ = model.eval()
        >>> out, aux1, aux2 = model(oar.ones([1, 3, 64, 64]))
        >>> print(out.shape, aux1.shape, aux2.shape)
        [1, 1024, 1, 1] [1, 512, 1, 1] [1, 528, 1, 1]
    """

    def __init__(self, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        self._conv = ConvLayer(3, 64, 7, 2)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2)
        self._conv_1 = ConvLayer(64, 64, 1)
        self._conv_2 = ConvLayer(64, 192, 3)
        # (in, out, 1x1, 3x3 reduce, 3x3, 5x5 reduce, 5x5, pool projection) of each module
        self._ince3a = Inception(192, 192, 64, 96, 128, 16, 32, 32)
        self._ince3b = Inception(256, 256, 128, 128, 192, 32, 96, 64)
        self._ince4a = Inception(480, 480, 192, 96, 208, 16, 48, 64)
        self._ince4b = Inception(512, 512, 160, 112, 224, 24, 64, 64)
        self._ince4c = Inception(512, 512, 128, 128, 256, 24, 64, 64)
        self._ince4d = Inception(512, 512, 112, 144, 288, 32, 64, 64)
        self._ince4e = Inception(528, 528, 256, 160, 320, 32, 128, 128)
        self._ince5a = Inception(832, 832, 256, 160, 320, 32, 128, 128)
        self._ince5b = Inception(832, 832, 384, 192, 384, 48, 128, 128)
        if with_pool:
            self._pool_5 = nn.AdaptiveAvgPool2D(1)
            self._pool_o1 = nn.AvgPool2D(kernel_size=5, stride=3)
            self._pool_o2 = nn.AvgPool2D(kernel_size=5, stride=3)
        if num_classes > 0:
            self._drop = nn.Dropout(p=0.4, mode="downscale_in_infer")
            self._fc_out = nn.Linear(1024, num_classes, weight_attr=xavier(1024, 1))
            # the auxiliary heads: 1x1 conv to 128 channels, then 128 * 3 * 3 = 1152 features
            self._conv_o1 = ConvLayer(512, 128, 1)
            self._fc_o1 = nn.Linear(1152, 1024, weight_attr=xavier(2048, 1))
            self._drop_o1 = nn.Dropout(p=0.7, mode="downscale_in_infer")
            self._out1 = nn.Linear(1024, num_classes, weight_attr=xavier(1024, 1))
            self._conv_o2 = ConvLayer(528, 128, 1)
            self._fc_o2 = nn.Linear(1152, 1024, weight_attr=xavier(2048, 1))
            self._drop_o2 = nn.Dropout(p=0.7, mode="downscale_in_infer")
            self._out2 = nn.Linear(1024, num_classes, weight_attr=xavier(1024, 1))

    def forward(self, inputs):
        x = self._pool(self._conv(inputs))
        x = self._pool(self._conv_2(self._conv_1(x)))
        x = self._pool(self._ince3b(self._ince3a(x)))
        ince4a = self._ince4a(x)
        ince4d = self._ince4d(self._ince4c(self._ince4b(ince4a)))
        x = self._pool(self._ince4e(ince4d))
        out, out1, out2 = self._ince5b(self._ince5a(x)), ince4a, ince4d
        if self.with_pool:
            out = self._pool_5(out)
            out1 = self._pool_o1(out1)
            out2 = self._pool_o2(out2)
        if self.num_classes > 0:
            out = self._fc_out(_C.squeeze(self._drop(out), [2, 3]))
            out1 = self._fc_o1(_C.flatten(self._conv_o1(out1), 1, -1))
            out1 = self._out1(self._drop_o1(F.relu(out1)))
            # the second head has no ReLU after its first fully connected layer, as in Paddle
            out2 = self._fc_o2(_C.flatten(self._conv_o2(out2), 1, -1))
            out2 = self._out2(self._drop_o2(out2))
        return out, out1, out2


def googlenet(pretrained=False, **kwargs):
    """GoogLeNet (Inception v1): GoogLeNet(**kwargs).

    Args:
        pretrained (bool, optional): Must be False: oar never downloads weights (True raises
            NotImplementedError); load a local Paddle checkpoint with set_state_dict instead. Default: False.
        **kwargs: num_classes, with_pool, as for GoogLeNet.

    Returns:
        GoogLeNet: the model, randomly initialized; its forward returns (out, aux1, aux2).

    Examples:
        >>> import oar
        >>> model = oar.vision.models.googlenet(num_classes=10, with_pool=False)
        >>> _ = model.eval()
        >>> out, aux1, aux2 = model(oar.ones([1, 3, 64, 64]))
        >>> print(out.shape, aux1.shape, aux2.shape)
        [1, 10] [1, 10] [1, 10]
    """
    _reject_pretrained("googlenet", pretrained)
    return GoogLeNet(**kwargs)
