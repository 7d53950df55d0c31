"""Dataset base classes, as paddle.io.Dataset and paddle.io.IterableDataset."""


class Dataset:
    """A map-style dataset: subclasses define __getitem__(idx) and __len__()."""

    def __getitem__(self, idx):
        raise NotImplementedError(f"'__getitem__' not implement in class {type(self).__name__}")

    def __len__(self):
        raise NotImplementedError(f"'__len__' not implement in class {type(self).__name__}")


class IterableDataset(Dataset):
    """A stream-style dataset: subclasses define __iter__(); there is no indexing and no length."""

    def __iter__(self):
        raise NotImplementedError(f"'__iter__' not implement in class {type(self).__name__}")

    def __getitem__(self, idx):
        raise RuntimeError(f"'__getitem__' should not be called for IterableDataset {type(self).__name__}")

    def __len__(self):
        raise RuntimeError(f"'__len__' should not be called for IterableDataset {type(self).__name__}")
