"""oar.io, as paddle.io: datasets, samplers and the DataLoader."""
from .dataset import Dataset, IterableDataset  # noqa: F401
