"""Dataset base classes, as paddle.io.Dataset and paddle.io.IterableDataset."""


class Dataset:
    """Base class of map-style datasets: samples are read by index.

    Subclasses implement ``__getitem__(idx)``, returning one sample (a tuple of numpy arrays,
    tensors or numbers, typically features and label), and ``__len__()``. DataLoader batches them.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> class Squares(oar.io.Dataset):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __getitem__(self, idx):
        ...         return np.array([idx], dtype="float32"), np.array(idx * idx)
        ...     def __len__(self):
        ...         return self.n
        >>> dataset = Squares(5)
        >>> print(len(dataset), dataset[3])
        5 (array([3.], dtype=float32), array(9))
    """

    def __getitem__(self, idx):
        raise NotImplementedError(f"'__getitem__' not implement in class {type(self).__name__}")

    def __len__(self):
        raise NotImplementedError(f"'__len__' not implement in class {type(self).__name__}")


class IterableDataset(Dataset):
    """Base class of stream-style datasets: samples come from iteration, with no index and no
    length.

    Subclasses implement ``__iter__()``. With worker processes every worker iterates its own copy
    of the dataset, so use ``oar.io.get_worker_info()`` to split the stream between them.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> class Counter(oar.io.IterableDataset):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __iter__(self):
        ...         for i in range(self.n):
        ...             yield np.array([i], dtype="float32")
        >>> loader = oar.io.DataLoader(Counter(5), batch_size=2)
        >>> print([batch.numpy().ravel().tolist() for batch in loader])
        [[0.0, 1.0], [2.0, 3.0], [4.0]]
    """

    def __iter__(self):
        raise NotImplementedError(f"'__iter__' not implement in class {type(self).__name__}")

    def __getitem__(self, idx):
        raise RuntimeError(f"'__getitem__' should not be called for IterableDataset {type(self).__name__}")

    def __len__(self):
        raise RuntimeError(f"'__len__' should not be called for IterableDataset {type(self).__name__}")
