"""oar.io against the real paddle.io, live, where the behaviour is deterministic."""
import numpy as np
import pytest

import oar
import oar.io as oio

paddle = pytest.importorskip("paddle")
pio = paddle.io


def _sized(io, n):
    class Range(io.Dataset):
        def __getitem__(self, i):
            return i

        def __len__(self):
            return n
    return Range()


@pytest.mark.parametrize("n,bs,nr,shuffle,drop_last", [
    (10, 3, 3, False, False), (10, 3, 3, True, False), (7, 2, 2, True, True), (5, 4, 4, False, False),
    (11, 2, 1, True, False), (23, 4, 3, True, False), (3, 2, 5, False, True), (16, 5, 2, True, True)])
def test_distributed_batch_sampler(n, bs, nr, shuffle, drop_last):
    for rank in range(nr):
        ours = oio.DistributedBatchSampler(_sized(oio, n), bs, num_replicas=nr, rank=rank, shuffle=shuffle,
                                           drop_last=drop_last)
        theirs = pio.DistributedBatchSampler(_sized(pio, n), bs, num_replicas=nr, rank=rank, shuffle=shuffle,
                                             drop_last=drop_last)
        assert len(ours) == len(theirs)
        for epoch in range(3):
            assert list(ours) == list(theirs), (rank, epoch)
        ours.set_epoch(5)
        theirs.set_epoch(5)
        assert list(ours) == list(theirs)


@pytest.mark.parametrize("n,bs,drop_last", [(10, 3, False), (10, 3, True), (4, 4, False), (1, 3, True)])
def test_batch_and_sequence_samplers(n, bs, drop_last):
    ours = oio.BatchSampler(_sized(oio, n), batch_size=bs, drop_last=drop_last)
    theirs = pio.BatchSampler(_sized(pio, n), batch_size=bs, drop_last=drop_last)
    assert list(ours) == list(theirs) and len(ours) == len(theirs)
    assert list(oio.BatchSampler(sampler=range(n), batch_size=bs)) == \
        list(pio.BatchSampler(sampler=range(n), batch_size=bs))
    assert list(oio.SequenceSampler(_sized(oio, n))) == list(pio.SequenceSampler(_sized(pio, n)))


def test_combined_datasets_and_split_lengths():
    def samples(io):
        class S(io.Dataset):
            def __getitem__(self, i):
                return (i, "a") if i % 2 else [i]

            def __len__(self):
                return 4
        return S()
    oc, pc = oio.ComposeDataset([samples(oio), samples(oio)]), pio.ComposeDataset([samples(pio), samples(pio)])
    assert [oc[i] for i in range(4)] == [pc[i] for i in range(4)]
    ocat = oio.ConcatDataset([_sized(oio, 2), _sized(oio, 3), _sized(oio, 1)])
    pcat = pio.ConcatDataset([_sized(pio, 2), _sized(pio, 3), _sized(pio, 1)])
    assert [ocat[i] for i in range(-6, 6)] == [pcat[i] for i in range(-6, 6)]
    for n, lengths in [(10, [0.3, 0.3, 0.4]), (11, [0.5, 0.5]), (10, [0.33, 0.33, 0.34]), (7, [2, 5])]:
        assert [len(s) for s in oio.random_split(_sized(oio, n), lengths)] == \
            [len(s) for s in pio.random_split(_sized(pio, n), lengths)]
    w = np.array([[1.0, 2.0, 0.5], [3.0, 4.0, 0.0]])
    assert len(oio.WeightedRandomSampler(w, 4)) == len(pio.WeightedRandomSampler(w, 4))


def _structure(batch, mod):
    if isinstance(batch, mod.Tensor):
        return ("T", str(batch.dtype), list(batch.shape), batch.numpy().tolist())
    if isinstance(batch, dict):
        return {k: _structure(v, mod) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return (type(batch).__name__, [_structure(v, mod) for v in batch])
    return (type(batch).__name__, batch)


MAKERS = [
    lambda i, m: i,
    lambda i, m: i * 0.25,
    lambda i, m: np.full((2, 1), i, np.float32),
    lambda i, m: (np.int32(i), "a" + str(i), np.float64(i)),
    lambda i, m: {"x": i, "y": [i, (i + 1) * 0.5], "s": "s", "b": i % 2 == 0},
    lambda i, m: m.to_tensor([i, i]),
    lambda i, m: [np.arange(3, dtype=np.int16) + i, {"k": np.uint8(i)}],
]


@pytest.mark.parametrize("k", range(len(MAKERS)))
def test_collated_structure(k):
    def run(mod):
        class S(mod.io.Dataset):
            def __getitem__(self, i):
                return MAKERS[k](i, mod)

            def __len__(self):
                return 5
        return [_structure(b, mod) for b in mod.io.DataLoader(S(), batch_size=2)]
    assert run(oar) == run(paddle)


@pytest.mark.parametrize("kwargs", [dict(num_workers=-1), dict(prefetch_factor=0), dict(timeout=-1),
                                    dict(batch_size=0), dict(batch_size=2, batch_sampler=[[0]])])
def test_argument_errors_catchable_as_paddle_raises(kwargs):
    with pytest.raises(Exception) as theirs:
        pio.DataLoader(_sized(pio, 3), **kwargs)
    with pytest.raises(type(theirs.value)):
        oio.DataLoader(_sized(oio, 3), **kwargs)
