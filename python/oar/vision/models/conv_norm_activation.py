"""ConvNormActivation: the Conv2D -> norm -> activation Sequential the MobileNets are built from.

Paddle keeps it in paddle.vision.ops; it lives here until oar.vision.ops exists. Being a Sequential,
its sublayers are named 0, 1, 2, which is what the state-dict keys of the MobileNets depend on.
"""
from ... import nn


class ConvNormActivation(nn.Sequential):
    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None, groups=1,
                 norm_layer=nn.BatchNorm2D, activation_layer=nn.ReLU, dilation=1, bias=None):
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            # a conv followed by a norm needs no bias of its own
            bias = norm_layer is None
        layers = [nn.Conv2D(in_channels, out_channels, kernel_size, stride, padding, dilation=dilation,
                            groups=groups, bias_attr=bias)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)
