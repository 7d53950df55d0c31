"""VGG 11/13/16/19 with optional batch norm, as paddle.vision.models.VGG."""
from ... import _C, nn
from ._utils import _reject_pretrained


class VGG(nn.Layer):
    """`features` (a Layer, usually from make_layers), a 7x7 adaptive average pool, a 3-layer classifier."""

    def __init__(self, features, num_classes=1000, with_pool=True):
        super().__init__()
        if not isinstance(features, nn.Layer):
            raise TypeError(f"VGG: 'features' must be a Layer, but got {type(features).__name__}")
        self.features = features
        self.num_classes = num_classes
        self.with_pool = with_pool
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((7, 7))
        if num_classes > 0:
            self.classifier = nn.Sequential(
                nn.Linear(512 * 7 * 7, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, num_classes),
            )

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.classifier(_C.flatten(x, 1, -1))
        return x


def make_layers(cfg, batch_norm=False):
    """The feature extractor: an int is a 3x3 conv (+BatchNorm2D) + ReLU with that many channels, 'M' a 2x2 max pool."""
    layers = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2D(kernel_size=2, stride=2))
            continue
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise ValueError(f"make_layers: each entry of 'cfg' must be a positive int or 'M', but got {v!r}")
        layers.append(nn.Conv2D(in_channels, v, kernel_size=3, padding=1))
        if batch_norm:
            layers.append(nn.BatchNorm2D(v))
        layers.append(nn.ReLU())
        in_channels = v
    return nn.Sequential(*layers)


cfgs = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M",
          512, 512, 512, 512, "M"],
}


def _vgg(arch, cfg, batch_norm, pretrained, **kwargs):
    _reject_pretrained(arch + ("_bn" if batch_norm else ""), pretrained)
    return VGG(make_layers(cfgs[cfg], batch_norm=batch_norm), **kwargs)


def vgg11(pretrained=False, batch_norm=False, **kwargs):
    """VGG-11 (configuration A)."""
    return _vgg("vgg11", "A", batch_norm, pretrained, **kwargs)


def vgg13(pretrained=False, batch_norm=False, **kwargs):
    """VGG-13 (configuration B)."""
    return _vgg("vgg13", "B", batch_norm, pretrained, **kwargs)


def vgg16(pretrained=False, batch_norm=False, **kwargs):
    """VGG-16 (configuration D)."""
    return _vgg("vgg16", "D", batch_norm, pretrained, **kwargs)


def vgg19(pretrained=False, batch_norm=False, **kwargs):
    """VGG-19 (configuration E)."""
    return _vgg("vgg19", "E", batch_norm, pretrained, **kwargs)
