"""softmax_mask_fuse and softmax_mask_fuse_upper_triangle (paddle.incubate): the softmax of
attention scores with an additive mask, or with the causal (upper-triangle) mask."""
from __future__ import annotations

from .. import _C
from ._softmax_mask import softmax_mask

__all__ = ["softmax_mask_fuse", "softmax_mask_fuse_upper_triangle"]

_DTYPES = ("float16", "bfloat16", "float32", "float64")


def _check_x(fn, x):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"{fn}: x should be a Tensor, got {type(x).__name__}")
    if x.dtype.name not in _DTYPES:
        raise TypeError(f"{fn}: x should be float16, bfloat16, float32 or float64, got {x.dtype.name}")
    if x.ndim != 4:
        raise ValueError(f"{fn}: Input x must be in 4D dimension but received the dimension of X is {x.ndim}")


def softmax_mask_fuse(x, mask, name=None):
    """softmax(x + mask) along the last axis.

    Args:
        x (Tensor): Attention scores [batch, heads, seq_q, seq_k]; float16, bfloat16, float32 or float64.
        mask (Tensor): Additive mask [batch, 1, seq_q, seq_k], x's dtype (0 keeps a score, a large
            negative value drops it); broadcast over the heads.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x's shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.zeros([1, 1, 2, 3])
        >>> mask = oar.to_tensor([[[[0.0, 0.0, -1e4], [0.0, 0.0, 0.0]]]])
        >>> print(oar.incubate.softmax_mask_fuse(x, mask).numpy().round(4))
        [[[[0.5    0.5    0.    ]
           [0.3333 0.3333 0.3333]]]]
    """
    fn = "softmax_mask_fuse"
    _check_x(fn, x)
    if not isinstance(mask, _C.Tensor):
        raise TypeError(f"{fn}: mask should be a Tensor, got {type(mask).__name__}")
    if mask.ndim != 4:
        raise ValueError(f"{fn}: Input mask must be in 4D dimension but received the dimension of mask "
                         f"is {mask.ndim}")
    if mask.shape[1] != 1:
        raise ValueError(f"{fn}: Input mask's second dim must be 1 received the second dimension of mask "
                         f"is {mask.shape[1]}")
    for d in (0, 2, 3):
        if mask.shape[d] != x.shape[d]:
            raise ValueError(f"{fn}: Input x's {d}th dim should be equal with input mask's {d}th dim, "
                             f"got {x.shape[d]} and {mask.shape[d]}")
    return softmax_mask(x, mask)


def softmax_mask_fuse_upper_triangle(x):
    """softmax along the last axis of x with the scores above the diagonal left out (a causal
    mask: query i attends to keys 0..i).

    Args:
        x (Tensor): Attention scores [batch, heads, seq_q, seq_k]; float16, bfloat16, float32 or float64.

    Returns:
        Tensor: x's shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.zeros([1, 1, 3, 3])
        >>> print(oar.incubate.softmax_mask_fuse_upper_triangle(x).numpy().round(4))
        [[[[1.     0.     0.    ]
           [0.5    0.5    0.    ]
           [0.3333 0.3333 0.3333]]]]
    """
    _check_x("softmax_mask_fuse_upper_triangle", x)
    return softmax_mask(x, upper_triangle=True)

