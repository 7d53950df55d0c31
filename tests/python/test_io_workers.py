"""oar.io.DataLoader with worker processes: same batches as in-process loading, worker info and
seeding, errors and dead workers, timeouts, shared-memory hand-over and clean shutdown."""
import multiprocessing
import os
import random
import signal
import sys

import numpy as np
import pytest

import oar
from oar.io import DataLoader, Dataset, IterableDataset, get_worker_info
from oar.io.dataloader_iter import MultiProcessIter
from oar.io.shared_memory import SlotBatch, shm_dir

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="worker processes use fork")


def _gone(pid):
    """The process has exited (a zombie waiting for a reaper counts as exited)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def _our_shm_files():
    return sorted(f for f in os.listdir(shm_dir()) if f.startswith(f"oar_io_{os.getpid()}_"))


@pytest.fixture(autouse=True)
def no_leaks():
    """Every test must leave no worker process and no shared-memory file behind."""
    before = _our_shm_files()
    yield
    assert multiprocessing.active_children() == []
    assert _our_shm_files() == before == []


class Records(Dataset):
    """Nested samples: arrays, numbers, strings, dicts."""

    def __init__(self, n=11, fail_at=None, mode=None):
        self.n, self.fail_at, self.mode = n, fail_at, mode

    def __getitem__(self, i):
        if i == self.fail_at:
            if self.mode == "raise":
                raise ValueError(f"bad sample {i}")
            if self.mode == "exit":
                os._exit(7)
            if self.mode == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            if self.mode == "hang":
                import time
                time.sleep(30)
        return {"x": np.arange(3, dtype=np.float32) + i, "y": i, "name": f"s{i}",
                "pair": (np.int32(i), np.array([[i, -i]], np.int64))}

    def __len__(self):
        return self.n


def _plain(batch):
    if isinstance(batch, oar.Tensor):
        return (str(batch.dtype), batch.numpy().tolist())
    if isinstance(batch, dict):
        return {k: _plain(v) for k, v in batch.items()}
    if isinstance(batch, list):
        return [_plain(v) for v in batch]
    return batch


@pytest.mark.parametrize("use_shared_memory", [True, False])
def test_workers_give_the_same_batches(use_shared_memory):
    ds = Records()
    ref = [_plain(b) for b in DataLoader(ds, batch_size=3)]
    got = [_plain(b) for b in DataLoader(ds, batch_size=3, num_workers=2, use_shared_memory=use_shared_memory)]
    assert got == ref and len(ref) == 4
    assert ref[0]["name"] == ["s0", "s1", "s2"]
    unbatched = [_plain(b) for b in DataLoader(ds, batch_size=None, num_workers=2)]
    assert unbatched == [_plain(b) for b in DataLoader(ds, batch_size=None)]


def test_shuffled_order_is_reproducible_and_matches_in_process():
    ds = Records(n=9)
    oar.seed(21)
    a = [b["y"].tolist() for b in DataLoader(ds, batch_size=2, shuffle=True, num_workers=2)]
    oar.seed(21)
    b = [b["y"].tolist() for b in DataLoader(ds, batch_size=2, shuffle=True, num_workers=0)]
    assert a == b and sorted(sum(a, [])) == list(range(9))


class Sharded(IterableDataset):
    """Splits range(start, end) between workers by get_worker_info, as Paddle's docs show."""

    def __init__(self, start, end):
        self.start, self.end = start, end

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            lo, hi = self.start, self.end
        else:
            per = -(-(self.end - self.start) // info.num_workers)
            lo = self.start + info.id * per
            hi = min(lo + per, self.end)
        for i in range(lo, hi):
            yield np.array([i], np.int64)


def test_iterable_dataset_sharded_by_workers():
    single = [b.numpy().ravel().tolist() for b in DataLoader(Sharded(0, 9), batch_size=2)]
    assert single == [[0, 1], [2, 3], [4, 5], [6, 7], [8]]
    multi = [b.numpy().ravel().tolist() for b in DataLoader(Sharded(0, 9), batch_size=2, num_workers=2)]
    # Batches come from the workers in turn (worker 0 holds 0..4, worker 1 holds 5..8), as in Paddle.
    assert multi == [[0, 1], [5, 6], [2, 3], [7, 8], [4]]
    flat = [int(b) for b in DataLoader(Sharded(0, 5), batch_size=None, num_workers=2)]
    assert flat == [0, 3, 1, 4, 2]


class Unsharded(IterableDataset):
    def __iter__(self):
        w = get_worker_info()
        for i in range(5):
            yield np.array([i * 10 + (w.id if w else 0)])


def test_iterable_dataset_each_worker_iterates_its_copy():
    # Paddle 3.3.1 gives exactly these batches for this dataset with 2 workers.
    got = [b.numpy().tolist() for b in DataLoader(Unsharded(), batch_size=2, num_workers=2)]
    assert got == [[[0], [10]], [[1], [11]], [[20], [30]], [[21], [31]], [[40]], [[41]]]
    got = [b.numpy().tolist() for b in DataLoader(Unsharded(), batch_size=2, num_workers=2, drop_last=True)]
    assert got == [[[0], [10]], [[1], [11]], [[20], [30]], [[21], [31]]]


_init_calls = []


class WhoAmI(Dataset):
    def __getitem__(self, i):
        info = get_worker_info()
        return np.array([info.id, info.num_workers, info.seed % 1000003, int(info.dataset is self),
                         _INIT_MARK.get("id", -1)], np.int64), random.random(), np.random.rand(), \
            float(oar.rand([1]))

    def __len__(self):
        return 8


_INIT_MARK = {}


def _init(worker_id):
    _INIT_MARK["id"] = worker_id


def test_worker_info_init_fn_and_seeds():
    with pytest.raises(RuntimeError, match="Cannot assign"):
        from oar.io.worker import WorkerInfo
        WorkerInfo(id=0).id = 1
    oar.seed(7)
    run1 = list(DataLoader(WhoAmI(), batch_size=2, num_workers=2, worker_init_fn=_init))
    info = [b[0].numpy() for b in run1]
    # tasks go to the workers in turn
    assert [int(r[0, 0]) for r in info] == [0, 1, 0, 1]
    assert all((r[:, 1] == 2).all() and (r[:, 3] == 1).all() for r in info)
    assert all((r[:, 4] == r[:, 0]).all() for r in info)  # worker_init_fn ran in each worker
    assert len({int(r[0, 2]) for r in info}) == 1  # seed: the iterator's base seed, as Paddle reports it
    draws = [tuple(b[k].numpy().tolist()) for b in run1 for k in (1, 2, 3)]
    assert len(set(draws)) == len(draws)  # workers draw different numbers (Python, NumPy, oar)
    oar.seed(7)
    run2 = list(DataLoader(WhoAmI(), batch_size=2, num_workers=2, worker_init_fn=_init))
    assert [_plain(b) for b in run1] == [_plain(b) for b in run2]  # reproducible under oar.seed
    assert get_worker_info() is None


def test_worker_exception_names_worker_and_carries_traceback():
    with pytest.raises(RuntimeError) as err:
        list(DataLoader(Records(fail_at=4, mode="raise"), batch_size=2, num_workers=2))
    msg = str(err.value)
    assert "DataLoader worker(0) caught ValueError" in msg
    assert "Traceback (most recent call last)" in msg and "bad sample 4" in msg and "__getitem__" in msg
    assert isinstance(err.value, ValueError)  # also the original type, as Paddle re-raises it


def _bad_init(worker_id):
    raise KeyError(f"init {worker_id}")


def test_worker_init_fn_exception():
    with pytest.raises(RuntimeError, match=r"DataLoader worker\(0\) caught KeyError"):
        list(DataLoader(Records(), batch_size=2, num_workers=2, worker_init_fn=_bad_init))


@pytest.mark.parametrize("mode,what", [("exit", "exit code 7"), ("kill", "killed by signal SIGKILL")])
def test_dead_worker_raises(mode, what):
    with pytest.raises(RuntimeError, match=f"DataLoader worker 0 .*{what}"):
        list(DataLoader(Records(fail_at=4, mode=mode), batch_size=2, num_workers=2))


def test_timeout_raises():
    with pytest.raises(RuntimeError, match="timed out"):
        list(DataLoader(Records(fail_at=2, mode="hang"), batch_size=2, num_workers=2, timeout=0.5))


def test_batches_travel_through_shared_memory():
    loader = DataLoader(Records(n=4), batch_size=2, num_workers=1)
    it = MultiProcessIter(loader)
    epoch, idx, wid, slot, payload = it._get_result(0)
    assert isinstance(payload, SlotBatch) and payload.slot == slot and os.path.exists(payload.path)
    assert payload.path.startswith(shm_dir())
    it._reorder[idx] = (wid, slot, payload)
    first = next(it)
    assert not os.path.exists(payload.path)  # unlinked once mapped; memory lives in the mappings
    np.testing.assert_array_equal(first["x"].numpy(), [[0, 1, 2], [1, 2, 3]])
    first["x"][0, 0] = 100.0  # batches are writable
    assert float(first["x"][0, 0]) == 100.0
    del it  # the second batch is still in flight: shutdown removes its file


def test_break_and_delete_clean_up():
    loader = DataLoader(Records(n=40), batch_size=2, num_workers=2, prefetch_factor=4)
    for i, _ in enumerate(loader):
        if i == 1:
            break
    it = iter(loader)
    next(it)
    pids = [w.pid for w in it._workers]
    del it
    assert all(_gone(pid) for pid in pids)


def test_persistent_workers():
    loader = DataLoader(Records(n=7), batch_size=3, num_workers=2, persistent_workers=True)
    e1 = [_plain(b) for b in loader]
    pids = [w.pid for w in loader._iterator._workers]
    e2 = [_plain(b) for b in loader]
    assert e1 == e2 and [w.pid for w in loader._iterator._workers] == pids
    for b in loader:
        break  # cut short: the next epoch must not see this one's batches
    assert [_plain(b) for b in loader] == e1
    it_loader = DataLoader(Unsharded(), batch_size=2, num_workers=2, persistent_workers=True)
    assert [b.numpy().tolist() for b in it_loader] == [b.numpy().tolist() for b in it_loader]
    del loader, it_loader


DTYPES = ["float16", "float32", "float64", "uint8", "int8", "int16", "int32", "int64", "bool", "complex64",
          "complex128"]


class AllDtypes(Dataset):
    def __getitem__(self, i):
        arrays = [(np.arange(3) + i).astype(d) for d in DTYPES]
        # a big-endian and a strided array are written out in native, contiguous form
        return arrays + [np.arange(4, dtype=">f4") * i, np.arange(6.0)[::2] + i, np.zeros((0, 2), np.float32)]

    def __len__(self):
        return 5


def test_every_dtype_through_workers():
    ref = [_plain(b) for b in DataLoader(AllDtypes(), batch_size=2)]
    got = [_plain(b) for b in DataLoader(AllDtypes(), batch_size=2, num_workers=2)]
    assert got == ref
    assert [d for d, _ in ref[0][:len(DTYPES)]] == [f"paddle.{d}" for d in DTYPES]


class BadCtorError(Exception):
    def __init__(self, a, b):
        super().__init__(a, b)


class RaisesOddError(Dataset):
    def __getitem__(self, i):
        raise BadCtorError(1, 2)

    def __len__(self):
        return 2


def test_exception_type_that_takes_no_message():
    with pytest.raises(RuntimeError, match=r"worker\(0\) caught BadCtorError"):
        list(DataLoader(RaisesOddError(), batch_size=1, num_workers=1))


def test_live_loader_at_interpreter_exit_leaves_nothing(tmp_path):
    import subprocess
    script = tmp_path / "exit_with_live_workers.py"
    script.write_text(
        "import os, numpy as np\n"
        "from oar.io import DataLoader, Dataset\n"
        "class D(Dataset):\n"
        "    def __getitem__(self, i): return np.zeros(1000, np.float32) + i\n"
        "    def __len__(self): return 100\n"
        "loader = DataLoader(D(), batch_size=2, num_workers=2, persistent_workers=True, prefetch_factor=8)\n"
        "it = iter(loader); next(it)\n"
        "print(os.getpid(), *[w.pid for w in it._workers])\n")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    main_pid, *worker_pids = map(int, out.stdout.split())
    assert not [f for f in os.listdir(shm_dir()) if f.startswith(f"oar_io_{main_pid}_")]
    assert all(_gone(pid) for pid in worker_pids)


def test_workers_leave_when_the_main_process_dies(tmp_path):
    import subprocess
    import time
    script = tmp_path / "die_with_live_workers.py"
    script.write_text(
        "import os, numpy as np\n"
        "from oar.io import DataLoader, Dataset\n"
        "class D(Dataset):\n"
        "    def __getitem__(self, i): return np.zeros(1000, np.float32) + i\n"
        "    def __len__(self): return 100\n"
        "it = iter(DataLoader(D(), batch_size=2, num_workers=2, prefetch_factor=8)); next(it)\n"
        "print(os.getpid(), *[w.pid for w in it._workers], flush=True)\n"
        "os._exit(0)\n")  # no atexit, no shutdown: the workers are on their own
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    main_pid, *worker_pids = map(int, out.stdout.split())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        alive = [pid for pid in worker_pids if not _gone(pid)]
        if not alive:
            break
        time.sleep(0.05)
    assert not alive
    assert not [f for f in os.listdir(shm_dir()) if f.startswith(f"oar_io_{main_pid}_")]


class Counting(Dataset):
    """Sample i is a 1000-float array filled with i (big enough that a batch needs a real slot)."""

    def __init__(self, n=40, grow=False):
        self.n, self.grow = n, grow

    def __getitem__(self, i):
        size = 1000 + (300 * (i // 2) if self.grow else 0)  # growing batches (of 2) regrow the slots
        return np.full(size, i, np.float32), np.int64(i)

    def __len__(self):
        return self.n


def _check_batch(batch, first, size=None):
    x, y = batch
    want = np.arange(first, first + x.shape[0])
    np.testing.assert_array_equal(y.numpy(), want)
    np.testing.assert_array_equal(x.numpy()[:, 0], want)
    np.testing.assert_array_equal(x.numpy()[:, -1], want)


@pytest.mark.parametrize("grow", [False, True])
def test_slots_are_reused_only_after_the_batch_is_freed(grow):
    loader = DataLoader(Counting(n=60, grow=grow), batch_size=2, num_workers=2, prefetch_factor=2)
    it = iter(loader)
    held = []
    for i, batch in enumerate(it):
        if i % 3 == 0:
            held.append((i, batch))  # kept alive: its slot must not be written again
        _check_batch(batch, 2 * i)
        del batch
    # Every batch the user kept still holds its own values.
    for i, batch in held:
        _check_batch(batch, 2 * i)
    # Batches that were dropped gave their slots back: far fewer slots than batches.
    assert it._shut and sum(it._slots._next_id) <= len(held) + 2 * 2 + 4


def test_a_kept_batch_outlives_the_loader():
    loader = DataLoader(Counting(n=20), batch_size=4, num_workers=2)
    it = iter(loader)
    kept = [next(it) for _ in range(2)]
    del it, loader  # shutdown with batches in flight and two in the user's hands
    assert _our_shm_files() == []
    _check_batch(kept[0], 0)
    _check_batch(kept[1], 4)
    kept[1][0][0, 0] = -1.0  # still writable memory
    assert float(kept[1][0][0, 0]) == -1.0


def test_ring_leaves_nothing_after_break_exception_and_del():
    loader = DataLoader(Counting(n=40), batch_size=2, num_workers=2, prefetch_factor=4)
    for i, batch in enumerate(loader):
        if i == 3:
            break
    del batch
    assert _our_shm_files() == []

    class Boom(Exception):
        pass

    with pytest.raises(Boom):
        for i, batch in enumerate(DataLoader(Counting(n=40), batch_size=2, num_workers=2)):
            if i == 2:
                raise Boom()
    del batch
    assert _our_shm_files() == []

    it = iter(DataLoader(Counting(n=40), batch_size=2, num_workers=2, prefetch_factor=4))
    next(it)
    pids = [w.pid for w in it._workers]
    del it
    assert _our_shm_files() == [] and all(_gone(pid) for pid in pids)


def test_persistent_workers_keep_their_slots_across_epochs():
    loader = DataLoader(Counting(n=24), batch_size=4, num_workers=2, persistent_workers=True)
    for _ in range(3):
        for i, batch in enumerate(loader):
            _check_batch(batch, 4 * i)
        for i, batch in enumerate(loader):
            if i == 1:
                break  # cut short: stale batches come back later and give their slots back
    slots = loader._iterator._slots
    assert sum(slots._next_id) <= 12
    del loader, batch


def _worker_slot_mappings(pid, prefix):
    with open(f"/proc/{pid}/maps") as f:
        return sum(1 for line in f if prefix in line)


@pytest.mark.host_only  # held host batches keep their shared-memory slots; on a device, batches are copies
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/<pid>/maps")
def test_slots_taken_while_batches_were_held_are_given_up():
    loader = DataLoader(Counting(n=80), batch_size=2, num_workers=2, persistent_workers=True)
    held = list(loader)  # 20 batches per worker alive at once: 20 slots each
    it = loader._iterator
    slots, pids, prefix = it._slots, [w.pid for w in it._workers], it._shm_prefix
    assert all(slots.n_mapped(w) >= 20 for w in range(2))
    assert all(_worker_slot_mappings(pid, prefix) >= 20 for pid in pids)
    for i, batch in enumerate(held):
        _check_batch(batch, 2 * i)
    del held, batch
    for i, batch in enumerate(loader):  # the next epoch gives up what it does not need
        _check_batch(batch, 2 * i)
    bound = (2 + 2) + 2 + 2  # kept free (prefetch_factor + 2), in flight, held by the loop
    assert all(slots.n_mapped(w) <= bound for w in range(2))
    assert all(_worker_slot_mappings(pid, prefix) <= bound for pid in pids)
    del loader, batch, it


class KillsItself(Dataset):
    """Item 6 notes the time in `stamp` and kills its worker."""

    def __init__(self, stamp):
        self.stamp = stamp

    def __getitem__(self, i):
        import time
        if i == 6:
            self.stamp.write_text(repr(time.time()))
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(0.01)
        return np.float32(i)

    def __len__(self):
        return 100


def test_killed_worker_raises_at_once(tmp_path, monkeypatch):
    import time
    from oar.io import dataloader_iter
    # The worker's exit must wake the main process, not the next poll: with the poll interval made
    # 60 s, only a wake-up on the worker's exit raises within seconds (a wall-clock bound near the
    # real 0.25 s interval would fail on a loaded or sanitized run).
    monkeypatch.setattr(dataloader_iter, "_POLL_INTERVAL", 60.0)
    stamp = tmp_path / "killed_at"
    with pytest.raises(RuntimeError, match="killed by signal SIGKILL"):
        for _ in DataLoader(KillsItself(stamp), batch_size=2, num_workers=2):
            pass
    assert time.time() - float(stamp.read_text()) < 20


def test_full_shared_memory_raises_and_leaves_no_file(monkeypatch):
    import errno
    from oar.io import shared_memory

    def no_space(fd, offset, size):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(shared_memory.os, "posix_fallocate", no_space)  # forked workers inherit it
    with pytest.raises(OSError, match=r"(?s)worker\(0\) caught OSError.*No space left on device"):
        list(DataLoader(Counting(n=8), batch_size=2, num_workers=2))


class Unpicklable(Dataset):
    def __getitem__(self, i):
        return {"x": np.float32(i), "fn": lambda: i}  # a lambda cannot travel back to the main process

    def __len__(self):
        return 4


@pytest.mark.parametrize("use_shared_memory", [True, False])
def test_a_batch_that_cannot_be_pickled_raises(use_shared_memory):
    with pytest.raises(RuntimeError, match=r"worker\(0\) caught"):
        list(DataLoader(Unpicklable(), batch_size=2, num_workers=2, collate_fn=lambda b: b,
                        use_shared_memory=use_shared_memory))
