"""oar.io, as paddle.io: datasets, samplers and the DataLoader."""
from .batch_sampler import BatchSampler  # noqa: F401
from .combined_datasets import ChainDataset, ComposeDataset, ConcatDataset  # noqa: F401
from .dataloader import DataLoader  # noqa: F401
from .dataset import Dataset, IterableDataset  # noqa: F401
from .distributed_batch_sampler import DistributedBatchSampler  # noqa: F401
from .sampler import (RandomSampler, Sampler, SequenceSampler, SubsetRandomSampler,  # noqa: F401
                      WeightedRandomSampler)
from .subset import Subset, random_split  # noqa: F401
from .tensor_dataset import TensorDataset  # noqa: F401
from .worker import get_worker_info  # noqa: F401

__all__ = ['Dataset', 'IterableDataset', 'TensorDataset', 'ComposeDataset', 'ChainDataset', 'BatchSampler',
           'DistributedBatchSampler', 'DataLoader', 'get_worker_info', 'Sampler', 'SequenceSampler',
           'RandomSampler', 'WeightedRandomSampler', 'random_split', 'Subset', 'SubsetRandomSampler',
           'ConcatDataset']
