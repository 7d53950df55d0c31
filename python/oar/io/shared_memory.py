"""Hands a batch's NumPy arrays from a worker to the main process through shared memory.

A worker writes all arrays of one batch into one file in /dev/shm (tmpfs: RAM, no disk) and sends
only a small description through the result queue: the file name and, per array, its dtype, shape
and offset. The main process maps the file, unlinks it at once (the pages live while mapped) and
wraps each array as an oar tensor without a copy (DLPack over the mapping), so the memory goes back
to the system when the last tensor of the batch dies. Files are named `<prefix>_<n>`, one prefix per
loader iterator, so the main process can remove every file a dead or stopped worker left behind.
"""
import glob
import mmap
import os
import tempfile
from collections.abc import Mapping

import numpy as np

_ALIGN = 64  # oar's allocator alignment: keeps every array well aligned for the kernels


def shm_dir():
    return "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()


def make_prefix(tag):
    return os.path.join(shm_dir(), f"oar_io_{os.getpid()}_{tag}")


class SharedArray:
    """Where one array lies in the batch's file (a leaf of the description)."""
    __slots__ = ("dtype", "shape", "offset")

    def __init__(self, dtype, shape, offset):
        self.dtype, self.shape, self.offset = dtype, shape, offset

    def __getstate__(self):
        return (self.dtype, self.shape, self.offset)

    def __setstate__(self, state):
        self.dtype, self.shape, self.offset = state


class SharedBatch:
    """A batch whose arrays lie in the file at `path`; `layout` is the batch with SharedArray leaves."""

    def __init__(self, path, size, layout):
        self.path, self.size, self.layout = path, size, layout


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


def write_batch(data, path):
    """Writes the arrays of `data` into a new file at `path`; returns its SharedBatch (or `data` itself
    when it holds no array)."""
    arrays = []
    layout, size = _layout(data, arrays, 0)
    if not arrays:
        return data
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.ftruncate(fd, max(size, 1))
        with mmap.mmap(fd, max(size, 1)) as mm:
            for arr, off in arrays:
                if arr.nbytes:
                    dst = np.ndarray(arr.shape, dtype=arr.dtype, buffer=mm, offset=off)
                    dst[...] = arr
                    del dst
    except BaseException:
        os.close(fd)
        os.unlink(path)
        raise
    os.close(fd)
    return SharedBatch(path, max(size, 1), layout)


def _to_tensors(layout, mm):
    from .. import from_dlpack, to_tensor
    if isinstance(layout, SharedArray):
        dtype = np.dtype(layout.dtype)
        arr = np.ndarray(layout.shape, dtype=dtype, buffer=mm, offset=layout.offset)
        if arr.size == 0 or dtype == np.bool_:
            return to_tensor(arr)  # nothing to share, or a dtype DLPack export may refuse
        return from_dlpack(arr)
    if isinstance(layout, Mapping):
        return {k: _to_tensors(v, mm) for k, v in layout.items()}
    if isinstance(layout, list):
        return [_to_tensors(v, mm) for v in layout]
    if isinstance(layout, (np.ndarray, np.number, np.bool_)):
        from .. import to_tensor
        return to_tensor(layout)
    return layout


def read_batch(batch):
    """The batch as oar tensors; the file is unlinked here, its memory freed with the last tensor."""
    if not isinstance(batch, SharedBatch):
        from .collate import numpy_to_tensors
        return numpy_to_tensors(batch)
    fd = os.open(batch.path, os.O_RDWR)
    try:
        # A private (copy-on-write) mapping: tensors may be written in place without touching the file.
        mm = mmap.mmap(fd, batch.size, flags=mmap.MAP_PRIVATE)
    finally:
        os.close(fd)
        os.unlink(batch.path)
    return _to_tensors(batch.layout, mm)


def discard_batch(batch):
    """Frees a batch that will not be read (a stale epoch, a shutdown)."""
    if isinstance(batch, SharedBatch):
        try:
            os.unlink(batch.path)
        except FileNotFoundError:
            pass


def remove_leftovers(prefix):
    """Removes every file under `prefix` (written by workers that stopped before handing it over)."""
    for path in glob.glob(glob.escape(prefix) + "_*"):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
