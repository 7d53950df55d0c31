"""fused_bias_act (paddle.incubate.nn.functional): an activation of x + bias, including the
gated ones (swiglu, geglu) that split the last axis in halves."""
from __future__ import annotations

from .... import _C
from ....nn import functional as F

__all__ = ["fused_bias_act"]

_PLAIN = {"gelu": lambda t: _C.gelu(t, False), "relu": _C.relu, "silu": _C.silu}
_GATED = {"swiglu": _C.silu, "geglu": lambda t: _C.gelu(t, False)}


def fused_bias_act(x, bias=None, dequant_scales=None, shift=None, smooth=None, act_method="gelu",
                   compute_dtype="default", quant_scale=-1, quant_round_type=0, quant_max_bound=0,
                   quant_min_bound=0):
    """act_method(x + bias).

    'gelu' (exact, erf form), 'relu' and 'silu' act on every element; the gated 'swiglu' and
    'geglu' split the last axis of x + bias in halves a, b and return silu(a) * b or
    gelu(a) * b (half the last dim).

    Args:
        x (Tensor): The input, [..., N].
        bias (Tensor, optional): [N], added before the activation. Default: None.
        dequant_scales, shift, smooth (Tensor, optional): For int8 inputs / outputs: not supported
            (NotImplementedError when given). Default: None.
        act_method (str, optional): 'gelu', 'relu', 'silu', 'swiglu' or 'geglu'. Default: 'gelu'.
        compute_dtype (str, optional): Paddle's compute dtype switch for int inputs; ignored
            (x's dtype is used). Default: 'default'.
        quant_scale (float, optional): > 0 asks for int8 output: not supported. Default: -1.
        quant_round_type, quant_max_bound, quant_min_bound: Used only with quant_scale.

    Returns:
        Tensor: x's dtype; x's shape, or half its last dim for the gated activations.

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import fused_bias_act
        >>> x = oar.to_tensor([[-1.0, 0.5, 2.0, 3.0]])
        >>> print(fused_bias_act(x, oar.ones([4]), act_method="relu").numpy())
        [[0.  1.5 3.  4. ]]
        >>> print(fused_bias_act(x, act_method="swiglu").shape)
        [1, 2]
    """
    fn = "fused_bias_act"
    for what, value in (("dequant_scales", dequant_scales), ("shift", shift), ("smooth", smooth)):
        if value is not None:
            raise NotImplementedError(f"{fn}: {what} (int8 quantization) is not supported")
    if quant_scale > 0:
        raise NotImplementedError(f"{fn}: quant_scale (int8 output) is not supported")
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"{fn}: x should be a Tensor, got {type(x).__name__}")
    if act_method not in _PLAIN and act_method not in _GATED:
        raise ValueError(f"{fn}: act_method should be one of 'gelu', 'relu', 'silu', 'swiglu', 'geglu', "
                         f"got {act_method!r}")
    h = x if bias is None else x + bias
    if act_method in _PLAIN:
        return _PLAIN[act_method](h)
    if h.shape[-1] % 2:
        raise ValueError(f"{fn}: the last dim of x should be even for {act_method}, got {h.shape[-1]}")
    if act_method == "swiglu":
        return F.swiglu(h)
    a, b = _C.chunk(h, 2, h.ndim - 1)
    return _GATED[act_method](a) * b
