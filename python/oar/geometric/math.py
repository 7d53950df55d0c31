"""Segment reductions: rows of data sharing a (sorted) segment id reduced together
(paddle.geometric.segment_sum, segment_mean, segment_max, segment_min)."""
from __future__ import annotations

from .. import _C
from ._checks import INDEX_DTYPES, VALUE_DTYPES, check_tensor

__all__ = ["segment_sum", "segment_mean", "segment_min", "segment_max"]

_DOC = """Segment {what} of the rows of data.

    Rows with equal segment ids form a segment; the ids are sorted, and the result has
    max(segment_ids) + 1 rows: row i is the {what} of segment i's rows (0 for an empty segment).

    Args:
        data (Tensor): float16, bfloat16, float32, float64, int32 or int64, at least 1-D.
        segment_ids (Tensor): int32 or int64, 1-D, sorted, one id per row of data.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: [max(segment_ids) + 1, data's other dims], data's dtype.

    Examples:
        >>> import oar
        >>> data = oar.to_tensor([[1, 2, 3], [3, 2, 1], [4, 5, 6]], dtype="float32")
        >>> segment_ids = oar.to_tensor([0, 0, 1], dtype="int32")
        >>> print(oar.geometric.segment_{name}(data, segment_ids).numpy())
        {example}
"""


def _segment(fn, pooltype, data, segment_ids):
    check_tensor(fn, "data", data, VALUE_DTYPES)
    check_tensor(fn, "segment_ids", segment_ids, INDEX_DTYPES)
    return _C.segment_pool(data, segment_ids, pooltype)[0]


def segment_sum(data, segment_ids, name=None):
    return _segment("segment_sum", "sum", data, segment_ids)


def segment_mean(data, segment_ids, name=None):
    return _segment("segment_mean", "mean", data, segment_ids)


def segment_min(data, segment_ids, name=None):
    return _segment("segment_min", "min", data, segment_ids)


def segment_max(data, segment_ids, name=None):
    return _segment("segment_max", "max", data, segment_ids)


segment_sum.__doc__ = _DOC.format(what="sum", name="sum", example="[[4. 4. 4.]\n         [4. 5. 6.]]")
segment_mean.__doc__ = _DOC.format(what="mean", name="mean", example="[[2. 2. 2.]\n         [4. 5. 6.]]")
segment_min.__doc__ = _DOC.format(what="minimum", name="min", example="[[1. 2. 1.]\n         [4. 5. 6.]]")
segment_max.__doc__ = _DOC.format(what="maximum", name="max", example="[[3. 2. 3.]\n         [4. 5. 6.]]")
