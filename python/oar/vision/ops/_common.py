"""Shared argument checks and small tensor helpers of oar.vision.ops."""
import numbers

import numpy as np


def _oar():
    import oar
    return oar


def check_tensor(fn, arg, value, ndim=None, dtypes=None):
    """value must be an oar Tensor (of rank ndim and one of dtypes when given)."""
    oar = _oar()
    if not isinstance(value, oar.Tensor):
        raise TypeError(f"{fn}: {arg} should be a Tensor, but got {type(value).__name__}")
    if ndim is not None and value.ndim != ndim:
        raise ValueError(f"{fn}: {arg} should be a {ndim}-D Tensor, but got shape {list(value.shape)}")
    if dtypes is not None and value.dtype.name not in dtypes:
        raise TypeError(f"{fn}: the dtype of {arg} should be one of {list(dtypes)}, but got "
                        f"{value.dtype.name}")
    return value


def pair(fn, arg, value):
    """An int or a sequence of 2 ints, as [a, b]."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return [int(value), int(value)]
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value):
        return [int(value[0]), int(value[1])]
    raise TypeError(f"{fn}: {arg} should be an int or a sequence of 2 ints, but got {value!r}")


def batch_index(fn, boxes, boxes_num, batch):
    """The image index of each box ([K] int64 tensor) from boxes_num (boxes per image)."""
    oar = _oar()
    check_tensor(fn, "boxes_num", boxes_num, dtypes=("int32", "int64"))
    counts = np.asarray(boxes_num.numpy(), dtype=np.int64).reshape(-1)
    if counts.shape[0] != batch:
        raise ValueError(f"{fn}: the length of boxes_num ({counts.shape[0]}) should equal the batch "
                         f"size of x ({batch})")
    if counts.sum() != boxes.shape[0]:
        raise ValueError(f"{fn}: the sum of boxes_num ({int(counts.sum())}) should equal the number "
                         f"of boxes ({boxes.shape[0]})")
    return oar.to_tensor(np.repeat(np.arange(batch, dtype=np.int64), counts))


def round_half_away(t):
    """std::round: halves go away from zero."""
    oar = _oar()
    return oar.sign(t) * oar.floor(oar.abs(t) + 0.5)


def one_hot_rows(idx, length, dtype):
    """(idx[..., None] == arange(length)) as dtype: [..., length]."""
    oar = _oar()
    return (idx.unsqueeze(-1) == oar.arange(length, dtype=idx.dtype)).astype(dtype)
