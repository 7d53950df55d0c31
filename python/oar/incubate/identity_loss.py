"""identity_loss (paddle.incubate): marks a tensor as the loss, reduced by sum or mean or kept."""
from __future__ import annotations

__all__ = ["identity_loss"]

_MODES = {"sum": 0, "mean": 1, "none": 2}


def identity_loss(x, reduction="none"):
    """x reduced as a loss: its sum, its mean, or x itself.

    Args:
        x (Tensor): The loss values.
        reduction (str|int, optional): 'sum' (or 0), 'mean' (or 1) or 'none' (or 2). Default: 'none'.

    Returns:
        Tensor: a 0-D tensor for 'sum' and 'mean', else x unchanged.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([1.0, 2.0, 3.0])
        >>> print(oar.incubate.identity_loss(x, reduction="mean").item())
        2.0
        >>> print(oar.incubate.identity_loss(x, reduction=0).item())
        6.0
    """
    if isinstance(reduction, str):
        reduction = reduction.lower()  # Paddle takes 'MEAN' as 'mean'
        if reduction not in _MODES:
            raise TypeError("Unsupported reduction type.")
        reduction = _MODES[reduction]
    if isinstance(reduction, bool) or not isinstance(reduction, int):
        raise TypeError("Unsupported reduction type.")
    if reduction not in (0, 1, 2):
        raise ValueError(f"identity_loss: reduction should be 0, 1 and 2. But get {reduction}")
    if reduction == 0:
        return x.sum()
    if reduction == 1:
        return x.mean()
    return x
