"""Inputs of paddle.nn.functional: embedding and one_hot."""
from ... import _C

__all__ = ["embedding", "one_hot"]


def embedding(x, weight, padding_idx=None, max_norm=None, norm_type=2.0, sparse=False,
              scale_grad_by_freq=False, name=None):
    """Rows of weight [num_embeddings, dim] picked by the int ids in x; lookups of padding_idx
    give zeros and no gradient. The gradient of weight is dense (sparse is accepted)."""
    if max_norm is not None or scale_grad_by_freq:
        raise NotImplementedError("embedding: max_norm and scale_grad_by_freq are not supported")
    return _C.embedding(x, weight, padding_idx, sparse)


def one_hot(x, num_classes=-1, name=None):
    """float32 one-hot vectors of the int class indices in x: shape x.shape + [num_classes]
    (num_classes=-1: the largest index + 1)."""
    num_classes = int(num_classes)
    if num_classes == -1:
        num_classes = int(_C.max(x).item()) + 1 if x.size else 0
    return _C.one_hot(x, num_classes)
