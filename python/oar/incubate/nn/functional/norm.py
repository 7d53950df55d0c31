"""fused_rms_norm and fused_layer_norm (paddle.incubate.nn.functional): a norm of
x + bias + residual_alpha * residual that also returns that sum, for the next residual add."""
from __future__ import annotations

from .... import _C
from ._norm import fused_norm

__all__ = ["fused_rms_norm", "fused_layer_norm"]


def _check(fn, x, quant_scale):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"{fn}: x should be a Tensor, got {type(x).__name__}")
    if quant_scale > 0:
        raise NotImplementedError(f"{fn}: quant_scale (int8 output) is not supported")


def _empty(x):
    """What Paddle returns for residual_out without a residual: an empty tensor."""
    return _C.zeros([0], x.dtype)


def fused_rms_norm(x, norm_weight, norm_bias, epsilon, begin_norm_axis=1, bias=None, residual=None,
                   quant_scale=-1, quant_round_type=0, quant_max_bound=0, quant_min_bound=0):
    """RMS norm of x, or of x + bias + residual.

    With residual, h = x + bias + residual (bias optional) is normalised and also returned as
    residual_out; without it, x is normalised (bias unused). The norm is over the dims from
    begin_norm_axis on: h / sqrt(mean(h^2) + epsilon) * norm_weight + norm_bias.

    Args:
        x (Tensor): The input.
        norm_weight (Tensor): 1-D scale, as many elements as the normalised dims.
        norm_bias (Tensor|None): 1-D shift, norm_weight's size, or None.
        epsilon (float): Added to the mean square.
        begin_norm_axis (int, optional): The first normalised dim. Default: 1.
        bias (Tensor, optional): The previous layer's bias, added with residual. Default: None.
        residual (Tensor, optional): The residual branch, x's shape. Default: None.
        quant_scale (float, optional): > 0 asks for int8 output: not supported (raises
            NotImplementedError). Default: -1.
        quant_round_type, quant_max_bound, quant_min_bound: Used only with quant_scale.

    Returns:
        tuple: (out, residual_out): out x's shape and dtype; residual_out the sum h with residual,
        else an empty tensor (as Paddle).

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import fused_rms_norm
        >>> x = oar.to_tensor([[1.0, 2.0, 2.0, 4.0]])
        >>> out, _ = fused_rms_norm(x, oar.ones([4]), None, 1e-6)
        >>> print(out.numpy().round(4))
        [[0.4 0.8 0.8 1.6]]
    """
    _check("fused_rms_norm", x, quant_scale)
    out, residual_out = fused_norm(x, norm_weight, norm_bias, epsilon, begin_norm_axis, bias, residual,
                                   1.0, kind="rms")
    return out, (_empty(x) if residual_out is None else residual_out)


def fused_layer_norm(x, norm_weight, norm_bias, epsilon, residual_alpha=1.0, begin_norm_axis=1, bias=None,
                     residual=None, quant_scale=-1, quant_round_type=0, quant_max_bound=0, quant_min_bound=0):
    """Layer norm of x, or of x + bias + residual_alpha * residual.

    With residual, h = x + bias + residual_alpha * residual (bias optional) is normalised and also
    returned as residual_out; without it, x is normalised (bias unused). The norm is over the dims
    from begin_norm_axis on: (h - mean) / sqrt(var + epsilon) * norm_weight + norm_bias. With
    neither norm_weight nor norm_bias, out is h itself.

    Args:
        x (Tensor): The input.
        norm_weight (Tensor|None): 1-D scale, as many elements as the normalised dims.
        norm_bias (Tensor|None): 1-D shift, norm_weight's size.
        epsilon (float): Added to the variance.
        residual_alpha (float, optional): The residual's scale. Default: 1.0.
        begin_norm_axis (int, optional): The first normalised dim. Default: 1.
        bias (Tensor, optional): The previous layer's bias, added with residual. Default: None.
        residual (Tensor, optional): The residual branch, x's shape. Default: None.
        quant_scale (float, optional): > 0 asks for int8 output: not supported (raises
            NotImplementedError). Default: -1.
        quant_round_type, quant_max_bound, quant_min_bound: Used only with quant_scale.

    Returns:
        tuple: (out, residual_out, mean, invvar): out x's shape and dtype; residual_out the sum h
        with residual, else an empty tensor (as Paddle); mean and invvar (1 / sqrt(var + epsilon))
        of each normalised row, 1-D, without gradient.

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import fused_layer_norm
        >>> x = oar.to_tensor([[1.0, 2.0, 3.0, 4.0]])
        >>> out, _, mean, invvar = fused_layer_norm(x, oar.ones([4]), oar.zeros([4]), 1e-5)
        >>> print(out.numpy().round(4), mean.numpy())
        [[-1.3416 -0.4472  0.4472  1.3416]] [2.5]
    """
    _check("fused_layer_norm", x, quant_scale)
    out, residual_out, mean, invvar = fused_norm(x, norm_weight, norm_bias, epsilon, begin_norm_axis, bias,
                                                 residual, residual_alpha, kind="layer", stats=True)
    return out, (_empty(x) if residual_out is None else residual_out), mean, invvar
