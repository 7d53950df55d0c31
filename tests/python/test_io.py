"""oar.io datasets, samplers, collate and the single-process DataLoader.

Expected index lists marked "Paddle 3.3.1" were measured with the real paddle.io on the same inputs.
"""
import warnings

import numpy as np
import pytest

import oar
from oar.io import (BatchSampler, ChainDataset, ComposeDataset, ConcatDataset, DataLoader, Dataset,
                    DistributedBatchSampler, IterableDataset, RandomSampler, Sampler, SequenceSampler,
                    Subset, SubsetRandomSampler, TensorDataset, WeightedRandomSampler, get_worker_info,
                    random_split)


class Range(Dataset):
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return i

    def __len__(self):
        return self.n


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        for i in range(self.n):
            yield np.array([i, -i], np.int64)


class Samples(Dataset):
    def __init__(self, make, n=5):
        self.make, self.n = make, n

    def __getitem__(self, i):
        return self.make(i)

    def __len__(self):
        return self.n


# -- datasets -----------------------------------------------------------------------------------
def test_dataset_bases_raise():
    with pytest.raises(NotImplementedError):
        Dataset()[0]
    with pytest.raises(NotImplementedError):
        len(Dataset())
    with pytest.raises(RuntimeError):
        Stream(2)[0]
    with pytest.raises(RuntimeError):
        len(Stream(2))


def test_tensor_dataset():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    y = np.arange(4, dtype=np.int64)
    ds = TensorDataset([oar.to_tensor(x), oar.to_tensor(y)])
    assert len(ds) == 4
    a, b = ds[2]
    np.testing.assert_array_equal(a.numpy(), x[2])
    assert int(b) == 2
    with pytest.raises(AssertionError, match="1st dimension"):
        TensorDataset([oar.to_tensor(x), oar.to_tensor(np.arange(3))])
    with pytest.raises(TypeError):
        TensorDataset([x])


def test_compose_chain_concat():
    comp = ComposeDataset([Samples(lambda i: (i, i * 2)), Samples(lambda i: i * 10)])
    assert len(comp) == 5 and comp[3] == (3, 6, 30)
    with pytest.raises(AssertionError, match="lengths of datasets should be same"):
        ComposeDataset([Range(3), Range(4)])
    with pytest.raises(AssertionError, match="IterableDataset"):
        ComposeDataset([Stream(3)])
    with pytest.raises(ValueError, match="empty"):
        ComposeDataset([])

    chain = ChainDataset([Stream(2), Stream(3)])
    assert [int(s[0]) for s in chain] == [0, 1, 0, 1, 2]
    with pytest.raises(TypeError, match="IterableDataset"):
        ChainDataset([Range(2)])

    cat = ConcatDataset([Range(3), Range(4)])
    # Paddle 3.3.1: [0, 1, 2, 0, 1, 2, 3], cat[-1] == 3, cumulative_sizes == [3, 7]
    assert [cat[i] for i in range(7)] == [0, 1, 2, 0, 1, 2, 3]
    assert cat[-1] == 3 and cat.cumulative_sizes == [3, 7] and len(cat) == 7
    with pytest.raises(ValueError, match="absolute value of index"):
        cat[-8]
    with pytest.raises(IndexError):
        cat[7]
    with pytest.raises(TypeError):
        ConcatDataset([Stream(1)])


def test_subset_and_random_split():
    sub = Subset(Range(10), [7, 2, 5])
    assert len(sub) == 3 and [sub[i] for i in range(3)] == [7, 2, 5]

    oar.seed(11)
    parts = random_split(Range(10), [3, 7])
    assert [len(p) for p in parts] == [3, 7]
    got = sorted(p[i] for p in parts for i in range(len(p)))
    assert got == list(range(10))  # a partition
    oar.seed(11)
    again = random_split(Range(10), [3, 7])
    assert [list(p.indices) for p in again] == [list(p.indices) for p in parts]
    # Paddle 3.3.1 split sizes for fractions: the remainder goes to the first splits in turn.
    assert [len(p) for p in random_split(Range(10), [0.3, 0.3, 0.4])] == [3, 3, 4]
    assert [len(p) for p in random_split(Range(11), [0.5, 0.5])] == [6, 5]
    assert [len(p) for p in random_split(Range(10), [0.33, 0.33, 0.34])] == [4, 3, 3]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert [len(p) for p in random_split(Range(2), [0.1, 0.1, 0.8])] == [1, 0, 1]
        assert any("is 0" in str(x.message) for x in w)
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(Range(10), [3, 3])
    with pytest.raises(TypeError):
        random_split(Range(10), [3, "7"])


def test_random_split_uses_oar_rng():
    oar.seed(3)
    perm = oar.randperm(6).tolist()
    oar.seed(3)
    a, b = random_split(Range(6), [2, 4])
    assert list(a.indices) + list(b.indices) == perm


# -- samplers -----------------------------------------------------------------------------------
def test_sampler_base_and_sequence():
    with pytest.raises(NotImplementedError):
        iter(Sampler(Range(3))).__next__()
    s = SequenceSampler(Range(4))
    assert list(s) == [0, 1, 2, 3] and len(s) == 4


def test_random_sampler():
    oar.seed(1)
    perm = oar.randperm(8).tolist()
    oar.seed(1)
    s = RandomSampler(Range(8))
    assert list(s) == perm and len(s) == 8
    oar.seed(1)
    assert list(RandomSampler(Range(8), num_samples=3)) == perm[:3]
    oar.seed(2)
    r = list(RandomSampler(Range(4), replacement=True, num_samples=50))
    assert len(r) == 50 and set(r) <= {0, 1, 2, 3} and len(set(r)) == 4
    oar.seed(2)
    assert list(RandomSampler(Range(4), replacement=True, num_samples=50)) == r
    gen = iter([3, 1, 2])
    assert list(RandomSampler(Range(4), num_samples=4, generator=gen)) == [3, 1, 2]  # stops with it
    with pytest.raises(TypeError, match="replacement"):
        RandomSampler(Range(4), replacement=1)
    with pytest.raises(ValueError, match="num_samples should be smaller"):
        RandomSampler(Range(4), num_samples=5)
    with pytest.raises(ValueError, match="positive integer"):
        RandomSampler(Range(4), replacement=True, num_samples=0)


def test_weighted_random_sampler():
    oar.seed(4)
    s = WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 400)
    idx = list(s)
    assert len(idx) == 400 == len(s) and set(idx) == {1, 3}
    assert 0.6 < idx.count(3) / 400 < 0.9
    no_repl = list(WeightedRandomSampler(np.array([1.0, 1.0, 1.0]), 3, replacement=False))
    assert sorted(no_repl) == [0, 1, 2]
    two = WeightedRandomSampler(oar.to_tensor(np.array([[1.0, 0.0], [0.0, 1.0]])), 3)
    assert len(two) == 6 and list(two) == [0, 0, 0, 1, 1, 1]
    with pytest.raises(ValueError, match="positive integer"):
        WeightedRandomSampler([1.0], 0)
    with pytest.raises(ValueError, match="boolean"):
        WeightedRandomSampler([1.0], 1, replacement="yes")
    with pytest.raises(ValueError, match="positive value"):
        list(WeightedRandomSampler([-1.0, 2.0], 1))
    with pytest.raises(ValueError, match="should not less than num_samples"):
        list(WeightedRandomSampler([1.0, 0.0], 2, replacement=False))


def test_subset_random_sampler():
    oar.seed(9)
    perm = oar.randperm(4).tolist()
    oar.seed(9)
    s = SubsetRandomSampler([10, 20, 30, 40])
    assert list(s) == [[10, 20, 30, 40][i] for i in perm] and len(s) == 4
    with pytest.raises(ValueError, match="greater than 0"):
        SubsetRandomSampler([])


def test_batch_sampler():
    assert list(BatchSampler(Range(7), batch_size=3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(BatchSampler(Range(7), batch_size=3, drop_last=True)) == [[0, 1, 2], [3, 4, 5]]
    # Paddle 3.3.1: lengths 4 and 3; a plain iterable sampler
    assert len(BatchSampler(Range(10), batch_size=3)) == 4
    assert len(BatchSampler(Range(10), batch_size=3, drop_last=True)) == 3
    assert list(BatchSampler(sampler=[5, 4, 3, 2, 1], batch_size=2)) == [[5, 4], [3, 2], [1]]
    oar.seed(0)
    perm = oar.randperm(6).tolist()
    oar.seed(0)
    assert list(BatchSampler(Range(6), shuffle=True, batch_size=4)) == [perm[:4], perm[4:]]
    with pytest.raises(AssertionError, match="either dataset or sampler"):
        BatchSampler()
    with pytest.raises(AssertionError, match="should not set both"):
        BatchSampler(Range(3), sampler=[0])
    with pytest.raises(AssertionError, match="shuffle should be False"):
        BatchSampler(sampler=[0], shuffle=True)
    with pytest.raises(ValueError, match="batch_size should be a positive integer"):
        BatchSampler(Range(3), batch_size=0)
    with pytest.raises(TypeError, match="drop_last"):
        BatchSampler(Range(3), drop_last=1)
    with pytest.raises(TypeError, match="IterableDataset"):
        BatchSampler(Stream(3))


# Paddle 3.3.1: (n, batch_size, num_replicas, shuffle, drop_last, rank) -> (first epoch, second epoch)
PADDLE_DISTRIBUTED = {
    (10, 3, 3, False, False, 0): ([[0, 1, 2], [9]], [[0, 1, 2], [9]]),
    (10, 3, 3, False, False, 1): ([[3, 4, 5], [0]], [[3, 4, 5], [0]]),
    (10, 3, 3, False, False, 2): ([[6, 7, 8], [1]], [[6, 7, 8], [1]]),
    (10, 3, 3, True, False, 0): ([[6, 1, 4], [3]], [[2, 3, 4], [9]]),
    (10, 3, 3, True, False, 1): ([[0, 2, 8], [0]], [[0, 1, 6], [8]]),
    (10, 3, 3, True, False, 2): ([[1, 7, 9], [5]], [[0, 7, 1], [5]]),
    (7, 2, 2, True, True, 0): ([[6, 2], [3, 0]], [[0, 2], [0, 4]]),
    (7, 2, 2, True, True, 1): ([[1, 0], [5, 4]], [[1, 6], [3, 5]]),
    (5, 4, 4, False, False, 0): ([[0, 1]], [[0, 1]]),
    (5, 4, 4, False, False, 3): ([[1, 2]], [[1, 2]]),
    (11, 2, 1, True, False, 0): ([[4, 9], [2, 10], [6, 1], [7, 8], [3, 0], [5]],
                                 [[2, 3], [4, 9], [1, 6], [0, 7], [10, 8], [5]]),
}


@pytest.mark.parametrize("key", list(PADDLE_DISTRIBUTED))
def test_distributed_batch_sampler_matches_paddle(key):
    n, bs, nr, shuffle, drop_last, rank = key
    s = DistributedBatchSampler(Range(n), bs, num_replicas=nr, rank=rank, shuffle=shuffle, drop_last=drop_last)
    assert (list(s), list(s)) == PADDLE_DISTRIBUTED[key]
    assert len(s) == len(PADDLE_DISTRIBUTED[key][0])


def test_distributed_batch_sampler_single_process_and_epoch():
    s = DistributedBatchSampler(Range(5), 2)
    assert s.nranks == 1 and s.local_rank == 0
    assert list(s) == [[0, 1], [2, 3], [4]]
    s = DistributedBatchSampler(Range(11), 2, shuffle=True)
    s.set_epoch(1)
    second = list(s)
    s.set_epoch(1)
    assert list(s) == second == PADDLE_DISTRIBUTED[(11, 2, 1, True, False, 0)][1]
    with pytest.raises(ValueError, match="num_replicas"):
        DistributedBatchSampler(Range(5), 2, num_replicas=0)
    with pytest.raises(ValueError, match="rank"):
        DistributedBatchSampler(Range(5), 2, rank=-1)
    with pytest.raises(ValueError, match="batch_size"):
        DistributedBatchSampler(Range(5), 0)
    # Every rank's share together covers the dataset, padded by wrapping around.
    shares = [sum(DistributedBatchSampler(Range(7), 2, num_replicas=3, rank=r), []) for r in range(3)]
    assert sorted(sum(shares, [])) == [0, 0, 1, 1, 2, 3, 4, 5, 6]


# -- collate and the single-process DataLoader -------------------------------------------------
def _leaves(batch):
    if isinstance(batch, oar.Tensor):
        return ("T", str(batch.dtype), list(batch.shape), batch.numpy().tolist())
    if isinstance(batch, dict):
        return {k: _leaves(v) for k, v in batch.items()}
    if isinstance(batch, list):
        return [_leaves(v) for v in batch]
    return batch


# Paddle 3.3.1, DataLoader(Samples(f), batch_size=2): the first batch of each kind of sample.
PADDLE_FIRST_BATCH = {
    "int": ("T", "paddle.int64", [2], [0, 1]),
    "float": ("T", "paddle.float64", [2], [0.0, 0.5]),
    "numpy": ("T", "paddle.float32", [2, 2], [[0.0, 0.0], [1.0, 1.0]]),
    "tuple": [("T", "paddle.int32", [2], [0, 1]), ["a0", "a1"]],
    "dict": {"x": ("T", "paddle.int64", [2], [0, 1]),
             "y": [("T", "paddle.int64", [2], [0, 1]), ("T", "paddle.int64", [2], [1, 2])],
             "s": ["s", "s"]},
    "tensor": ("T", "paddle.int64", [2, 2], [[0, 0], [1, 1]]),
    "bool": ("T", "paddle.bool", [2], [True, False]),
    "numpy_scalar": ("T", "paddle.float64", [2], [0.0, 1.0]),
}
SAMPLE_MAKERS = {
    "int": lambda i: i,
    "float": lambda i: i * 0.5,
    "numpy": lambda i: np.full((2,), i, np.float32),
    "tuple": lambda i: (np.int32(i), "a" + str(i)),
    "dict": lambda i: {"x": i, "y": [i, i + 1], "s": "s"},
    "tensor": lambda i: oar.to_tensor([i, i]),
    "bool": lambda i: i % 2 == 0,
    "numpy_scalar": lambda i: np.float64(i),
}


@pytest.mark.parametrize("kind", list(SAMPLE_MAKERS))
def test_default_collate_matches_paddle(kind):
    batches = list(DataLoader(Samples(SAMPLE_MAKERS[kind]), batch_size=2))
    assert len(batches) == 3
    assert _leaves(batches[0]) == PADDLE_FIRST_BATCH[kind]


def test_collate_errors():
    with pytest.raises(RuntimeError, match="fields number not same"):
        list(DataLoader(Samples(lambda i: [0] * (i + 1)), batch_size=2))
    with pytest.raises(TypeError, match="batch data con only contains"):
        list(DataLoader(Samples(lambda i: None), batch_size=2))


def test_dataloader_map_style_options():
    ds = Samples(lambda i: np.array([i], np.int64), n=7)
    assert [b.numpy().ravel().tolist() for b in DataLoader(ds, batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(DataLoader(ds, batch_size=3)) == 3 and len(DataLoader(ds, batch_size=3, drop_last=True)) == 2
    oar.seed(5)
    perm = oar.randperm(7).tolist()
    oar.seed(5)
    shuffled = [b.numpy().ravel().tolist() for b in DataLoader(ds, batch_size=7, shuffle=True)]
    assert shuffled == [perm]
    bs = BatchSampler(sampler=[6, 0, 3], batch_size=2)
    assert [b.numpy().ravel().tolist() for b in DataLoader(ds, batch_sampler=bs)] == [[6, 0], [3]]
    # no batching: samples one by one, arrays as tensors
    unbatched = list(DataLoader(ds, batch_size=None))
    assert len(DataLoader(ds, batch_size=None)) == 7 and len(unbatched) == 7
    assert isinstance(unbatched[4], oar.Tensor) and unbatched[4].numpy().tolist() == [4]
    # a custom collate_fn; a tuple result comes back as a list (as Paddle's loader returns it)
    out = list(DataLoader(ds, batch_size=2, collate_fn=lambda b: (np.stack(b), len(b))))
    assert isinstance(out[0], list) and out[0][1] == 2 and out[0][0].shape == [2, 1]
    assert [b.numpy().ravel().tolist() for b in DataLoader(ds, batch_size=4)()] == [[0, 1, 2, 3], [4, 5, 6]]


def test_dataloader_iterable_style():
    assert [b.numpy().tolist() for b in DataLoader(Stream(3), batch_size=2)] == [[[0, 0], [1, -1]], [[2, -2]]]
    assert [b.numpy().tolist() for b in DataLoader(Stream(3), batch_size=2, drop_last=True)] == [[[0, 0], [1, -1]]]
    assert [b.numpy().tolist() for b in DataLoader(Stream(2), batch_size=None)] == [[0, 0], [1, -1]]
    assert get_worker_info() is None


def test_dataloader_argument_errors():
    ds = Range(4)
    with pytest.raises(ValueError, match="num_workers should be a non-negative value"):
        DataLoader(ds, num_workers=-1)
    with pytest.raises(AssertionError):
        DataLoader(ds, num_workers=-1)  # Paddle asserts; ours is both
    with pytest.raises(TypeError, match="num_workers"):
        DataLoader(ds, num_workers="2")
    with pytest.raises(ValueError, match="batch_size/shuffle/drop_last should not be set"):
        DataLoader(ds, batch_size=2, batch_sampler=BatchSampler(ds))
    with pytest.raises(ValueError, match="batch_size should be None or a positive value"):
        DataLoader(ds, batch_size=0)
    with pytest.raises(ValueError, match="timeout should be a non-negative value"):
        DataLoader(ds, timeout=-1)
    with pytest.raises(ValueError, match="prefetch_factor should be a positive value"):
        DataLoader(ds, prefetch_factor=0)
    with pytest.raises(ValueError, match="IterableDataset not support shuffle"):
        DataLoader(Stream(2), shuffle=True)
    with pytest.raises(ValueError, match="expect unspecified batch_sampler"):
        DataLoader(Stream(2), batch_sampler=BatchSampler(ds))
    with pytest.raises(ValueError, match="length of IterableDataset not supported"):
        len(DataLoader(Stream(2)))
    with pytest.raises(TypeError, match="collate_fn"):
        DataLoader(ds, collate_fn=3)


def test_public_names_match_paddle_3_3():
    import oar.io as io
    # paddle.io.__all__ in Paddle 3.3.1
    assert sorted(io.__all__) == sorted([
        'Dataset', 'IterableDataset', 'TensorDataset', 'ComposeDataset', 'ChainDataset', 'BatchSampler',
        'DistributedBatchSampler', 'DataLoader', 'get_worker_info', 'Sampler', 'SequenceSampler',
        'RandomSampler', 'WeightedRandomSampler', 'random_split', 'Subset', 'SubsetRandomSampler',
        'ConcatDataset'])
    for name in io.__all__:
        assert hasattr(io, name)
