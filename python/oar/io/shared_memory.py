"""Hands a batch's NumPy arrays from a worker to the main process through a ring of shared-memory slots.

Each worker owns a set of slots: files in /dev/shm (tmpfs: RAM, no disk), each mapped once by the
worker and once by the main process and reused for batch after batch, so a batch costs one copy into
memory both sides already have mapped (no file to create, no page to fault in, no mapping to undo).
The main process picks a free slot for every task it sends; the worker writes the batch's arrays
into it and sends back only a small description: the slot, its generation and, per array, dtype,
shape and offset. The main process wraps the arrays as oar tensors without a copy (DLPack over its
mapping) and takes the slot back when the last tensor viewing it is freed, so a batch the user keeps
stays intact; while batches are held, new tasks get new slots. Free slots beyond a few are given up
(both sides unmap them), so memory taken once is not kept for the rest of the loader's life.

A slot's file is created by the worker (named `<prefix>_w<worker>_s<slot>_g<generation>`, one prefix
per loader iterator) and unlinked by the main process as soon as it has mapped it: the pages live on
in the two mappings, and nothing is left in /dev/shm even when every process is killed. A batch too
big for its slot makes the worker replace the slot's file by a bigger one (the next generation).
Files written but never mapped (a shutdown mid-epoch, a dead worker) are removed by prefix.
"""
import errno
import glob
import mmap
import os
import tempfile
import weakref
from collections.abc import Mapping

import numpy as np

_ALIGN = 64  # oar's allocator alignment: keeps every array well aligned for the kernels
_PAGE = mmap.PAGESIZE


def shm_dir():
    return "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()


def make_prefix(tag):
    return os.path.join(shm_dir(), f"oar_io_{os.getpid()}_{tag}")


class SharedArray:
    """Where one array lies in the slot (a leaf of the description)."""
    __slots__ = ("dtype", "shape", "offset")

    def __init__(self, dtype, shape, offset):
        self.dtype, self.shape, self.offset = dtype, shape, offset

    def __getstate__(self):
        return (self.dtype, self.shape, self.offset)

    def __setstate__(self, state):
        self.dtype, self.shape, self.offset = state


class SlotBatch:
    """A batch written into slot `slot` (file `path`, generation `gen`, `size` bytes); `layout` is the
    batch with SharedArray leaves."""
    __slots__ = ("slot", "gen", "path", "size", "layout")

    def __init__(self, slot, gen, path, size, layout):
        self.slot, self.gen, self.path, self.size, self.layout = slot, gen, path, size, layout

    def __getstate__(self):
        return (self.slot, self.gen, self.path, self.size, self.layout)

    def __setstate__(self, state):
        self.slot, self.gen, self.path, self.size, self.layout = state


def _layout(data, arrays, offset):
    # Replaces arrays by SharedArray leaves, collecting (array, offset); returns (layout, end offset).
    if isinstance(data, np.ndarray) and data.dtype != object:
        leaf = SharedArray(data.dtype.str, data.shape, offset)
        arrays.append((data, offset))
        return leaf, offset + (data.nbytes + _ALIGN - 1) // _ALIGN * _ALIGN
    if isinstance(data, Mapping):
        out = {}
        for k, v in data.items():
            out[k], offset = _layout(v, arrays, offset)
        return out, offset
    if isinstance(data, (list, tuple)):
        out = []
        for v in data:
            leaf, offset = _layout(v, arrays, offset)
            out.append(leaf)
        return out, offset
    return data, offset


def _create_file(path, size):
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        try:
            # Reserves the pages now: a full /dev/shm raises OSError here instead of SIGBUS later.
            os.posix_fallocate(fd, 0, size)
        except (AttributeError, OSError) as e:
            if isinstance(e, OSError) and e.errno not in (errno.EOPNOTSUPP, errno.EINVAL):
                raise  # ENOSPC and the like; the others mean the file system cannot preallocate
            os.ftruncate(fd, size)
        return mmap.mmap(fd, size)
    except BaseException:
        os.unlink(path)
        raise
    finally:
        os.close(fd)


class SlotWriter:
    """A worker's side of its ring: the slots it has mapped, and writing a batch into one."""

    def __init__(self, prefix, worker_id):
        self._prefix, self._worker_id = prefix, worker_id
        self._slots = {}  # slot -> (generation, size, mmap)

    def drop(self, slots):
        """Unmaps slots the main process gave up (their files are already unlinked)."""
        for slot in slots:
            entry = self._slots.pop(slot, None)
            if entry is not None:
                entry[2].close()

    def write(self, data, slot):
        """Writes the arrays of `data` into `slot`; returns its SlotBatch (or `data` itself when it holds
        no array, leaving the slot unused)."""
        arrays = []
        layout, size = _layout(data, arrays, 0)
        if not arrays:
            return data
        size = max(size, 1)
        gen, cap, mm = self._slots.get(slot, (-1, 0, None))
        if size > cap:
            # A new generation: at least 1.5x the old size, so slowly growing batches rarely regrow.
            cap = -(-max(size, cap * 3 // 2) // _PAGE) * _PAGE
            new_mm = _create_file(self._path(slot, gen + 1), cap)
            if mm is not None:
                mm.close()
            gen, mm = gen + 1, new_mm
            self._slots[slot] = (gen, cap, mm)
        for arr, off in arrays:
            if arr.nbytes:
                dst = np.ndarray(arr.shape, dtype=arr.dtype, buffer=mm, offset=off)
                dst[...] = arr
                del dst
        return SlotBatch(slot, gen, self._path(slot, gen), cap, layout)

    def _path(self, slot, gen):
        return f"{self._prefix}_w{self._worker_id}_s{slot}_g{gen}"


class SlotReader:
    """The main process's side of every worker's ring: which slots are free, the mappings, and turning
    a SlotBatch into tensors that hold their slot until they are freed."""

    def __init__(self, num_workers, keep_free):
        # Released slots per worker. A plain list: the release callback appends to it from wherever
        # the last tensor of a batch dies, and holds nothing else (no reference to the iterator).
        self._free = [[] for _ in range(num_workers)]
        self._keep_free = keep_free
        self._next_id = [0] * num_workers
        self._maps = {}  # (worker, slot) -> (generation, mmap)

    def acquire(self, wid):
        """(slot, dropped): a free slot of worker `wid` for its next task (a new one when all are
        taken), and the free slots beyond `keep_free` that the worker should unmap (this side has)."""
        free = self._free[wid]
        dropped = []
        if len(free) > self._keep_free:
            # The oldest releases go: reuse takes the newest (LIFO), whose pages are the warmest.
            # The release callback only appends at the end, so cutting the front is safe.
            dropped = free[:len(free) - self._keep_free]
            del free[:len(dropped)]
            for slot in dropped:
                self._maps.pop((wid, slot), None)
        if free:
            return free.pop(), dropped
        self._next_id[wid] += 1
        return self._next_id[wid] - 1, dropped

    def release(self, wid, slot):
        """Gives back a slot whose batch was not handed out (an error, a stale epoch, no arrays)."""
        self._free[wid].append(slot)

    def n_mapped(self, wid):
        """How many of worker `wid`'s slots this process has mapped."""
        return sum(1 for w, _ in self._maps if w == wid)

    def _mapping(self, wid, batch):
        key = (wid, batch.slot)
        entry = self._maps.get(key)
        if entry is None or entry[0] != batch.gen:
            fd = os.open(batch.path, os.O_RDWR)
            try:
                mm = mmap.mmap(fd, batch.size)
            finally:
                os.close(fd)
                os.unlink(batch.path)
            # The previous generation's mapping goes with its last view (none is left: the slot was free).
            entry = self._maps[key] = (batch.gen, mm)
        return entry[1]

    def read(self, wid, batch):
        """The batch as oar tensors viewing the slot; the slot is free again once they are all freed."""
        mm = self._mapping(wid, batch)
        # One array object per hand-out over the whole slot: every tensor of the batch keeps it alive
        # (through its view), so its death means the slot is no longer viewed.
        whole = np.frombuffer(mm, np.uint8, count=batch.size)
        release = weakref.finalize(whole, self._free[wid].append, batch.slot)
        release.atexit = False
        return _to_tensors(batch.layout, whole)

    def discard(self, wid, batch):
        """Takes back the slot of a batch that will not be handed out (mapped, so its file goes)."""
        self._mapping(wid, batch)
        self.release(wid, batch.slot)

    def close(self):
        # Mappings still viewed by tensors live on with them; the rest are unmapped with the objects.
        self._maps = {}


def _to_tensors(layout, whole):
    from .. import _C, to_tensor
    if isinstance(layout, SharedArray):
        dtype = np.dtype(layout.dtype)
        arr = np.ndarray(layout.shape, dtype=dtype, buffer=whole, offset=layout.offset)
        if arr.size == 0 or dtype == np.bool_:
            return to_tensor(arr)  # nothing to share, or a dtype DLPack export may refuse
        return _C._from_array(arr, False)  # shares the memory, keeps `arr` (and `whole`) alive
    if isinstance(layout, Mapping):
        return {k: _to_tensors(v, whole) for k, v in layout.items()}
    if isinstance(layout, list):
        return [_to_tensors(v, whole) for v in layout]
    if isinstance(layout, (np.ndarray, np.number, np.bool_)):
        return to_tensor(layout)
    return layout


def remove_leftovers(prefix):
    """Removes every file under `prefix` (written by workers but never mapped by the main process)."""
    for path in glob.glob(glob.escape(prefix) + "_*"):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
