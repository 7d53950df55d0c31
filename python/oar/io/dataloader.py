"""DataLoader, as paddle.io.DataLoader: iterates a dataset in batches, in this process or in worker
processes."""
from .batch_sampler import BatchSampler, InfiniteIterableSampler
from .collate import default_collate_fn, default_convert_fn
from .dataloader_iter import MultiProcessIter, SingleProcessIter
from .dataset import IterableDataset
from .errors import IOTypeError, IOValueError
from .sampler import RandomSampler, SequenceSampler


def _check_int(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, int):
        raise IOTypeError(f"DataLoader: expected '{name}' to be an int, got {type(value).__name__} ({value!r})")
    if value < minimum:
        what = "a non-negative" if minimum == 0 else "a positive"
        raise IOValueError(f"{name} should be {what} value, but got {name}={value}")


def _loader_place(places):
    """The place key batches go to: the first of `places`, else the expected place now."""
    from .. import _C
    from ..framework.place import placement_key
    if places is None:
        return _C._get_device()
    if isinstance(places, (list, tuple)):
        if not places:
            raise IOValueError("DataLoader: 'places' is an empty list")
        places = places[0]
    return placement_key("DataLoader", places)


class DataLoader:
    """Iterates over a dataset in batches, in this process or in worker processes.

    For a map-style dataset, indices come from ``batch_sampler`` or from a BatchSampler built
    with batch_size, shuffle and drop_last; the samples of each batch are read and merged by
    ``collate_fn`` (the default stacks numpy arrays / tensors / numbers field by field into
    tensors). An IterableDataset is read in order and batched the same way. ``len(loader)`` is the
    number of batches.

    Args:
        dataset (Dataset|IterableDataset): The data.
        feed_list (list, optional): Accepted for Paddle's signature (static-graph feeding).
            Default: None.
        places (Place|list, optional): Accepted for Paddle's signature. Default: None.
        return_list (bool, optional): Accepted for Paddle's signature; batches are lists.
            Default: True.
        batch_sampler (BatchSampler, optional): Yields the lists of indices of the batches; then
            batch_size, shuffle and drop_last must keep their defaults. Default: None.
        batch_size (int|None, optional): Samples per batch; None yields samples unbatched.
            Default: 1.
        shuffle (bool, optional): Shuffle the indices every epoch. Default: False.
        drop_last (bool, optional): Drop the last batch when it is short. Default: False.
        collate_fn (callable, optional): Merges a list of samples into a batch. Default: None.
        num_workers (int, optional): Worker processes reading samples; 0 reads in this process.
            Default: 0.
        use_buffer_reader (bool, optional): Accepted for Paddle's signature. Default: True.
        reader_buffer_size (int, optional): Accepted for Paddle's signature. Default: 2.
        prefetch_factor (int, optional): Batches each worker prepares ahead. Default: 2.
        use_shared_memory (bool, optional): Pass worker batches through shared memory.
            Default: True.
        timeout (float, optional): Seconds to wait for a worker's batch; 0 waits forever.
            Default: 0.
        worker_init_fn (callable, optional): Called with the worker id in each worker at start.
            Default: None.
        persistent_workers (bool, optional): Keep the workers alive between epochs.
            Default: False.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> class Squares(oar.io.Dataset):
        ...     def __getitem__(self, idx):
        ...         return np.array([idx], dtype="float32"), np.array(idx * idx)
        ...     def __len__(self):
        ...         return 5
        >>> loader = oar.io.DataLoader(Squares(), batch_size=2)
        >>> print(len(loader))
        3
        >>> for x, y in loader:
        ...     print(x.shape, y.numpy())
        [2, 1] [0 1]
        [2, 1] [4 9]
        [1, 1] [16]
    """

    def __init__(self, dataset, feed_list=None, places=None, return_list=True, batch_sampler=None,
                 batch_size=1, shuffle=False, drop_last=False, collate_fn=None, num_workers=0,
                 use_buffer_reader=True, reader_buffer_size=2, prefetch_factor=2, use_shared_memory=True,
                 timeout=0, worker_init_fn=None, persistent_workers=False):
        _check_int("num_workers", num_workers, 0)
        _check_int("prefetch_factor", prefetch_factor, 1)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            raise IOTypeError(f"DataLoader: expected 'timeout' to be a number, got {type(timeout).__name__}")
        if timeout < 0:
            raise IOValueError(f"timeout should be a non-negative value, but got timeout={timeout}")
        if collate_fn is not None and not callable(collate_fn):
            raise IOTypeError(f"DataLoader: expected 'collate_fn' to be callable, got {type(collate_fn).__name__}")
        if worker_init_fn is not None and not callable(worker_init_fn):
            raise IOTypeError("DataLoader: expected 'worker_init_fn' to be callable, got "
                              f"{type(worker_init_fn).__name__}")
        # Batches arrive on `places` (the first, for a list), else on the expected place when the
        # loader is made, as in Paddle. feed_list is kept for Paddle's signature (no static-graph
        # feeding), and the worker pipeline is the buffer.
        self.feed_list = feed_list
        self.places = places
        self._place_key = _loader_place(places)
        self.return_list = return_list
        self.use_buffer_reader = use_buffer_reader
        self.reader_buffer_size = reader_buffer_size

        self.dataset = dataset
        self.collate_fn = collate_fn
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.use_shared_memory = bool(use_shared_memory) and num_workers > 0
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self._persistent_workers = persistent_workers
        self._is_iterable = isinstance(dataset, IterableDataset)

        if self._is_iterable:
            if shuffle:
                raise ValueError(f"IterableDataset not support shuffle, but got shuffle={shuffle}")
            if batch_sampler is not None:
                raise ValueError("IterableDataset expect unspecified batch_sampler")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or drop_last:
                raise IOValueError("batch_size/shuffle/drop_last should not be set when batch_sampler is "
                                   f"given (got batch_size={batch_size}, shuffle={shuffle}, "
                                   f"drop_last={drop_last})")
            self.batch_sampler = batch_sampler
            self.batch_size = None
        elif batch_size is None:
            self.batch_sampler = None
            self.batch_size = None
        else:
            if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
                raise IOValueError("batch_size should be None or a positive value when batch_sampler is "
                                   f"not given, but got batch_size={batch_size!r}")
            self.batch_size = batch_size
            if self._is_iterable:
                self.batch_sampler = InfiniteIterableSampler(dataset, batch_size)
            else:
                self.batch_sampler = BatchSampler(dataset=dataset, batch_size=batch_size, shuffle=shuffle,
                                                  drop_last=drop_last)
        self.drop_last = drop_last
        self.auto_collate_batch = self.batch_sampler is not None
        # Without batching, a map-style dataset is read one index at a time in sampler order.
        self._sample_sampler = None
        if not self.auto_collate_batch and not self._is_iterable:
            self._sample_sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        if collate_fn is not None:
            self._collate = collate_fn
        else:
            self._collate = default_collate_fn if self.auto_collate_batch else default_convert_fn
        self._iterator = None

    def __len__(self):
        if self._is_iterable:
            raise ValueError("length of IterableDataset not supported")
        if self.auto_collate_batch:
            return len(self.batch_sampler)
        return len(self.dataset)

    def __iter__(self):
        if self.num_workers == 0:
            return SingleProcessIter(self)
        if self._persistent_workers:
            if self._iterator is None or self._iterator._shut:
                self._iterator = MultiProcessIter(self)
            else:
                self._iterator._reset()
            return self._iterator
        return MultiProcessIter(self)

    def __call__(self):
        return self.__iter__()

    def __del__(self):
        it = getattr(self, "_iterator", None)
        if it is not None:
            it._shutdown()

