"""Python faces of special-family ops whose Paddle signatures take Python numbers where the C++
op takes tensors: copysign(x, y) and copysign_(x, y) with y a tensor or a number; and x.polar(angle)
(Paddle has polar as a Tensor method too). tensor/methods.py attaches them to Tensor."""
from .. import _C

Tensor = _C.Tensor


def _as_tensor(y, like):
    if isinstance(y, Tensor):
        return y
    if isinstance(y, bool) or not isinstance(y, (int, float)):
        raise TypeError(f"copysign: argument 'y' must be a Tensor, int or float, got {type(y).__name__}")
    return _C.full([], y, like.dtype)


def copysign(x, y, name=None):
    """|x| with the sign of y (a tensor or a number; -0.0 counts as negative)."""
    return _C.copysign(x, _as_tensor(y, x))


def copysign_(x, y, name=None):
    """In-place copysign: x takes the magnitudes of x and the signs of y.

    Args:
        x (Tensor): The input, floating point; it is overwritten.
        y (Tensor|float): The signs, broadcastable to x.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x, holding the result.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([1.0, -2.0])
        >>> _ = oar.copysign_(x, oar.to_tensor([-1.0, 1.0]))
        >>> print(x.numpy())
        [-1.  2.]
    """
    return _C.copysign_(x, _as_tensor(y, x))


def polar_method(abs, angle, name=None):
    """x.polar(angle): the complex tensor abs * (cos(angle) + i sin(angle)), abs = x."""
    return _C.polar(abs, angle)


__all__ = ["copysign", "copysign_", "polar_method"]
