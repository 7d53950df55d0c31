"""FusedLinear and FusedDropoutAdd (paddle.incubate.nn): the small fused layers."""
from __future__ import annotations

from ...nn.layer.layers import Layer
from .functional.dropout_add import check_dropout, fused_dropout_add
from .functional.matmul_bias import fused_linear

__all__ = ["FusedLinear", "FusedDropoutAdd"]


class FusedLinear(Layer):
    """A fully connected layer run as one matmul-and-bias op: out = x @ weight + bias.

    Args:
        in_features (int): Input features.
        out_features (int): Output features.
        weight_attr (ParamAttr, optional): The weight's attribute. Default: None.
        bias_attr (ParamAttr|bool, optional): The bias's attribute; False: no bias. Default: None.
        transpose_weight (bool, optional): Store weight as [out_features, in_features]. Default: False.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Shape:
        weight: [in_features, out_features] ([out_features, in_features] with transpose_weight);
        bias: [out_features].

    Examples:
        >>> import oar
        >>> linear = oar.incubate.nn.FusedLinear(4, 6)
        >>> print(linear(oar.ones([2, 4])).shape)
        [2, 6]
    """

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, transpose_weight=False,
                 name=None):
        super().__init__()
        shape = [out_features, in_features] if transpose_weight else [in_features, out_features]
        self.weight = self.create_parameter(shape=shape, attr=weight_attr, is_bias=False)
        self.bias = self.create_parameter(shape=[out_features], attr=bias_attr, is_bias=True)
        self.transpose_weight = transpose_weight
        self.name = name

    def forward(self, input):
        return fused_linear(input, self.weight, self.bias, self.transpose_weight)


class FusedDropoutAdd(Layer):
    """dropout(x) + y as a layer (dropout active in training mode).

    Args:
        p (float, optional): The probability of zeroing an element of x. Default: 0.5.
        mode (str, optional): 'upscale_in_train' or 'downscale_in_infer'. Default: 'upscale_in_train'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Examples:
        >>> import oar
        >>> layer = oar.incubate.nn.FusedDropoutAdd(p=0.5)
        >>> _ = layer.eval()
        >>> print(layer(oar.ones([2]), oar.ones([2])).numpy())
        [2. 2.]
    """

    def __init__(self, p=0.5, mode="upscale_in_train", name=None):
        super().__init__()
        check_dropout(p, mode)
        self.p = p
        self.mode = mode
        self.name = name

    def forward(self, x, y):
        return fused_dropout_add(x, y, p=self.p, training=self.training, mode=self.mode)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return f"p={self.p}, mode={self.mode}{name_str}"
