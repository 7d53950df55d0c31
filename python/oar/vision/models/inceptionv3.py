"""Inception v3, as paddle.vision.models.InceptionV3 (Paddle's inception_stem/inception_block_list names;
every convolution is a Conv2D -> BatchNorm2D -> ReLU ConvNormActivation)."""
import math

from ... import _C, nn
from ...framework.param_attr import ParamAttr
from ...nn.initializer import Uniform
from ._utils import _reject_pretrained
from .conv_norm_activation import ConvNormActivation


def _conv(in_channels, out_channels, kernel_size, stride=1, padding=0):
    return ConvNormActivation(in_channels, out_channels, kernel_size=kernel_size, stride=stride, padding=padding,
                              activation_layer=nn.ReLU)


class InceptionStem(nn.Layer):
    """Five convolutions and two 3x3 stride-2 max pools: 299x299x3 -> 35x35x192."""

    def __init__(self):
        super().__init__()
        self.conv_1a_3x3 = _conv(3, 32, 3, stride=2)
        self.conv_2a_3x3 = _conv(32, 32, 3)
        self.conv_2b_3x3 = _conv(32, 64, 3, padding=1)
        self.max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        self.conv_3b_1x1 = _conv(64, 80, 1)
        self.conv_4a_3x3 = _conv(80, 192, 3)

    def forward(self, x):
        x = self.conv_2b_3x3(self.conv_2a_3x3(self.conv_1a_3x3(x)))
        x = self.conv_4a_3x3(self.conv_3b_1x1(self.max_pool(x)))
        return self.max_pool(x)


class InceptionA(nn.Layer):
    """35x35 module: 1x1 | 1x1 -> 5x5 | 1x1 -> 3x3 -> 3x3 | 3x3 avg pool -> 1x1 (pool_features)."""

    def __init__(self, num_channels, pool_features):
        super().__init__()
        self.branch1x1 = _conv(num_channels, 64, 1)
        self.branch5x5_1 = _conv(num_channels, 48, 1)
        self.branch5x5_2 = _conv(48, 64, 5, padding=2)
        self.branch3x3dbl_1 = _conv(num_channels, 64, 1)
        self.branch3x3dbl_2 = _conv(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _conv(96, 96, 3, padding=1)
        # exclusive=False: the padded zeros count in the average, as in Paddle
        self.branch_pool = nn.AvgPool2D(kernel_size=3, stride=1, padding=1, exclusive=False)
        self.branch_pool_conv = _conv(num_channels, pool_features, 1)

    def forward(self, x):
        branch1x1 = self.branch1x1(x)
        branch5x5 = self.branch5x5_2(self.branch5x5_1(x))
        branch3x3dbl = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
        branch_pool = self.branch_pool_conv(self.branch_pool(x))
        return _C.concat([branch1x1, branch5x5, branch3x3dbl, branch_pool], 1)


class InceptionB(nn.Layer):
    """35x35 -> 17x17 reduction: 3x3 stride 2 | 1x1 -> 3x3 -> 3x3 stride 2 | 3x3 stride-2 max pool."""

    def __init__(self, num_channels):
        super().__init__()
        self.branch3x3 = _conv(num_channels, 384, 3, stride=2)
        self.branch3x3dbl_1 = _conv(num_channels, 64, 1)
        self.branch3x3dbl_2 = _conv(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _conv(96, 96, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        branch3x3 = self.branch3x3(x)
        branch3x3dbl = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
        return _C.concat([branch3x3, branch3x3dbl, self.branch_pool(x)], 1)


class InceptionC(nn.Layer):
    """17x17 module with factorized 7x7 convolutions (1x7 and 7x1) of channels_7x7 channels."""

    def __init__(self, num_channels, channels_7x7):
        super().__init__()
        c7 = channels_7x7
        self.branch1x1 = _conv(num_channels, 192, 1)
        self.branch7x7_1 = _conv(num_channels, c7, 1)
        self.branch7x7_2 = _conv(c7, c7, (1, 7), padding=(0, 3))
        self.branch7x7_3 = _conv(c7, 192, (7, 1), padding=(3, 0))
        self.branch7x7dbl_1 = _conv(num_channels, c7, 1)
        self.branch7x7dbl_2 = _conv(c7, c7, (7, 1), padding=(3, 0))
        self.branch7x7dbl_3 = _conv(c7, c7, (1, 7), padding=(0, 3))
        self.branch7x7dbl_4 = _conv(c7, c7, (7, 1), padding=(3, 0))
        self.branch7x7dbl_5 = _conv(c7, 192, (1, 7), padding=(0, 3))
        self.branch_pool = nn.AvgPool2D(kernel_size=3, stride=1, padding=1, exclusive=False)
        self.branch_pool_conv = _conv(num_channels, 192, 1)

    def forward(self, x):
        branch1x1 = self.branch1x1(x)
        branch7x7 = self.branch7x7_3(self.branch7x7_2(self.branch7x7_1(x)))
        branch7x7dbl = self.branch7x7dbl_1(x)
        for conv in (self.branch7x7dbl_2, self.branch7x7dbl_3, self.branch7x7dbl_4, self.branch7x7dbl_5):
            branch7x7dbl = conv(branch7x7dbl)
        branch_pool = self.branch_pool_conv(self.branch_pool(x))
        return _C.concat([branch1x1, branch7x7, branch7x7dbl, branch_pool], 1)


class InceptionD(nn.Layer):
    """17x17 -> 8x8 reduction: 1x1 -> 3x3 stride 2 | 1x1 -> 1x7 -> 7x1 -> 3x3 stride 2 | max pool."""

    def __init__(self, num_channels):
        super().__init__()
        self.branch3x3_1 = _conv(num_channels, 192, 1)
        self.branch3x3_2 = _conv(192, 320, 3, stride=2)
        self.branch7x7x3_1 = _conv(num_channels, 192, 1)
        self.branch7x7x3_2 = _conv(192, 192, (1, 7), padding=(0, 3))
        self.branch7x7x3_3 = _conv(192, 192, (7, 1), padding=(3, 0))
        self.branch7x7x3_4 = _conv(192, 192, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        branch3x3 = self.branch3x3_2(self.branch3x3_1(x))
        branch7x7x3 = self.branch7x7x3_1(x)
        for conv in (self.branch7x7x3_2, self.branch7x7x3_3, self.branch7x7x3_4):
            branch7x7x3 = conv(branch7x7x3)
        return _C.concat([branch3x3, branch7x7x3, self.branch_pool(x)], 1)


class InceptionE(nn.Layer):
    """8x8 module whose 3x3 branches end in parallel 1x3 and 3x1 convolutions, concatenated."""

    def __init__(self, num_channels):
        super().__init__()
        self.branch1x1 = _conv(num_channels, 320, 1)
        self.branch3x3_1 = _conv(num_channels, 384, 1)
        self.branch3x3_2a = _conv(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3_2b = _conv(384, 384, (3, 1), padding=(1, 0))
        self.branch3x3dbl_1 = _conv(num_channels, 448, 1)
        self.branch3x3dbl_2 = _conv(448, 384, 3, padding=1)
        self.branch3x3dbl_3a = _conv(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3dbl_3b = _conv(384, 384, (3, 1), padding=(1, 0))
        self.branch_pool = nn.AvgPool2D(kernel_size=3, stride=1, padding=1, exclusive=False)
        self.branch_pool_conv = _conv(num_channels, 192, 1)

    def forward(self, x):
        branch1x1 = self.branch1x1(x)
        branch3x3 = self.branch3x3_1(x)
        branch3x3 = _C.concat([self.branch3x3_2a(branch3x3), self.branch3x3_2b(branch3x3)], 1)
        branch3x3dbl = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        branch3x3dbl = _C.concat([self.branch3x3dbl_3a(branch3x3dbl), self.branch3x3dbl_3b(branch3x3dbl)], 1)
        branch_pool = self.branch_pool_conv(self.branch_pool(x))
        return _C.concat([branch1x1, branch3x3, branch3x3dbl, branch_pool], 1)


class InceptionV3(nn.Layer):
    """Inception v3 image classifier (Szegedy et al., "Rethinking the Inception Architecture for Computer
    Vision", 2016), built randomly initialized (oar never downloads weights). Inputs must be at least
    75x75 (299x299 is the usual size).

    Args:
        num_classes (int, optional): Size of the classifier output; <= 0 leaves the classifier out.
            Default: 1000.
        with_pool (bool, optional): End the features with global average pooling. Default: True.

    Returns:
        Layer: the InceptionV3 model. Its forward maps [N, 3, H, W] images to [N, num_classes] logits
        ([N, 2048, 1, 1] features with num_classes <= 0).

    Examples:
        >>> import oar
        >>> model = oar.vision.models.InceptionV3(num_classes=10)
        >>> _ = model.eval()
        >>> print(model(oar.ones([1, 3, 75, 75])).shape)
        [1, 10]
    """

    def __init__(self, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        # input channels (and InceptionA's pool features / InceptionC's 7x7 channels) of each module
        self.layers_config = {
            "inception_a": [[192, 256, 288], [32, 64, 64]],
            "inception_b": [288],
            "inception_c": [[768, 768, 768, 768], [128, 160, 160, 192]],
            "inception_d": [768],
            "inception_e": [1280, 2048],
        }
        cfg = self.layers_config
        self.inception_stem = InceptionStem()
        # one LayerList (keys inception_block_list.0 .. .10), in the order the modules run
        self.inception_block_list = nn.LayerList()
        for channels, pool_features in zip(*cfg["inception_a"]):
            self.inception_block_list.append(InceptionA(channels, pool_features))
        for channels in cfg["inception_b"]:
            self.inception_block_list.append(InceptionB(channels))
        for channels, channels_7x7 in zip(*cfg["inception_c"]):
            self.inception_block_list.append(InceptionC(channels, channels_7x7))
        for channels in cfg["inception_d"]:
            self.inception_block_list.append(InceptionD(channels))
        for channels in cfg["inception_e"]:
            self.inception_block_list.append(InceptionE(channels))
        if with_pool:
            self.avg_pool = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.dropout = nn.Dropout(p=0.2, mode="downscale_in_infer")
            stdv = 1.0 / math.sqrt(2048 * 1.0)
            self.fc = nn.Linear(2048, num_classes, weight_attr=ParamAttr(initializer=Uniform(-stdv, stdv)),
                                bias_attr=ParamAttr())

    def forward(self, x):
        x = self.inception_stem(x)
        for block in self.inception_block_list:
            x = block(x)
        if self.with_pool:
            x = self.avg_pool(x)
        if self.num_classes > 0:
            # rows of 2048 features, as Paddle: without the pool every position becomes a row
            x = self.fc(self.dropout(_C.reshape(x, [-1, 2048])))
        return x


def inception_v3(pretrained=False, **kwargs):
    """Inception v3: InceptionV3(**kwargs).

    Args:
        pretrained (bool, optional): Must be False: oar never downloads weights (True raises
            NotImplementedError); load a local Paddle checkpoint with set_state_dict instead. Default: False.
        **kwargs: num_classes, with_pool, as for InceptionV3.

    Returns:
        InceptionV3: the model, randomly initialized.

    Examples:
        >>> import oar
        >>> model = oar.vision.models.inception_v3(num_classes=0)
        >>> _ = model.eval()
        >>> print(model(oar.ones([1, 3, 75, 75])).shape)
        [1, 2048, 1, 1]
    """
    _reject_pretrained("inception_v3", pretrained)
    return InceptionV3(**kwargs)
