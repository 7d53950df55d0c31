"""fused_dropout_add (paddle.incubate.nn.functional): dropout(x) + y in one op."""
from __future__ import annotations

from .... import _C

__all__ = ["fused_dropout_add"]

MODES = ("upscale_in_train", "downscale_in_infer")


def check_dropout(p, mode):
    """Paddle's checks of a dropout probability and mode."""
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise TypeError("p argument should be a number")
    if not 0 <= p <= 1:
        raise ValueError("p argument should between 0 and 1")
    if mode not in MODES:
        raise ValueError("mode argument should be 'downscale_in_infer' or 'upscale_in_train'")


def dropout(x, p, training, mode):
    """Paddle's dropout; a no-op when nothing is dropped or scaled."""
    if p == 0 and (training or mode == "upscale_in_train"):
        return x
    if not training and mode == "upscale_in_train":
        return x
    return _C.dropout(x, float(p), None, bool(training), mode)


def fused_dropout_add(x, y, p=0.5, training=True, mode="upscale_in_train", name=None):
    """dropout(x, p) + y.

    Args:
        x (Tensor): The tensor dropout acts on.
        y (Tensor): Added after the dropout; x's shape.
        p (float, optional): The probability of zeroing an element of x. Default: 0.5.
        training (bool, optional): Training (drops) or inference. Default: True.
        mode (str, optional): 'upscale_in_train' (kept elements scaled by 1 / (1 - p) in
            training, none at inference) or 'downscale_in_infer' (none in training, x * (1 - p)
            at inference). Default: 'upscale_in_train'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x's shape and dtype.

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import fused_dropout_add
        >>> x, y = oar.ones([2, 2]), oar.ones([2, 2])
        >>> print(fused_dropout_add(x, y, p=0.5, training=False).numpy())
        [[2. 2.]
         [2. 2.]]
    """
    check_dropout(p, mode)
    return dropout(x, p, training, mode) + y
