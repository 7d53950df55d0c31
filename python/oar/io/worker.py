"""The DataLoader's worker process: WorkerInfo, get_worker_info, the worker loop and how a worker's
exception travels back to the main process."""
import os
import queue
import random
import sys
import traceback
from multiprocessing.reduction import ForkingPickler

import numpy as np

from .collate import tensors_to_numpy
from .shared_memory import SlotWriter, remove_leftovers

_worker_info = None


class WorkerInfo:
    """What a worker knows about itself: id, num_workers, dataset (its own copy) and seed (the
    iterator's base seed; the worker's RNGs are seeded with seed + id). Read-only once made."""
    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {type(self).__name__} objects")
        super().__setattr__(key, val)

    def __repr__(self):
        return f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed})"


def get_worker_info():
    """Information about the DataLoader worker process this code runs in.

    Returns:
        WorkerInfo|None: in a worker, an object with ``id`` (0 to num_workers - 1),
        ``num_workers``, ``dataset`` (the worker's copy) and ``seed``; None in the main process.
        An IterableDataset uses it to give each worker its own part of the stream.

    Examples:
        >>> import oar
        >>> print(oar.io.get_worker_info())
        None
    """
    return _worker_info


class WorkerError:
    """An exception raised in a worker, carried to the main process as its type and traceback text."""

    def __init__(self, worker_id):
        exc_type, exc, tb = sys.exc_info()
        self.worker_id = worker_id
        self.exc_type = exc_type
        self.text = "".join(traceback.format_exception(exc_type, exc, tb))

    def __reduce__(self):
        # The type travels by reference when it is importable; a local class degrades to its name.
        try:
            import pickle
            pickle.dumps(self.exc_type)
            exc_type = self.exc_type
        except Exception:
            exc_type = RuntimeError
        return (_rebuild_worker_error, (self.worker_id, exc_type, self.text))

    def reraise(self):
        msg = (f"DataLoader worker({self.worker_id}) caught {self.exc_type.__name__} with message:\n"
               f"{self.text}")
        try:
            err = _worker_exception_class(self.exc_type)(msg)
        except Exception:  # a type whose constructor wants more than a message
            err = RuntimeError(msg)
        raise err


def _rebuild_worker_error(worker_id, exc_type, text):
    err = WorkerError.__new__(WorkerError)
    err.worker_id, err.exc_type, err.text = worker_id, exc_type, text
    return err


def _worker_exception_class(exc_type):
    # A RuntimeError that is also the original type (when the two can share a layout), so both
    # `except RuntimeError` and Paddle-style `except <original type>` catch it.
    if issubclass(exc_type, RuntimeError) or not issubclass(exc_type, Exception):
        return exc_type if issubclass(exc_type, RuntimeError) else RuntimeError
    try:
        return type(f"DataLoaderWorker{exc_type.__name__}", (exc_type, RuntimeError), {})
    except TypeError:
        return RuntimeError


class IterableExhausted:
    """A worker's answer for a task its IterableDataset copy has no more samples for."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


def seed_worker(base_seed, worker_id):
    """Seeds the worker's RNGs (Python's, NumPy's and oar's) from the base seed and its id."""
    from .. import seed
    s = base_seed + worker_id
    random.seed(s)
    seed(s)
    np.random.seed(np.random.SeedSequence([base_seed & 0xFFFFFFFFFFFFFFFF, worker_id]).generate_state(4))


def _fetch_map(dataset, indices, auto_collate, collate_fn):
    if auto_collate:
        return collate_fn([dataset[i] for i in indices])
    return collate_fn(dataset[indices])


def _fetch_iterable(it, batch_size_or_none, drop_last, collate_fn):
    # One batch (or one sample when batching is off) from the worker's iterator; None when exhausted.
    if batch_size_or_none is None:
        try:
            return collate_fn(next(it))
        except StopIteration:
            return None
    samples = []
    for _ in range(batch_size_or_none):
        try:
            samples.append(next(it))
        except StopIteration:
            break
    if not samples or (drop_last and len(samples) < batch_size_or_none):
        return None
    return collate_fn(samples)


def _send(conn, message):
    # Pickled here, so a result that cannot be pickled (use_shared_memory=False) travels as an error.
    try:
        payload = ForkingPickler.dumps(message)
    except Exception:
        payload = ForkingPickler.dumps(message[:4] + (WorkerError(message[2]),))
    conn.send_bytes(payload)


def worker_loop(spec, worker_id, index_queue, result_conn, done_event, parent_pid, foreign):
    """Runs in the worker process: answers (epoch, batch_index, indices, slot, dropped_slots) tasks with
    (epoch, batch_index, worker_id, slot, result) on its own result pipe until told to stop (a None
    task or done_event) or the main process is gone. `foreign`: pipe ends that fork copied here but
    that belong to the main process or other workers; closed first."""
    global _worker_info
    from .. import set_num_threads
    for conn in foreign:
        conn.close()
    # OpenMP's thread pool does not survive fork: a forked child that enters a parallel region
    # hangs, so a worker runs oar's kernels on one thread.
    set_num_threads(1)
    # Devices do not survive fork either (CUDA refuses a forked child): a worker makes host
    # tensors, which the main process moves.
    from .. import _C
    _C._set_device("cpu")
    seed_worker(spec.base_seed, worker_id)
    _worker_info = WorkerInfo(id=worker_id, num_workers=spec.num_workers, dataset=spec.dataset,
                              seed=spec.base_seed)
    init_error = None
    if spec.worker_init_fn is not None:
        try:
            spec.worker_init_fn(worker_id)
        except Exception:
            init_error = WorkerError(worker_id)
    ring = SlotWriter(spec.shm_prefix, worker_id) if spec.use_shared_memory else None
    epoch, it, exhausted = None, None, False
    try:
        while not done_event.is_set():
            try:
                task = index_queue.get(timeout=0.2)
            except queue.Empty:
                if os.getppid() != parent_pid:
                    # Orphaned: the main process died and cannot remove the files it never mapped.
                    remove_leftovers(spec.shm_prefix)
                    break
                continue
            if task is None:
                break
            task_epoch, batch_index, indices, slot, dropped = task
            if dropped:
                ring.drop(dropped)
            if init_error is not None:
                _send(result_conn, (task_epoch, batch_index, worker_id, slot, init_error))
                continue
            try:
                if spec.iterable:
                    if task_epoch != epoch:  # a new epoch: a fresh pass over this worker's copy
                        epoch, it, exhausted = task_epoch, iter(spec.dataset), False
                    data = None if exhausted else _fetch_iterable(it, spec.batch_size, spec.drop_last,
                                                                  spec.collate_fn)
                    if data is None:
                        exhausted = True
                        _send(result_conn, (task_epoch, batch_index, worker_id, slot,
                                            IterableExhausted(worker_id)))
                        continue
                else:
                    data = _fetch_map(spec.dataset, indices, spec.auto_collate, spec.collate_fn)
                data = tensors_to_numpy(data)
                result = ring.write(data, slot) if ring is not None else data
            except Exception:
                result = WorkerError(worker_id)
            _send(result_conn, (task_epoch, batch_index, worker_id, slot, result))
    except KeyboardInterrupt:
        pass  # the main process handles Ctrl-C; the worker just leaves
    except OSError:
        # The result pipe broke: the main process is gone or closed it; leave nothing behind.
        if os.getppid() != parent_pid:
            remove_leftovers(spec.shm_prefix)
    finally:
        result_conn.close()
