"""fused_matmul_bias, fused_linear and fused_linear_activation (paddle.incubate.nn.functional):
a matmul, its bias and an activation in one op (oar's fused_matmul_bias kernel)."""
from __future__ import annotations

from .... import _C

__all__ = ["fused_matmul_bias", "fused_linear", "fused_linear_activation"]

# Paddle's fused_gemm_epilogue runs cuBLASLt's GELU epilogue: the tanh approximation.
_ACTIVATIONS = {None: "none", "none": "none", "relu": "relu", "gelu": "gelu_tanh"}


def _matmul_bias(fn, x, y, bias, transpose_x, transpose_y, activation):
    for what, t in (("x", x), ("y", y)):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"{fn}: {what} should be a Tensor, got {type(t).__name__}")
    if y.ndim != 2:
        raise ValueError(f"{fn}: the rank of y should be 2, got {y.ndim}")
    if x.ndim < 2:
        raise ValueError(f"{fn}: the rank of x should be at least 2, got {x.ndim}")
    if bias is None:
        out = _C.matmul(x, y, transpose_x, transpose_y)
        return out if activation == "none" else _C.fused_activation(out, activation)
    return _C.fused_matmul_bias(x, y, bias, transpose_x, transpose_y, activation)


def fused_matmul_bias(x, y, bias=None, transpose_x=False, transpose_y=False, name=None):
    """matmul(x, y) + bias in one op.

    Args:
        x (Tensor): [..., M, K] (or [..., K, M] with transpose_x).
        y (Tensor): [K, N] (or [N, K] with transpose_y).
        bias (Tensor, optional): [N]; None: no bias. Default: None.
        transpose_x (bool, optional): Transpose x's last two dims first. Default: False.
        transpose_y (bool, optional): Transpose y first. Default: False.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: [..., M, N].

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import fused_matmul_bias
        >>> out = fused_matmul_bias(oar.ones([2, 3]), oar.ones([3, 4]), oar.ones([4]))
        >>> print(out.numpy())
        [[4. 4. 4. 4.]
         [4. 4. 4. 4.]]
    """
    return _matmul_bias("fused_matmul_bias", x, y, bias, transpose_x, transpose_y, "none")


def fused_linear(x, weight, bias=None, transpose_weight=False, name=None):
    """x @ weight + bias in one op (a fully connected layer).

    Args:
        x (Tensor): [..., in_features].
        weight (Tensor): [in_features, out_features] ([out_features, in_features] with
            transpose_weight).
        bias (Tensor, optional): [out_features]. Default: None.
        transpose_weight (bool, optional): Transpose weight first. Default: False.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: [..., out_features].

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import fused_linear
        >>> out = fused_linear(oar.ones([2, 3]), oar.ones([3, 4]), oar.zeros([4]))
        >>> print(out.shape)
        [2, 4]
    """
    return _matmul_bias("fused_linear", x, weight, bias, False, transpose_weight, "none")


def fused_linear_activation(x, y, bias, trans_x=False, trans_y=False, activation=None):
    """activation(matmul(x, y) + bias) in one op.

    Args:
        x (Tensor): [..., M, K] (or [..., K, M] with trans_x).
        y (Tensor): [K, N] (or [N, K] with trans_y).
        bias (Tensor): [N].
        trans_x (bool, optional): Transpose x's last two dims first. Default: False.
        trans_y (bool, optional): Transpose y first. Default: False.
        activation (str, optional): None, 'relu' or 'gelu' (the tanh approximation, as cuBLASLt's
            epilogue that Paddle runs). Default: None.

    Returns:
        Tensor: [..., M, N].

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import fused_linear_activation
        >>> x = oar.to_tensor([[1.0, -2.0]])
        >>> out = fused_linear_activation(x, oar.eye(2), oar.zeros([2]), activation="relu")
        >>> print(out.numpy())
        [[1. 0.]]
    """
    if activation not in _ACTIVATIONS:
        raise ValueError(f"fused_linear_activation: activation should be None, 'relu' or 'gelu', got {activation!r}")
    return _matmul_bias("fused_linear_activation", x, y, bias, trans_x, trans_y, _ACTIVATIONS[activation])
