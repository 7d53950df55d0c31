"""TensorDataset, as paddle.io.TensorDataset: sample i is the tuple of every tensor's row i."""
from .dataset import Dataset
from .errors import IOTypeError, IOValueError


class TensorDataset(Dataset):
    """A dataset of tensors sharing their first dimension: sample i is the tuple of every tensor's
    row i.

    Args:
        tensors (list|tuple of Tensor): The tensors; their first dimensions must be equal.

    Examples:
        >>> import oar
        >>> features = oar.arange(6, dtype="float32").reshape([3, 2])
        >>> labels = oar.to_tensor([0, 1, 0])
        >>> dataset = oar.io.TensorDataset([features, labels])
        >>> x, y = dataset[1]
        >>> print(len(dataset), x.numpy(), int(y))
        3 [2. 3.] 1
    """

    def __init__(self, tensors):
        from .. import Tensor
        tensors = list(tensors) if isinstance(tensors, (list, tuple)) else tensors
        if not isinstance(tensors, list) or len(tensors) == 0:
            raise IOValueError(f"TensorDataset: expected 'tensors' to be a non-empty list of Tensors, "
                               f"got {tensors!r}")
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise IOTypeError(f"TensorDataset: expected tensors[{i}] to be a Tensor, got {type(t).__name__}")
            if t.ndim == 0:
                raise IOValueError(f"TensorDataset: tensors[{i}] is 0-D; every tensor needs a first "
                                   "dimension to index samples by")
        if not all(t.shape[0] == tensors[0].shape[0] for t in tensors):
            raise IOValueError("tensors not have same shape of the 1st dimension: got first dimensions "
                               f"{[t.shape[0] for t in tensors]}")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]
