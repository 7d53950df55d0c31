"""Inputs of paddle.nn.functional: embedding, embedding_renorm_ and one_hot."""
import numbers

from ... import _C

__all__ = ["embedding", "embedding_renorm_", "one_hot"]

_ID_DTYPES = ("int32", "int64")
_FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")


def embedding(x, weight, padding_idx=None, max_norm=None, norm_type=2.0, sparse=False,
              scale_grad_by_freq=False, name=None):
    """Rows of weight [num_embeddings, dim] picked by the int ids in x; lookups of padding_idx
    give zeros and no gradient. The gradient of weight is dense (sparse is accepted). With
    max_norm, the rows that x looks up are first renormalized in place (embedding_renorm_)."""
    if scale_grad_by_freq:
        raise NotImplementedError("embedding: scale_grad_by_freq is not supported")
    if max_norm is not None:
        embedding_renorm_(x, weight, max_norm, norm_type)
    return _C.embedding(x, weight, padding_idx, sparse)


def embedding_renorm_(x, weight, max_norm, norm_type=2.0):
    """Renormalizes, in place, the rows of weight that the ids in x pick: each row whose
    norm_type-norm exceeds max_norm is scaled by max_norm / (norm + 1e-7), so its norm becomes
    max_norm (paddle.nn.functional.embedding_renorm_). Rows that x does not pick, and rows within
    max_norm, are unchanged. The update records no autograd history.

    Args:
        x (Tensor): int32 or int64 ids, any shape; each in [-weight.shape[0], weight.shape[0]).
        weight (Tensor): The embedding table, 2-D [num_embeddings, dim], floating point.
        max_norm (float): The largest norm a picked row may keep.
        norm_type (float, optional): The p of the p-norm (0: count of nonzeros, inf: largest
            absolute value). Default: 2.0.

    Returns:
        Tensor: weight, updated in place.

    Examples:
        >>> import oar
        >>> w = oar.to_tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
        >>> _ = oar.nn.functional.embedding_renorm_(oar.to_tensor([0, 1]), w, max_norm=1.0)
        >>> print(w.numpy().round(4))
        [[0.6 0.8]
         [0.3 0.4]
         [6.  8. ]]
    """
    from ...autograd import no_grad
    from ...tensor import inplace, search
    api = "embedding_renorm_"
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"{api}: argument 'x' must be a Tensor of int ids, but received {type(x).__name__}")
    if not isinstance(weight, _C.Tensor):
        raise TypeError(f"{api}: argument 'weight' must be a Tensor, but received {type(weight).__name__}")
    if x.dtype.name not in _ID_DTYPES:
        raise TypeError(f"{api}: argument 'x' must be int32 or int64, but its dtype is {x.dtype.name}")
    if weight.dtype.name not in _FLOAT_DTYPES:
        raise TypeError(f"{api}: argument 'weight' must be a floating-point tensor, but its dtype is "
                        f"{weight.dtype.name}")
    if weight.ndim != 2:
        raise ValueError(f"{api}: argument 'weight' must be 2-D [num_embeddings, dim], but its shape is "
                         f"{list(weight.shape)}")
    for arg, v in (("max_norm", max_norm), ("norm_type", norm_type)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"{api}: argument '{arg}' must be a float, but received {type(v).__name__}")
    rows = weight.shape[0]
    with no_grad():
        ids = x.flatten()
        if ids.size == 0:
            return weight
        ids = ids.astype("int64")
        lo, hi = int(_C.min(ids).item()), int(_C.max(ids).item())
        if lo < -rows or hi >= rows:
            bad = lo if lo < -rows else hi
            raise ValueError(f"{api}: the ids in x must be in [-{rows}, {rows}) (weight has {rows} rows), "
                             f"but x holds {bad}")
        ids = search.unique(_C.where(ids < 0, ids + rows, ids))
        picked = _C.index_select(weight, ids, 0)
        norms = _C.p_norm(picked, float(norm_type), [1], True)
        scale = _C.where(norms > max_norm, float(max_norm) / (norms + 1e-7), _C.ones_like(norms))
        inplace.scatter_(weight, ids, picked * scale, True)
    return weight


def one_hot(x, num_classes=-1, name=None):
    """float32 one-hot vectors of the int class indices in x: shape x.shape + [num_classes]
    (num_classes=-1: the largest index + 1)."""
    num_classes = int(num_classes)
    if num_classes == -1:
        num_classes = int(_C.max(x).item()) + 1 if x.size else 0
    return _C.one_hot(x, num_classes)
