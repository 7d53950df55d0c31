"""Axis arguments as Paddle takes them (an int or a list of ints, negative ones counting from the
last dim), normalised to non-negative dims; shared by the manipulation, math and linalg modules."""

__all__ = ["normalize_axes"]


def normalize_axes(rank, axis):
    """axis (an int or a list of ints) as a list of non-negative dims of a rank-`rank` tensor."""
    return [a + rank if a < 0 else a for a in ([axis] if isinstance(axis, int) else list(axis))]
