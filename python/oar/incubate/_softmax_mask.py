"""The one softmax-with-mask computation of oar.incubate (softmax_mask_fuse and
softmax_mask_fuse_upper_triangle, and the attention of the fused transformer functions route
through it), so that a fused C++ kernel can replace it in one place.

softmax(x + mask) along the last axis; upper_triangle: the scores above the diagonal of the last
two axes (key j > query i) are left out, as a causal mask does."""
from __future__ import annotations

from .. import _C


def _causal_bias(rows, cols, dtype):
    """[rows, cols]: 0 where key j <= query i, -inf above the diagonal."""
    keep = _C.tril(_C.ones([rows, cols], "bool"))
    return _C.where(keep, _C.zeros([rows, cols], dtype), _C.full([rows, cols], float("-inf"), dtype))


def softmax_mask(x, mask=None, upper_triangle=False):
    """softmax(x [+ mask] [+ causal bias], axis=-1); mask broadcasts to x. The fused kernel
    (oar/kernels/cpu/softmax.h: masked and normalised in one pass per row) takes every case with
    x at least 2-D and mask of no more dims than x; the composition below the rest."""
    if x.ndim >= 2 and (mask is None or mask.ndim <= x.ndim):
        return _C.softmax_mask(x, None if mask is None else _C.cast(mask, x.dtype), upper_triangle)
    scores = x if mask is None else x + _C.cast(mask, x.dtype)
    if upper_triangle:
        scores = scores + _causal_bias(x.shape[-2], x.shape[-1], x.dtype)
    return _C.softmax(scores, -1)
